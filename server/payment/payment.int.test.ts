import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../testing/clock.js';
import { startTestServer, waitForSnapshot, type TestServer } from '../../testing/harness.js';
import { illustrativeIn, otherWarnings } from '../../testing/illustrative.js';

/*
 * GET /v1/codes/{code}/payment over the seeds. Values worked by hand from the seed rows:
 *   seeds/mpfs_rvu/PPRRVU2025_Oct.csv (real rows): 99213 work 1.30, PE 1.35 non-fac / 0.57 fac, MP 0.10;
 *     71046 global 0.22 / 0.77 / 0.77 / 0.02; 71046-26 0.22 / 0.08 / 0.08 / 0.01; 71046-TC 0.00 / 0.69 / 0.69 / 0.01;
 *     45378-53 1.63 / 3.22 / 0.90 / 0.22; 80053 and G0463 status X.
 *   seeds/gpci/GPCI2026.csv: 1320201 MANHATTAN 1.064/1.162/1.586; 0111205 SAN FRANCISCO 1.095/1.410/0.425;
 *     1011200 ALABAMA 1.000/0.875/0.566.
 *   seeds/facilities: 330101 NY-Presbyterian (acute care, ZIP 10065, New York county, CBSA 35614);
 *     050454 UCSF (acute care, ZIP 94143, CBSA 41884); 011300 Washington County Hospital (CAH, AL, rural, CBSA 01);
 *     013300 Children's Hospital of Alabama (urban, CBSA 13820, ZIP 35233 not in the ZIP seed).
 *   seeds/wage_index: 35614 1.3456, 41884 1.9315, 01 0.7555. seeds/opps_addendum_b: 71046 $94.85 APC 5521 SI Q3,
 *     G0463 $146.92 SI J2, 99213 SI B. seeds/clfs: 80053 $10.56. seeds/dmepos: A4636 NU AL 3.86 (NR) / 4.19 (R).
 */

// Today is a CY2026 day (the seeds' RVU release is CY2025's): an answer without date_of_service
// prices CY2026 from the nearest release, degraded; a CY2026 date_of_service is 404 (the date rule).
const TODAY = '2026-03-02T12:00:00Z';
const clock = new TestClock(TODAY);
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ now: clock.now });
});
afterAll(async () => {
  await t.close();
});

const pay = (q: string) => t.request(`/v1/codes/${q}`);

describe('without ccn: physician block only', () => {
  it('prices 99213 in Manhattan (locality 1320201) at $103.89 non-facility, non-QPP', async () => {
    // 1.30x1.064 + 1.35x1.162 + 0.10x1.586 = 3.1105; x 33.4009 = 103.893499450 -> 103.89
    const r = await pay('99213/payment?locality=1320201');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      code: '99213',
      ccn: null,
      locality: '1320201',
      conversion_factor: 33.4009,
      qpp: false,
      facility_rate: false,
      applicable_blocks: ['physician'],
      estimated_payment: 103.89,
      pw_gpci: 1.064,
      pe_gpci: 1.162,
      mp_gpci: 1.586,
      total_adjusted_rvu: 3.1105,
      outpatient_facility: null,
      lab: null,
      dme: null,
      facility: null,
      policy_rules: [],
    });
    expect(r.body.physician).toMatchObject({ allowed_phy_payment: 103.89, pe_rvu: 1.35, pe_rvu_source: 'non_facility', rvu_year: 2025, rvu_quarter: 4 });
    expect(r.body.physician.rvu_source).toContain('PPRRVU2025_Oct.csv');
    // mcd_coverage was read for the code's Medicare coverage rules (none lists 99213); the
    // deductibles and coinsurance are the CY2026 document of medicare_yearly_figures.
    expect(r.body.reliability.dataset_versions).toEqual({ medicare_yearly_figures: '2026-12-06', mpfs_rvu: '2025D', gpci: '2026', mcd_coverage: '2025-10-01' });
    // "No coverage rule lists 99213" rests on the illustrative coverage seed: said, and degraded.
    expect(r.body.reliability).toMatchObject({ degraded: true });
    expect(illustrativeIn(r.body.reliability.warnings)).toEqual(['mcd_coverage']);
    // No date given: priced for today, with the seeds' CY2025 RVUs said out loud.
    expect(r.body.date_of_service).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(otherWarnings(r.body.reliability.warnings)).toEqual([expect.stringMatching(/^physician: no CY\d{4} RVU release is loaded; the 99213 RVUs are the nearest release's, CY2025/)]);
  });

  it('accepts the locality as 13202-01 too', async () => {
    const r = await pay('99213/payment?locality=13202-01');
    expect(r.status).toBe(200);
    expect(r.body.locality).toBe('1320201');
    expect(r.body.estimated_payment).toBe(103.89);
  });

  it('prices nationally (every GPCI 1.000) with a warning when neither ccn nor locality is given', async () => {
    // (1.30 + 1.35 + 0.10) x 33.4009 = 91.852475 -> 91.85
    const r = await pay('99213/payment');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ locality: 'national', pw_gpci: 1, pe_gpci: 1, mp_gpci: 1, estimated_payment: 91.85 });
    expect(r.body.reliability.warnings.join(' ')).toMatch(/national amounts/);
  });

  it('uses the facility PE with the legacy use_facility_rate flag', async () => {
    // 1.3832 + 0.57x1.162 (0.66234) + 0.1586 = 2.20414 x 33.4009 = 73.620259726 -> 73.62
    const r = await pay('99213/payment?locality=1320201&use_facility_rate=true');
    expect(r.body).toMatchObject({ facility_rate: true, estimated_payment: 73.62 });
    expect(r.body.physician.pe_rvu_source).toBe('facility');
  });

  it('lets place_of_service pin the setting: 22 (outpatient hospital) is facility, 11 (office) is not', async () => {
    const fac = await pay('99213/payment?locality=1320201&place_of_service=22&use_facility_rate=false');
    expect(fac.body).toMatchObject({ facility_rate: true, estimated_payment: 73.62 });
    expect(fac.body.reliability.warnings.join(' ')).toMatch(/use_facility_rate ignored/);
    const office = await pay('99213/payment?locality=1320201&place_of_service=11');
    expect(office.body).toMatchObject({ facility_rate: false, estimated_payment: 103.89 });
  });

  it('selects the 53 RVU row with modifier 53', async () => {
    // 45378-53: 1.63x1.064 + 3.22x1.162 + 0.22x1.586 = 1.73432 + 3.74164 + 0.34892 = 5.82488
    // x 33.4009 = 194.556234392 -> 194.56
    const r = await pay('45378/payment?locality=1320201&modifier=53');
    expect(r.status).toBe(200);
    expect(r.body.physician).toMatchObject({ work_rvu: 1.63, pe_rvu: 3.22, mp_rvu: 0.22, total_adjusted_rvu: 5.82488, allowed_phy_payment: 194.56 });
  });

  it('reports an unknown locality as 422 on query.locality, and a malformed one too', async () => {
    const unknown = await pay('99213/payment?locality=9999999');
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0]).toMatchObject({ loc: ['query', 'locality'], type: 'value_error' });
    const bad = await pay('99213/payment?locality=13202');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'locality']);
  });

  it('composes nothing for a lab code without ccn, saying why', async () => {
    const r = await pay('80053/payment?locality=1320201');
    expect(r.status).toBe(200);
    expect(r.body.applicable_blocks).toEqual([]);
    expect(r.body.estimated_payment).toBe(0);
    expect(r.body.physician).toBeNull();
    expect(r.body.reliability.warnings.join(' ')).toMatch(/80053 has PFS status X/);
  });
});

