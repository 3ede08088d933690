import { z } from 'zod';
import { table } from '../_shared/table.js';
import { detectSheet, inSchemaOrder, parseSheets, sfyVersion, type SheetLayout } from '../_medi_cal/sheet.js';
import { defineMultiTableDataset, type ParsedItem } from '../types.js';

const adjustor = (letter: string) => z.number().describe(`policy adjustor ${letter} of the DRG-SOI (which one applies: the policy table's policy_adjustors)`);

/** One APR-DRG and severity of illness of the fiscal year's table. */
export const MediCalAprDrgRowSchema = z.object({
  drg_soi: z.string().describe('DRG and severity of illness as DHCS prints them, `640-2`'),
  apr_drg: z.string().describe('three digits, `640`'),
  soi: z.int().describe('severity of illness 1-4'),
  description: z.string(),
  hsrv_casemix_relative_weight: z.number().describe('hospital-specific relative value (HSRV) casemix relative weight'),
  national_average_los: z.number().describe('national average length of stay, days'),
  medicaid_care_category_adult: z.string().describe('Medi-Cal care category of a patient at or above the pediatric age cutoff'),
  medicaid_care_category_pediatric: z.string().describe('Medi-Cal care category of a patient under the pediatric age cutoff'),
  policy_adjustor_a: adjustor('A'),
  policy_adjustor_b: adjustor('B'),
  policy_adjustor_c: adjustor('C'),
  policy_adjustor_d: adjustor('D'),
  illustrative: z.boolean().describe('the sheet is marked illustrative (the seeds): not DHCS figures'),
});
export type MediCalAprDrgRow = z.infer<typeof MediCalAprDrgRowSchema>;

const DRG_SOI = /^(\d{1,3})-([1-4])$/;

/** The dataset id, spelled once: the main table and its sheet are named like it. */
const ID = 'medi_cal_apr_drg';

/**
 * The declared sheet (README "Layout"): one header per column, every one inferred (no DHCS table
 * was readable offline). A workbook whose headers differ is a change here, never in the calculator.
 */
export const APR_DRG_SHEET: SheetLayout = {
  table: ID,
  schema: MediCalAprDrgRowSchema,
  columns: [
    { header: 'DRG-SOI', aliases: ['APR-DRG-SOI', 'APR DRG SOI', 'DRG SOI'], field: 'drg_soi', kind: 'text', required: true, pattern: DRG_SOI },
    { header: 'Description', aliases: ['APR-DRG Description', 'DRG Description'], field: 'description', kind: 'text', required: true },
    { header: 'HSRV Casemix Relative Weight', aliases: ['Casemix Relative Weight', 'Relative Weight'], field: 'hsrv_casemix_relative_weight', kind: 'number', required: true, above: 0 },
    { header: 'National Average Length of Stay', aliases: ['National ALOS', 'Average Length of Stay'], field: 'national_average_los', kind: 'number', required: true, above: 0 },
    { header: 'Medicaid Care Category Adult', aliases: ['Medi-Cal Care Category Adult'], field: 'medicaid_care_category_adult', kind: 'text', required: true },
    { header: 'Medicaid Care Category Pediatric', aliases: ['Medi-Cal Care Category Pediatric'], field: 'medicaid_care_category_pediatric', kind: 'text', required: true },
    { header: 'Policy Adjustor A', field: 'policy_adjustor_a', kind: 'number', required: true, above: 0 },
    { header: 'Policy Adjustor B', field: 'policy_adjustor_b', kind: 'number', required: true, above: 0 },
    { header: 'Policy Adjustor C', field: 'policy_adjustor_c', kind: 'number', required: true, above: 0 },
    { header: 'Policy Adjustor D', field: 'policy_adjustor_d', kind: 'number', required: true, above: 0 },
  ],
};

/**
 * DHCS's APR-DRG table for a state fiscal year (DRG-SOI, description, HSRV casemix relative
 * weight, national ALOS, Medi-Cal care categories, policy adjustors A-D), as a CSV export of the
 * workbook sheet or the workbook itself. Version: the SFY of the title line or file name (`2025-26`,
 * effective July 1).
 */
export const mediCalAprDrg = defineMultiTableDataset({
  id: ID,
  title: 'Medi-Cal APR-DRG table for a state fiscal year: relative weights, average lengths of stay, care categories, policy adjustors',
  publisher: 'California DHCS (Medi-Cal DRG payment method)',
  formats: ['the APR-DRG table sheet as CSV (title line "State Fiscal Year YYYY-YY", header DRG-SOI, Description, HSRV Casemix Relative Weight, ...)', 'an .xlsx workbook whose name says APR-DRG (every sheet with that header is read)'],
  tables: [table(ID, MediCalAprDrgRowSchema, ['drg_soi'], ['illustrative'])],
  detect: (s) => detectSheet([APR_DRG_SHEET], s, /apr[\s_-]*drg/i),
  version: sfyVersion,
  async *parse(file): AsyncIterable<ParsedItem<Record<string, unknown>>> {
    for await (const item of parseSheets(file, [APR_DRG_SHEET], 'DRG-SOI, Description, HSRV Casemix Relative Weight, National Average Length of Stay, ...')) {
      if (item.row) {
        const m = DRG_SOI.exec(item.row.drg_soi as string)!;
        const apr_drg = m[1]!.padStart(3, '0');
        yield { ...item, row: inSchemaOrder(MediCalAprDrgRowSchema, { ...item.row, drg_soi: `${apr_drg}-${m[2]}`, apr_drg, soi: Number(m[2]) }) };
      } else yield item;
    }
  },
});
