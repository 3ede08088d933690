import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDmeRates } from '../../datasets/dmepos/queries.js';
import { isDmeRuralZip } from '../../datasets/dmepos_rural_zip/queries.js';
import { findLabRates } from '../../datasets/clfs/queries.js';
import { findOppsRates } from '../../datasets/opps_addendum_b/queries.js';
import { findAspPaymentLimits } from '../../datasets/asp_pricing/queries.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';
import { CrosswalkResultSchema } from '../codes/schemas.js';
import { join } from 'node:path';
import { oppsAddendumA } from '../../datasets/opps_addendum_a/dataset.js';
import { oppsAddendumB } from '../../datasets/opps_addendum_b/dataset.js';
import { openTestSnapshot, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { Trace } from '../trace.js';
import { apcLinkOf } from './service.js';
import { DmeListSchema, LabListSchema, OppsApcSchema, OppsRowSchema } from './schemas.js';
import { TestClock } from '../../testing/clock.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';

// Expected values are the seeds' own cells (seeds/dmepos/DMEPOS25_APR.csv is an excerpt of the
// April 2025 CMS file; seeds/opps_addendum_b is an illustrative CY2026 file in the 508 layout).

let t: TestServer;
let snap: MountedSnapshot;
beforeAll(async () => {
  t = await startTestServer();
  const id = await t.wh.currentId();
  snap = await MountedSnapshot.open(t.wh, await t.wh.readManifest(id!));
});
afterAll(async () => {
  snap?.close();
  await t.close();
});

describe('GET /v1/fee-schedules/dme/{code}', () => {
  it('returns the Alabama rows of E0110 per modifier with the April 2025 release in reliability', async () => {
    const r = await t.request('/v1/fee-schedules/dme/e0110?state=al');
    expect(r.status).toBe(200);
    DmeListSchema.parse(r.body);
    expect(r.body.total_count).toBe(3);
    expect(r.body.results.map((x: any) => [x.modifier, x.non_rural_rate, x.rural_rate, x.ceiling, x.floor])).toEqual([
      ['NU', 92.15, null, 108.41, 92.15],
      ['RR', 18.98, null, 22.33, 18.98],
      ['UE', 80.36, null, 81.27, 69.08],
    ]);
    expect(r.body.results[0]).toMatchObject({ hcpcs_code: 'E0110', state: 'AL', year: 2025, jurisdiction: 'D', category: 'IN', short_descriptor: 'Crutch forearm pair' });
    expect(r.body.reliability.dataset_versions.dmepos).toBe('2025-04');
  });

  it('keeps second modifiers apart and reports a rural-only fee with a null non-rural rate', async () => {
    const r = await t.request('/v1/fee-schedules/dme/A4636?state=AL');
    const ke = r.body.results.filter((x: any) => x.modifier2 === 'KE');
    expect(ke.map((x: any) => [x.modifier, x.non_rural_rate, x.rural_rate])).toEqual([
      ['NU', null, 4.52],
      ['RR', null, 0.45],
      ['UE', null, 3.52],
    ]);
  });

  it('counts every state row but returns only `limit` of them', async () => {
    const r = await t.request('/v1/fee-schedules/dme/E0110?limit=5');
    expect(r.status).toBe(200);
    expect(r.body.results).toHaveLength(5);
    expect(r.body.total_count).toBe(3 * 53);
  });

  it('returns 404 naming the year and the nearest loaded release for a year with no loaded release', async () => {
    const r = await t.request('/v1/fee-schedules/dme/E0110?year=2019');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: 'not_found', detail: 'no dmepos version loaded covers CY2019; the nearest loaded is 2025-04 (CY2025, effective 2025-04-01)' });
  });

  it('returns 404 not_found for a code on no DMEPOS schedule', async () => {
    const r = await t.request('/v1/fee-schedules/dme/Z9999');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });

  it('returns 422 for a three-letter state, limit 0 and limit 201', async () => {
    const bad = await t.request('/v1/fee-schedules/dme/E0110?state=ALA&limit=0');
    expect(bad.status).toBe(422);
    const locs = bad.body.detail.map((d: any) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['query.state', 'query.limit']));
    expect((await t.request('/v1/fee-schedules/dme/E0110?limit=201')).status).toBe(422);
    expect((await t.request('/v1/fee-schedules/dme/E01100')).status).toBe(422);
  });
});