describe('QPP', () => {
  it('uses 33.5675 with qpp=true: 99213 in Manhattan is $104.41', async () => {
    // 3.1105 x 33.5675 = 104.411708750 -> 104.41
    const r = await pay('99213/payment?locality=1320201&qpp=true');
    expect(r.body).toMatchObject({ qpp: true, conversion_factor: 33.5675, estimated_payment: 104.41 });
    expect(r.body.physician.conversion_factor).toBe(33.5675);
  });

  it('lets qpp_flag win over a conflicting qpp, with a warning, both ways', async () => {
    const nonQpp = await pay('99213/payment?locality=1320201&qpp=true&qpp_flag=0');
    expect(nonQpp.body).toMatchObject({ qpp: false, conversion_factor: 33.4009, estimated_payment: 103.89 });
    expect(nonQpp.body.reliability.warnings.join(' ')).toMatch(/qpp_flag wins/);
    const qpp = await pay('99213/payment?locality=1320201&qpp=false&qpp_flag=1');
    expect(qpp.body).toMatchObject({ qpp: true, conversion_factor: 33.5675, estimated_payment: 104.41 });
  });

  it('rejects qpp_flag other than 0 or 1', async () => {
    const r = await pay('99213/payment?qpp_flag=2');
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['query', 'qpp_flag']);
  });
});

