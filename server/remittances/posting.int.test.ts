import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTING_COLUMNS } from './posting.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';

/**
 * What a posting team needs from an 835, on small files written for each case and worked by hand:
 * the 835's identifiers and amounts, the payment reconciled, reversals paired, copies caught,
 * validation findings, redaction, and the posting file.
 */

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

interface Header {
  handling?: string;
  amount: string;
  cd?: string;
  method?: string;
  date?: string;
  trace?: string;
  payee?: string[];
}

/** One 835 transaction, ST to SE (SE01 counted). */
function tx(ctrl: string, h: Header, body: string[]): string[] {
  const inner = [
    `ST*835*${ctrl}`,
    `BPR*${h.handling ?? 'I'}*${h.amount}*${h.cd ?? 'C'}*${h.method ?? 'ACH'}*CCP*01*999999999*DA*123456*1234567890**01*999988880*DA*98765*${h.date ?? '20260105'}`,
    `TRN*1*${h.trace ?? 'EFT0001'}*1234567890`,
    'N1*PR*MEDICARE',
    ...(h.payee ?? ['N1*PE*EXAMPLE CLINIC*XX*1234567893']),
    'LX*1',
    ...body,
  ];
  return [...inner, `SE*${inner.length + 1}*${ctrl}`];
}

function file(...txs: string[][]): string {
  return (
    [
      'ISA*00*          *00*          *ZZ*PAYERID        *ZZ*PROVIDERID     *260105*1200*^*00501*000000001*0*T*:',
      'GS*HP*PAYERID*PROVIDERID*20260105*1200*1*X*005010X221A1',
      ...txs.flat(),
      `GE*${txs.length}*1`,
      'IEA*1*000000001',
    ].join('~\n') + '~\n'
  );
}

const explain = (body: string, q = 'as_of=2026-01-10', headers: Record<string, string> = {}) =>
  t.request(`/v1/remittances/explain?${q}`, { method: 'POST', body, headers: { 'Content-Type': 'application/edi-x12', ...headers } });

/** MIA with MIA04 850.00 (the DRG amount), MIA05 MA01 and MIA20 MA02 (remarks), MIA24 25.50 (an amount, not a remark). */
const MIA = (() => {
  const el = Array.from({ length: 24 }, () => '');
  el[0] = '3';
  el[3] = '850';
  el[4] = 'MA01';
  el[19] = 'MA02';
  el[23] = '25.50';
  return `MIA*${el.join('*')}`;
})();