describe('GET /v1/fee-schedules/opps/{code}', () => {
  it('returns APC, weight, rate and a null national copay for G0463 (CMS prints ".")', async () => {
    const r = await t.request('/v1/fee-schedules/opps/G0463');
    expect(r.status).toBe(200);
    OppsRowSchema.parse(r.body);
    expect(r.body).toMatchObject({
      hcpcs_code: 'G0463',
      year: 2026,
      status_indicator: 'J2',
      apc_code: '5012',
      relative_weight: 1.6072,
      payment_rate: 146.92,
      national_unadjusted_copayment: null,
      minimum_unadjusted_copayment: 29.38,
    });
    expect(r.body.reliability.dataset_versions.opps_addendum_b).toBe('2026-01');
  });

  it('finds a code the file pads with a non-breaking space and reads "$2,022.41"', async () => {
    const r = await t.request('/v1/fee-schedules/opps/G0465');
    expect(r.status).toBe(200);
    expect(r.body.payment_rate).toBe(2022.41);
  });

  it('reports IRA coinsurance and the adjusted copayment of an inflation-adjusted drug', async () => {
    const r = await t.request('/v1/fee-schedules/opps/J0897');
    expect(r.body).toMatchObject({ apc_code: '1270', payment_rate: 28.112, ira_coinsurance_pct: 18.211, adjusted_copayment: 5.12 });
  });

  it('returns a packaged code with no APC and no rate rather than $0', async () => {
    const r = await t.request('/v1/fee-schedules/opps/36415');
    expect(r.body).toMatchObject({ status_indicator: 'Q4', apc_code: null, payment_rate: null });
  });

  it('returns 404 for a year with no loaded Addendum B, naming the year and the nearest loaded release', async () => {
    const r = await t.request('/v1/fee-schedules/opps/G0463?year=2024');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: 'not_found', detail: 'no opps_addendum_b version loaded covers CY2024; the nearest loaded is 2026-01 (CY2026, effective 2026-01-01)' });
  });
});

describe('GET /v1/fee-schedules/lab/{code}', () => {
  it('returns the plain and QW national limits of 80053', async () => {
    const r = await t.request('/v1/fee-schedules/lab/80053');
    expect(r.status).toBe(200);
    LabListSchema.parse(r.body);
    expect(r.body.results.map((x: any) => [x.modifier, x.rate, x.indicator])).toEqual([
      ['', 10.56, 'N'],
      ['QW', 10.56, 'N'],
    ]);
    expect(r.body.reliability.dataset_versions.clfs).toBe('2026Q3V1');
  });

  it('reports a locally priced code with a null rate, never $0', async () => {
    const r = await t.request('/v1/fee-schedules/lab/0526U');
    expect(r.body.results[0]).toMatchObject({ indicator: 'L', rate: null, nationally_priced: false });
  });

  it('returns 404 for a code that is not a lab code', async () => {
    expect((await t.request('/v1/fee-schedules/lab/99213')).status).toBe(404);
  });
});

describe('GET /v1/codes/crosswalk/{code}', () => {
  it('maps J9035 to its APC and to both Avastin NDCs, grouped by system', async () => {
    const r = await t.request('/v1/codes/crosswalk/J9035');
    expect(r.status).toBe(200);
    CrosswalkResultSchema.parse(r.body);
    expect(Object.keys(r.body.by_system).sort()).toEqual(['APC', 'NDC']);
    expect(r.body.by_system.APC.map((x: any) => x.target_code)).toEqual(['9214']);
    expect(r.body.by_system.NDC.map((x: any) => x.target_code)).toEqual(['50242006001', '50242006101']);
    expect(r.body.total_count).toBe(3);
    expect(r.body.reliability.dataset_versions).toMatchObject({ opps_addendum_b: '2026-01', asp_crosswalk: '2025Q1' });
  });

  it('maps a dashed or plain NDC back to its HCPCS code', async () => {
    for (const code of ['50242-0060-01', '50242006001']) {
      const r = await t.request(`/v1/codes/crosswalk/${code}`);
      expect(r.status).toBe(200);
      expect(r.body.code).toBe('50242006001');
      expect(r.body.crosswalks).toEqual([expect.objectContaining({ target_code: 'J9035', target_system: 'HCPCS', crosswalk_type: 'ndc_to_hcpcs' })]);
    }
  });

  it('answers a known code without crosswalks with an empty list', async () => {
    const r = await t.request('/v1/codes/crosswalk/99213');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ code: '99213', crosswalks: [], total_count: 0 });
  });

  it('returns 404 for an unknown code and 422 for a malformed one', async () => {
    const nf = await t.request('/v1/codes/crosswalk/Z9999');
    expect(nf.status).toBe(404);
    expect(nf.body.code).toBe('not_found');
    const bad = await t.request('/v1/codes/crosswalk/12-34');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['path', 'code']);
  });
});

