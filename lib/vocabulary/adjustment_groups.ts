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