describe("an 835's identifiers and amounts", () => {
  // An inpatient claim: 300 charged, 200 paid (3.25 of it interest), CO-45 80 + PR-1 20 = 100 = 300 - 200; CLP05 20 = the PR adjustments.
  const inpatient = file(
    tx('0001', { amount: '200', payee: ['N1*PE*EXAMPLE HOSPITAL*FI*123456789'] }, [
      'CLP*PCN1*1*300*200*20*MA*ICN100*11*1**291*1.2345*0.5',
      'NM1*QC*1*DOE*JANE*Q***MI*MBI123',
      'NM1*IL*1*DOE*JOHN****MI*SUB999',
      'NM1*74*1*DOE*JANET',
      'NM1*82*1*SMITH*ANN****XX*1234567893',
      MIA,
      'REF*1L*GRP55',
      'REF*EA*MRN777',
      'REF*F8*ICN050',
      'DTM*232*20251201',
      'AMT*I*3.25',
      'AMT*AU*200',
      'QTY*CA*3',
      'CAS*CO*45*80',
      'CAS*PR*1*20',
    ]),
  );

  it('answers the patient, insured, corrected name, rendering provider, references, amounts, quantities, MIA amounts, CLP09 and the DRG', async () => {
    const r = await explain(inpatient);
    expect(r.status, r.text).toBe(200);
    const [tr] = r.body.transactions;
    expect(tr.payee).toEqual({ name: 'EXAMPLE HOSPITAL', npi: null, tin: '123456789', id_qualifier: 'FI', id: '123456789' });
    const c = tr.claims[0];
    expect(c.patient).toEqual({ name: 'DOE, JANE Q', last_name: 'DOE', first_name: 'JANE', middle_name: 'Q', suffix: null, id_qualifier: 'MI', id: 'MBI123' });
    expect(c.insured).toMatchObject({ name: 'DOE, JOHN', id: 'SUB999' });
    expect(c.corrected_patient).toMatchObject({ name: 'DOE, JANET', id: null });
    expect(c.member_id).toBe('MBI123');
    expect(c.rendering_provider).toEqual({ name: 'SMITH, ANN', npi: '1234567893', id_qualifier: 'XX', id: '1234567893' });
    expect(c.original_reference).toBe('ICN050');
    expect(c.references).toEqual([
      { qualifier: '1L', meaning: 'group or policy number', value: 'GRP55' },
      { qualifier: 'EA', meaning: 'medical record identification number', value: 'MRN777' },
    ]);
    expect(c.interest).toBe(3.25);
    expect(c.amounts).toEqual([
      { qualifier: 'I', meaning: 'interest', amount: 3.25 },
      { qualifier: 'AU', meaning: 'coverage amount', amount: 200 },
    ]);
    expect(c.quantities).toEqual([{ qualifier: 'CA', meaning: 'covered - actual', quantity: 3 }]);
    expect(c.claim_frequency).toBe('1');
    expect(c.drg).toEqual({ code: '291', weight: 1.2345, discharge_fraction: 0.5 });
    // MIA24 is the PPS-capital exception amount: never a remark code.
    expect(c.inpatient).toMatchObject({ covered_days_or_visits: 3, claim_drg_amount: 850, pps_capital_exception_amount: 25.5, pps_operating_outlier_amount: null });
    expect(c.remarks.map((x: { code: string }) => x.code)).toEqual(['MA01', 'MA02']);
    expect(r.body.findings.filter((f: { code: string }) => f.code !== 'unknown_code')).toEqual([]);
  });

  it('takes the payee TIN from REF*TJ when N1*PE names an NPI, and reads MOA amounts', async () => {
    const r = await explain(
      file(
        tx('0001', { amount: '80', payee: ['N1*PE*EXAMPLE CLINIC*XX*1234567893', 'N3*1 MAIN ST', 'REF*TJ*987654321'] }, [
          'CLP*PCN2*1*100*80*0*MB*ICN200',
          'MOA*0.8*12.5*MA130**MA18***4.25*1.75',
          'SVC*HC:99213*100*80**1',
          'DTM*472*20251201',
          'CAS*CO*45*20',
        ]),
      ),
    );
    expect(r.status, r.text).toBe(200);
    const [tr] = r.body.transactions;
    expect(tr.payee).toMatchObject({ npi: '1234567893', tin: '987654321' });
    const c = tr.claims[0];
    expect(c.outpatient).toEqual({ reimbursement_rate: 0.8, claim_hcpcs_payable_amount: 12.5, claim_esrd_payment_amount: 4.25, nonpayable_professional_component_amount: 1.75 });
    expect(c.remarks.map((x: { code: string }) => x.code)).toEqual(['MA130', 'MA18']);
    expect(c.patient).toBeNull();
  });
});

