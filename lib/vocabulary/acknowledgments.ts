/**
 * The X12 acknowledgments' code lists the service reads (999 implementation acknowledgment,
 * 005010X231A1; 277CA claim acknowledgment, 005010X214): each code once, with its meaning in
 * words. The Claim Status Category Codes (X12 external code list 507) carry whether the claim was
 * accepted for adjudication (null: not decided by the category).
 */

/** IK304: segment syntax errors (X12 999). */
export const SEGMENT_ERROR: Readonly<Record<string, string>> = {
  '1': 'unrecognized segment ID',
  '2': 'unexpected segment',
  '3': 'required segment missing',
  '4': 'loop occurs over maximum times',
  '5': 'segment exceeds maximum use',
  '6': 'segment not in defined transaction set',
  '7': 'segment not in proper sequence',
  '8': 'segment has data element errors',
  I4: 'implementation "not used" segment present',
  I6: 'implementation dependent segment missing',
  I7: 'implementation loop occurs under minimum times',
  I8: 'implementation segment below minimum use',
  I9: 'implementation dependent "not used" segment present',
};

/** IK403: element syntax errors (X12 999). */
export const ELEMENT_ERROR: Readonly<Record<string, string>> = {
  '1': 'required data element missing',
  '2': 'conditional required data element missing',
  '3': 'too many data elements',
  '4': 'data element too short',
  '5': 'data element too long',
  '6': 'invalid character in data element',
  '7': 'invalid code value',
  '8': 'invalid date',
  '9': 'invalid time',
  '10': 'exclusion condition violated',
  '12': 'too many repetitions',
  '13': 'too many components',
  I6: 'code value not used in implementation',
  I9: 'implementation dependent data element missing',
  I10: 'implementation "not used" data element present',
  I11: 'implementation too few repetitions',
  I12: 'implementation pattern match failure',
  I13: 'implementation dependent "not used" data element present',
};

/** IK501 and AK901: acknowledgment codes (X12 999). */
export const ACK_STATUS: Readonly<Record<string, string>> = {
  A: 'accepted',
  E: 'accepted, but errors were noted',
  M: 'rejected: message authentication code failed',
  P: 'partially accepted: at least one transaction set was rejected',
  R: 'rejected',
  W: 'rejected: assurance failed validity tests',
  X: 'rejected: content after decryption could not be analyzed',
};

/** IK502-IK506: transaction set syntax errors (X12 999). */
export const SET_ERROR: Readonly<Record<string, string>> = {
  '1': 'transaction set not supported',
  '2': 'transaction set trailer missing',
  '3': 'transaction set control number in header and trailer do not match',
  '4': 'number of included segments does not match actual count',
  '5': 'one or more segments in error',
  '6': 'missing or invalid transaction set identifier',
  '7': 'missing or invalid transaction set control number',
  '18': 'transaction set not in functional group',
  '19': 'invalid transaction set implementation convention reference',
  '23': 'transaction set control number not unique within the functional group',
  I5: 'implementation: one or more segments in error',
  I6: 'implementation convention not supported',
};

/** AK905-AK909: functional group syntax errors (X12 999). */
export const GROUP_ERROR: Readonly<Record<string, string>> = {
  '1': 'functional group not supported',
  '2': 'functional group version not supported',
  '3': 'functional group trailer missing',
  '4': 'group control number in the functional group header and trailer do not agree',
  '5': 'number of included transaction sets does not match actual count',
  '6': 'group control number violates syntax',
  '19': 'functional group control number not unique within interchange',
};

/** Claim Status Category Codes (X12 external code list 507): those a 277CA reports. */
export const CLAIM_STATUS_CATEGORY: Readonly<Record<string, { meaning: string; accepted: boolean | null }>> = {
  A0: { meaning: 'acknowledgement/forwarded: the claim has been forwarded to another entity', accepted: true },
  A1: { meaning: 'acknowledgement/receipt: the claim has been received; this does not mean it was accepted for adjudication', accepted: true },
  A2: { meaning: 'acknowledgement/acceptance into the adjudication system', accepted: true },
  A3: { meaning: 'acknowledgement/returned as unprocessable claim: rejected, not entered into the adjudication system', accepted: false },
  A4: { meaning: 'acknowledgement/not found: the claim cannot be found in the adjudication system', accepted: null },
  A5: { meaning: 'acknowledgement/split claim: split upon acceptance into the adjudication system', accepted: true },
  A6: { meaning: 'acknowledgement/rejected for missing information named in the status details', accepted: false },
  A7: { meaning: 'acknowledgement/rejected for invalid information named in the status details', accepted: false },
  A8: { meaning: 'acknowledgement/rejected for relational field in error', accepted: false },
  E0: { meaning: 'response not possible: error on submitted request data', accepted: false },
  E1: { meaning: 'response not possible: system status', accepted: null },
  E2: { meaning: 'information holder is not responding; resubmit at a later time', accepted: null },
  E3: { meaning: 'correction required: relational fields in error', accepted: false },
  E4: { meaning: 'trading partner agreement specific requirement not met: data correction required', accepted: false },
};