describe('query functions for payment composition', () => {
  it('findDmeRates picks the exact modifier pair, the NU row without one, and nothing when ambiguous', async () => {
    expect((await findDmeRates(snap, 'A4636', 'AL', 'NU-KE'))[0]?.rural_rate).toBe(4.52);
    expect((await findDmeRates(snap, 'E0110', 'AL'))[0]?.modifier).toBe('NU');
    expect(await findDmeRates(snap, 'K0001', 'AL', 'NU')).toEqual([]);
    expect((await findDmeRates(snap, 'K0001', 'AL'))[0]?.non_rural_rate).toBe(30.25);
  });

  it('isDmeRuralZip keeps leading zeros and accepts ZIP+4', async () => {
    expect(await isDmeRuralZip(snap, '01223')).toBe(true);
    expect(await isDmeRuralZip(snap, '01223-4567')).toBe(true);
    expect(await isDmeRuralZip(snap, '1223')).toBe(false);
    expect(await isDmeRuralZip(snap, '10001')).toBe(false);
  });

  it('findLabRates falls back from QW to the plain row and keeps unpriced codes with a null rate', async () => {
    expect((await findLabRates(snap, '36415', 'QW'))[0]).toMatchObject({ modifier: '', rate: 9.34, indicator: 'N' });
    expect((await findLabRates(snap, '0526U'))[0]).toMatchObject({ rate: null, indicator: 'L' });
    expect(await findLabRates(snap, '80053', undefined, 2025)).toEqual([]);
  });

  it('findOppsRates and findAspPaymentLimits read the seeded releases', async () => {
    expect((await findOppsRates(snap, '71046'))[0]).toMatchObject({ apc_code: '5521', payment_rate: 94.85, version: '2026-01' });
    expect(await findOppsRates(snap, 'G0463', 2025)).toEqual([]);
    expect((await findAspPaymentLimits(snap, 'J9035'))[0]).toMatchObject({ payment_limit: 73.19, coinsurance_pct: 20, version: '2025Q1' });
  });
});

describe('fee-schedule lookups take a date of service', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers the release of its year, as year does; a year that disagrees is 422', async () => {
    const byDate = await t.request('/v1/fee-schedules/lab/80053?date_of_service=2026-08-14');
    expect(byDate.status).toBe(200);
    expect(byDate.body).toEqual({ ...(await t.request('/v1/fee-schedules/lab/80053?year=2026')).body, reliability: expect.anything() });
    const opps = await t.request('/v1/fee-schedules/opps/G0463?date_of_service=2026-03-02');
    expect(opps.status).toBe(200);
    expect(opps.body.year).toBe(2026);
    const none = await t.request('/v1/fee-schedules/lab/80053?date_of_service=2019-05-01');
    expect(none.status).toBe(404);
    expect(none.body.detail).toBe('no clfs version loaded covers date of service 2019-05-01 (CY2019); the nearest loaded is 2026Q3V1 (CY2026, effective 2026-07-01)');
    const bad = await t.request('/v1/fee-schedules/lab/80053?year=2025&date_of_service=2026-08-14');
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'year'], msg: 'year and date_of_service name different years' })]);
  });
});

/*
 * The one date rule on the three lookups, with the clock fixed: the seeds hold the CY2026 Addendum
 * B (effective 2026-01-01), the CY2026 Q3 CLFS (2026-07-01) and the April 2025 DMEPOS release.
 */
