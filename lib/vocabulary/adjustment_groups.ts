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

/** The group codes a 5010 835 uses (CR, corrections and reversals, was 4010's: a reversal is CLP02 22). */
export const GROUPS_5010: ReadonlySet<string> = new Set(Object.keys(ADJUSTMENT_GROUPS).filter((g) => g !== 'CR'));
