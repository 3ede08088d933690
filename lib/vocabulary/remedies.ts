/**
 * What a denial or an adjustment leaves a billing person to do: the closed vocabulary every answer
 * uses (the denial rules table gives one per adjustment; the remittance worklist, the denial agent
 * and the denial-code lookup speak only these words).
 */
export const REMEDIES = [
  /** The patient's share (deductible, coinsurance, copayment) or a non-covered service the patient accepted liability for. */
  'bill_patient',
  /** The provider's contractual write-off: nothing to do but post it. */
  'contractual_adjustment',
  /** A claim returned before adjudication (unprocessable): correct it and submit it again. */
  'correct_and_resubmit',
  /** Medicare's reopening of a clerical error (42 CFR 405.980); another payer's corrected claim or reconsideration where its rules say so. */
  'reopen',
  /** The payer's appeal levels apply. */
  'appeal',
  /** No appeal rights: written off, unless an exception the reason names applies. */
  'not_appealable',
  /** Another payer is responsible: bill it. */
  'bill_other_payer',
  /** The claim was forwarded to another payer (a crossover): wait for its answer before billing the patient. */
  'wait_for_other_payer',
  /** The payer needs documents (records, an attachment, the other payer's remittance) to decide. */
  'send_documents',
  /** Ask the payer: the answer needs what only the payer knows. */
  'contact_payer',
  /** A duplicate: act on the original claim, not this copy. */
  'check_original_claim',
  /** Nothing to do (informational, a payment increase, a reversal's or a prior payer's amounts). */
  'no_action',
  /** No rule covers this case: a person decides (the reason names what no rule covers). */
  'review',
] as const;
export type Remedy = (typeof REMEDIES)[number];

/**
 * Whose the amount is: the provider's (to write off, correct or appeal while it stays the
 * provider's), the patient's, another payer's, still open with this payer, or undetermined (no
 * rule decides).
 */
export const RESPONSIBILITIES = ['provider', 'patient', 'other_payer', 'payer', 'undetermined'] as const;
export type Responsibility = (typeof RESPONSIBILITIES)[number];

/** `conditional`: only in the case the answer's `appeal_condition` names. */
export const APPEAL_RIGHTS = ['yes', 'no', 'conditional'] as const;
export type AppealRights = (typeof APPEAL_RIGHTS)[number];

/**
 * What a remedy's date is: `appeal_by` the first appeal level's last day (Medicare: the notice date
 * + 5 days presumed receipt + 120 days, 42 CFR 405.942(a)); `reopen_by` the last day to request a
 * reopening (the initial determination's date + 1 year, 42 CFR 405.980(c)(1)); `resubmit_by` the
 * timely-filing limit of a corrected claim. Remedies without a date (a contractual adjustment,
 * `not_appealable`, `no_action`, `bill_patient`) have none.
 */
export const DEADLINE_KINDS = ['appeal_by', 'reopen_by', 'resubmit_by'] as const;
export type DeadlineKind = (typeof DEADLINE_KINDS)[number];
