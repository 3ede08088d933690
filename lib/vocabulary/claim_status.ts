/**
 * CLP02 claim status codes of the 835 (X12 005010X221A1), each with what it says of the claim's
 * position: which payer this remittance is (primary, secondary, tertiary), whether the claim was
 * forwarded to another payer (a crossover), or whether it is a reversal or a predetermination.
 */
export const CLAIM_STATUS = {
  '1': { meaning: 'processed as primary', position: 'primary', forwarded: false },
  '2': { meaning: 'processed as secondary', position: 'secondary', forwarded: false },
  '3': { meaning: 'processed as tertiary', position: 'tertiary', forwarded: false },
  '4': { meaning: 'denied', position: 'denied', forwarded: false },
  '19': { meaning: 'processed as primary, forwarded to additional payer(s)', position: 'primary', forwarded: true },
  '20': { meaning: 'processed as secondary, forwarded to additional payer(s)', position: 'secondary', forwarded: true },
  '21': { meaning: 'processed as tertiary, forwarded to additional payer(s)', position: 'tertiary', forwarded: true },
  '22': { meaning: 'reversal of previous payment', position: 'reversal', forwarded: false },
  '23': { meaning: 'not our claim, forwarded to additional payer(s)', position: 'not_ours', forwarded: true },
  '25': { meaning: 'predetermination pricing only, no payment', position: 'predetermination', forwarded: false },
} as const;
export type ClaimStatusCode = keyof typeof CLAIM_STATUS;

/** The CLP02 entry of a code, or undefined for a code the TR3 does not list. */
export const claimStatusOf = (code: string | null | undefined) => (code && Object.hasOwn(CLAIM_STATUS, code) ? CLAIM_STATUS[code as ClaimStatusCode] : undefined);
