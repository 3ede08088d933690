import { z } from 'zod';
import { table } from '../_shared/table.js';
import { detectSheet, parseSheets, sfyVersion, type SheetLayout } from '../_medi_cal/sheet.js';
import { defineMultiTableDataset, type ParsedItem } from '../types.js';

const money = (what: string) => z.number().nullable().describe(`${what}, dollars`);

/** One hospital of DHCS's DRG hospital characteristics list for a fiscal year. */
export const MediCalHospitalRowSchema = z.object({
  oshpd_id: z.string().describe('OSHPD (now HCAI) facility id, 9 digits'),
  provider_name: z.string(),
  designated_nicu: z.boolean().describe('the hospital has a designated neonatal intensive care unit'),
  dph: z.boolean().describe('designated public hospital'),
  ndph: z.boolean().describe('non-designated public hospital'),
  oshpd_rural_hospital: z.boolean().describe('rural hospital (OSHPD/HCAI designation)'),
  dhcs_designated_remote_rural: z.boolean().describe('DHCS designated remote rural hospital: priced from the remote rural base price'),
  cost_to_charge_ratio: z.number().describe('hospital cost-to-charge ratio used to estimate a stay cost from its charges'),
  wage_index: z.number().describe('Medicare wage area index of the hospital'),
  ca_neutrality_adjusted_wage_index: z.number().describe('the wage index after the California wage area neutrality adjustment (the index the base price is adjusted by)'),
  unadjusted_base_rate: z.number().describe('DRG base rate before the wage area adjustment, dollars'),
  wage_adjusted_base_rate: z.number().describe('DRG base rate after the wage area adjustment, dollars, as the list publishes it'),
  rehab_rate: money('rehabilitation per diem rate'),
  admin1_rate: money('administrative day level 1 per diem rate'),
  admin2_level_190_rate: money('administrative day level 2 per diem rate, revenue code 190'),
  admin2_level_199_rate: money('administrative day level 2 per diem rate, revenue code 199'),
  illustrative: z.boolean().describe('the sheet is marked illustrative (the seeds): not DHCS figures'),
});
export type MediCalHospitalRow = z.infer<typeof MediCalHospitalRowSchema>;

/** The dataset id, spelled once: the main table and its sheet are named like it. */
const ID = 'medi_cal_hospitals';

/** The declared sheet (README "Layout"); every header inferred. */
export const HOSPITAL_SHEET: SheetLayout = {
  table: ID,
  schema: MediCalHospitalRowSchema,
  columns: [
    { header: 'OSHPD ID', aliases: ['HCAI ID', 'OSHPD_ID', 'OSHPD Facility ID'], field: 'oshpd_id', kind: 'text', required: true, pattern: /^\d{9}$/ },
    { header: 'Provider Name', aliases: ['Hospital Name', 'Facility Name'], field: 'provider_name', kind: 'text', required: true },
    { header: 'Designated NICU', aliases: ['NICU'], field: 'designated_nicu', kind: 'flag', required: true },
    { header: 'DPH', aliases: ['Designated Public Hospital'], field: 'dph', kind: 'flag', required: true },
    { header: 'NDPH', aliases: ['Non-Designated Public Hospital'], field: 'ndph', kind: 'flag', required: true },
    { header: 'OSHPD Rural Hospital', aliases: ['Rural', 'Rural Hospital'], field: 'oshpd_rural_hospital', kind: 'flag', required: true },
    { header: 'DHCS Designated Remote Rural', aliases: ['Remote Rural'], field: 'dhcs_designated_remote_rural', kind: 'flag', required: true },
    { header: 'Cost-to-Charge Ratio', aliases: ['Cost to Charge Ratio', 'CCR'], field: 'cost_to_charge_ratio', kind: 'number', required: true, min: 0, max: 10 },
    { header: 'Wage Index', aliases: ['Wage Area Index'], field: 'wage_index', kind: 'number', required: true, above: 0 },
    { header: 'CA Neutrality Adjusted Wage Index', aliases: ['Wage Index Adjusted for CA Neutrality', 'California Neutrality Adjusted Wage Index'], field: 'ca_neutrality_adjusted_wage_index', kind: 'number', required: true, above: 0 },
    { header: 'Unadjusted Base Rate', aliases: ['Unadjusted DRG Base Rate'], field: 'unadjusted_base_rate', kind: 'number', required: true, min: 0 },
    { header: 'Wage Adjusted Base Rate', aliases: ['Wage Adjusted DRG Base Rate', 'Wage-Adjusted Base Rate'], field: 'wage_adjusted_base_rate', kind: 'number', required: true, min: 0 },
    { header: 'Rehab Rate', aliases: ['Rehabilitation Rate'], field: 'rehab_rate', kind: 'number', min: 0 },
    { header: 'Admin Day Level 1 Rate', aliases: ['Administrative Day Level 1 Rate'], field: 'admin1_rate', kind: 'number', min: 0 },
    { header: 'Admin Day Level 2 Rate Rev 190', aliases: ['Administrative Day Level 2 Rate Revenue Code 190'], field: 'admin2_level_190_rate', kind: 'number', min: 0 },
    { header: 'Admin Day Level 2 Rate Rev 199', aliases: ['Administrative Day Level 2 Rate Revenue Code 199'], field: 'admin2_level_199_rate', kind: 'number', min: 0 },
  ],
};

/**
 * DHCS's DRG hospital characteristics list for a state fiscal year (one row per hospital, as a
 * CSV export of the sheet or the workbook). Version: the SFY of the title line or file name.
 */
export const mediCalHospitals = defineMultiTableDataset({
  id: ID,
  title: 'Medi-Cal DRG hospital characteristics for a state fiscal year: designations, cost-to-charge ratio, wage index, base and per diem rates',
  publisher: 'California DHCS (Medi-Cal DRG payment method)',
  formats: ['the hospital list sheet as CSV (title line "State Fiscal Year YYYY-YY", header OSHPD ID, Provider Name, Designated NICU, ...)', 'an .xlsx workbook whose name says Hospital (every sheet with that header is read)'],
  tables: [table(ID, MediCalHospitalRowSchema, ['oshpd_id'], ['illustrative'])],
  detect: (s) => detectSheet([HOSPITAL_SHEET], s, /hospital/i),
  version: sfyVersion,
  parse: (file): AsyncIterable<ParsedItem<Record<string, unknown>>> => parseSheets(file, [HOSPITAL_SHEET], 'OSHPD ID, Provider Name, Designated NICU, DPH, NDPH, ...'),
});
