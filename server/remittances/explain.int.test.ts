import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeCatalog } from '../routes/index.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { remit835 } from '../../testing/x12.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const X12 = { 'Content-Type': 'application/edi-x12' };
const explain = (body: string, o: { asOf?: string; key?: string | null; headers?: Record<string, string> } = {}) =>
  t.request(`/v1/remittances/explain${o.asOf ? `?as_of=${o.asOf}` : ''}`, { method: 'POST', body, key: o.key, headers: { ...X12, ...(o.headers ?? {}) } });

const remit = remit835;

describe('POST /v1/remittances/explain', () => {
  // Worked by hand. Claim A: 150 charged, 80 paid; CO-45 50 (contractual) + PR-1 20 (deductible) = 70 = 150 - 80.
  // Claim B: a paid visit (200, CO-45 80, paid 120) and a venipuncture bundled into it (CO-97 30, paid 0).
  // Claim C: denied for timely filing, CO-29 100 at claim level (no line detail: a line without CAS would not balance). BPR02 = 80 + 120 + 0 = 200.
  const medicare = remit(
    [
      'CLP*A1*1*150*80*20*MB*ICN0001',
      'SVC*HC:99213*150*80**1',
      'DTM*472*20251201',
      'CAS*CO*45*50',
      'CAS*PR*1*20',
      'CLP*B1*1*230*120*0*MB*ICN0002',
      'SVC*HC:99214:25*200*120**1',
      'DTM*472*20251201',
      'CAS*CO*45*80',
      'AMT*B6*120',
      'SVC*HC:36415*30*0**1',
      'DTM*472*20251201',
      'CAS*CO*97*30',
      'LQ*HE*M80',
      'CLP*C1*4*100*0*0*MB*ICN0003',
      'CAS*CO*29*100',
    ],
    { bpr: '200' },
  );

  it('explains CO-45, PR-1, CO-97 and CO-29 with the payer mapped, remedies and Medicare deadlines', async () => {
    const r = await explain(medicare, { asOf: '2026-01-10' });
    expect(r.status, r.text).toBe(200);
    const tx = r.body.transactions[0];
    expect(tx.payer).toEqual({ name: 'MEDICARE', id: null, slug: 'medicare_ffs', type: 'medicare', identified_by: 'name', medicare_jurisdictions: [] });
    expect(tx.payee).toEqual({ name: 'EXAMPLE CLINIC', npi: '1234567893', tin: null, id_qualifier: 'XX', id: '1234567893' });
    expect(tx.payment).toEqual({ handling: { code: 'I', meaning: 'remittance information only' }, method: 'ACH', amount: 200, credit_debit: 'C', date: '2026-01-05', trace_number: 'EFT0001', originating_company_id: '1234567890' });
    expect(tx.remittance_date).toBe('2026-01-05');
    const [a, b, c] = tx.claims;
    expect(a).toMatchObject({ patient_control_number: 'A1', status: { code: '1', meaning: 'processed as primary' }, charged: 150, paid: 80, patient_responsibility: 20, claim_filing_indicator: 'MB', payer_claim_control_number: 'ICN0001' });
    const [co45, pr1] = a.lines[0].adjustments;
    // allowed = paid 80 + PR-1 20 = 100 (no AMT*B6 on this line).
    expect(a.lines[0]).toMatchObject({ code: '99213', modifiers: [], units: 1, charged: 150, paid: 80, allowed: 100, allowed_source: 'computed', service_from: '2025-12-01' });
    expect(co45).toMatchObject({ group: 'CO', reason: '45', amount: 50, deactivated: false, remedy: 'contractual_adjustment', responsibility: 'provider', appeal_rights: 'conditional' });
    expect(co45.description).toMatch(/^Charge exceeds fee schedule/);
    // A contractual reduction has no deadline (an appeal date would read as one): rule `contractual`.
    expect(co45).toMatchObject({ deadline: null, rule_id: 'contractual' });
    expect(pr1).toMatchObject({ group: 'PR', reason: '1', amount: 20, remedy: 'bill_patient', responsibility: 'patient', appeal_rights: 'no', deadline: null });
    expect(pr1.description).toMatch(/^Deductible Amount/);

    // Bundled venipuncture: no NCCI edit of the PTP version in force on 2025-12-01 pairs it (none is loaded for
    // that date: the nearest decides nothing), so no rule says reopen or write off: review, not a guessed resubmission.
    const venipuncture = b.lines[1];
    expect(b.lines[0]).toMatchObject({ code: '99214', modifiers: ['25'], allowed: 120, allowed_source: 'amt_b6' });
    expect(venipuncture.adjustments[0]).toMatchObject({ group: 'CO', reason: '97', amount: 30, remedy: 'review', responsibility: 'undetermined', deadline: null, rule_id: 'review' });
    expect(venipuncture.ncci).toMatchObject({ version_in_force: false });
    expect(venipuncture.remarks).toEqual([{ code: 'M80', description: expect.stringMatching(/^Not covered when performed during the same session/), deactivated: false }]);
    expect(venipuncture.allowed).toBe(0);

    // Timely filing at Medicare: no appeal rights, so no deadline.
    expect(c.status).toEqual({ code: '4', meaning: 'denied' });
    expect(c.adjustments[0]).toMatchObject({ group: 'CO', reason: '29', amount: 100, remedy: 'not_appealable', appeal_rights: 'no', deadline: null });
    expect(c.adjustments[0].citations.map((x: { title: string }) => x.title).join(' ')).toContain('405.926');

    expect(r.body.findings).toEqual([]);
    expect(r.body.summary).toEqual({
      interchanges: 1,
      transactions: 1,
      claims: 3,
      service_lines: 3,
      adjustments: 5,
      totals: { charged: 480, paid: 200, patient_responsibility: 20, adjusted_by_group: { CO: 260, PR: 20 } },
      findings: 0,
      acknowledgments: 0,
      duplicates: 0,
    });
    expect(r.body.acknowledgments).toEqual([]);
    // Earliest deadline first, then by amount: none of these has a deadline.
    expect(r.body.worklist).toEqual([
      { source: '835', payer: 'medicare_ffs', group: 'CO', reason: '45', remedy: 'contractual_adjustment', count: 2, amount: 130, earliest_deadline: null },
      { source: '835', payer: 'medicare_ffs', group: 'CO', reason: '29', remedy: 'not_appealable', count: 1, amount: 100, earliest_deadline: null },
      { source: '835', payer: 'medicare_ffs', group: 'CO', reason: '97', remedy: 'review', count: 1, amount: 30, earliest_deadline: null },
      { source: '835', payer: 'medicare_ffs', group: 'PR', reason: '1', remedy: 'bill_patient', count: 1, amount: 20, earliest_deadline: null },
    ]);
    // The per-line links read too: the PTP table for the CO-97 line, NPPES for the payee's location (server/remittances/links.int.test.ts).
    expect(Object.keys(r.body.reliability.dataset_versions).sort()).toEqual(['ncci_ptp_prac', 'nppes', 'payers', 'x12_codes']);
    expect(r.body.reliability.warnings.join(' ')).toContain('must not carry PHI');
  });

  it('takes the 835 as text/plain too, and refuses another type naming both', async () => {
    const body = remit(['CLP*PCN9*1*100*100*0*MB*ICN9', 'SVC*HC:99213*100*100**1', 'DTM*472*20251201'], { bpr: '100' });
    expect((await explain(body, { headers: { 'Content-Type': 'text/plain' } })).status).toBe(200);
    const r = await explain(body, { headers: { 'Content-Type': 'application/json' } });
    expect(r.status).toBe(415);
    expect(r.body.detail).toMatch(/application\/edi-x12 or text\/plain/);
  });

  it('judges a deactivated CARC by the remittance date: CO-42 (stopped 2007-06-01) is valid in 2006, deactivated in 2026', async () => {
    const segs = ['CLP*D1*1*100*90*0*CI*ICN9', 'SVC*HC:99213*100*90**1', 'DTM*472*20051201', 'CAS*CO*42*10'];
    const old = await explain(remit(segs, { payer: 'SOME REGIONAL PLAN', date: '20060105', bpr: '90' }), { asOf: '2006-01-10' });
    const now = await explain(remit(segs, { payer: 'SOME REGIONAL PLAN', date: '20260105', bpr: '90' }), { asOf: '2026-01-10' });
    expect(old.status, old.text).toBe(200);
    const adjOf = (x: typeof old) => x.body.transactions[0].claims[0].lines[0].adjustments[0];
    expect(adjOf(old)).toMatchObject({ reason: '42', deactivated: false });
    expect(adjOf(now)).toMatchObject({ reason: '42', deactivated: true });
    expect(adjOf(now).description).toMatch(/^Charges exceed our fee schedule/);
    // An unmapped payer: no payer rules, so no deadline.
    expect(now.body.transactions[0].payer.slug).toBeNull();
    expect(adjOf(now).deadline).toBeNull();
  });

  it('reports each balancing rule as a finding with its position, and still explains the rest', async () => {
    // Line: 100 - 60 = 40, adjustments 30 (line_unbalanced). Claim: 100 - 60 = 40, adjustments 30 (claim_unbalanced).
    // Transaction: BPR02 70, claims paid 60 less PLB WO 5 = 55 (transaction_unbalanced). CARC 999 is in no list (unknown_code).
    // The CAS at segment 12 has an amount that is no number (unparseable_segment).
    const body = remit(['CLP*E1*1*100*60*0*CI*ICN5', 'SVC*HC:99213*100*60**1', 'CAS*CO*45*30', 'CAS*CO*45*ABC', 'CAS*OA*999*0', 'PLB*1234567890*20261231*WO:ICN5*5'], { payer: 'SOME REGIONAL PLAN', bpr: '70' });
    const r = await explain(body, { asOf: '2026-01-10' });
    expect(r.status, r.text).toBe(200);
    const byCode = Object.fromEntries(r.body.findings.map((f: { code: string; loc: unknown }) => [f.code, f.loc]));
    expect(Object.keys(byCode).sort()).toEqual(['claim_unbalanced', 'line_unbalanced', 'transaction_unbalanced', 'unknown_code', 'unparseable_segment']);
    expect(byCode.line_unbalanced).toEqual({ interchange: 0, transaction: 0, claim: 0, line: 0, segment_index: 10, segment_id: 'SVC' });
    expect(byCode.claim_unbalanced).toEqual({ interchange: 0, transaction: 0, claim: 0, line: null, segment_index: 9, segment_id: 'CLP' });
    expect(byCode.transaction_unbalanced).toMatchObject({ claim: null, segment_index: 4, segment_id: 'BPR' });
    expect(byCode.unparseable_segment).toMatchObject({ segment_index: 12, segment_id: 'CAS' });
    expect(r.body.findings.find((f: { code: string }) => f.code === 'transaction_unbalanced').message).toContain('(55.00)');
    const tx = r.body.transactions[0];
    expect(tx.provider_adjustments).toEqual([{ provider_id: '1234567890', fiscal_period_date: '2026-12-31', reason: 'WO', description: 'overpayment recovery', reference: 'ICN5', claim: 0, amount: 5 }]);
    expect(tx.claims[0].lines[0].adjustments.map((a: { reason: string }) => a.reason)).toEqual(['45', '999']);
    expect(r.body.summary.findings).toBe(5);
    // Nothing of the file's text is echoed in a finding.
    expect(JSON.stringify(r.body.findings)).not.toContain('ABC');
  });

  it('finds a CARC whose usage note needs a remark code sent without one (or with alerts only), and not when the claim says what is wrong', async () => {
    // CARC 16 ("Claim/service lacks information...") carries X12's note "At least one Remark Code must be provided".
    // Claim 1 line 1: no remark. Claim 2: only N1, an alert. Claim 3: M51 (invalid procedure code) on its MOA, which the line reads.
    const body = remit(
      [
        'CLP*R1*4*100*0*0*MB*ICN1', 'SVC*HC:99213*100*0**1', 'DTM*472*20251201', 'CAS*CO*16*100',
        'CLP*R2*4*100*0*0*MB*ICN2', 'SVC*HC:99213*100*0**1', 'DTM*472*20251201', 'CAS*CO*16*100', 'LQ*HE*N1',
        'CLP*R3*4*100*0*0*MB*ICN3', 'MOA***M51', 'SVC*HC:99213*100*0**1', 'DTM*472*20251201', 'CAS*CO*16*100',
      ],
      { bpr: '0' },
    );
    const r = await explain(body, { asOf: '2026-01-10' });
    expect(r.status).toBe(200);
    const missing = r.body.findings.filter((f: { code: string }) => f.code === 'remark_code_missing');
    expect(missing.map((f: { loc: { claim: number; line: number; segment_id: string } }) => [f.loc.claim, f.loc.line, f.loc.segment_id])).toEqual([[0, 0, 'CAS'], [1, 0, 'CAS']]);
    expect(missing[0].message).toMatch(/^CARC 16 \(segment \d+, CAS\) needs at least one remark code that is not an alert \(its X12 usage note\); line 1 of claim 1 has none: /);
    expect(missing[1].message).toContain('line 1 of claim 2 has only alerts');
    expect(r.body.transactions[0].claims[2].remarks).toMatchObject([{ code: 'M51', description: expect.stringMatching(/^Missing\/incomplete\/invalid procedure code/) }]);
  });

  it('answers 422 naming the file type for an 837, and what is missing for a file cut short, without echoing the input', async () => {
    const full = remit(['CLP*F1*1*100*100*0*CI*ICN6'], { bpr: '100' });
    const cut = await explain(full.slice(0, full.indexOf('SE*')));
    expect(cut.status).toBe(422);
    expect(cut.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'segment', 3, 'ST'],
      ['body', 'segment', 2, 'GS'],
      ['body', 'segment', 1, 'ISA'],
    ]);
    expect(cut.text).not.toContain('EXAMPLE CLINIC');
    expect(cut.body.detail.every((d: object) => !('input' in d))).toBe(true);
    const claim = full.replace('ST*835*0001', 'ST*837*0001').replace('005010X221A1', '005010X222A1');
    const r = await explain(claim);
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ type: 'x12_not_835', loc: ['body', 'segment', 3, 'ST'] });
    expect(r.body.detail[0].msg).toBe('this file is an 837 health care claim (professional), not an 835 remittance: send an 835 remittance, or a 999 or 277CA acknowledgment');
  });

  it('is declared uncached and refuses a JSON body with 415', async () => {
    const route = routeCatalog().find((r) => r.operationId === 'explainRemittance')!;
    expect(route).toMatchObject({ cache: false, auth: { scope: 'knowledge' } });
    const json = await t.request('/v1/remittances/explain', { method: 'POST', body: { file: 'x' } });
    expect(json.status).toBe(415);
  });
});