describe('reconciliation per payment', () => {
  it('adds an interest PLB to the payment and withholds a recovery, in words, and balances', async () => {
    // Claims paid 200 + 100 = 300; PLB L6 -1.50 (added) and WO 25.00 (withheld): 300 + 1.50 - 25.00 = 276.50 = BPR02.
    const r = await explain(
      file(
        tx('0001', { amount: '276.50' }, [
          'CLP*A1*1*250*200*0*MB*ICN1',
          'CAS*CO*45*50',
          'CLP*A2*1*100*100*0*MB*ICN2',
          'PLB*1234567893*20261231*L6:ICN1*-1.50*WO:ICN9*25.00',
        ]),
      ),
    );
    expect(r.status, r.text).toBe(200);
    const rec = r.body.transactions[0].reconciliation;
    expect(rec).toMatchObject({ payment: 276.5, direction: 'credit', notification_only: false, claims_paid: 300, provider_adjustments_total: 23.5, expected_payment: 276.5, difference: 0, balanced: true });
    expect(rec.provider_adjustments.map((p: { reason: string; effect: string }) => [p.reason, p.effect])).toEqual([
      ['L6', 'added_to_payment'],
      ['WO', 'withheld_from_payment'],
    ]);
    expect(rec.explanation).toBe(
      'claims paid $300.00, plus $1.50 added by provider adjustment L6 (interest owed), less $25.00 withheld by provider adjustment WO (overpayment recovery) make $276.50: a payment of $276.50',
    );
    expect(r.body.findings.map((f: { code: string }) => f.code)).not.toContain('transaction_unbalanced');
  });

  it('reads a debit (BPR03 D) as money taken back, balanced by a reversal, and a notification (BPR01 H, NON) as no money', async () => {
    const debit = await explain(file(tx('0001', { amount: '50', cd: 'D' }, ['CLP*R1*22*-50*-50*0*MB*ICN5', 'CAS*CO*45*0'])));
    expect(debit.status, debit.text).toBe(200);
    expect(debit.body.transactions[0].reconciliation).toMatchObject({ payment: -50, direction: 'debit', claims_paid: -50, expected_payment: -50, balanced: true });
    expect(debit.body.transactions[0].reconciliation.explanation).toMatch(/a debit of \$50\.00 \(taken back from the provider\)$/);
    expect(debit.body.findings.map((f: { code: string }) => f.code)).not.toContain('transaction_unbalanced');

    const note = await explain(file(tx('0001', { handling: 'H', amount: '0', method: 'NON' }, ['CLP*N1*4*80*0*0*MB*ICN6', 'CAS*CO*50*80'])));
    expect(note.status, note.text).toBe(200);
    expect(note.body.transactions[0].payment.handling).toEqual({ code: 'H', meaning: 'notification only' });
    expect(note.body.transactions[0].reconciliation).toMatchObject({ payment: 0, direction: 'none', notification_only: true, balanced: true });
    expect(note.body.findings).toEqual([expect.objectContaining({ code: 'notification_only', severity: 'info' })]);
  });

  it('says by how much a payment does not balance', async () => {
    const r = await explain(file(tx('0001', { amount: '90' }, ['CLP*A1*1*100*100*0*MB*ICN1'])));
    const rec = r.body.transactions[0].reconciliation;
    expect(rec).toMatchObject({ payment: 90, expected_payment: 100, difference: -10, balanced: false });
    expect(rec.explanation).toMatch(/\$10\.00 less than its 0 provider adjustments and claims account for$/);
    expect(r.body.findings.map((f: { code: string }) => f.code)).toContain('transaction_unbalanced');
  });
});

describe('reversals paired with their corrections', () => {
  // R9 reverses ICN900 (paid 100); an unrelated claim follows; C9 corrects it (REF*F8 ICN900) paying 90: net -10.
  // C8 (ICN801) is read before its reversal R8 (same CLP07); R7 has no correction.
  const body = file(
    tx('0001', { amount: '280' }, [
      'CLP*P9*22*-120*-100*-20*MB*ICN900',
      'CAS*PR*1*-20',
      'CLP*X1*1*100*100*0*MB*ICNX',
      'CLP*P9*1*120*90*20*MB*ICN901',
      'REF*F8*ICN900',
      'CAS*PR*1*20',
      'CAS*CO*45*10',
      'CLP*P8*1*300*290*0*MB*ICN801',
      'CAS*CO*45*10',
      'CLP*P8*22*-300*-290*0*MB*ICN801',
      'CAS*CO*45*-10',
      'CLP*P7*22*-50*-50*0*MB*ICN700',
      'CAS*CO*45*0',
      'CLP*P6*1*260*260*0*MB*ICN600',
    ]),
  );

  it('pairs by REF*F8, by CLP07, and reports the one left alone', async () => {
    const r = await explain(body);
    expect(r.status, r.text).toBe(200);
    const claims = r.body.transactions[0].claims;
    expect(claims.map((c: { patient_control_number: string }) => c.patient_control_number)).toEqual(['P9', 'X1', 'P9', 'P8', 'P8', 'P7', 'P6']);
    const ref = (claim: number, pcn: string, icn: string) => ({ file: null, transaction: 0, claim, patient_control_number: pcn, payer_claim_control_number: icn });
    // The reversal waited (holding X1 back) until its correction was read: both sides name each other.
    expect(claims[0].corrected_by).toEqual(ref(2, 'P9', 'ICN901'));
    expect(claims[2].reversal_of).toEqual(ref(0, 'P9', 'ICN900'));
    expect(claims[2].net_paid_change).toBe(-10);
    // The correction came first: the reversal names it; the pair is in `reversals`.
    expect(claims[4].corrected_by).toEqual(ref(3, 'P8', 'ICN801'));
    expect(claims[3].reversal_of).toBeNull();
    expect(claims[5].corrected_by).toBeNull();
    expect(r.body.reversals).toEqual([
      { reversal: ref(0, 'P9', 'ICN900'), corrected_by: ref(2, 'P9', 'ICN901'), matched_by: 'original_reference', reversed_paid: -100, corrected_paid: 90, net_paid_change: -10 },
      { reversal: ref(4, 'P8', 'ICN801'), corrected_by: ref(3, 'P8', 'ICN801'), matched_by: 'payer_claim_control_number', reversed_paid: -290, corrected_paid: 290, net_paid_change: 0 },
      { reversal: ref(5, 'P7', 'ICN700'), corrected_by: null, matched_by: null, reversed_paid: -50, corrected_paid: null, net_paid_change: null },
    ]);
    const unpaired = r.body.findings.filter((f: { code: string }) => f.code === 'reversal_unpaired');
    expect(unpaired).toEqual([expect.objectContaining({ severity: 'warning', loc: expect.objectContaining({ transaction: 0, claim: 5, segment_id: 'CLP' }) })]);
    expect(unpaired[0].message).toMatch(/reverses \$50\.00/);
  });

  it('keeps pairs with redact: tokens stable within the answer, and says it is not de-identified', async () => {
    const r = await explain(body, 'as_of=2026-01-10&redact=true');
    expect(r.status, r.text).toBe(200);
    const claims = r.body.transactions[0].claims;
    expect(JSON.stringify(r.body)).not.toMatch(/ICN90|"P9"|ICN801/);
    expect(claims[0].payer_claim_control_number).toMatch(/^CLAIM-\d+$/);
    expect(claims[2].reversal_of.payer_claim_control_number).toBe(claims[0].payer_claim_control_number);
    expect(claims[2].original_reference).toBe(claims[0].payer_claim_control_number);
    expect(claims[0].patient_control_number).toBe(claims[2].patient_control_number);
    expect(r.body.reversals[0].reversal.payer_claim_control_number).toBe(claims[0].payer_claim_control_number);
    expect(r.body.reliability.warnings).toContainEqual(expect.stringMatching(/^redacted, not de-identified/));
  });
});

