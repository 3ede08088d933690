import { readEnvelope, X12Error, type ReaderFinding, type Separators, type Transaction } from '../../lib/x12/reader.js';
import { ValidationError } from '../../warehouse/errors.js';

export type { ReaderFinding, Segment, Separators, Transaction } from '../../lib/x12/reader.js';

/**
 * An X12 file as the remittance explanation reads it (`lib/x12/reader.ts` reads the envelope):
 * its 835 transactions and its 999 / 277CA acknowledgments; any other transaction is named and
 * skipped, a file of none of them is 422 naming what it is, a 4010 835 is refused. The reader's
 * errors become the API's 422 (`ValidationError`), never echoing the file: an 835 carries PHI.
 */

export interface X12File {
  separators: Separators;
  interchanges: number;
  /** CLP segments in the 835 transactions: the claims the explanation will have (progress). */
  claims: number;
  /** Every segment of the file: the work an explanation does (RCM_REMIT_MAX_SEGMENTS, the concurrency budget). */
  segments: number;
  /** The 835 transactions, in file order. */
  transactions: Transaction[];
  /** The 999 and 277CA (005010X214) transactions, in file order: explained beside the 835s. */
  acknowledgments: Transaction[];
  findings: ReaderFinding[];
}

/** What a non-835 transaction is, in words. */
function describeTransaction(setId: string, version: string | null): string {
  const v = version ?? '';
  if (setId === '837') return `an 837 health care claim${/X223/.test(v) ? ' (institutional)' : /X222/.test(v) ? ' (professional)' : /X224/.test(v) ? ' (dental)' : ''}, not an 835 remittance`;
  if (setId === '277') return 'a 277 claim status response, not an 835 remittance';
  if (setId === '997') return 'a 997 functional acknowledgment, not an 835 remittance';
  if (setId === 'TA1') return 'a TA1 interchange acknowledgment, not an 835 remittance';
  return `an X12 ${setId || '(unnamed)'} transaction, not an 835 remittance`;
}

/** A 999 implementation acknowledgment, or a 277CA claim acknowledgment (005010X214): explained too. */
const isAcknowledgment = (t: Transaction): boolean => t.set_id === '999' || (t.set_id === '277' && /X214/.test(t.version ?? ''));

/** Whether a version names 4010 (004010X091A1, 4010). */
const is4010 = (v: string | null): boolean => v !== null && /^0*4010/.test(v.trim());

/** The envelope read, its errors as the API's 422. */
function envelope(bytes: Buffer | string) {
  try {
    return readEnvelope(bytes, { count: ['CLP'] });
  } catch (e) {
    if (e instanceof X12Error) throw new ValidationError(e.issues);
    throw e;
  }
}

/**
 * Reads an X12 file into its 835 transactions and its 999 / 277CA acknowledgments. 422
 * (`ValidationError`, loc `['body', 'segment', index, id]`) for a file that is not X12, has neither
 * (naming what it is: an 837, a 277 claim status response ...), is a 4010 835, or is cut short (no
 * SE, GE or IEA where the envelope opened one).
 */
export function readX12(bytes: Buffer | string): X12File {
  const env = envelope(bytes);
  const findings = env.findings;
  const remits: Transaction[] = [];
  const acks: Transaction[] = [];
  let claims = 0;
  for (const t of env.transactions) {
    if (isAcknowledgment(t)) {
      acks.push(t);
      continue;
    }
    if (t.set_id !== '835') {
      findings.push({ code: 'other_transaction', message: `transaction at segment ${t.st.index} is ${describeTransaction(t.set_id, t.version)}: skipped`, interchange: t.interchange, transaction: null, segment_index: t.st.index, segment_id: 'ST' });
      continue;
    }
    if (is4010(t.version)) {
      throw new ValidationError([
        {
          loc: ['body', 'segment', t.st.index, 'ST'],
          msg: `a 4010 835 (${t.version}): only 5010 remittances (005010X221A1, the version HIPAA requires since 2012) are explained; ask the payer or clearinghouse for the 5010 file`,
          type: 'x12_version',
          ctx: { version: t.version },
        },
      ]);
    }
    remits.push(t);
    claims += t.counts.CLP ?? 0;
  }
  if (remits.length === 0 && acks.length === 0) {
    const all = env.transactions;
    const kinds = [...new Set(all.map((t) => describeTransaction(t.set_id, t.version)))];
    throw new ValidationError([
      { loc: ['body', 'segment', all[0]!.st.index, 'ST'], msg: `this file is ${kinds.join('; and ')}: send an 835 remittance, or a 999 or 277CA acknowledgment`, type: 'x12_not_835', ctx: { transaction_sets: [...new Set(all.map((t) => t.set_id))] } },
    ]);
  }
  return { separators: env.separators, interchanges: env.interchanges, claims, segments: env.segments, transactions: remits, acknowledgments: acks, findings };
}
