import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { remit835 } from '../../testing/x12.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const explain = (body: string, query: Record<string, string> = {}) =>
  t.request(`/v1/remittances/explain?${new URLSearchParams({ as_of: '2026-08-01', ...query })}`, { method: 'POST', body, headers: { 'Content-Type': 'application/edi-x12' } });

/** A hand-written 5010 835 (payee NPI 1234567893, which the seed NPPES copy does not list), dated 2026-08-01 unless said. */
const remit = (segments: string[], o: { bpr: string; payer?: string; date?: string }) => remit835(segments, { date: '20260801', ...o });

describe('POST /v1/remittances/explain: per-line NCCI, MUE and pricing links', () => {
  it('ties a CO-97 line 97597 to the PTP edit that makes it column 2 of 11042 on the same claim and date, and the denial rules read its indicator', async () => {
    // Seed ncci_ptp_prac 32.2 (2026 Q3): 11042 | 97597 | effective 20110101 | no deletion | indicator 1 | "Standards of medical/surgical practice".
    // Claim: 400 charged, 150 paid; 11042: 250, CO-45 100, paid 150; 97597: 150, CO-97 150 (M80), paid 0. 400 - 150 = 250 = 100 + 150.
    const r = await explain(
      remit(
        ['CLP*N1*1*400*150*0*MB*ICN1*11', 'SVC*HC:11042*250*150**1', 'DTM*472*20260715', 'CAS*CO*45*100', 'SVC*HC:97597*150*0**1', 'DTM*472*20260715', 'CAS*CO*97*150', 'LQ*HE*M80'],
        { bpr: '150' },
      ),
      { locality: '1320201' },
    );
    expect(r.status).toBe(200);
    const [debridement, wound] = r.body.transactions[0].claims[0].lines;
    expect(debridement.ncci).toBeUndefined();
    expect(debridement.mue).toBeUndefined();
    expect(wound.ncci).toMatchObject({
      edit: 'ptp',
      program: 'medicare',
      table: 'practitioner',
      dataset: 'ncci_ptp_prac',
      version: '32.2',
      date_of_service: '2026-07-15',
      column1: '11042',
      column2: '97597',
      modifier_indicator: '1',
      edit_effective: '2011-01-01',
      edit_deleted: null,
      rationale: 'Standards of medical/surgical practice',
      edit_status: 'active',
      version_in_force: true,
    });
    expect(wound.ncci.explanation).toMatch(/NCCI-associated modifier \(59 or XE, XP, XS, XU; an anatomic modifier\)/);
    // Indicator 1 at Medicare: a reopening to add the modifier the record supports (42 CFR 405.980), within a year of
    // the determination (BPR16 2026-08-01, no DTM*405): 2027-08-01, 365 days after the as-of date 2026-08-01.
    expect(wound.adjustments[0]).toMatchObject({ remedy: 'reopen', rule_id: 'bundling.ptp_modifier_allowed.medicare', deadline: { kind: 'reopen_by', date: '2027-08-01', days_remaining: 365 } });
    expect(wound.ncci.citations.map((c: { title: string }) => c.title)).toEqual([
      'Medicare NCCI PTP edits, practitioner table, version 32.2 (ccipra-v322r0-f1.txt)',
      expect.stringMatching(/^CMS NCCI Policy Manual/),
    ]);
    // 2026 services with only the CY2025 RVU release loaded: not priced, the year named.
    expect(debridement.pricing).toMatchObject({ status: 'not_priced', reason: 'no_loaded_year', actual_allowed: 150, expected_allowed: null, locality: '1320201' });
    expect(debridement.pricing.reason_text).toBe('no CY2026 physician fee schedule release is loaded (the nearest is CY2025)');
    expect(r.body.reliability.dataset_versions).toMatchObject({ ncci_ptp_prac: '32.2', mpfs_rvu: '2025D' });
  });

  it('says the bundling is not an NCCI edit, and leaves the next step to review, when no NCCI edit pairs the denied line with another code that day', async () => {
    // 99213 and 97597 on 2026-07-15: no seed PTP row pairs them.
    const r = await explain(
      remit(['CLP*N2*1*250*90*0*MB*ICN2*11', 'SVC*HC:99213*100*90**1', 'DTM*472*20260715', 'CAS*CO*45*10', 'SVC*HC:97597*150*0**1', 'DTM*472*20260715', 'CAS*CO*236*150'], { bpr: '90' }),
      { locality: '1320201' },
    );
    const wound = r.body.transactions[0].claims[0].lines[1];
    expect(wound.ncci).toMatchObject({ edit: 'ptp', column1: null, column2: '97597', modifier_indicator: null, edit_status: 'no_edit', version: '32.2' });
    expect(wound.ncci.explanation).toMatch(/no Medicare PTP edit in force on 2026-07-15 has 97597 as column 2 of 99213 \(version 32\.2\): the bundling is the payer's own edit/);
    // Without an edit no rule says reopen, write off or appeal: review (was "appeal").
    expect(wound.adjustments[0]).toMatchObject({ remedy: 'review', responsibility: 'undetermined', deadline: null });
  });

  it('names the add-on edit\'s primary codes on a CO-B15 line', async () => {
    // Seed ncci_aoc 2026Q3: add-on 11001 with primaries 11000 and 11004 (type 1, from 2011-01-01) and 11005 (edit deleted 2025-12-31,
    // so not on 2026-07-15). The claim has none of them.
    const r = await explain(remit(['CLP*A1*4*80*0*0*MB*ICN3*11', 'SVC*HC:11001*80*0**1', 'DTM*472*20260715', 'CAS*CO*B15*80'], { bpr: '0' }), { locality: '1320201' });
    const line = r.body.transactions[0].claims[0].lines[0];
    expect(line.ncci).toMatchObject({ edit: 'aoc', dataset: 'ncci_aoc', column1: null, column2: '11001', primary_codes: ['11000', '11004'], primaries_on_claim: [], edit_status: 'active' });
    expect(line.ncci.explanation).toMatch(/paid only with one of its primary codes \(11000, 11004\)/);
    // The table has a rule for B15 (class add_on), as the link has an edit for it.
    expect(line.adjustments[0]).toMatchObject({ remedy: 'review', rule_id: 'add_on' });
  });

  it('gives the MUE value, MAI and rationale on a units denial (CO-151 with N362)', async () => {
    // Seed ncci_mue_prac 2026Q3: 36415 | 2 | 3 Date of Service Edit: Clinical | CMS NCCI Policy. Billed 4 units, denied CO-151 40.
    const r = await explain(remit(['CLP*M1*4*40*0*0*MB*ICN4*11', 'SVC*HC:36415*40*0**4', 'DTM*472*20260715', 'CAS*CO*151*40', 'LQ*HE*N362'], { bpr: '0' }), { locality: '1320201' });
    const line = r.body.transactions[0].claims[0].lines[0];
    expect(line.mue).toMatchObject({
      program: 'medicare',
      table: 'practitioner',
      dataset: 'ncci_mue_prac',
      version: '2026Q3',
      date_of_service: '2026-07-15',
      code: '36415',
      mue_value: 2,
      mai: 3,
      mai_label: 'Date of Service Edit: Clinical',
      rationale: 'CMS NCCI Policy',
      units_billed: 4,
      exceeded: true,
    });
    expect(line.mue.when_exceeded).toMatch(/^date of service edit/);
    // MAI 3 (clinical): an appeal with the records that support the units.
    expect(line.adjustments[0]).toMatchObject({ remedy: 'appeal', rule_id: 'payer:medicare_ffs:CO-151/N362 > units.clinical.medicare' });
    expect(line.ncci).toBeUndefined();
    expect(r.body.reliability.dataset_versions.ncci_mue_prac).toBe('2026Q3');
  });

  it('judges Medicare Part B lines against the fee schedule at the locality: as expected, within a cent per unit, and underpaid', async () => {
    // Manhattan (1320201), 2025-12-01, POS 11 (CLP08), CY2025 RVUs (CF 32.3465) with the 2026 GPCIs (1.064, 1.162, 1.586; the only release loaded):
    // 99213: 1.30*1.064 + 1.35*1.162 + 0.10*1.586 = 1.3832 + 1.5687 + 0.1586 = 3.1105 RVU * 32.3465 = 100.6138 -> 100.61.
    // 99214: 1.92*1.064 + 1.80*1.162 + 0.15*1.586 = 2.04288 + 2.0916 + 0.2379 = 4.37238 * 32.3465 = 141.4320 -> 141.43.
    // Line 1: 99213 x1, allowed paid 80.49 + PR-2 20.12 = 100.61: as expected, difference 0.
    // Line 2: 99214 x1, allowed 104 + 26 = 130: underpaid by 141.43 - 130 = 11.43.
    // Line 3: 99213 x2, allowed 160.97 + 40.24 = 201.21; expected 201.22: 1 cent under, within 2 cents (a cent per unit): as expected.
    // Claim: charged 650, paid 80.49 + 104 + 160.97 = 345.46, PR-2 20.12 + 26 + 40.24 = 86.36.
    const body = remit(
      [
        'CLP*P1*1*650*345.46*86.36*MB*ICN5*11',
        'SVC*HC:99213*150*80.49**1', 'DTM*472*20251201', 'CAS*CO*45*49.39', 'CAS*PR*2*20.12',
        'SVC*HC:99214*200*104**1', 'DTM*472*20251201', 'CAS*CO*45*70', 'CAS*PR*2*26',
        'SVC*HC:99213*300*160.97**2', 'DTM*472*20251201', 'CAS*CO*45*98.79', 'CAS*PR*2*40.24',
      ],
      { bpr: '345.46', date: '20251215' },
    );
    const r = await explain(body, { locality: '13202-01' });
    expect(r.status).toBe(200);
    expect(r.body.findings).toEqual([]);
    const [one, two, three] = r.body.transactions[0].claims[0].lines;
    expect(r.body.transactions[0].claims[0].facility_code).toBe('11');
    const where = { locality: '1320201', location_source: 'locality', place_of_service: '11', date_of_service: '2025-12-01' };
    expect(one.pricing).toMatchObject({ status: 'as_expected', expected_allowed: 100.61, expected_per_unit: 100.61, actual_allowed: 100.61, difference: 0, ...where });
    expect(one.pricing.reason).toBeUndefined();
    expect(two.pricing).toMatchObject({ status: 'underpaid', expected_allowed: 141.43, actual_allowed: 130, difference: -11.43, ...where });
    // The underpaid line is worked: a reopening (or a redetermination) for the 11.43 shortfall, from the determination 2025-12-15.
    expect(two.pricing.remedy).toMatchObject({ remedy: 'reopen', rule_id: 'underpayment.medicare', deadline: { kind: 'reopen_by', date: '2026-12-15' } });
    expect(r.body.worklist).toContainEqual({ source: 'underpayment', payer: 'medicare_ffs', group: 'pricing', reason: '99214', remedy: 'reopen', count: 1, amount: 11.43, earliest_deadline: '2026-12-15' });
    expect(three.pricing).toMatchObject({ status: 'as_expected', expected_allowed: 201.22, expected_per_unit: 100.61, actual_allowed: 201.21, difference: -0.01 });
    // The same amounts as the payment route for the same code, locality, date and place of service.
    for (const [code, amount] of [['99213', 100.61], ['99214', 141.43]] as const) {
      const p = await t.request(`/v1/codes/${code}/payment?locality=1320201&date_of_service=2025-12-01&place_of_service=11`);
      expect(p.body.physician.allowed_phy_payment).toBe(amount);
    }
    // Every dataset the pricing read is named; the 2026 GPCIs priced a 2025 service, so the answer is degraded.
    expect(r.body.reliability.dataset_versions).toMatchObject({ mpfs_rvu: '2025D', gpci: expect.any(String) });
    expect(r.body.reliability.degraded).toBe(true);
    expect(one.pricing.notes.join(' ')).toMatch(/no gpci release loaded is effective on 2025-12-01/);
  });

  it('does not price a line without a location, another payer\'s line or an institutional line, and names why', async () => {
    // No ccn or locality: the payee NPI 1234567893 is not in the seed NPPES copy.
    const mb = ['CLP*L1*1*150*80.49*20.12*MB*ICN6*11', 'SVC*HC:99213*150*80.49**1', 'DTM*472*20251201', 'CAS*CO*45*49.39', 'CAS*PR*2*20.12'];
    const r = await explain(remit(mb, { bpr: '80.49' }));
    const line = r.body.transactions[0].claims[0].lines[0];
    expect(line.pricing).toMatchObject({ status: 'not_priced', reason: 'no_location', expected_allowed: null, actual_allowed: 100.61, difference: null, locality: null, location_source: null });
    expect(line.pricing.reason_text).toMatch(/payee NPI 1234567893 is not in the local NPPES copy/);
    expect(r.body.reliability.dataset_versions.nppes).toBeDefined();

    const other = await explain(
      remit(['CLP*C1*1*150*90*0*CI*ICN7*11', 'SVC*HC:99213*150*90**1', 'DTM*472*20251201', 'CAS*CO*45*60', 'CLP*I1*1*500*400*0*MA*ICN8*13', 'SVC*HC:99283*500*400*0450*1', 'DTM*472*20251201', 'CAS*CO*45*100'], { bpr: '490', payer: 'ACME HEALTH' }),
      { locality: '1320201' },
    );
    const [commercial, institutional] = other.body.transactions[0].claims;
    expect(commercial.lines[0].pricing).toMatchObject({ status: 'not_priced', reason: 'other_payer_contract' });
    // Part A (MA), type of bill 13x, revenue code 0450: an outpatient hospital line, priced only at its hospital's ccn.
    expect(institutional.lines[0].revenue_code).toBe('0450');
    expect(institutional.lines[0].pricing).toMatchObject({ status: 'not_priced', reason: 'no_location', actual_allowed: 400 });
    expect(institutional.lines[0].pricing.reason_text).toBe('an outpatient hospital line is priced at its hospital: pass ccn (a payee NPI names no CCN)');
  });

  it("prices a Medicare outpatient hospital claim's lines under the OPPS at the hospital's ccn", async () => {
    // NewYork-Presbyterian (330101), CBSA 35614, wage index 1.3456 (illustrative seeds), OPPS labor share 60%:
    // 99283 (SI J2, APC 5023, 287.04): 287.04 x (0.6 x 1.3456 + 0.4) = 287.04 x 1.20736 = 346.5607 -> 346.56; allowed 346.56: as expected.
    // J2 is paid through the comprehensive observation APC only under conditions the 835 does not show: it packages nothing here.
    // 71046 (SI Q3, APC 5521, 94.85): 94.85 x 1.20736 = 114.5181 -> 114.52; allowed 100: underpaid by 14.52.
    // C1713 (SI N, packaged): paid 0 separately; allowed 0 (CO-97): as expected.
    const claim = ['CLP*H1*1*1400*446.56*0*MA*ICN1*13', 'SVC*HC:99283*800*346.56*0450*1', 'DTM*472*20260115', 'CAS*CO*45*453.44', 'SVC*HC:71046*300*100*0320*1', 'DTM*472*20260115', 'CAS*CO*45*200', 'SVC*HC:C1713*300*0*0278*1', 'DTM*472*20260115', 'CAS*CO*97*300'];
    const inpatient = ['CLP*H2*1*9000*7000*0*MA*ICN2*11', 'SVC*HC:99283*9000*7000*0450*1', 'DTM*472*20260115', 'CAS*CO*45*2000'];
    const r = await explain(remit([...claim, ...inpatient], { bpr: '7446.56', date: '20260201' }), { ccn: '330101' });
    expect(r.status).toBe(200);
    const [visit, xray, anchor] = r.body.transactions[0].claims[0].lines;
    expect(visit.pricing).toMatchObject({ status: 'as_expected', expected_allowed: 346.56, actual_allowed: 346.56, difference: 0, location_source: 'ccn', locality: null });
    expect(xray.pricing).toMatchObject({ status: 'underpaid', expected_allowed: 114.52, actual_allowed: 100, difference: -14.52 });
    expect(anchor.pricing).toMatchObject({ status: 'as_expected', expected_allowed: 0, actual_allowed: 0, difference: 0 });
    // The same amount as the payment route's outpatient facility block for the code at the ccn.
    const p = await t.request('/v1/codes/99283/payment?ccn=330101&date_of_service=2026-01-15');
    expect(p.body.outpatient_facility).toMatchObject({ allowed_fac_payment: 346.56, opps_payment_rate: 287.04, wage_index: 1.3456 });
    expect(visit.pricing.notes.some((n: string) => n.startsWith('physician:'))).toBe(false);
    // An inpatient claim (type of bill 11x) is paid per MS-DRG, not per line.
    const stay = r.body.transactions[0].claims[1].lines[0];
    expect(stay.pricing).toMatchObject({ status: 'not_priced', reason: 'institutional_claim', reason_text: 'type of bill 11x is not a hospital outpatient claim (12x, 13x, 14x): an inpatient stay is paid per MS-DRG, not per line' });
    // The OPPS and wage index seeds are illustrative: the answer says so.
    expect(r.body.reliability.warnings.join(' ')).toMatch(/opps_addendum_b .* is an illustrative seed/);
  });

  it('does not call a denied line underpaid: line_denied, with what the fee schedule would have allowed', async () => {
    // 99213 on 2025-12-01 in Manhattan, POS 11, denied CO-50 150: allowed 150 - 150 = 0; the fee schedule amount is 100.61 (worked above).
    const r = await explain(remit(['CLP*D1*4*150*0*0*MB*ICN10*11', 'SVC*HC:99213*150*0**1', 'DTM*472*20251201', 'CAS*CO*50*150'], { bpr: '0', date: '20251215' }), { locality: '1320201' });
    const line = r.body.transactions[0].claims[0].lines[0];
    expect(line.pricing).toMatchObject({ status: 'not_priced', reason: 'line_denied', expected_allowed: 100.61, actual_allowed: 0, difference: null });
    expect(line.ncci).toBeUndefined();
  });

  it('answers 422 for a locality that is not in the GPCI file, naming the query field', async () => {
    const r = await explain(remit(['CLP*L1*1*100*100*0*MB*ICN9*11', 'SVC*HC:99213*100*100**1', 'DTM*472*20251201'], { bpr: '100' }), { locality: '9999999' });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['query', 'locality']);
  });
});