describe('with ccn: the facility geography', () => {
  it('prices 99213 at NY-Presbyterian in Manhattan at the facility PE: $73.62', async () => {
    const r = await pay('99213/payment?ccn=330101');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ccn: '330101', locality: '1320201', facility_rate: true, estimated_payment: 73.62, applicable_blocks: ['physician'] });
    expect(r.body.facility).toMatchObject({
      ccn: '330101',
      name: 'NEW YORK-PRESBYTERIAN HOSPITAL',
      state: 'NY',
      county: 'NEW YORK',
      cbsa: '35614',
      facility_type: 'acute_care_hospital',
      locality_name: 'MANHATTAN',
      locality_number: '01',
      pos_code: '22',
      is_rural: false,
      registered: false,
      wage_index: 1.3456,
    });
    expect(r.body.reliability.dataset_versions).toMatchObject({ mpfs_rvu: '2025D', gpci: '2026', facilities: '2025-10', wage_index: 'FY2026' });
  });

  it('leaves out blocks with no payment and says why in reliability', async () => {
    const r = await pay('99213/payment?ccn=330101');
    expect(r.body.outpatient_facility).toBeNull();
    expect(r.body.applicable_blocks).not.toContain('outpatient_facility');
    const w = r.body.reliability.warnings.join(' | ');
    expect(w).toMatch(/outpatient_facility: 99213 has OPPS status indicator B/);
    expect(w).toMatch(/lab: 99213 is not on the clinical laboratory fee schedule/);
    expect(w).toMatch(/dme: 99213 is not on the DMEPOS fee schedule/);
  });

  it('prices 71046 at UCSF as the physician bills it (-26, $11.96) beside the wage-adjusted OPPS block ($147.86): the technical component is not counted twice', async () => {
    // 71046 has PC/TC indicator 1: at a hospital outpatient department the physician bills -26
    // and the hospital the technical component under OPPS.
    // physician (-26, facility PE): 0.22x1.095 + 0.08x1.410 + 0.01x0.425 = 0.2409 + 0.1128 + 0.00425
    //   = 0.35795 x 33.4009 = 11.955852155 -> 11.96 (the global row, 44.59, included the TC)
    // OPPS: 94.85 x 0.6 x 1.9315 + 94.85 x 0.4 = 109.921665 + 37.94 = 147.861665 -> 147.86
    const r = await pay('71046/payment?ccn=050454');
    expect(r.status).toBe(200);
    expect(r.body.applicable_blocks).toEqual(['physician', 'outpatient_facility']);
    expect(r.body.locality).toBe('0111205');
    expect(r.body.physician).toMatchObject({ allowed_phy_payment: 11.96, rvu_row: '26', setting_na: false, work_rvu: 0.22, pe_rvu: 0.08 });
    expect(r.body.reliability.warnings.join(' ')).toMatch(/71046-26 is priced and the facility is paid the technical component/);
    expect(r.body.outpatient_facility).toEqual({
      allowed_fac_payment: 147.86,
      wage_adjusted: true,
      adjustments: [],
      opps_payment_rate: 94.85,
      apc_code: '5521',
      status_indicator: 'Q3',
      labor_share: 0.6,
      non_labor_share: 0.4,
      relative_weight: 1.0376,
      wage_index: 1.9315,
      informational: false,
    });
    expect(r.body.estimated_payment).toBe(159.82); // 11.96 + 147.86
  });

  it('selects the professional (26) and technical (TC) rows by modifier; at a facility the TC is the facility\'s', async () => {
    // 26: 0.2409 + 0.08x1.410 (0.1128) + 0.01x0.425 (0.00425) = 0.35795 x 33.4009 = 11.955852155 -> 11.96
    const pc = await pay('71046/payment?ccn=050454&modifier=26');
    expect(pc.body.physician).toMatchObject({ work_rvu: 0.22, pe_rvu: 0.08, mp_rvu: 0.01, allowed_phy_payment: 11.96, rvu_row: '26' });
    // TC at the hospital: paid to the facility under OPPS, no physician block.
    const tcAtHospital = await pay('71046/payment?ccn=050454&modifier=tc');
    expect(tcAtHospital.body.physician).toBeNull();
    expect(tcAtHospital.body.reliability.warnings.join(' ')).toMatch(/71046-TC is a technical component .* paid to the facility/);
    // TC at an outpatient hospital place of service without a ccn: the hospital's too (ch. 13 section 20).
    const tcAtPos22 = await pay('71046/payment?locality=0111205&place_of_service=22&modifier=tc');
    expect(tcAtPos22.body.physician).toBeNull();
    expect(tcAtPos22.body.reliability.warnings.join(' ')).toMatch(/71046-TC is a technical component .* at place of service 22 it is paid to the facility/);
    // TC priced in the locality with the facility PE (legacy flag, no hospital setting): 0 + 0.69x1.410 (0.9729)
    // + 0.01x0.425 (0.00425) = 0.97715 x 33.4009 = 32.637689435 -> 32.64; its facility PE is marked NA.
    const tc = await pay('71046/payment?locality=0111205&use_facility_rate=true&modifier=tc');
    expect(tc.body.physician).toMatchObject({ work_rvu: 0, pe_rvu: 0.69, allowed_phy_payment: 32.64, rvu_row: 'TC', setting_na: true });
  });

  it('shows the OPPS amount of a critical access hospital as informational: not applicable, not summed', async () => {
    const r = await pay('71046/payment?ccn=051300');
    expect(r.status).toBe(200);
    expect(r.body.outpatient_facility).toMatchObject({ informational: true });
    expect(r.body.applicable_blocks).not.toContain('outpatient_facility');
    expect(r.body.estimated_payment).toBe(r.body.physician ? r.body.physician.allowed_phy_payment : 0);
    expect(r.body.reliability.warnings.join(' ')).toMatch(/critical access hospital, paid at 101% of reasonable cost/);
  });

  it('drops the physician block when a pricing modifier has no row, and ignores payment-neutral modifiers', async () => {
    const r = await pay('99213/payment?ccn=330101&modifier=26');
    expect(r.status).toBe(200);
    expect(r.body.physician).toBeNull();
    expect(r.body.reliability.warnings.join(' ')).toMatch(/no RVU row with modifier '26'/);
    const m25 = await pay('99213/payment?ccn=330101&modifier=25');
    expect(m25.body.physician.allowed_phy_payment).toBe(73.62);
    expect(m25.body.reliability.warnings.join(' ')).toMatch(/modifier 25 does not select a separate RVU row/);
  });

  it('pins non-facility PE at a hospital with place_of_service 11', async () => {
    const r = await pay('99213/payment?ccn=330101&place_of_service=11');
    expect(r.body).toMatchObject({ facility_rate: false, estimated_payment: 103.89 });
    expect(r.body.facility.pos_code).toBe('11');
  });

  it('pays OPPS only in hospital outpatient places of service (19, 22, 23)', async () => {
    const office = await pay('71046/payment?ccn=050454&place_of_service=11');
    expect(office.body.applicable_blocks).toEqual(['physician']);
    expect(office.body.reliability.warnings.join(' ')).toMatch(/place_of_service 11 is not a hospital outpatient setting/);
    const inpatient = await pay('71046/payment?ccn=050454&place_of_service=21');
    expect(inpatient.body.outpatient_facility).toBeNull();
    const offCampus = await pay('71046/payment?ccn=050454&place_of_service=19');
    expect(offCampus.body.outpatient_facility.allowed_fac_payment).toBe(147.86);
  });

  it('ignores locality when ccn is set, with a warning', async () => {
    const r = await pay('99213/payment?ccn=330101&locality=1011200');
    expect(r.body.locality).toBe('1320201');
    expect(r.body.estimated_payment).toBe(73.62);
    expect(r.body.reliability.warnings.join(' ')).toMatch(/locality 1011200 ignored/);
  });

  it('pays OPPS-only G0463 at NY-Presbyterian: $177.39 at wage index 1.3456', async () => {
    // 146.92 x 0.6 x 1.3456 = 118.6173312; + 146.92 x 0.4 = 58.768; 177.3853312 -> 177.39
    const r = await pay('G0463/payment?ccn=330101');
    expect(r.body.applicable_blocks).toEqual(['outpatient_facility']);
    expect(r.body.estimated_payment).toBe(177.39);
  });

  it('pays the flat CLFS rate for 80053 whatever the facility', async () => {
    for (const ccn of ['050454', '011300']) {
      const r = await pay(`80053/payment?ccn=${ccn}`);
      expect(r.body.applicable_blocks).toEqual(['lab']);
      expect(r.body.lab).toEqual({ allowed_lab_payment: 10.56, lab_payment_rate: 10.56, indicator: 'N' });
      expect(r.body.estimated_payment).toBe(10.56);
    }
  });

  it('pays the rural DME fee at a rural facility and the non-rural fee at an urban one', async () => {
    const rural = await pay('A4636/payment?ccn=011300');
    expect(rural.body.dme).toEqual({ allowed_dme_payment: 4.19, dme_payment_rate: 4.19, is_rural: true, rate_used: 'rural', state: 'AL' });
    const urban = await pay('A4636/payment?ccn=013300');
    expect(urban.body.dme).toEqual({ allowed_dme_payment: 3.86, dme_payment_rate: 3.86, is_rural: false, rate_used: 'non_rural', state: 'AL' });
  });

  it('prices the DMEPOS row keyed by the most of the line\'s modifiers: A4636-NU-KE is the NU-KE row, $4.84 rural in CA, not NU\'s $4.47', async () => {
    // DMEPOS25_APR.csv (seed and ../shared): A4636 NU CA 3.86 (NR) / 4.47 (R); NU KE CA 0.00 / 4.84; AL NU 4.19 (R), NU KE 4.52 (R).
    const ca = await pay('A4636/payment?ccn=051300&modifier=NU,KE');
    expect(ca.body.dme).toEqual({ allowed_dme_payment: 4.84, dme_payment_rate: 4.84, is_rural: true, rate_used: 'rural', state: 'CA' });
    expect(ca.body.calculation.join(' ')).toMatch(/dme: the A4636 NU-KE row of DMEPOS \S+ in CA, the row keyed by the most of the line's modifiers \(DMEREAD 2025, Attachment A-1/);
    expect((await pay('A4636/payment?ccn=011300&modifier=KE&modifier=NU')).body.dme.allowed_dme_payment).toBe(4.52);
    expect((await pay('A4636/payment?ccn=051300&modifier=NU')).body.dme.allowed_dme_payment).toBe(4.47);
    // NU and RR on one line: two rows fit equally, none is guessed.
    const both = await pay('A4636/payment?ccn=051300&modifier=NU,RR');
    expect(both.body.dme).toBeNull();
    expect(both.body.reliability.warnings.join(' ')).toMatch(/dme: A4636-NU-RR has no DMEPOS fee in CA/);
  });

  it('prices a critical access hospital in the Alabama locality, noting OPPS is only a reference there', async () => {
    // 99213 facility PE in AL: 1.30x1.000 + 0.57x0.875 + 0.10x0.566 = 1.3 + 0.49875 + 0.0566 = 1.85535
    //   x 33.4009 = 61.970359815 -> 61.97
    const r = await pay('99213/payment?ccn=011300');
    expect(r.body).toMatchObject({ locality: '1011200', estimated_payment: 61.97 });
    expect(r.body.facility).toMatchObject({ facility_type: 'critical_access_hospital', is_rural: true, cbsa: '01', wage_index: 0.7555 });
    const opps = await pay('71046/payment?ccn=011300');
    expect(opps.body.reliability.warnings.join(' ')).toMatch(/critical access hospital/);
  });
});

