/**
 * Claim adjustment group codes (X12 element 1033, CAS01): whose an adjustment is, before any
 * reason code says why.
 */
export const ADJUSTMENT_GROUPS = {
  CO: 'Contractual Obligations: the provider’s, not billable to the patient',
  CR: 'Corrections and Reversals (not used in 5010 835s)',
  OA: 'Other Adjustments',
  PI: 'Payor Initiated Reductions',
  PR: 'Patient Responsibility',
} as const;

export type AdjustmentGroup = keyof typeof ADJUSTMENT_GROUPS;

/** Every group code (a schema's enum: a payer's curated denial patterns may name CR). */
export const GROUP_CODES = Object.keys(ADJUSTMENT_GROUPS) as [AdjustmentGroup, ...AdjustmentGroup[]];

/** The group codes a 5010 835 uses (CR, corrections and reversals, was 4010's: a reversal is CLP02 22). */
export const GROUPS_5010 = ['CO', 'PR', 'OA', 'PI'] as const satisfies readonly AdjustmentGroup[];

/** The groups whose amount is not the patient's: the payer adjudicated it against the provider (or another payer's impact). */
export const NOT_PATIENT_GROUPS = ['CO', 'PI', 'OA'] as const satisfies readonly AdjustmentGroup[];
