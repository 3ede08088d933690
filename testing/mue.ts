import { join } from 'node:path';
import type { MueRow } from '../datasets/_ncci_mue/mue.js';
import { REPO_ROOT } from './shared.js';

/** The MUE seed files: the six July 2026 tables (and the April practitioner table for quarter picks). */
export const MUE_SEEDS = {
  ncci_mue_prac: join(REPO_ROOT, 'seeds/ncci_mue_prac/2026Q3/MCR_MUE_PractitionerServices_Eff_07-01-2026.csv'),
  ncci_mue_prac_q2: join(REPO_ROOT, 'seeds/ncci_mue_prac/2026Q2/MCR_MUE_PractitionerServices_Eff_04-01-2026.csv'),
  ncci_mue_hosp: join(REPO_ROOT, 'seeds/ncci_mue_hosp/MCR_MUE_OutpatientHospitalServices_Eff_07-01-2026.csv'),
  ncci_mue_dme: join(REPO_ROOT, 'seeds/ncci_mue_dme/MCR_MUE_DMESupplierServices_Eff_07-01-2026.csv'),
  medicaid_mue_prac: join(REPO_ROOT, 'seeds/medicaid_mue_prac/MCD_MUE_Practitioner_Services_2026Q3.csv'),
  medicaid_mue_hosp: join(REPO_ROOT, 'seeds/medicaid_mue_hosp/MCD_MUE_Outpatient_Hospital_Services_2026Q3.csv'),
  medicaid_mue_dme: join(REPO_ROOT, 'seeds/medicaid_mue_dme/MCD_MUE_DME_Supplier_Services_2026Q3.csv'),
};

/**
 * 0001U as CMS publishes it in the July 2026 practitioner MUE table: the seed copies the row and
 * the real excerpt in ../shared/data holds it, so the dataset test and the conformance suite expect
 * the same row.
 */
export const PRACTITIONER_0001U_2026Q3: MueRow = {
  proc_cd: '0001U',
  mue_type: 'practitioner',
  mue_value: 1,
  mue_adj_ind: 2,
  mue_adj_ind_label: 'Date of Service Edit: Policy',
  mue_rationale: 'Code Descriptor / CPT Instruction',
};

/**
 * The header row of a CMS MUE table for `setting` ('Practitioner Services', ...), with the quoted
 * newline CMS puts in the code cell; Medicaid tables have no adjudication indicator column.
 */
export function mueHeader(setting: string, program: 'medicare' | 'medicaid' = 'medicare'): string {
  return `"HCPCS/\nCPT Code",${setting} MUE Values,${program === 'medicare' ? 'MUE Adjudication Indicator,' : ''}MUE Rationale\r\n`;
}