describe('dates and errors', () => {
  it('echoes date_of_service; a year no loaded release covers is 404 naming it and the nearest loaded release', async () => {
    const ok = await pay('99213/payment?locality=1320201&date_of_service=2025-11-03');
    expect(ok.body.date_of_service).toBe('2025-11-03');
    // The CY2025 RVU release covers it; only the GPCI year is another's.
    expect(otherWarnings(ok.body.reliability.warnings)).toEqual([expect.stringMatching(/^no gpci release loaded is effective on 2025-11-03/)]);
    // A CY2026 date: only the CY2025 RVU release is loaded, so nothing prices it (never another year's release).
    const nearest = await pay('99213/payment?locality=1320201&date_of_service=2026-03-01');
    expect(nearest.status).toBe(404);
    expect(nearest.body).toEqual({ code: 'not_found', detail: 'no mpfs_rvu version loaded covers date of service 2026-03-01 (CY2026); the nearest loaded is 2025D (CY2025, effective 2025-10-01)' });
    const early = await pay('99213/payment?locality=1320201&date_of_service=2025-01-15');
    expect(early.status).toBe(200);
    // The CY2025 release, effective in October, answers a January date of its year: degraded, saying so.
    expect(early.body.reliability.degraded).toBe(true);
    expect(early.body.reliability.warnings.join(' ')).toMatch(/no mpfs_rvu release loaded is effective on 2025-01-15/);
    const old = await pay('99213/payment?locality=1320201&date_of_service=2019-01-01');
    expect(old.status).toBe(404);
    expect(old.body.detail).toMatch(/^no mpfs_rvu version loaded covers date of service 2019-01-01 \(CY2019\); the nearest loaded is 2025D/);
    expect(early.body.reliability.warnings.join(' ')).toMatch(/no gpci release loaded is effective on 2025-01-15/);
    const bad = await pay('99213/payment?date_of_service=2026-02-30');
    expect(bad.status).toBe(422);
  });

  it('returns 422 for a malformed CCN', async () => {
    for (const ccn of ['12345', '1234567', '12-456']) {
      const r = await pay(`99213/payment?ccn=${ccn}`);
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['query', 'ccn']);
    }
  });

  it('returns 404 with a clear message for an unknown CCN', async () => {
    const r = await pay('99213/payment?ccn=999999');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: expect.stringContaining('CCN 999999 is not in facilities'), code: 'not_found' });
  });

  it('returns 404 for a code in no fee schedule and 422 for a malformed one', async () => {
    const r = await pay('ZZ999/payment?locality=1320201');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
    expect(r.body.detail).toMatch(/ZZ999 is not in any loaded fee schedule/);
    expect((await pay('9921/payment')).status).toBe(422);
  });

  it('returns 422 for a malformed place_of_service or modifier', async () => {
    expect((await pay('99213/payment?place_of_service=1')).status).toBe(422);
    expect((await pay('99213/payment?modifier=2')).status).toBe(422);
  });

  it('answers a repeated request identically from the snapshot cache', async () => {
    const a = await pay('71046/payment?ccn=050454&qpp=true');
    const b = await pay('71046/payment?ccn=050454&qpp=true');
    expect(b.body).toEqual(a.body);
  });
});

describe('conversion factor by year, OPPS cap, modifier-only codes', () => {
  // 70496 (seed, real rows of PPRRVU2025_Oct.csv): work 1.75, PE 6.56 non-fac / 6.56 fac (NA), MP 0.11.
  // San Francisco 0111205 (GPCI2026 seed): 1.095 / 1.410 / 0.425. Total 1.91625 + 9.2496 + 0.04675
  // = 11.2126. CY2025 x 32.3465 = 362.6923... -> $362.69; CY2026 x 33.4009 = 374.5109... -> $374.51.
  // The test fixture cap (RVU25D_OPPSCAP_Oct.csv, 2025D) for 70496 in 0111205 is $343.62 in both settings.
  beforeAll(async () => {
    const { ingestFiles } = await import('../../ingest/pipeline.js');
    const { REPO_ROOT } = await import('../../testing/datasets.js');
    const s = await ingestFiles(t.wh, { dataset: 'opps_cap', files: [`${REPO_ROOT}/test/fixtures/opps_cap/RVU25D_OPPSCAP_Oct.csv`], rejectThreshold: 1 });
    await waitForSnapshot(t, s.snapshot_id);
  });

  it('prices a CY2025 service with the 2025 CONV FACTOR and a CY2026 one (today) with the CY2026 figure', async () => {
    const y2025 = await pay('70496/payment?locality=0111205&date_of_service=2025-10-15&place_of_service=11&qpp=true');
    expect(y2025.body.physician).toMatchObject({ conversion_factor: 32.3465, total_adjusted_rvu: 11.2126 });
    expect(y2025.body.physician.conversion_factor_source).toContain('CONV FACTOR of PPRRVU2025_Oct.csv');
    const y2026 = await pay('70496/payment?locality=0111205&place_of_service=11');
    expect(y2026.body.physician).toMatchObject({ conversion_factor: 33.4009, allowed_phy_payment: 374.51 });
    expect(y2026.body.physician.conversion_factor_source).toBe('spec rule 1: CY2026 non-QPP constant; no CY2026 RVU release is loaded (RVUs from PPRRVU2025_Oct.csv (mpfs_rvu 2025D))');
  });

  it('pays the lesser of the PFS amount and the cap in both settings for the cap year', async () => {
    for (const setting of ['place_of_service=11', 'use_facility_rate=true']) {
      const r = await pay(`70496/payment?locality=0111205&date_of_service=2025-10-15&${setting}`);
      // $362.69 PFS > $343.62 cap.
      expect(r.body.physician, setting).toMatchObject({ allowed_phy_payment: 343.62, opps_cap_amount: 343.62, opps_cap_applied: true });
      expect(r.body.estimated_payment).toBe(343.62);
      expect(r.body.reliability.dataset_versions.opps_cap).toBe('2025D');
    }
    // 70496-26: 1.75x1.095 + 0.63x1.410 + 0.08x0.425 = 2.84095 x 32.3465 = 91.894... -> $91.89 > $60.10 cap.
    const pc = await pay('70496/payment?locality=0111205&date_of_service=2025-10-15&modifier=26&place_of_service=22');
    expect(pc.body.physician).toMatchObject({ allowed_phy_payment: 60.1, opps_cap_applied: true });
    // No cap row for the locality: no cap.
    const ny = await pay('70496/payment?locality=1320201&date_of_service=2025-10-15&place_of_service=11');
    expect(ny.body.physician).toMatchObject({ opps_cap_amount: null, opps_cap_applied: false });
  });

  it('a 2026 service with only a 2025 cap file answers without the cap and says why', async () => {
    const r = await pay('70496/payment?locality=0111205&place_of_service=11');
    expect(r.body.physician).toMatchObject({ allowed_phy_payment: 374.51, opps_cap_amount: null, opps_cap_applied: false });
    expect(r.body.reliability.warnings).toContain('opps_cap: 70496 in locality 0111205 is capped in release 2025D, but no CY2026 cap file is loaded; paid without the OPPS cap');
  });

  it('a code on the schedule only with a modifier answers 200, physician null, naming the modifier', async () => {
    const r = await pay('86153/payment?locality=1320201');
    expect(r.status).toBe(200);
    expect(r.body.physician).toBeNull();
    expect(r.body.applicable_blocks).toEqual([]);
    expect(r.body.reliability.warnings).toContain('physician: 86153 is on the fee schedule only with modifier 26; pass modifier=26 for its amount');
    const with26 = await pay('86153/payment?locality=1320201&modifier=26');
    expect(with26.body.physician.allowed_phy_payment).toBeGreaterThan(0);
  });
});

