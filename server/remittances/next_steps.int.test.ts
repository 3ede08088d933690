import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { remit835 } from '../../testing/x12.js';

/**
 * What a remittance tells a denial analyst to do next, on 835s written for each case (no shared
 * sample has a MAC payer, a crossover or a GZ line), every answer worked by hand from the rule it
 * cites. The remittances are dated 2026-08-01 (BPR16) and read as of that day unless said.
 */

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const explain = async (segments: string[], o: { bpr: string; payer?: string; date?: string; query?: Record<string, string> }) => {
  const r = await t.request(`/v1/remittances/explain?${new URLSearchParams({ as_of: '2026-08-01', ...o.query })}`, { method: 'POST', body: remit835(segments, { date: '20260801', ...o }), headers: { 'Content-Type': 'application/edi-x12' } });
  expect(r.status, r.text.slice(0, 300)).toBe(200);
  return r.body;
};

describe('the payer a remittance names: Medicare by its contractor', () => {
  // 64490 denied CO-50 with N115 (an LCD) on 2026-07-15: an appeal at Medicare, dated from the notice:
  // 2026-08-01 + 5 days presumed receipt = 2026-08-06, + 120 days = 2026-12-04, a Friday (42 CFR 405.942(a)); 125 days away.
  const denied = ['CLP*N1*4*500*0*0*MB*ICN1*11', 'SVC*HC:64490*500*0**1', 'DTM*472*20260715', 'CAS*CO*50*500', 'LQ*HE*N115'];
  const appealBy = { kind: 'appeal_by', date: '2026-12-04', days_remaining: 125 };

  it('by its remittance name (NORIDIAN JE PART B): Medicare fee-for-service rules and deadlines apply', async () => {
    const e = await explain(denied, { bpr: '0', payer: 'NORIDIAN JE PART B' });
    expect(e.transactions[0].payer).toEqual({ name: 'NORIDIAN JE PART B', id: null, slug: 'medicare_ffs', type: 'medicare', identified_by: 'contractor_name', medicare_jurisdictions: ['JE'] });
    expect(e.transactions[0].claims[0].lines[0].adjustments[0]).toMatchObject({ remedy: 'appeal', deadline: appealBy });
  });

  it('by its Part B contractor number in N1*PR04 (01182, Southern California in Addendum E)', async () => {
    const e = await explain(denied, { bpr: '0', payer: 'CONTRACTOR*XV*01182' });
    expect(e.transactions[0].payer).toMatchObject({ slug: 'medicare_ffs', identified_by: 'contractor_number', medicare_jurisdictions: ['JE'] });
    expect(e.transactions[0].claims[0].lines[0].adjustments[0].deadline).toMatchObject(appealBy);
  });

  it('by the claim filing indicator (CLP06 MB) when no name or number matches', async () => {
    const e = await explain(denied, { bpr: '0', payer: 'SOME MEDICARE CONTRACTOR' });
    expect(e.transactions[0].payer.slug).toBeNull();
    expect(e.transactions[0].claims[0].lines[0].adjustments[0]).toMatchObject({ remedy: 'appeal', rule_id: 'payer:medicare_ffs:CO-50/N115 > coverage.medicare', deadline: appealBy });
  });
});

