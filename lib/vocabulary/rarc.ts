/**
 * Remittance advice remark codes (RARCs) whose meaning changes what a denial leaves to do: the
 * denial rules table matches on these meanings, and the remittance links on the ones that name an
 * edit. Each code is listed once, with the X12 RARC list's wording summarised.
 */
export const RARC_MEANING = {
  M76: 'diagnosis_missing', // Missing/incomplete/invalid diagnosis or condition.
  MA130: 'unprocessable', // incomplete/invalid information, no appeal rights: submit a new claim
  M80: 'bundled', // Not covered when performed during the same session/date as a previously processed service
  N20: 'bundled', // Service not payable with other service rendered on the same date.
  N362: 'units_exceeded', // The number of Days or Units of Service exceeds our acceptable maximum.
  N115: 'coverage_policy', // This decision was based on a Local Coverage Determination (LCD).
  N386: 'coverage_policy', // This decision was based on a National Coverage Determination (NCD).
  MA18: 'crossover', // Alert: the claim information is also being forwarded to the patient's supplemental insurer.
  N89: 'crossover', // Alert: payment information forwarded to more than one other payer.
  N781: 'qmb', // Alert: Patient is a Medicaid/Qualified Medicare Beneficiary ... wrongfully collected deductible.
  N782: 'qmb', // ... coinsurance.
  N783: 'qmb', // ... copayment.
  N36: 'other_payer_remittance', // Claim must meet primary payer's processing requirements before we can consider payment.
  N4: 'other_payer_remittance', // Missing/Incomplete/Invalid prior Insurance Carrier(s) EOB.
  M144: 'global_surgery', // Pre-/post-operative care payment is included in the allowance for the surgery/procedure.
  N122: 'add_on_alone', // Add-on code cannot be billed by itself.
  N706: 'documentation', // Missing documentation.
  M127: 'documentation', // Missing patient medical record for this service.
  N206: 'documentation', // The supporting documentation does not match the information sent on the claim.
  N29: 'documentation', // Missing documentation/orders/notes/summary/report/chart (deactivated 2016-03-01).
  N225: 'documentation', // Incomplete/invalid documentation/orders/notes/summary/report/chart (deactivated 2016-03-01).
  N102: 'documentation', // denied without reviewing the record because the requested records were not received.
} as const;
export type RarcMeaning = (typeof RARC_MEANING)[keyof typeof RARC_MEANING];

/** The meaning of a remark code this vocabulary names (undefined for the rest). */
export const rarcMeaningOf = (code: string): RarcMeaning | undefined => (Object.hasOwn(RARC_MEANING, code) ? RARC_MEANING[code as keyof typeof RARC_MEANING] : undefined);

/**
 * A remark whose X12 text asks for or faults documents (records, reports, orders, an attachment),
 * for the many explicit documentation remarks the list has added since 2014 ("Missing ... report",
 * "Incomplete/invalid ... record"): an alert informs and is never one.
 */
export function isDocumentationRemark(code: string, description: string | null | undefined): boolean {
  if (rarcMeaningOf(code) === 'documentation') return true;
  if (!description || /^Alert:/i.test(description)) return false;
  return /\b(missing|incomplete|invalid|not received|does not match|insufficient)\b/i.test(description) && /\b(documentation|medical records?|records?|report|attachment|notes|orders?|chart|certification)\b/i.test(description);
}