describe('payment-policy modifiers (Claims Processing Manual ch. 12 sections 20.4, 40.6-40.8)', () => {
  // Seed rows (PPRRVU2025_Oct.csv): 20610 MULT PROC 2, BILAT 1, ASST 1, CO 0, TEAM 0;
  // 27447 MULT PROC 2, BILAT 1, ASST 2, CO 1, TEAM 0; 43239 MULT PROC 3 (endoscopy, base 43235).
  it('20610-50 in Manhattan (non-facility) pays 150%: $112.99', async () => {
    // 2.25522 x 33.4009 = 75.326377698 (75.33); x 1.5 = 112.989566547 -> 112.99
    const r = await pay('20610/payment?locality=1320201&modifier=50');
    expect(r.status).toBe(200);
    expect(r.body.physician).toMatchObject({ fee_schedule_amount: 75.33, allowed_phy_payment: 112.99, rvu_row: 'global' });
    expect(r.body.physician.adjustments).toEqual([
      { modifier: '50', rule: 'bilateral', indicator: '1', percent: 150, citation: 'Medicare Claims Processing Manual ch. 12 section 40.7 (bilateral surgeries); RVU file BILAT SURG indicator' },
    ]);
    expect(r.body.estimated_payment).toBe(112.99);
    expect(r.body.calculation.join(' ')).toMatch(/section 40.7/);
  });

  it('27447 in Manhattan (facility): -62 $938.26, -80 $240.19, -AS $204.16', async () => {
    // 20.8544 + 17.7786 + 6.31228 = 44.94528 x 33.4009 = 1501.212802752 (1501.21)
    // x 0.625 = 938.258001720 -> 938.26; x 0.16 = 240.194048440 -> 240.19; x 0.136 = 204.164941174 -> 204.16
    const q = '27447/payment?locality=1320201&place_of_service=22';
    expect((await pay(q)).body.estimated_payment).toBe(1501.21);
    const co = await pay(`${q}&modifier=62`);
    expect(co.body.physician).toMatchObject({ allowed_phy_payment: 938.26, adjustments: [{ modifier: '62', rule: 'co_surgeon', indicator: '1', percent: 62.5 }] });
    expect((await pay(`${q}&modifier=80`)).body.estimated_payment).toBe(240.19);
    expect((await pay(`${q}&modifier=as`)).body.estimated_payment).toBe(204.16);
  });

  it('takes repeated or comma-listed modifiers and multiplies their percents: 27447-80-51 is 8%, $120.10', async () => {
    // 1501.212802752 x 0.5 x 0.16 = 120.097024220 -> 120.10
    const repeated = await pay('27447/payment?locality=1320201&place_of_service=22&modifier=80&modifier=51');
    expect(repeated.status).toBe(200);
    expect(repeated.body.estimated_payment).toBe(120.1);
    expect(repeated.body.physician.adjustments.map((a: { modifier: string }) => a.modifier)).toEqual(['51', '80']);
    const comma = await pay('27447/payment?locality=1320201&place_of_service=22&modifier=80,51');
    expect(comma.body.physician).toEqual(repeated.body.physician);
  });

  it('answers no physician amount where the indicator forbids or prices by report, never the unadjusted amount', async () => {
    const asst = await pay('20610/payment?locality=1320201&modifier=80');
    expect(asst.body.physician).toBeNull();
    expect(asst.body.estimated_payment).toBe(0);
    expect(asst.body.reliability.warnings.join(' ')).toMatch(/20610 has assistant-at-surgery indicator 1: statutory payment restriction/);
    const co = await pay('20610/payment?locality=1320201&modifier=62');
    expect(co.body.physician).toBeNull();
    expect(co.body.reliability.warnings.join(' ')).toMatch(/co-surgeon indicator 0 \(co-surgeons not permitted\)/);
    const team = await pay('27447/payment?locality=1320201&modifier=66');
    expect(team.body.physician).toBeNull();
    expect(team.body.reliability.warnings.join(' ')).toMatch(/team surgery indicator 0 \(team surgeons not permitted\)/);
  });

  it('leaves the family reductions (indicators 3-7) unapplied on one code, with a warning naming the rule', async () => {
    const r = await pay('43239/payment?locality=1320201&modifier=51');
    const plain = await pay('43239/payment?locality=1320201');
    expect(r.body.estimated_payment).toBe(plain.body.estimated_payment);
    expect(r.body.physician.adjustments).toEqual([]);
    expect(r.body.reliability.warnings.join(' ')).toMatch(/multiple procedure indicator 3, the endoscopy reduction.*not applied to a single code/);
  });

  it('leaves 52 to the MAC (by report), never the 53 row; prices 53 from its row', async () => {
    // 45378-53 in Manhattan, non-facility: 5.82488 x 33.4009 = 194.556234392 -> 194.56; 45378-52 borrows none of it.
    const r = await pay('45378/payment?locality=1320201&modifier=52');
    expect(r.body.physician).toBeNull();
    expect(r.body.reliability.warnings.join(' ')).toMatch(/modifier 52 \(reduced services\): the MAC prices a reduced 45378 by report.*billed with modifier 53/);
    expect((await pay('45378/payment?locality=1320201&modifier=53')).body.physician).toMatchObject({ rvu_row: '53', allowed_phy_payment: 194.56 });
    const none = await pay('99213/payment?locality=1320201&modifier=52');
    expect(none.body.physician).toBeNull();
    expect(none.body.reliability.warnings.join(' ')).toMatch(/modifier 52 .* by report/);
    const d53 = await pay('99213/payment?locality=1320201&modifier=53');
    expect(d53.body.physician).toBeNull();
    expect(d53.body.reliability.warnings.join(' ')).toMatch(/modifier 53 .* by report/);
  });

  it('still selects the component row with a policy modifier beside it, and rejects a fifth modifier', async () => {
    const r = await pay('70450/payment?locality=1320201&modifier=26,51');
    expect(r.body.physician.rvu_row).toBe('26');
    expect(r.body.reliability.warnings.join(' ')).toMatch(/indicator 4, the diagnostic imaging reduction/);
    expect((await pay('99213/payment?modifier=25,59,76,77,91')).status).toBe(422);
  });
});

