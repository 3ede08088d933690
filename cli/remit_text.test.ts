import { describe, expect, it } from 'vitest';
import { claimHeader, claimMarkdown, deadlineWords, paymentHeading, providerAdjustmentWords, RemitText, worklistWords, type Explanation } from './remit_text.js';

type Tx = Explanation['transactions'][number];
type Claim = Tx['claims'][number];
type Line = Claim['lines'][number];

// Small explanations built by hand: only the fields the text reads (cast, as the explanation core
// adds fields the text does not print).
const adjustment = (group: string, reason: string, amount: number, description: string | null = 'Deductible Amount', remedy = 'bill_patient') =>
  ({ group, reason, amount, description, deactivated: false, remedy, responsibility: group === 'PR' ? 'patient' : 'provider', deadline: null, other_payer: null }) as unknown as Claim['adjustments'][number];

const line = (o: Partial<Line> = {}): Line =>
  ({ code: '99213', modifiers: [], units: 1, charged: 150, allowed: 100, paid: 80, service_from: '2025-12-01', service_to: '2025-12-01', adjustments: [adjustment('CO', '45', 50, 'Charge exceeds fee schedule.', 'contractual_adjustment'), adjustment('PR', '1', 20)], remarks: [], ...o }) as Line;

const claim = (o: Record<string, unknown> = {}): Claim =>
  ({ patient_control_number: 'PCN001', payer_claim_control_number: 'ICN0001', status: { code: '1', meaning: 'processed as primary' }, charged: 150, paid: 80, patient_responsibility: 20, adjustments: [], remarks: [], lines: [line()], ...o }) as unknown as Claim;

const tx = (o: Record<string, unknown> = {}): Tx =>
  ({
    payer: { name: 'NATIONAL GOVERNMENT SERVICES', slug: 'medicare_ffs' },
    payee: { name: 'EXAMPLE CLINIC' },
    payment: { method: 'ACH', amount: 211366.97, credit_debit: 'C', date: '2026-08-03', trace_number: 'EFT0001' },
    provider_adjustments: [],
    claims: [],
    reconciliation: { balanced: true, explanation: 'claims paid $80.00 make $80.00: a payment of $80.00' },
    ...o,
  }) as unknown as Tx;

const plb = (reason: string, amount: number, description: string | null, reference: string | null = null) => ({ provider_id: null, fiscal_period_date: null, reason, description, reference, claim: null, amount });

function explanation(t: Tx, o: Record<string, unknown> = {}): Explanation {
  return {
    transactions: [t],
    acknowledgments: [],
    findings: [],
    worklist: [],
    summary: { claims: 1, service_lines: 1, totals: { paid: 80, charged: 150 } },
    reliability: { warnings: [] },
    ...o,
  } as unknown as Explanation;
}

describe('counts with their nouns', () => {
  it('prints the totals and worklist counts in the singular for one', () => {
    const out: string[] = [];
    const w = new RemitText(null, false, (s) => out.push(s));
    const t = tx();
    w.claim(t, claim());
    w.finish(explanation(t, { worklist: [{ source: '835', payer: 'medicare_ffs', group: 'PR', reason: '1', remedy: 'bill_patient', count: 1, amount: 20, earliest_deadline: null }] }));
    const text = out.join('');
    expect(text).toContain('Total: 1 claim, 1 line, paid $80.00 of $150.00 charged');
    expect(text).toContain('Worklist: 1 item, earliest deadline first');
    expect(text).toContain('medicare_ffs PR-1 bill patient: 1 item, $20.00');
    expect(worklistWords({ source: '835', payer: null, group: 'CO', reason: '97', remedy: 'reopen', count: 3, amount: 1300, earliest_deadline: '2027-08-03' })).toBe(
      'payer not named CO-97 reopen: 3 items, $1,300.00, earliest deadline 2027-08-03',
    );
  });
});

describe('a value the file does not give, in words', () => {
  it('says what is missing instead of a question mark', () => {
    const heading = paymentHeading(tx({ payer: { name: null, slug: null }, payee: { name: null }, payment: { method: null, amount: 12.5, credit_debit: 'C', date: null, trace_number: null } }));
    expect(heading).toBe('payer not named paid payee not named $12.50 method not given date not given, trace not given');
    const header = claimHeader(claim({ payer_claim_control_number: null }));
    expect(header).toContain('payer claim number not given');
    expect(header).toContain('patient not named');
    const out: string[] = [];
    const w = new RemitText(null, false, (s) => out.push(s));
    const t = tx({ payer: { name: null, slug: null }, payee: { name: null }, payment: { method: null, amount: 12.5, credit_debit: 'C', date: null, trace_number: null } });
    w.claim(t, claim({ lines: [line({ code: null, service_from: null })] }));
    w.finish(explanation(t));
    const text = out.join('');
    expect(text).toContain('code not given x1 date not given: charged $150.00');
    expect(text).not.toContain('?');
  });

  it('names the claim, the payer claim number and the patient in the claim header', () => {
    // The patient arrives with the explanation core's NM1*QC reading; the header reads it when it is there.
    expect(claimHeader(claim({ patient: { name: 'DOE, JANE A' } }))).toBe('Claim PCN001 (payer claim ICN0001), patient DOE, JANE A: processed as primary; charged $150.00, paid $80.00, patient owes $20.00');
    expect(claimHeader(claim({ patient: null }))).toContain('patient not named');
  });
});

