import { z } from 'zod';
import { IngestError } from '../_shared/issue.js';
import { normHeader } from '../_shared/header.js';
import { table, type TableSpec } from '../_shared/table.js';
import { detectSheet, parseSheets, sfyVersion, type SheetLayout } from '../_medi_cal/sheet.js';
import { defineMultiTableDataset, type ParsedItem } from '../types.js';

/**
 * The year's payment parameters, one row each on the parameters sheet (`Parameter, Value,
 * Source`). `label` is how the sheet names it (matched normalised; `aliases` are other spellings),
 * the key is the name the calculator and the API use. Shares and percentages are fractions
 * (`62%` and `0.62` both load as 0.62).
 */
export const POLICY_PARAMETERS = {
  statewide_base_price: { label: 'Statewide Base Price', aliases: ['Statewide APR-DRG Base Price'], min: 0 },
  remote_rural_base_price: { label: 'Remote Rural Base Price', aliases: ['Remote Rural APR-DRG Base Price'], min: 0 },
  labor_share_low: { label: 'Labor Share (Wage Index At or Below Cutoff)', aliases: ['Labor Share Low'], min: 0, max: 1 },
  labor_share_high: { label: 'Labor Share (Wage Index Above Cutoff)', aliases: ['Labor Share High'], min: 0, max: 1 },
  labor_share_wage_index_cutoff: { label: 'Labor Share Wage Index Cutoff', aliases: [], min: 0 },
  casemix_adjustment_factor: { label: 'Casemix Adjustment Factor', aliases: ['Casemix Neutrality Factor'], min: 0 },
  cost_outlier_threshold: { label: 'High-Side Cost Outlier Threshold', aliases: ['Cost Outlier Threshold', 'High Side Outlier Threshold'], min: 0 },
  low_side_outlier_threshold: { label: 'Low-Side Cost Outlier Threshold', aliases: ['Low Side Outlier Threshold'], min: 0 },
  marginal_cost_percentage: { label: 'Marginal Cost Percentage', aliases: ['Marginal Cost Factor'], min: 0, max: 1 },
  interim_claim_threshold: { label: 'Interim Claim Threshold (Days)', aliases: ['Interim Claim Threshold'], min: 0 },
  interim_per_diem_amount: { label: 'Interim Claim Per Diem', aliases: ['Interim Per Diem Amount'], min: 0 },
  add_on_amount: { label: 'Add-On Amount', aliases: ['Add On Amount'], min: 0 },
  pediatric_age_cutoff: { label: 'Pediatric Age Cutoff (Under)', aliases: ['Pediatric Age Cutoff'], min: 0, max: 130 },
} as const satisfies Record<string, { label: string; aliases: string[]; min: number; max?: number }>;
export type PolicyParameter = keyof typeof POLICY_PARAMETERS;

const BY_LABEL = new Map<string, PolicyParameter>(
  (Object.entries(POLICY_PARAMETERS) as [PolicyParameter, (typeof POLICY_PARAMETERS)[PolicyParameter]][]).flatMap(([k, p]) => [p.label, ...p.aliases, k].map((l) => [normHeader(l), k] as const)),
);

const source = z.string().describe('where the value comes from (a citation, or "illustrative")');
const illustrative = z.boolean().describe('the sheet is marked illustrative (the seeds): not DHCS figures');

/** One payment parameter of the year. */
export const PolicyParameterRowSchema = z.object({
  parameter: z.string().describe('the parameter name (statewide_base_price, marginal_cost_percentage, ...)'),
  label: z.string().describe('as the sheet prints it'),
  value: z.number(),
  source,
  illustrative,
});
/** Which of the APR-DRG table's policy adjustor columns (A-D) applies to a stay. */
export const PolicyAdjustorRowSchema = z.object({
  policy_adjustor_code: z.string().describe('A, B, C or D: the column of the APR-DRG table'),
  age_group: z.enum(['pediatric', 'adult']).describe('pediatric: under the pediatric age cutoff'),
  care_category: z.string().describe('the Medi-Cal care category it applies to, or * for any'),
  designated_nicu: z.enum(['Y', 'N', '*']).describe('whether the hospital has a designated NICU (Y, N, * any)'),
  description: z.string(),
  source,
  illustrative,
});
/** A patient discharge status code that makes a stay a transfer (priced by the transfer per diem). */
export const TransferStatusRowSchema = z.object({ patient_status_code: z.string().describe('two digits (UB-04 form locator 17)'), description: z.string(), source, illustrative });

export type PolicyParameterRow = z.infer<typeof PolicyParameterRowSchema>;
export type PolicyAdjustorRow = z.infer<typeof PolicyAdjustorRowSchema>;
export type TransferStatusRow = z.infer<typeof TransferStatusRowSchema>;

/** The dataset id, spelled once: the main table and its sheet are named like it. */
const ID = 'medi_cal_drg_policy';