describe('POST /v1/remittances/explain: links looked up once per distinct line', () => {
  it('judges each line by its own amount when the same code and date repeat across claims', async () => {
    // As above: 99213 in Manhattan on 2025-12-01, POS 11, expected 100.61. Claim A allowed 100.61 (as
    // expected); claim B allowed 150 - 60 = 90 (underpaid by 10.61); claim C repeats claim A.
    const claim = (pcn: string, co: string, paid: string, pr: string) => [`CLP*${pcn}*1*150*${paid}*${pr}*MB*ICN${pcn}*11`, `SVC*HC:99213*150*${paid}**1`, 'DTM*472*20251201', `CAS*CO*45*${co}`, `CAS*PR*2*${pr}`];
    const body = remit([...claim('A', '49.39', '80.49', '20.12'), ...claim('B', '60', '72', '18'), ...claim('C', '49.39', '80.49', '20.12')], { bpr: '232.98', date: '20251215' });
    const r = await explain(body, { locality: '1320201' });
    expect(r.status).toBe(200);
    expect(r.body.findings).toEqual([]);
    const [a, b, c] = r.body.transactions[0].claims.map((x: { lines: { pricing: unknown }[] }) => x.lines[0]!.pricing);
    expect(a).toMatchObject({ status: 'as_expected', actual_allowed: 100.61, difference: 0 });
    expect(b).toMatchObject({ status: 'underpaid', actual_allowed: 90, difference: -10.61 });
    expect(c).toEqual(a);
  });
});