describe('the date rule of the fee-schedule lookups', () => {
  const clock = new TestClock('2026-08-14T12:00:00Z');
  /** The warnings beside the one every answer over the illustrative OPPS seed carries. */
  const dated = (r: { reliability: { warnings: string[] } }) => r.reliability.warnings.filter((w) => !/is an illustrative seed/.test(w));
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ now: clock.now });
  });
  afterAll(async () => {
    await s.close();
  });

  it('answers 404 naming the missing year and the nearest loaded release for a year or date none covers', async () => {
    const cases: [string, string][] = [
      ['/v1/fee-schedules/opps/G0463?year=2027', 'no opps_addendum_b version loaded covers CY2027; the nearest loaded is 2026-01 (CY2026, effective 2026-01-01)'],
      ['/v1/fee-schedules/lab/80053?date_of_service=2025-03-02', 'no clfs version loaded covers date of service 2025-03-02 (CY2025); the nearest loaded is 2026Q3V1 (CY2026, effective 2026-07-01)'],
      ['/v1/fee-schedules/dme/E0110?date_of_service=2026-03-02', 'no dmepos version loaded covers date of service 2026-03-02 (CY2026); the nearest loaded is 2025-04 (CY2025, effective 2025-04-01)'],
    ];
    for (const [path, detail] of cases) {
      const r = await s.request(path);
      expect(r.status, path).toBe(404);
      expect(r.body, path).toEqual({ code: 'not_found', detail });
    }
  });

  it("answers today's year's release without a date, not degraded, when one is loaded", async () => {
    clock.set('2026-08-14T12:00:00Z');
    const opps = await s.request('/v1/fee-schedules/opps/G0463');
    expect(opps.status).toBe(200);
    expect(opps.body.reliability.dataset_versions).toEqual({ opps_addendum_b: '2026-01' });
    // The only warning is about the APC link: the seeds hold no CY2026 Addendum A.
    expect(dated(opps.body)).toEqual([expect.stringMatching(/^no OPPS Addendum A of CY2026 is loaded/)]);
    const lab = await s.request('/v1/fee-schedules/lab/80053');
    expect(lab.body.reliability).toMatchObject({ dataset_versions: { clfs: '2026Q3V1' }, degraded: false, warnings: [] });
    clock.set('2025-06-01T12:00:00Z');
    const dme = await s.request('/v1/fee-schedules/dme/E0110?state=AL');
    expect(dme.body.reliability).toMatchObject({ dataset_versions: { dmepos: '2025-04' }, degraded: false, warnings: [] });
  });

  it('answers the newest loaded release without a date, degraded with a warning, when none of today\'s year is loaded', async () => {
    clock.set('2026-08-14T12:00:00Z');
    const dme = await s.request('/v1/fee-schedules/dme/E0110?state=AL');
    expect(dme.status).toBe(200);
    expect(dme.body.results.length).toBeGreaterThan(0);
    expect(dme.body.reliability).toMatchObject({ dataset_versions: { dmepos: '2025-04' }, degraded: true, warnings: ['no dmepos version loaded covers today, 2026-08-14 (CY2026); answered from the newest loaded, 2025-04 (CY2025, effective 2025-04-01)'] });
    clock.set('2025-06-01T12:00:00Z');
    const opps = await s.request('/v1/fee-schedules/opps/G0463');
    expect(opps.body.reliability).toMatchObject({ dataset_versions: { opps_addendum_b: '2026-01' }, degraded: true });
    expect(dated(opps.body)).toEqual(['no opps_addendum_b version loaded covers today, 2025-06-01 (CY2025); answered from the newest loaded, 2026-01 (CY2026, effective 2026-01-01)', expect.stringMatching(/^no OPPS Addendum A of CY2026 is loaded/)]);
  });
});

/*
 * The APC link of Addendum B to Addendum A, same calendar year only. The Addendum A seed is 24 real
 * APCs of CMS's January 2025 file; the CY2025 Addendum B below is written in the 508 layout for this
 * test with only its code, SI and APC (no figures: its rates are blank), so every figure answered
 * is Addendum A's own.
 */