describe('the same remittance twice', () => {
  it('is a finding; the copy carries duplicate_of and stays out of the totals and the worklist', async () => {
    const one = tx('0001', { amount: '80' }, ['CLP*A1*1*100*80*0*MB*ICN1', 'SVC*HC:99213*100*80**1', 'DTM*472*20251201', 'CAS*CO*45*20', 'CAS*CO*97*0']);
    const two = one.map((s) => s.replace('*0001', '*0002'));
    const r = await explain(file(one, two));
    expect(r.status, r.text).toBe(200);
    const [a, b] = r.body.transactions;
    expect(a.duplicate_of).toBeNull();
    expect(b.duplicate_of).toEqual({ file: null, transaction: 0 });
    expect(b.claims).toHaveLength(1);
    expect(r.body.summary).toMatchObject({ transactions: 2, claims: 1, duplicates: 1, totals: { charged: 100, paid: 80 } });
    expect(r.body.worklist.find((w: { reason: string }) => w.reason === '45').count).toBe(1);
    expect(r.body.findings.filter((f: { code: string }) => f.code === 'duplicate_remittance')).toEqual([expect.objectContaining({ loc: expect.objectContaining({ transaction: 1, segment_id: 'BPR' }) })]);
  });
});

describe('validation findings a poster needs', () => {
  it('finds bad group codes, CARC usage, a seventh CAS triplet, missing elements, bad dates, the patient share and a bad NPI', async () => {
    const r = await explain(
      file(
        tx('0001', { amount: '0', date: '20261345' }, [
          // No CLP07; CLP05 30 while the PR adjustments are 20.
          'CLP*A1*1*100*0*30*MB',
          'NM1*82*1*SMITH*ANN****XX*1234567890',
          'SVC*HC:99213*100*0**1',
          'DTM*472*20270101',
          'CAS*ZZ*45*10',
          'CAS*CR*45*10',
          'CAS*CO*23*10',
          'CAS*PR*1*20',
          'CAS*CO*45*10*1*45*10*1*45*10*1*45*10*1*45*10*1*45*10*1*45*10',
          'SVC*HC:99214**0**1',
        ]),
      ),
      'as_of=2027-06-01',
    );
    expect(r.status, r.text).toBe(200);
    const codes = r.body.findings.map((f: { code: string }) => f.code);
    for (const c of ['invalid_date', 'required_element_missing', 'unknown_group_code', 'group_code_retired', 'carc_group_mismatch', 'cas_triplets_exceeded', 'patient_share_mismatch', 'invalid_npi']) expect(codes, c).toContain(c);
    const find = (c: string) => r.body.findings.filter((f: { code: string }) => f.code === c);
    expect(find('required_element_missing').map((f: { message: string }) => f.message)).toEqual([
      expect.stringMatching(/CLP07 payer claim control number/),
      expect.stringMatching(/line 2 of claim 1 has no SVC02 line charge, which the 835 requires \(read as 0\.00\)/),
    ]);
    expect(find('carc_group_mismatch').map((f: { message: string }) => f.message)).toContainEqual(expect.stringMatching(/CARC 23 is used with group CO, but its X12 usage note says to use it only with OA/));
    expect(find('patient_share_mismatch')[0].message).toMatch(/\(CLP05\) 30\.00 is not its PR adjustments, 20\.00/);
    expect(find('cas_triplets_exceeded')[0]).toMatchObject({ severity: 'error', loc: { segment_id: 'CAS', claim: 0, line: 0 } });
    expect(find('invalid_npi')[0].message).not.toMatch(/1234567890/);
    // BPR16 is not a date: the file's GS04 dates it, and a date of service after it is a finding.
    expect(r.body.transactions[0].remittance_date).toBe('2026-01-05');
    expect(find('service_after_remittance')[0].message).toMatch(/2027-01-01 is after the remittance date 2026-01-05/);
  });
});