describe('POST /v1/remittances/explain: the coverage documents behind a medical-necessity denial', () => {
  it('names the Medicare article and LCD listing the code where the payee is, and what to appeal with', async () => {
    // Seed mcd_coverage (illustrative): article A99001 lists 64490 with a 2-code covered list (M47.812, M47.816); its LCD is L99001.
    const r = await explain(remit(['CLP*N1*1*500*0*0*MB*ICN1*11', 'SVC*HC:64490*500*0**1', 'DTM*472*20260715', 'CAS*CO*50*500', 'SVC*HC:99213*100*0**1', 'DTM*472*20260715', 'CAS*CO*45*100'], { bpr: '0' }), { locality: '1320201' });
    expect(r.status).toBe(200);
    const [injection, visit] = r.body.transactions[0].claims[0].lines;
    expect(visit.coverage).toBeUndefined();
    expect(injection.coverage).toMatchObject({ payer: 'medicare_ffs', code: '64490', date_of_service: '2026-07-15', state: 'NY', state_source: 'locality', covered_diagnosis_lists: [{ doc_id: 'A99001', covered_count: 2 }] });
    expect(injection.coverage.rules.map((x: { doc_id: string; kind: string }) => [x.doc_id, x.kind])).toEqual([['A99001', 'article'], ['L99001', 'lcd']]);
    expect(injection.coverage.explanation).toBe("A99001, L99001 list 64490 in NY: appeal with the records showing a diagnosis on A99001's 2-code covered list and the documentation they require (an 835 carries no diagnoses: check the claim's); if a diagnosis was billed wrongly, correct the claim and resubmit instead");
    // The adjustment's remedy is the table's: no ABN, the provider's, an appeal (coverage.medicare).
    expect(injection.adjustments[0]).toMatchObject({ group: 'CO', reason: '50', remedy: 'appeal', responsibility: 'provider' });
    // Illustrative seed documents: the answer says so.
    expect(r.body.reliability.degraded).toBe(true);
    expect(r.body.reliability.warnings.join(' ')).toMatch(/mcd_coverage .* is an illustrative seed/);
  });

  it("gives a mapped commercial payer's curated rule, and says when no payer's documents apply", async () => {
    // The payers dataset: UnitedHealthcare's bariatric surgery policy 2025T0362PP covers 43644 by BMI criteria (no diagnosis list).
    const uhc = await explain(remit(['CLP*N1*1*9000*0*0*CI*ICN1*11', 'SVC*HC:43644*9000*0**1', 'DTM*472*20260715', 'CAS*CO*167*9000'], { bpr: '0', payer: 'UNITEDHEALTHCARE' }));
    expect(uhc.status).toBe(200);
    const line = uhc.body.transactions[0].claims[0].lines[0];
    expect(line.coverage).toMatchObject({ payer: 'uhc', state: null, state_source: null, covered_diagnosis_lists: [] });
    expect(line.coverage.rules).toMatchObject([{ doc_id: '2025T0362PP', payer_slug: 'uhc', citation: { url: expect.stringMatching(/^https:\/\/www\.uhcprovider\.com\//) } }]);
    expect(line.coverage.explanation).toBe('2025T0362PP decides 43644 by its indications, without a covered-diagnosis list: appeal with the records that meet them');
    const other = await explain(remit(['CLP*N1*1*9000*0*0*CI*ICN1*11', 'SVC*HC:43644*9000*0**1', 'DTM*472*20260715', 'CAS*CO*50*9000'], { bpr: '0', payer: 'ACME REGIONAL HEALTH PLAN' }));
    expect(other.body.transactions[0].claims[0].lines[0].coverage).toMatchObject({ payer: null, rules: [], explanation: expect.stringMatching(/^the payer is not mapped to a curated payer and the claim is not Medicare's/) });
  });
});

describe('POST /v1/remittances/explain: the payee located by its NPI', () => {
  it("prices and scopes coverage at the payee NPI's practice location in the local NPPES copy", async () => {
    // Seed NPPES: 1720377294 practises at ZIP 28801-4811 (NC); seed ZIP5: 28801 -> carrier 11502, locality 00 (1150200).
    // 99213 on 2025-12-01, POS 11, CY2025 RVUs (1.30, 1.35, 0.10; CF 32.3465) with the 2026 NC GPCIs (1.000, 0.933, 0.639):
    // 1.30 + 1.25955 + 0.0639 = 2.62345 RVU * 32.3465 = 84.8594 -> 84.86. Allowed 150 - CO-45 65.14 = 84.86: as expected.
    const body = remit835(
      ['CLP*N1*1*650*67.89*16.97*MB*ICN1*11', 'SVC*HC:99213*150*67.89**1', 'DTM*472*20251201', 'CAS*CO*45*65.14', 'CAS*PR*2*16.97', 'SVC*HC:64490*500*0**1', 'DTM*472*20251201', 'CAS*CO*50*500'],
      { bpr: '67.89', date: '20260801' },
    ).replace('N1*PE*EXAMPLE CLINIC*XX*1234567893', 'N1*PE*ASHEVILLE CLINIC*XX*1720377294');
    const r = await explain(body);
    expect(r.status).toBe(200);
    expect(r.body.findings).toEqual([]);
    const [visit, injection] = r.body.transactions[0].claims[0].lines;
    expect(visit.pricing).toMatchObject({ status: 'as_expected', expected_allowed: 84.86, actual_allowed: 84.86, difference: 0, locality: '1150200', location_source: 'payee_npi', place_of_service: '11' });
    const p = await t.request('/v1/codes/99213/payment?locality=1150200&date_of_service=2025-12-01&place_of_service=11');
    expect(p.body.physician.allowed_phy_payment).toBe(84.86);
    expect(injection.coverage).toMatchObject({ state: 'NC', state_source: 'payee_npi', payer: 'medicare_ffs' });
    expect(r.body.reliability.dataset_versions).toMatchObject({ nppes: expect.any(String), zip_locality: expect.any(String) });
  });
});
