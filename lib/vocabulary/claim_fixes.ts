/**
 * What the claim check tells a biller to change before an 837 goes out: the closed vocabulary every
 * claim-check finding uses (`server/claims/`), one word per kind of correction.
 */
export const CLAIM_FIXES = [
  /** Add a modifier that tells the payer why the line is payable (an NCCI-associated modifier, 24/25/57/79 in a global period). */
  'add_modifier',
  /** Point the line at a diagnosis the coverage document covers, or add one the record supports. */
  'add_or_repoint_diagnosis',
  /** Get the beneficiary's signed Advance Beneficiary Notice before the service (then bill with GA). */
  'obtain_abn',
  /** Get the payer's authorization and send its number (REF*G1). */
  'obtain_authorization',
  /** Bill no more units than the MUE allows on the line, or split them as the MUE's indicator permits. */
  'reduce_or_split_units',
  /** Take the line off the claim (a duplicate, a code the edit never pays with its pair, an add-on without its primary). */
  'remove_line',
  /** Replace a code or modifier that is not valid on the date of service (terminated, not yet effective, not in the code set) with the one in force then. */
  'correct_code',
  /** Correct the claim's structure (totals, pointers, identifiers, required segments) so the payer can read it. */
  'correct_structure',
  /** No rule decides the correction: a person looks (the message names what). */
  'review',
] as const;
export type ClaimFix = (typeof CLAIM_FIXES)[number];
