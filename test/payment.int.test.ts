import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, waitForSnapshot, type TestServer } from './helpers/harness.js';

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

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
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
    // mcd_coverage was read for the code's Medicare coverage rules (none lists 99213).
    expect(r.body.reliability.dataset_versions).toEqual({ mpfs_rvu: '2025D', gpci: '2026', mcd_coverage: '2025-10-01' });
    expect(r.body.reliability.warnings).toEqual([]);
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
    expect(r.body.reliability.dataset_versions).toMatchObject({ mpfs_rvu: '2025D', gpci: '2026', facilities: '2025Q3', wage_index: 'FY2026' });
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
    // TC priced in the locality with the facility PE (no facility is named): 0 + 0.69x1.410 (0.9729)
    // + 0.01x0.425 (0.00425) = 0.97715 x 33.4009 = 32.637689435 -> 32.64; its facility PE is marked NA.
    const tc = await pay('71046/payment?locality=0111205&place_of_service=22&modifier=tc');
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
  it('echoes date_of_service and warns when no loaded release is effective yet', async () => {
    const ok = await pay('99213/payment?locality=1320201&date_of_service=2026-03-01');
    expect(ok.body.date_of_service).toBe('2026-03-01');
    expect(ok.body.reliability.warnings).toEqual([]);
    expect(ok.body.reliability.degraded).toBe(false);
    const early = await pay('99213/payment?locality=1320201&date_of_service=2025-01-15');
    expect(early.status).toBe(200);
    // Another period's data answered: degraded, as PTP says for an uncovered date (one rule).
    expect(early.body.reliability.degraded).toBe(true);
    const old = await pay('99213/payment?locality=1320201&date_of_service=2019-01-01');
    expect(old.body.reliability.degraded).toBe(true);
    expect(old.body.reliability.warnings.join(' ')).toMatch(/no CY2019 RVU release is loaded/);
    expect(early.body.reliability.warnings.join(' ')).toMatch(/no mpfs_rvu release loaded is effective on 2025-01-15/);
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
    const { ingestFiles } = await import('../ingest/pipeline.js');
    const { REPO_ROOT } = await import('./helpers/datasets.js');
    const s = await ingestFiles(t.wh, { dataset: 'opps_cap', files: [`${REPO_ROOT}/test/fixtures/opps_cap/RVU25D_OPPSCAP_Oct.csv`], rejectThreshold: 1 });
    await waitForSnapshot(t, s.snapshot_id);
  });

  it('prices a CY2025 service with the 2025 CONV FACTOR and a CY2026 one with the 2026 constant', async () => {
    const y2025 = await pay('70496/payment?locality=0111205&date_of_service=2025-10-15&place_of_service=11&qpp=true');
    expect(y2025.body.physician).toMatchObject({ conversion_factor: 32.3465, total_adjusted_rvu: 11.2126 });
    expect(y2025.body.physician.conversion_factor_source).toContain('CONV FACTOR of PPRRVU2025_Oct.csv');
    const y2026 = await pay('70496/payment?locality=0111205&date_of_service=2026-03-02&place_of_service=11');
    expect(y2026.body.physician).toMatchObject({ conversion_factor: 33.4009, allowed_phy_payment: 374.51 });
    expect(y2026.body.physician.conversion_factor_source).toBe('spec rule 1: CY2026 non-QPP constant; no CY2026 RVU release is loaded (RVUs from PPRRVU2025_Oct.csv (mpfs_rvu 2025D))');
  });

  it('pays the lesser of the PFS amount and the cap in both settings for the cap year', async () => {
    for (const pos of ['11', '22']) {
      const r = await pay(`70496/payment?locality=0111205&date_of_service=2025-10-15&place_of_service=${pos}`);
      // $362.69 PFS > $343.62 cap.
      expect(r.body.physician, pos).toMatchObject({ allowed_phy_payment: 343.62, opps_cap_amount: 343.62, opps_cap_applied: true });
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
    const r = await pay('70496/payment?locality=0111205&date_of_service=2026-03-02&place_of_service=11');
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