describe('PC/TC in every hospital setting (ch. 13 section 20)', () => {
  it('prices 70450 at place of service 22 without a ccn from its -26 row: $46.26, not the global $142.47', async () => {
    // 70450-26 facility (seed): 0.85x1.095 + 0.31x1.410 + 0.04x0.425 = 0.93075 + 0.4371 + 0.017 = 1.38485
    // x 33.4009 = 46.255236365 -> 46.26 (the global row, 4.2655 x 33.4009, was 142.47)
    const r = await pay('70450/payment?locality=0111205&place_of_service=22');
    expect(r.body.physician).toMatchObject({ rvu_row: '26', priced_code: '70450', allowed_phy_payment: 46.26 });
    expect(r.body.calculation.join(' ')).toMatch(/PC\/TC indicator 1 at place of service 22: 70450-26 priced.*ch. 13 section 20/);
    for (const pos of ['19', '21', '23']) expect((await pay(`70450/payment?locality=0111205&place_of_service=${pos}`)).body.physician.rvu_row, pos).toBe('26');
    // In the office the global row is the physician's.
    expect((await pay('70450/payment?locality=0111205&place_of_service=11')).body.physician.rvu_row).toBe('global');
  });

  it('prices 93000 (PC/TC indicator 4) at a hospital from the professional code 93010 and names 93005: $9.19', async () => {
    // 93010 facility (seed): 0.17x1.095 + 0.06x1.410 + 0.01x0.425 = 0.18615 + 0.0846 + 0.00425 = 0.275
    // x 33.4009 = 9.1852475 -> 9.19 (the global 93000 row, 0.533 x 33.4009, was 17.80)
    for (const q of ['ccn=050454', 'locality=0111205&place_of_service=22']) {
      const r = await pay(`93000/payment?${q}`);
      expect(r.body.physician, q).toMatchObject({ priced_code: '93010', allowed_phy_payment: 9.19, work_rvu: 0.17, pe_rvu: 0.06 });
      expect(r.body.reliability.warnings.join(' ')).toMatch(/93000 is a global-test-only code \(PC\/TC indicator 4\).*professional code 93010 \(priced\) and the hospital the technical code 93005/);
      expect(r.body.calculation.join(' ')).toMatch(/PC\/TC indicator 4/);
    }
    // In the office the global test is the physician's: 0.17 + 0.24 + 0.02 at GPCI 1 = 0.43 x 33.4009 = 14.362387 -> 14.36
    expect((await pay('93000/payment?place_of_service=11')).body.physician).toMatchObject({ priced_code: '93000', allowed_phy_payment: 14.36 });
  });
});