export const POLICY_TABLES = {
  [ID]: table(ID, PolicyParameterRowSchema, ['parameter'], ['illustrative']),
  policy_adjustors: table('policy_adjustors', PolicyAdjustorRowSchema, ['policy_adjustor_code'], ['illustrative']),
  transfer_status_codes: table('transfer_status_codes', TransferStatusRowSchema, ['patient_status_code'], ['illustrative']),
} satisfies Record<string, TableSpec>;

/** The declared sheets (README "Layout"); every header inferred. */
export const PARAMETER_SHEET: SheetLayout = {
  table: ID,
  schema: PolicyParameterRowSchema,
  columns: [
    { header: 'Parameter', aliases: ['Payment Parameter'], field: 'label', kind: 'text', required: true },
    { header: 'Value', field: 'value', kind: 'number', required: true },
    { header: 'Source', aliases: ['Citation'], field: 'source', kind: 'text', required: true },
  ],
  check(row, line) {
    const parameter = BY_LABEL.get(normHeader(row.label as string));
    if (!parameter) return [{ loc: ['row', line, 'Parameter'], msg: `not a parameter of the DRG policy sheet (one of: ${Object.values(POLICY_PARAMETERS).map((p) => p.label).join('; ')})`, type: 'value_error', input: row.label }];
    const p = POLICY_PARAMETERS[parameter] as { min: number; max?: number };
    const v = row.value as number;
    if (v < p.min || (p.max !== undefined && v > p.max)) return [{ loc: ['row', line, 'Value'], msg: `${row.label} must be between ${p.min} and ${p.max ?? 'any amount'}`, type: 'value_error', input: v }];
    row.parameter = parameter;
    return [];
  },
};
export const ADJUSTOR_SHEET: SheetLayout = {
  table: 'policy_adjustors',
  schema: PolicyAdjustorRowSchema,
  columns: [
    { header: 'Policy Adjustor Code', aliases: ['Policy Adjustor'], field: 'policy_adjustor_code', kind: 'text', required: true, pattern: /^[A-D]$/ },
    { header: 'Age Group', field: 'age_group', kind: 'text', required: true, pattern: /^(pediatric|adult)$/ },
    { header: 'Care Category', aliases: ['Medi-Cal Care Category'], field: 'care_category', kind: 'text', required: true },
    { header: 'Designated NICU', field: 'designated_nicu', kind: 'text', required: true, pattern: /^[YN*]$/ },
    { header: 'Description', field: 'description', kind: 'text', required: true },
    { header: 'Source', aliases: ['Citation'], field: 'source', kind: 'text', required: true },
  ],
};
export const TRANSFER_SHEET: SheetLayout = {
  table: 'transfer_status_codes',
  schema: TransferStatusRowSchema,
  columns: [
    { header: 'Patient Status Code', aliases: ['Patient Discharge Status', 'Discharge Status Code'], field: 'patient_status_code', kind: 'text', required: true, pattern: /^\d{2}$/ },
    { header: 'Description', field: 'description', kind: 'text', required: true },
    { header: 'Source', aliases: ['Citation'], field: 'source', kind: 'text', required: true },
  ],
};
const SHEETS = [PARAMETER_SHEET, ADJUSTOR_SHEET, TRANSFER_SHEET];

/**
 * DHCS's DRG payment parameters for a state fiscal year, as three sheets (CSV exports or one
 * workbook): the parameters (base prices, labor shares and their cutoff, casemix adjustment
 * factor, outlier thresholds, marginal cost percentage, interim claim threshold and per diem,
 * add-on, pediatric age cutoff), the policy adjustor table and the transfer patient status codes,
 * every row with its source. A parameters sheet missing a parameter is refused.
 */
export const mediCalDrgPolicy = defineMultiTableDataset({
  id: ID,
  title: 'Medi-Cal DRG payment parameters for a state fiscal year: base prices, labor shares, outlier thresholds, interim claims, policy adjustor and transfer tables',
  publisher: 'California DHCS (Medi-Cal DRG payment method)',
  formats: ['three sheets as CSV, each with a title line "State Fiscal Year YYYY-YY": Parameter/Value/Source; Policy Adjustor Code/Age Group/Care Category/Designated NICU/...; Patient Status Code/Description/Source', 'an .xlsx workbook whose name says DRG Policy holding those sheets'],
  tables: Object.values(POLICY_TABLES),
  detect: (s) => detectSheet(SHEETS, s, /policy|parameter/i),
  version: sfyVersion,
  async *parse(file): AsyncIterable<ParsedItem<Record<string, unknown>>> {
    yield* parseSheets(file, SHEETS, 'Parameter, Value, Source (or a policy adjustor or transfer status sheet)', (layout, rows, meta) => {
      if (layout !== PARAMETER_SHEET) return;
      const have = new Set(rows.map((r) => r.parameter));
      const missing = (Object.keys(POLICY_PARAMETERS) as PolicyParameter[]).filter((p) => !have.has(p));
      if (missing.length) throw new IngestError(`the parameters sheet lacks ${missing.map((p) => `"${POLICY_PARAMETERS[p].label}"`).join(', ')}`, meta.sheet, undefined, 'Parameter');
    });
  },
});
