/**
 * Claim filing indicator codes (CLP06 of the 835, SBR09 of the 837; X12 element 1032) that name a
 * program whose rules this service knows. Any other code (CI commercial, BL Blue Cross, HM HMO,
 * ...) leaves the payer to its name or id.
 */
export const FILING_PROGRAM = {
  MA: 'medicare',
  MB: 'medicare',
  MC: 'medicaid',
  '16': 'medicare_advantage',
} as const;
export type FilingProgram = (typeof FILING_PROGRAM)[keyof typeof FILING_PROGRAM];

export const filingProgramOf = (code: string | null | undefined): FilingProgram | null => (code && Object.hasOwn(FILING_PROGRAM, code) ? FILING_PROGRAM[code as keyof typeof FILING_PROGRAM] : null);