describe('OPPS line rules (42 CFR 419; Addendum B status indicators)', () => {
  // Seed Addendum B: J9035 SI K $74.201; G0463 SI J2 $146.92; 71046 SI Q3 $94.85; C1713 SI N (no rate).
  // Wage index (seed): UCSF CBSA 41884 1.9315; NY-Presbyterian CBSA 35614 1.3456.
  it('pays a separately payable drug (K) the national rate without wage adjustment: J9035 $74.20', async () => {
    // 74.201 -> 74.20 (wage-adjusted at UCSF it would be 74.201x0.6x1.9315 + 74.201x0.4 = 115.67)
    const r = await pay('J9035/payment?ccn=050454');
    expect(r.body.outpatient_facility).toMatchObject({ allowed_fac_payment: 74.2, wage_adjusted: false, labor_share: 0, non_labor_share: 1, status_indicator: 'K' });
    expect(r.body.estimated_payment).toBe(74.2);
    expect(r.body.calculation.join(' ')).toMatch(/status indicator K .* national rate, no wage adjustment \(42 CFR 419.43/);
  });

  it('pays a packaged code (N) nothing separately and says where its payment is', async () => {
    const r = await pay('C1713/payment?ccn=330101');
    expect(r.body.outpatient_facility).toBeNull();
    expect(r.body.estimated_payment).toBe(0);
    expect(r.body.reliability.warnings.join(' ')).toMatch(/C1713 has OPPS status indicator N \(packaged\).*APC payment of the primary service/);
  });

  it('pays PN at 40% of the OPPS amount, PO at 100%, and G0463 at 40% with PO too', async () => {
    // G0463 at UCSF: 146.92x0.6x1.9315 + 146.92x0.4 = 170.266788 + 58.768 = 229.034788; x 0.4 = 91.6139152 -> 91.61
    for (const m of ['PN', 'PO']) {
      const r = await pay(`G0463/payment?ccn=050454&place_of_service=19&modifier=${m}`);
      expect(r.body.outpatient_facility, m).toMatchObject({ allowed_fac_payment: 91.61, adjustments: [{ modifier: m, rule: 'off_campus_department', percent: 40 }] });
      expect(r.body.estimated_payment).toBe(91.61);
    }
    expect((await pay('G0463/payment?ccn=050454&place_of_service=19')).body.outpatient_facility.allowed_fac_payment).toBe(229.03);
    // 71046 at UCSF: 147.861665 (147.86); PN x 0.4 = 59.144666 -> 59.14; PO 100%.
    const pn = await pay('71046/payment?ccn=050454&place_of_service=19&modifier=PN');
    expect(pn.body.outpatient_facility.allowed_fac_payment).toBe(59.14);
    expect(pn.body.calculation.join(' ')).toMatch(/modifier PN: 40% of the OPPS amount \(section 1833\(t\)\(21\)/);
    const po = await pay('71046/payment?ccn=050454&place_of_service=19&modifier=PO');
    expect(po.body.outpatient_facility).toMatchObject({ allowed_fac_payment: 147.86, adjustments: [{ modifier: 'PO', percent: 100 }] });
    expect(po.body.reliability.warnings.join(' ')).not.toMatch(/modifier PO does not select/);
  });
});

describe('lab and DME codes without a ccn', () => {
  it('says why a CLFS code answers 0 and quotes its CLFS rate and route', async () => {
    const r = await pay('80053/payment?locality=1320201');
    expect(r.body.estimated_payment).toBe(0);
    const w = r.body.reliability.warnings.join(' | ');
    expect(w).toMatch(/lab: 80053 is a clinical laboratory fee schedule code, paid on the CLFS, not on physician RVUs \(CLFS \S+ national limit \$10\.56( on \d{4}-\d{2}-\d{2})?\).*GET \/v1\/fee-schedules\/lab\/80053/);
    expect(r.body.reliability.dataset_versions.clfs).toBeDefined();
  });

  it("says why a DMEPOS code answers 0 and quotes the locality's state fee and route", async () => {
    // seeds/dmepos DMEPOS25_APR.csv: A4636 NU in AL 3.86 non-rural / 4.19 rural.
    const r = await pay('A4636/payment?locality=1011200');
    expect(r.body.estimated_payment).toBe(0);
    expect(r.body.reliability.warnings.join(' | ')).toMatch(/dme: A4636 is a DMEPOS fee schedule code.*in AL \(NU\): non-rural \$3\.86, rural \$4\.19\).*GET \/v1\/fee-schedules\/dme\/A4636\?state=AL/);
    const national = await pay('A4636/payment');
    expect(national.body.reliability.warnings.join(' | ')).toMatch(/fees are by state: pass locality or ccn/);
  });
});

describe('critical access hospitals, Method II (42 CFR 413.70(b)(3))', () => {
  it('pays the professional 115% of the facility fee schedule amount: 99213 at 011300 $71.27', async () => {
    // 99213 facility PE in AL (seed GPCI 1.000/0.875/0.566): 1.85535 x 33.4009 = 61.970359815 (61.97)
    // x 1.15 = 71.265913787 -> 71.27
    const r = await pay('99213/payment?ccn=011300&cah_method_ii=true');
    expect(r.body.physician).toMatchObject({ fee_schedule_amount: 61.97, allowed_phy_payment: 71.27 });
    expect(r.body.physician.adjustments).toEqual([{ modifier: null, rule: 'cah_method_ii', indicator: 'method_ii', percent: 115, citation: expect.stringContaining('42 CFR 413.70(b)(3)') }]);
    expect(r.body.estimated_payment).toBe(71.27);
    expect(r.body.calculation.join(' ')).toMatch(/CAH Method II: 115%/);
  });

  it('ignores the flag, with a warning, at a hospital that is not a CAH or without a ccn', async () => {
    const acute = await pay('99213/payment?ccn=330101&cah_method_ii=true');
    expect(acute.body.estimated_payment).toBe(73.62);
    expect(acute.body.reliability.warnings.join(' ')).toMatch(/cah_method_ii ignored: 330101 is not a critical access hospital/);
    const none = await pay('99213/payment?locality=1320201&cah_method_ii=1');
    expect(none.body.estimated_payment).toBe(103.89);
    expect(none.body.reliability.warnings.join(' ')).toMatch(/cah_method_ii ignored/);
  });
});

describe('beneficiary cost sharing', () => {
  it('charges 20% coinsurance on the physician amount, or the Part B deductible first when not met', async () => {
    // 99213 Manhattan, today (2026-03-02): 103.89; 20% = 20.778 -> 20.78; program 103.89 - 20.78 = 83.11
    const met = await pay('99213/payment?locality=1320201');
    expect(met.body.beneficiary_cost_sharing).toMatchObject({ year: 2026, deductible_applies: true, deductible_met: true, part_b_deductible: 283, deductible: 0, coinsurance: 20.78, opps_copayment: null, beneficiary_total: 20.78, program_payment: 83.11 });
    // Not met: the whole 103.89 goes to the CY2026 deductible ($283); nothing left for coinsurance or the program.
    const unmet = await pay('99213/payment?locality=1320201&deductible_met=false');
    expect(unmet.body.beneficiary_cost_sharing).toMatchObject({ deductible: 103.89, coinsurance: 0, beneficiary_total: 103.89, program_payment: 0 });
    expect(unmet.body.beneficiary_cost_sharing.citations.join(' ')).toMatch(/CY2026 Part B deductible \$283/);
  });

  it('adds the wage-adjusted OPPS copayment at a hospital: 71046 at UCSF', async () => {
    // Addendum B 71046: national copayment '.', minimum unadjusted 18.97 (20% of 94.85):
    // 18.97x0.6x1.9315 + 18.97x0.4 = 21.984333 + 7.588 = 29.572333 -> 29.57 (under the $1,736 cap)
    // coinsurance on the -26 physician amount 11.96 x 0.2 = 2.392 -> 2.39; program 159.82 - 31.96 = 127.86
    const r = await pay('71046/payment?ccn=050454&date_of_service=2026-03-02');
    expect(r.body.beneficiary_cost_sharing).toMatchObject({ coinsurance: 2.39, opps_copayment: 29.57, inpatient_deductible: 1736, beneficiary_total: 31.96, program_payment: 127.86 });
  });

  it('waives the deductible of 45385-PT and charges 15% in CY2026, and nothing for 99497-33 (server/payment/rules/)', async () => {
    // 45385 Manhattan non-facility: 15.43010 x 33.4009 = 515.379227090 -> 515.38; 15% = 77.307 -> 77.31.
    const pt = await pay('45385/payment?locality=1320201&modifier=PT&deductible_met=false');
    expect(pt.body.beneficiary_cost_sharing).toMatchObject({ deductible_applies: false, deductible: 0, coinsurance: 77.31, program_payment: 438.07 });
    // 99497 Manhattan non-facility: 2.75392 x 33.4009 = 91.983406528 -> 91.98, all the program's.
    const acp = await pay('99497/payment?locality=1320201&modifier=33&deductible_met=false');
    expect(acp.body.beneficiary_cost_sharing).toMatchObject({ deductible_applies: false, beneficiary_total: 0, program_payment: 91.98 });
  });

  it('charges nothing for a listed preventive service or a clinical lab test', async () => {
    const mammo = await pay('77067/payment?locality=1320201&deductible_met=false');
    expect(mammo.body.beneficiary_cost_sharing).toMatchObject({ deductible_applies: false, deductible: 0, coinsurance: 0, beneficiary_total: 0 });
    expect(mammo.body.beneficiary_cost_sharing.program_payment).toBe(mammo.body.estimated_payment);
    const lab = await pay('80053/payment?ccn=050454');
    expect(lab.body.beneficiary_cost_sharing).toMatchObject({ coinsurance: 0, beneficiary_total: 0, program_payment: 10.56 });
  });
});

describe('PN/PO without an OPPS block', () => {
  it('says the modifier has nothing to adjust', async () => {
    const r = await pay('99213/payment?locality=1320201&modifier=PN');
    expect(r.body.estimated_payment).toBe(103.89);
    expect(r.body.reliability.warnings).toContain('modifier PN adjusts the OPPS amount of an off-campus department; this answer has no OPPS block');
  });
});

describe('anesthesia (Claims Processing Manual ch. 12 section 50)', () => {
  // 00100 (PPRRVU2025_Oct.csv, status J, RVUs 0.00); base units 5 from the illustrative
  // anesthesia_base_units seed; ANES2025.csv (real rows): MANHATTAN 13202 01 22.76, national 20.3178.
  it('prices (base + minutes / 15) x the locality factor, degraded while the base units are illustrative', async () => {
    // 60 minutes: 4.0 time units; (5 + 4.0) x 22.76 = 204.84
    const r = await pay('00100/payment?locality=1320201&date_of_service=2025-11-03&anesthesia_minutes=60');
    expect(r.status).toBe(200);
    expect(r.body.physician).toMatchObject({ allowed_phy_payment: 204.84, conversion_factor: 22.76, anesthesia: { minutes: 60, base_units: 5, time_units: 4, anesthesia_conversion_factor: 22.76, modifier: null } });
    expect(r.body.estimated_payment).toBe(204.84);
    expect(r.body.reliability.degraded).toBe(true);
    expect(r.body.reliability.warnings.join(' ')).toMatch(/illustrative seed of anesthesia_base_units/);
    expect(r.body.reliability.dataset_versions).toMatchObject({ anesthesia_base_units: '2025', anesthesia_cf: '2025' });
    expect(r.body.calculation.join(' ')).toMatch(/ch. 12 section 50/);
    // 47 minutes: 47 / 15 = 3.133 -> 3.1; (5 + 3.1) x 22.76 = 184.356 -> 184.36
    expect((await pay('00100/payment?locality=1320201&date_of_service=2025-11-03&anesthesia_minutes=47')).body.estimated_payment).toBe(184.36);
    // Nationally: 9.0 x 20.3178 = 182.8602 -> 182.86
    expect((await pay('00100/payment?date_of_service=2025-11-03&anesthesia_minutes=60')).body.estimated_payment).toBe(182.86);
  });

  it('applies medical direction: QK/QX/QY 50%, AA/QZ 100%, AD three base units', async () => {
    const q = '00100/payment?locality=1320201&date_of_service=2025-11-03&anesthesia_minutes=60';
    const qk = await pay(`${q}&modifier=QK`);
    // 204.84 x 0.5 = 102.42
    expect(qk.body.physician).toMatchObject({ fee_schedule_amount: 204.84, allowed_phy_payment: 102.42, adjustments: [{ modifier: 'QK', rule: 'anesthesia_medical_direction', percent: 50 }] });
    expect((await pay(`${q}&modifier=QZ`)).body.estimated_payment).toBe(204.84);
    // AD: 3 x 22.76 = 68.28
    const ad = await pay(`${q}&modifier=AD`);
    expect(ad.body.physician.anesthesia).toMatchObject({ base_units: 3, time_units: 0 });
    expect(ad.body.estimated_payment).toBe(68.28);
  });

  it('without anesthesia_minutes says what is missing; another year is the nearest release, degraded', async () => {
    const none = await pay('00100/payment?locality=1320201');
    expect(none.body.physician).toBeNull();
    expect(none.body.reliability.warnings.join(' ')).toMatch(/pass anesthesia_minutes/);
    const y2026 = await pay('00100/payment?locality=1320201&anesthesia_minutes=60');
    expect(y2026.body.estimated_payment).toBe(204.84);
    expect(y2026.body.reliability.warnings.join(' ')).toMatch(/no CY2026 anesthesia conversion factors are loaded; the nearest release's, CY2025/);
    expect((await pay('00100/payment?anesthesia_minutes=0')).status).toBe(422);
  });
});

describe("critical access hospitals, Method II elected in the tenant's registration", () => {
  it('prices 115% of the facility amount without the query parameter; cah_method_ii=false on the query overrides it', async () => {
    // A tenant of its own, so its registration touches no other test's answers.
    const own = await t.srv.state.admin.createTenant('payment-method-ii');
    const key = await t.newKey('test', ['knowledge'], own.name);
    const reg = await t.request('/v1/facilities/011300', { method: 'PUT', key, body: { cah_method_ii: true } });
    expect(reg.status).toBe(201);
    // 99213 facility PE in AL (seed GPCI 1.000/0.875/0.566): 1.30 + 0.57 x 0.875 + 0.10 x 0.566 = 1.85535;
    // x 33.4009 = 61.970359815 (61.97); x 1.15 = 71.265913787 -> 71.27
    const q = '/v1/codes/99213/payment?ccn=011300&date_of_service=2026-03-02';
    const elected = await t.request(q, { key });
    expect(elected.status).toBe(200);
    expect(elected.body.physician).toMatchObject({ fee_schedule_amount: 61.97, allowed_phy_payment: 71.27 });
    expect(elected.body.physician.adjustments).toEqual([{ modifier: null, rule: 'cah_method_ii', indicator: 'method_ii', percent: 115, citation: expect.stringContaining('42 CFR 413.70(b)(3)') }]);
    expect(elected.body.estimated_payment).toBe(71.27);
    expect(elected.body.facility).toMatchObject({ ccn: '011300', registered: true });
    expect(elected.body.reliability.warnings).toContain('cah_method_ii from your registration of 011300');
    // The query parameter wins: false prices the fee schedule amount, and names no registration.
    const refused = await t.request(`${q}&cah_method_ii=false`, { key });
    expect(refused.body.physician).toMatchObject({ fee_schedule_amount: 61.97, allowed_phy_payment: 61.97, adjustments: [] });
    expect(refused.body.estimated_payment).toBe(61.97);
    expect(refused.body.reliability.warnings.join(' ')).not.toMatch(/cah_method_ii/);
    // As the query parameter alone prices it, and another tenant (no election) pays the fee schedule amount.
    expect((await t.request(`${q}&cah_method_ii=true`)).body.estimated_payment).toBe(71.27);
    expect((await t.request(q)).body.estimated_payment).toBe(61.97);
  });
});

describe('the date rule of the payment composition', () => {
  afterEach(() => clock.set(TODAY));

  it('answers 404 for a date no fee schedule it prices covers, naming the year and the nearest loaded release of each', async () => {
    const national = await pay('99213/payment?locality=1320201&date_of_service=2027-03-02');
    expect(national.status).toBe(404);
    expect(national.body).toEqual({ code: 'not_found', detail: 'no mpfs_rvu version loaded covers date of service 2027-03-02 (CY2027); the nearest loaded is 2025D (CY2025, effective 2025-10-01)' });
    const atFacility = await pay('71046/payment?ccn=050454&date_of_service=2024-06-01');
    expect(atFacility.status).toBe(404);
    expect(atFacility.body.detail).toBe(
      'no mpfs_rvu, opps_addendum_b, clfs or dmepos version loaded covers date of service 2024-06-01 (CY2024); the nearest loaded are mpfs_rvu 2025D (CY2025, effective 2025-10-01); opps_addendum_b 2026-01 (CY2026, effective 2026-01-01); clfs 2026Q3V1 (CY2026, effective 2026-07-01); dmepos 2025-04 (CY2025, effective 2025-04-01)',
    );
    // At a facility a CY2026 date is covered by the CY2026 Addendum B: priced, the physician block from the nearest RVU release, degraded.
    const covered = await pay('71046/payment?ccn=050454&date_of_service=2026-03-02');
    expect(covered.status).toBe(200);
    expect(covered.body.outpatient_facility).toMatchObject({ allowed_fac_payment: 147.86 });
    expect(covered.body.reliability.degraded).toBe(true);
  });

  it("prices today's year without a date from its own release, with no date warning, when one is loaded", async () => {
    clock.set('2025-11-03T12:00:00Z');
    const r = await pay('99213/payment');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ date_of_service: '2025-11-03', conversion_factor: 32.3465, estimated_payment: 88.95 });
    expect(r.body.physician).toMatchObject({ rvu_year: 2025, conversion_factor_source: expect.stringMatching(/^CONV FACTOR of PPRRVU2025_Oct\.csv/) });
    expect(r.body.reliability.warnings.join(' ')).not.toMatch(/RVU release is loaded|covers today/);
  });

  it("prices today's year without a date from the newest loaded release, degraded with a warning, when none of it is loaded", async () => {
    const r = await pay('99213/payment');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ date_of_service: '2026-03-02', conversion_factor: 33.4009, estimated_payment: 91.85 });
    expect(r.body.physician).toMatchObject({ rvu_year: 2025 });
    expect(r.body.reliability.degraded).toBe(true);
    expect(r.body.reliability.warnings).toContain("physician: no CY2026 RVU release is loaded; the 99213 RVUs are the nearest release's, CY2025 (mpfs_rvu 2025D)");
  });
});