describe('the payment heading', () => {
  it('says who paid whom how much, how and when', () => {
    expect(paymentHeading(tx())).toBe('NATIONAL GOVERNMENT SERVICES (medicare_ffs) paid EXAMPLE CLINIC $211,366.97 by ACH on 2026-08-03, trace EFT0001');
  });

  it('says a notification without money moves none, never "paid $0.00 by NON"', () => {
    for (const payment of [
      { method: 'NON', amount: 0, credit_debit: 'C', date: '2026-08-03', trace_number: '0' },
      { method: 'ACH', amount: 0, credit_debit: 'C', date: '2026-08-03', trace_number: '0' },
    ]) {
      const h = paymentHeading(tx({ payment }));
      expect(h).toBe('NATIONAL GOVERNMENT SERVICES (medicare_ffs) to EXAMPLE CLINIC: no payment (notification only), on 2026-08-03, trace 0');
      expect(h).not.toContain('paid');
    }
  });

  it('says a debit (BPR03 D) is money taken back', () => {
    expect(paymentHeading(tx({ payment: { method: 'ACH', amount: 45, credit_debit: 'D', date: '2026-08-03', trace_number: 'T1' } }))).toBe('NATIONAL GOVERNMENT SERVICES (medicare_ffs) took back $45.00 from EXAMPLE CLINIC by ACH on 2026-08-03, trace T1');
  });
});

describe('provider adjustments (PLB) in words', () => {
  it('says a positive amount is withheld from the deposit and a negative one added to it (835 TR3 PLB04)', () => {
    expect(providerAdjustmentWords(plb('WO', 45, 'overpayment recovery', 'ICN0099'))).toBe('provider adjustment WO (overpayment recovery): $45.00 withheld from the deposit, reference ICN0099');
    expect(providerAdjustmentWords(plb('L6', -1.08, 'interest owed', 'ICN0004'))).toBe('provider adjustment L6 (interest owed): $1.08 added to the deposit, reference ICN0004');
    expect(providerAdjustmentWords(plb('ZZ', 1234.5, null))).toBe('provider adjustment ZZ (reason not described): $1,234.50 withheld from the deposit');
  });

  it("prints a transaction's provider adjustments after its claims", () => {
    const out: string[] = [];
    const w = new RemitText(null, false, (s) => out.push(s));
    const t = tx({ provider_adjustments: [plb('L6', -1.08, 'interest owed')] });
    w.claim(t, claim());
    w.finish(explanation(t));
    const lines = out.join('').split('\n');
    expect(lines.findIndex((l) => l.startsWith('provider adjustment L6'))).toBeGreaterThan(lines.findIndex((l) => l.startsWith('Claim PCN001')));
    // Then the payment reconciled, in the reconciliation's words.
    expect(lines[lines.findIndex((l) => l.startsWith('provider adjustment L6')) + 1]).toBe('balanced: claims paid $80.00 make $80.00: a payment of $80.00');
  });

  it('names a reversal and its correction in each one\'s header, the correction with its net change', () => {
    const ref = { file: null, transaction: 0, claim: 0, patient_control_number: 'PCN3', payer_claim_control_number: 'ICN3' };
    expect(claimHeader(claim({ status: { code: '22', meaning: 'reversal of previous payment' }, corrected_by: { ...ref, claim: 1, payer_claim_control_number: 'ICN4' } }))).toMatch(/; corrected by payer claim ICN4$/);
    expect(claimHeader(claim({ reversal_of: ref, net_paid_change: 9.14 }))).toMatch(/; corrects the reversal of payer claim ICN3: net \+\$9\.14$/);
    expect(claimHeader(claim({ reversal_of: { ...ref, file: 'a.835', payer_claim_control_number: null }, net_paid_change: -1.08 }))).toMatch(/; corrects the reversal of claim PCN3 in a\.835: net -\$1\.08$/);
  });
});

