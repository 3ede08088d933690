import { Dec, toCents } from '../../lib/decimal.js';
import { counted, dollars } from '../../lib/money_text.js';
import { ownValue } from '../../lib/own.js';
import type { RemitReconciliation, RemitTransaction } from './schemas.js';

/**
 * A payment reconciled with its claims, as a posting team balances a deposit: BPR02 signed by
 * BPR03 (a debit is money taken back), the claims' payments (CLP04, interest included), each
 * provider adjustment (PLB) added to or withheld from the payment, and whether they agree (X12 835
 * TR3 balancing: BPR02 = the sum of CLP04 less the sum of PLB amounts). A notification (BPR01 H,
 * or BPR04 NON) moves no money.
 */

/** BPR01 transaction handling codes (X12 835 TR3). */
export const HANDLING: Readonly<Record<string, string>> = {
  C: 'payment accompanies remittance advice',
  D: 'make payment only',
  H: 'notification only',
  I: 'remittance information only',
  P: 'prenotification of future transfers',
  U: 'split payment and remittance',
  X: 'handling party option to split payment and remittance',
};

export const handlingOf = (code: string | null): { code: string; meaning: string | null } | null => (code ? { code, meaning: ownValue(HANDLING, code) ?? null } : null);

export interface ReconcileInput {
  handling: string | null;
  method: string | null;
  creditDebit: string | null;
  /** BPR02 as written. */
  amount: Dec;
  claimsPaid: Dec;
  interest: Dec;
  plb: RemitTransaction['provider_adjustments'];
  plbAmounts: Dec[];
}

const ZERO = Dec.ZERO;

export function reconcile(r: ReconcileInput): RemitReconciliation {
  const notification = r.handling === 'H' || r.method === 'NON';
  const debit = !notification && r.creditDebit === 'D';
  // BPR02 as written, signed by BPR03: the 835's balancing holds for a notification too (it states no money moves).
  const payment = debit ? ZERO.sub(r.amount) : r.amount;
  const plbTotal = r.plbAmounts.reduce((a, b) => a.add(b), ZERO);
  const expected = r.claimsPaid.sub(plbTotal);
  const difference = payment.sub(expected);
  const adjustments = r.plb.map((p) => ({ reason: p.reason, description: p.description, reference: p.reference, amount: p.amount, effect: p.amount > 0 ? ('withheld_from_payment' as const) : ('added_to_payment' as const) }));
  // AMT*I says what interest a claim carries; whether the payer paid it in CLP04 or at provider level (PLB L6, as Medicare does) varies, so it is named, not added.
  const words = [`claims paid ${dollars(toCents(r.claimsPaid))}${r.interest.compare(0) !== 0 ? ` (their AMT*I report ${dollars(toCents(r.interest))} of interest)` : ''}`];
  for (const a of adjustments) words.push(`${a.effect === 'withheld_from_payment' ? 'less' : 'plus'} ${dollars(Math.abs(a.amount))} ${a.effect === 'withheld_from_payment' ? 'withheld' : 'added'} by provider adjustment ${a.reason}${a.description ? ` (${a.description})` : ''}`);
  const is = notification ? `a notification that moves no money${r.amount.compare(0) !== 0 ? ` (its BPR02 says ${dollars(toCents(r.amount))})` : ''}` : debit ? `a debit of ${dollars(toCents(r.amount))} (taken back from the provider)` : `a payment of ${dollars(toCents(r.amount))}`;
  const balanced = difference.compare(0) === 0;
  const tail = balanced ? `make ${dollars(toCents(expected))}: ${is}` : `make ${dollars(toCents(expected))}, but this is ${is}: ${dollars(Math.abs(toCents(difference)))} ${difference.compare(0) > 0 ? 'more' : 'less'} than its ${counted(adjustments.length, 'provider adjustment')} and claims account for`;
  return {
    payment: toCents(payment),
    direction: notification ? 'none' : debit ? 'debit' : 'credit',
    notification_only: notification,
    claims_paid: toCents(r.claimsPaid),
    interest: toCents(r.interest),
    provider_adjustments: adjustments,
    provider_adjustments_total: toCents(plbTotal),
    expected_payment: toCents(expected),
    difference: toCents(difference),
    balanced,
    explanation: `${words.join(', ')} ${tail}`,
  };
}