describe('where the claim stands and whose the patient amounts are', () => {
  it('a crossover (CLP02 19, NM1*TT) waits for the supplemental payer before billing the patient, naming it', async () => {
    // 99213: 150 charged, CO-45 49.39, PR-2 20.12 (coinsurance), paid 80.49; forwarded to a Medigap plan.
    const e = await explain(['CLP*X1*19*150*80.49*20.12*MB*ICN1*11', 'NM1*QC*1*DOE*JANE', 'NM1*TT*2*AARP MEDIGAP*****PI*36273', 'SVC*HC:99213*150*80.49**1', 'DTM*472*20251201', 'CAS*CO*45*49.39', 'CAS*PR*2*20.12'], { bpr: '80.49' });
    const claim = e.transactions[0].claims[0];
    expect(claim.crossover_payer).toEqual({ name: 'AARP MEDIGAP', id: '36273' });
    expect(claim.lines[0].adjustments[1]).toMatchObject({ group: 'PR', reason: '2', remedy: 'wait_for_other_payer', responsibility: 'other_payer', other_payer: { name: 'AARP MEDIGAP', id: '36273' }, deadline: null, rule_id: 'guard.crossover_patient_share' });
    expect(e.worklist).toContainEqual(expect.objectContaining({ group: 'PR', reason: '2', remedy: 'wait_for_other_payer' }));
  });

  it('GZ never bills the patient: PR-50 on a GZ line is the payer’s error, a reopening within a year, and the line is denied, not overpaid', async () => {
    const e = await explain(['CLP*G1*1*150*0*150*MB*ICN1*11', 'SVC*HC:99213:GZ*150*0**1', 'DTM*472*20251201', 'CAS*PR*50*150'], { bpr: '0', query: { locality: '1320201' } });
    const line = e.transactions[0].claims[0].lines[0];
    // 42 CFR 405.980(c)(1): the determination (BPR16 2026-08-01) + 1 year = 2027-08-01.
    expect(line.adjustments[0]).toMatchObject({ remedy: 'reopen', responsibility: 'provider', deadline: { kind: 'reopen_by', date: '2027-08-01', days_remaining: 365 } });
    // Allowed: paid 0 + no patient share (PR-50 is a denial assigned to the patient, not cost sharing) = 0: line_denied, never "+49.39 overpaid".
    expect(line).toMatchObject({ allowed: 0, pricing: { status: 'not_priced', reason: 'line_denied', expected_allowed: 100.61, difference: null } });
  });

  it('a Qualified Medicare Beneficiary’s coinsurance (N782) goes to the subsequent payer, never the patient', async () => {
    const e = await explain(['CLP*Q1*1*150*80.49*20.12*MB*ICN1*11', 'SVC*HC:99213*150*80.49**1', 'DTM*472*20251201', 'CAS*CO*45*49.39', 'CAS*PR*2*20.12', 'LQ*HE*N782'], { bpr: '80.49' });
    expect(e.transactions[0].claims[0].lines[0].adjustments[1]).toMatchObject({ remedy: 'bill_other_payer', rule_id: 'guard.qmb' });
  });

  it('OA-23 on a secondary remittance is the primary’s adjudication, already posted: no action, off the worklist', async () => {
    const e = await explain(['CLP*S1*2*150*20*0*CI*ICN1*11', 'SVC*HC:99213*150*20**1', 'DTM*472*20251201', 'CAS*OA*23*130'], { bpr: '20', payer: 'ACME HEALTH' });
    expect(e.transactions[0].claims[0].lines[0].adjustments[0]).toMatchObject({ remedy: 'no_action', responsibility: 'other_payer' });
    expect(e.worklist).toEqual([]);
  });
});