describe('markdown', () => {
  it('writes a table per claim (line, code and modifiers, date, units, charged, allowed, paid, adjustments) and then its bullets', () => {
    const md = claimMarkdown(
      claim({
        patient: { name: 'DOE, JANE' },
        lines: [line(), line({ code: '97597', modifiers: ['59', 'XS'], units: 2, charged: 1200, allowed: 0, paid: 0, service_from: '2026-07-15', service_to: '2026-07-16', adjustments: [adjustment('CO', '97', 1200, 'Bundled.', 'reopen')], remarks: [{ code: 'M80', description: 'Not covered.', deactivated: false }] as Line['remarks'] })],
      }),
    );
    expect(md).toEqual([
      '',
      '#### Claim PCN001 (payer claim ICN0001), patient DOE, JANE: processed as primary; charged $150.00, paid $80.00, patient owes $20.00',
      '',
      '| line | code and modifiers | date of service | units | charged | allowed | paid | adjustments |',
      '|---:|---|---|---:|---:|---:|---:|---|',
      '| 1 | 99213 | 2025-12-01 | 1 | $150.00 | $100.00 | $80.00 | CO-45 $50.00, PR-1 $20.00 |',
      '| 2 | 97597-59-XS | 2026-07-15 to 2026-07-16 | 2 | $1,200.00 | $0.00 | $0.00 | CO-97 $1,200.00 |',
      '',
      "- line 1 CO-45 $50.00: Charge exceeds fee schedule. -> contractual adjustment; the amount is the provider's",
      "- line 1 PR-1 $20.00: Deductible Amount -> bill patient; the amount is the patient's",
      "- line 2 CO-97 $1,200.00: Bundled. -> reopen; the amount is the provider's",
      '- line 2 remark M80: Not covered.',
    ]);
  });

  it('keeps a pipe from the file inside its cell', () => {
    const md = claimMarkdown(claim({ lines: [line({ code: 'A|B' })] }));
    expect(md.find((l) => l.startsWith('| 1 '))).toContain('| A\\|B |');
  });

  it('heads each file only when several are explained, and writes the payment as a heading', () => {
    const out: string[] = [];
    const w = new RemitText('a.835', true, (s) => out.push(s));
    const t = tx();
    w.claim(t, claim());
    w.finish(explanation(t));
    const lines = out.join('').split('\n');
    expect(lines[0]).toBe('## a.835');
    expect(lines).toContain('### NATIONAL GOVERNMENT SERVICES (medicare_ffs) paid EXAMPLE CLINIC $211,366.97 by ACH on 2026-08-03, trace EFT0001');
    const one: string[] = [];
    new RemitText(null, false, (s) => one.push(s)).finish(explanation(tx()));
    expect(one.join('').split('\n')[0]).toBe('NATIONAL GOVERNMENT SERVICES (medicare_ffs) paid EXAMPLE CLINIC $211,366.97 by ACH on 2026-08-03, trace EFT0001');
  });
});

describe('terminal safety', () => {
  it('escapes control characters from the file in every line it writes', () => {
    const out: string[] = [];
    const w = new RemitText(null, false, (s) => out.push(s));
    const t = tx({ payer: { name: 'EVIL\u001b]52;c;ZWNobyBoaQ==\u0007', slug: null } });
    w.claim(t, claim({ patient: { name: 'DOE\u009b2J' } }));
    w.finish(explanation(t));
    const text = out.join('');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(text).toContain('EVIL\\x1b]52;c;ZWNobyBoaQ==\\x07');
    expect(text).toContain('patient DOE\\x9b2J');
  });
});

describe('a remittance deadline as a person reads it', () => {
  it('says "appeal by" with the days left, or that the window closed and how long ago, for each kind', () => {
    expect(deadlineWords({ kind: 'appeal_by', date: '2026-04-06', days_remaining: 117 })).toBe('appeal by 2026-04-06 (117 days)');
    expect(deadlineWords({ kind: 'appeal_by', date: '2021-08-03', days_remaining: -1951 })).toBe('appeal window closed 2021-08-03 (1,951 days ago)');
    expect(deadlineWords({ kind: 'reopen_by', date: '2027-08-03', days_remaining: 1 })).toBe('reopen by 2027-08-03 (1 day)');
    expect(deadlineWords({ kind: 'reopen_by', date: '2025-08-03', days_remaining: -1 })).toBe('reopening window closed 2025-08-03 (1 day ago)');
    expect(deadlineWords({ kind: 'resubmit_by', date: '2026-12-01', days_remaining: 0 })).toBe('resubmit by 2026-12-01 (today)');
    expect(deadlineWords({ kind: 'resubmit_by', date: '2026-12-01', days_remaining: -30 })).toBe('filing limit passed 2026-12-01 (30 days ago)');
    expect(deadlineWords({ kind: 'appeal_by', date: null, days_remaining: null })).toBeNull();
  });
});