describe('OPPS Addendum A: the APC of an Addendum B code, and GET /v1/fee-schedules/opps-apc/{apc}', () => {
  it('links a CY2026 Addendum B row to no Addendum A, naming the missing year and never another year\'s', async () => {
    const r = await t.request('/v1/fee-schedules/opps/G0463?year=2026');
    expect(r.status).toBe(200);
    OppsRowSchema.parse(r.body);
    expect(r.body.apc_group).toBeNull();
    expect(r.body.apc_group_note).toBe("no OPPS Addendum A of CY2026 is loaded, so APC 5012's group title, weight and rate are not shown (loaded: CY2025; another year's is not used)");
    expect(r.body.reliability.warnings).toContain(r.body.apc_group_note);
    expect(r.body.reliability.dataset_versions.opps_addendum_a).toBeUndefined();
    // A packaged code has no APC: nothing to link, nothing to say.
    const q4 = await t.request('/v1/fee-schedules/opps/36415');
    expect(q4.body).toMatchObject({ apc_code: null, apc_group: null, apc_group_note: null });
  });

  it('links a CY2025 Addendum B row to the CY2025 Addendum A row of its APC', async () => {
    const b2025 = await writeTempFile(
      'January 2025 Web Addendum B.12.31.24.csv',
      ',Addendum B.- OPPS Payment by HCPCS Code for CY 2025,,,,,,,,,,\nHCPCS Code,Short Descriptor,SI,APC,Relative Weight,Payment Rate,National Unadjusted Copayment,Minimum Unadjusted Copayment,Note,IRA Coinsurance percentage,Adjusted Beneficiary Copayment,Drug and Device Pass-Through Expiration during Calendar Year,* Indicates a Change\nJ3055,Inj talquetamab-tgvs 0.25 mg,G,0706,,,,,,,,,\nG0463,Hospital outpt clinic visit,J2,5012,,,,,,,,,\n',
    );
    const snap2 = await openTestSnapshot([
      { dataset: oppsAddendumA, files: [join(REPO_ROOT, 'seeds/opps_addendum_a/Section 508 version of January 2025 Web Addendum A.12.31.24.excerpt.csv')] },
      { dataset: oppsAddendumB, files: [b2025] },
    ]);
    try {
      const [j3055] = await findOppsRates(snap2, 'J3055', 2025);
      const trace = new Trace(snap2, () => new Date(0));
      // `0706,Inj talquetamab-tgvs 0.25 mg,G,,$69.972,.,$14.00,19.787%,$13.85,,Inflation-adjusted coinsurance,`
      expect(await apcLinkOf(snap2, j3055!, trace)).toEqual({ apc_group: { apc: '0706', group_title: 'Inj talquetamab-tgvs 0.25 mg', status_indicator: 'G', relative_weight: null, payment_rate: 69.972, year: 2025, version: '2025-01' }, apc_group_note: null });
      expect(trace.versions.opps_addendum_a).toBe('2025-01');
      // APC 5012 is past the seed's 24 APCs: said so, not guessed.
      const [g0463] = await findOppsRates(snap2, 'G0463', 2025);
      expect(await apcLinkOf(snap2, g0463!, trace)).toEqual({ apc_group: null, apc_group_note: 'APC 5012 is not in the CY2025 Addendum A release 2025-01' });
    } finally {
      snap2.close();
    }
  });

  it('answers an APC\'s Addendum A row for its year, 404 for a year none covers, 422 for a malformed APC', async () => {
    const r = await t.request('/v1/fee-schedules/opps-apc/0843?year=2025');
    expect(r.status).toBe(200);
    OppsApcSchema.parse(r.body);
    // `0843,Pegaspargase injection,K,,"$27,070.534",.,"$5,414.11",19.139%,"$1,676.00",,"Inflation-adjusted coinsurance;Copayments capped …"`
    expect(r.body).toMatchObject({ apc: '0843', group_title: 'Pegaspargase injection', status_indicator: 'K', relative_weight: null, payment_rate: 27070.534, national_unadjusted_copayment: null, minimum_unadjusted_copayment: 5414.11, ira_coinsurance_pct: 19.139, adjusted_copayment: 1676, year: 2025, version: '2025-01' });
    expect(r.body.reliability.dataset_versions.opps_addendum_a).toBe('2025-01');
    const dated = await t.request('/v1/fee-schedules/opps-apc/0843?date_of_service=2025-05-02');
    expect(dated.body.payment_rate).toBe(27070.534);
    const none = await t.request('/v1/fee-schedules/opps-apc/0843?year=2026');
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ code: 'not_found', detail: 'no opps_addendum_a version loaded covers CY2026; the nearest loaded is 2025-01 (CY2025, effective 2025-01-01)' });
    expect((await t.request('/v1/fee-schedules/opps-apc/5012?year=2025')).status).toBe(404);
    expect((await t.request('/v1/fee-schedules/opps-apc/843')).status).toBe(422);
  });
});