describe('what the line should have paid', () => {
  it('sequestration (CO-253, after the allowed amount) is counted in the allowed amount: the line is as expected, not underpaid', async () => {
    // 99213 in Manhattan on 2025-12-01: 100.61 (server/remittances/links.int.test.ts). Coinsurance 20.12; 2% of the
    // program's 80.49 = 1.61 sequestered; paid 78.88. Allowed = 78.88 + 20.12 + 1.61 = 100.61.
    const e = await explain(['CLP*Q2*1*150*78.88*20.12*MB*ICN1*11', 'SVC*HC:99213*150*78.88**1', 'DTM*472*20251201', 'CAS*CO*45*49.39', 'CAS*PR*2*20.12', 'CAS*CO*253*1.61'], { bpr: '78.88', query: { locality: '1320201' } });
    const line = e.transactions[0].claims[0].lines[0];
    expect(line).toMatchObject({ allowed: 100.61, allowed_source: 'computed', pricing: { status: 'as_expected', difference: 0 } });
    expect(line.adjustments[2]).toMatchObject({ reason: '253', remedy: 'contractual_adjustment', appeal_rights: 'no', deadline: null });
  });

  it('on a claim with a comprehensive APC line (SI J1) the other OPPS lines are packaged (expected 0); a pass-through drug (SI G) is excluded and priced', async () => {
    // NewYork-Presbyterian (330101), wage index 1.3456 (illustrative), labor share 60%: factor 0.6 x 1.3456 + 0.4 = 1.20736.
    // 27447 (J1, APC 5115, 12,441.87): 12,441.87 x 1.20736 = 15,021.8158 -> 15,021.82, paid once for the claim.
    // J9035 (K, separately payable alone): packaged into the J1 line (Pub. 100-04 ch. 4 section 10.2.3): expected 0, allowed 0.
    // J3055 (G, pass-through, ASP-based: not wage-adjusted): excluded from packaging: 71.215 -> 71.22 a unit, 2 units 142.44.
    const segs = [
      'CLP*H1*1*40000*15164.26*0*MA*ICN1*13',
      'SVC*HC:27447*30000*15021.82*0360*1', 'DTM*472*20260115', 'CAS*CO*45*14978.18',
      'SVC*HC:J9035*5000*0*0636*10', 'DTM*472*20260115', 'CAS*CO*97*5000',
      'SVC*HC:J3055*5000*142.44*0636*2', 'DTM*472*20260115', 'CAS*CO*45*4857.56',
    ];
    const e = await explain(segs, { bpr: '15164.26', date: '20260201', query: { ccn: '330101', as_of: '2026-02-01' } });
    const [knee, drug, passThrough] = e.transactions[0].claims[0].lines;
    expect(knee.pricing).toMatchObject({ status: 'as_expected', status_indicator: 'J1', expected_allowed: 15021.82 });
    expect(drug.pricing).toMatchObject({ status: 'as_expected', status_indicator: 'K', expected_allowed: 0, actual_allowed: 0, difference: 0 });
    expect(drug.pricing.notes.at(-1)).toMatch(/^packaged into the comprehensive APC of line 1 \(27447, SI J1\).*10\.2\.3/);
    expect(passThrough.pricing).toMatchObject({ status: 'as_expected', status_indicator: 'G', expected_allowed: 142.44 });
    const route = await t.request('/v1/codes/27447/payment?ccn=330101&date_of_service=2026-01-15');
    expect(route.body.outpatient_facility.allowed_fac_payment).toBe(15021.82);
  });

  it('an anesthesia line is priced from its minutes (SVC07, else SVC05) as the payment route prices them', async () => {
    // 00100 (5 base units, illustrative seed) in Manhattan (anesthesia CF 22.76, ANES2025) for 60 minutes:
    // (5 + 60/15) x 22.76 = 9 x 22.76 = 204.84 (Pub. 100-04 ch. 12 section 50). Paid 163.87 + PR-2 40.97 = 204.84.
    const line = (units: string, billed: string) => [`SVC*HC:00100*300*163.87**${units}**${billed}`, 'DTM*472*20251201', 'CAS*CO*45*95.16', 'CAS*PR*2*40.97'];
    const e = await explain(['CLP*A1*1*600*327.74*81.94*MB*ICN1*22', ...line('9', '60'), ...line('60', '')], { bpr: '327.74', query: { locality: '1320201' } });
    const [withBilled, minutesOnly] = e.transactions[0].claims[0].lines;
    expect(withBilled).toMatchObject({ units: 9, submitted_units: 60 });
    for (const l of [withBilled, minutesOnly]) expect(l.pricing).toMatchObject({ status: 'as_expected', expected_allowed: 204.84, actual_allowed: 204.84 });
    const route = await t.request('/v1/codes/00100/payment?locality=1320201&date_of_service=2025-12-01&anesthesia_minutes=60&place_of_service=22');
    expect(route.body.physician.allowed_phy_payment).toBe(204.84);
    // Another payer counts anesthesia units its own way: not priced, said why.
    const other = await explain(['CLP*A2*1*300*200*0*CI*ICN2*22', 'SVC*HC:00100*300*200**60', 'DTM*472*20251201', 'CAS*CO*45*100'], { bpr: '200', payer: 'ACME HEALTH', query: { locality: '1320201' } });
    expect(other.transactions[0].claims[0].lines[0].pricing).toMatchObject({ status: 'not_priced', reason: 'unit_basis_unknown' });
  });
});
