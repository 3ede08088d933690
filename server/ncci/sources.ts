import type { DatasetId } from '../../datasets/registry.js';
import { MEDICAID_MUE_IDS, MEDICARE_MUE_IDS } from '../../datasets/_ncci_mue/queries.js';
import type { MueType } from '../../datasets/_ncci_mue/mue.js';
import type { PtpDatasetId } from '../../datasets/_ncci_ptp/queries.js';
import type { PayerRow } from '../../datasets/payers/schema.js';
import { ncciEditSetOf } from '../payers/service.js';

/** The NCCI files that answer one payer's claims in one setting. */
export interface NcciSources {
  /** Medicare NCCI or the Medicaid NCCI edit set (the payer's `ncci_edit_set`). */
  program: 'medicare' | 'medicaid';
  setting: 'prac' | 'hosp';
  ptp: PtpDatasetId;
  mueType: Extract<MueType, 'practitioner' | 'hosp-op'>;
  mue: DatasetId;
  /** What the answer should say about the choice (Medicare files as a commercial payer's reference, ...). */
  warning?: string;
}

/**
 * The one place a payer and a setting become NCCI files (the PTP route, the claim check): no
 * payer means Medicare; a Medicaid program reads the Medicaid PTP and MUE files.
 */
export function ncciSources(payer: PayerRow | null, setting: 'prac' | 'hosp'): NcciSources {
  const { editSet: program, warning } = payer ? ncciEditSetOf(payer) : { editSet: 'medicare' as const, warning: undefined };
  const mueType = setting === 'prac' ? 'practitioner' : 'hosp-op';
  return {
    program,
    setting,
    ptp: `${program === 'medicaid' ? 'medicaid' : 'ncci'}_ptp_${setting}`,
    mueType,
    mue: (program === 'medicaid' ? MEDICAID_MUE_IDS : MEDICARE_MUE_IDS)[mueType],
    ...(warning ? { warning } : {}),
  };
}
