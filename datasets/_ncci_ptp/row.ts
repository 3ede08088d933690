import { z } from 'zod';
import { columnsOf } from '../_shared/table.js';
import type { Column } from '../types.js';

/**
 * One NCCI procedure-to-procedure edit as published (one line of a CMS PTP .txt part).
 * Dates are ISO `YYYY-MM-DD`; `deletion_date` is null when the file says `*` (still active).
 */
export const PtpRowSchema = z.object({
  column1: z.string().describe('Column 1 HCPCS/CPT code (the payable one)'),
  column2: z.string().describe('Column 2 HCPCS/CPT code (denied unless a modifier is allowed and used)'),
  in_existence_prior_1996: z.boolean().describe('Column 3 `*`: the edit existed before 1996'),
  effective_date: z.string().nullable().describe('YYYY-MM-DD; null only in Medicaid files that carry no effective-date column'),
  deletion_date: z.string().nullable().describe('YYYY-MM-DD, last day the edit is in force; null when `*`'),
  modifier_indicator: z.enum(['0', '1', '9']).describe("'0' not allowed, '1' allowed, '9' not applicable (deleted retroactively)"),
  rationale: z.string().describe('PTP edit rationale'),
});
export type PtpRow = z.infer<typeof PtpRowSchema>;

/** Table columns shared by the four PTP datasets (same names as the JSON fields). */
export const PTP_COLUMNS: Column[] = columnsOf(PtpRowSchema);

/** HCPCS Level II / CPT / PLA code shape used in PTP files (`0001U`, `99213`, `G0008`). */
export const CODE_RE = /^[A-Z0-9]{5}$/;
