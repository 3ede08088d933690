import { addOnCode } from './add_on_code.js';
import type { ClaimEdit } from './edit.js';
import { mue } from './mue.js';
import { payableLine } from './payable_line.js';
import { ptp } from './ptp.js';
import { unknownCode } from './unknown_code.js';

/**
 * The claim edits, in the order `checkClaim` applies them and the answer lists their findings:
 * codes no loaded file knows first (the NCCI edits then skip them), what Medicare pays for each
 * line, PTP pairs, MUE units, then add-on codes, which read the failed code checks before them.
 */
export const CLAIM_EDITS: readonly ClaimEdit[] = [unknownCode, payableLine, ptp, mue, addOnCode];