describe('the posting file', () => {
  const body = file(
    tx('0001', { amount: '78.50', trace: 'TRACE9' }, [
      'CLP*PCN1*1*150*80*20*MB*ICN1*11*1',
      'NM1*QC*1*DOE*JANE****MI*MBI123',
      'AMT*I*1.25',
      'SVC*HC:99213:25*150*80**1',
      'DTM*472*20251201',
      'CAS*CO*45*50',
      'CAS*PR*1*20',
      'LQ*HE*N130',
      'PLB*1234567893*20261231*WO:ICN0*1.50',
    ]),
  );

  it('is one row per claim, line, adjustment and provider adjustment, with the 835 identifiers, as ?format=posting-csv and Accept: text/csv', async () => {
    const r = await explain(body, 'as_of=2026-01-10&format=posting-csv');
    expect(r.status, r.text).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/csv/);
    const byAccept = await explain(body, 'as_of=2026-01-10', { Accept: 'text/csv' });
    expect(byAccept.text).toBe(r.text);
    expect(r.text.split('\n')[0]).toBe(POSTING_COLUMNS.join(','));
    const rows: Record<string, string>[] = parse(r.text, { columns: true });
    expect(rows.map((x) => x.level)).toEqual(['claim', 'line', 'adjustment', 'adjustment', 'provider_adjustment']);
    expect(rows[0]).toMatchObject({ file: '', trace_number: 'TRACE9', payment_date: '2026-01-05', payer_id: '1234567890', payer_name: 'MEDICARE', payee_npi: '1234567893', patient_control_number: 'PCN1', payer_claim_control_number: 'ICN1', claim_status: '1', claim_frequency: '1', patient_name: 'DOE, JANE', member_id: 'MBI123', charged: '150.00', paid: '80.00', patient_responsibility: '20.00', interest: '1.25' });
    expect(rows[1]).toMatchObject({ line_number: '1', code: '99213', modifiers: '25', date_of_service: '2025-12-01', units: '1', charged: '150.00', allowed: '100.00', paid: '80.00', remarks: 'N130' });
    expect(rows[2]).toMatchObject({ level: 'adjustment', line_number: '1', group: 'CO', reason: '45', amount: '50.00', remedy: 'contractual_adjustment', remarks: 'N130' });
    expect(rows[3]).toMatchObject({ group: 'PR', reason: '1', amount: '20.00', remedy: 'bill_patient' });
    expect(rows[4]).toMatchObject({ level: 'provider_adjustment', reason: 'WO', amount: '1.50', reference: 'ICN0', patient_control_number: '' });
  });

  it('writes the worklist as worklist-csv', async () => {
    const r = await explain(body, 'as_of=2026-01-10&format=worklist-csv');
    expect(r.status, r.text).toBe(200);
    const [head, ...lines] = r.text.trimEnd().split('\n');
    expect(head).toBe('file,source,payer,group,reason,remedy,count,amount,earliest_deadline');
    expect(lines).toContain(',835,medicare_ffs,PR,1,bill_patient,1,20.00,');
  });
});
