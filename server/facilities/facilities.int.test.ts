import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FacilityProfileSchema } from './schemas.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { illustrativeIn, otherWarnings } from '../../testing/illustrative.js';

/** Warnings of a rule under test: neither illustrative seeds nor what the Care Compare seed's missing columns derived. */
const ruleWarnings = (ws: string[]) => otherWarnings(ws).filter((w) => !/\(the Care Compare file has no (CBSA|rural flag)\)$/.test(w));

// Expected values are the seeds' own cells: seeds/facilities (Care Compare rows, 2025-10),
// seeds/zip_locality (ZIP5 Oct 2025 excerpt), seeds/cbsa_county + seeds/wage_index (FY2026,
// illustrative values), seeds/gpci (GPCI2026).

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('GET /v1/facilities/{ccn}', () => {
  it('returns NY Presbyterian in Manhattan with locality 1320201, CBSA 35614 and its wage index', async () => {
    const r = await t.request('/v1/facilities/330101');
    expect(r.status).toBe(200);
    FacilityProfileSchema.parse(r.body);
    expect(r.body).toMatchObject({
      ccn: '330101',
      name: 'NEW YORK-PRESBYTERIAN HOSPITAL',
      state: 'NY',
      county: 'NEW YORK',
      zip: '10065',
      cbsa: '35614',
      locality: '1320201',
      locality_number: '01',
      locality_name: 'MANHATTAN',
      locality_source: 'zip',
      wage_index: 1.3456,
      is_rural: false,
      facility_type: 'acute_care_hospital',
      // The seed is real Care Compare rows; its CBSA comes from the county crosswalk.
      source_layout: 'care_compare',
    });
    expect(r.body.reliability.dataset_versions).toEqual({
      facilities: '2025-10',
      zip_locality: '2025Q4',
      gpci: '2026',
      cbsa_county: 'FY2026',
      wage_index: 'FY2026',
    });
    // The CBSA crosswalk and wage index seeds are illustrative (the facility rows are real).
    expect(r.body.reliability.degraded).toBe(true);
    expect(illustrativeIn(r.body.reliability.warnings)).toEqual(['cbsa_county', 'wage_index']);
    // What Care Compare lacks is derived, and said.
    expect(otherWarnings(r.body.reliability.warnings)).toEqual([
      'CBSA 35614 derived from county NEW YORK, NY via cbsa_county FY2026 (the Care Compare file has no CBSA)',
      'is_rural derived from the zip_locality rural indicator of ZIP 10065 (the Care Compare file has no rural flag)',
    ]);
  });

  it('returns the rural critical access hospital in Portola CA with rural CBSA 05 and the rest-of-state locality', async () => {
    const r = await t.request('/v1/facilities/051300');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ locality: '0111275', cbsa: '05', wage_index: 1.4835, is_rural: true, facility_type: 'critical_access_hospital', county: 'PLUMAS' });
  });

  it('takes the rural flag from the ZIP when the facility file has none (Care Compare: Hamilton NY)', async () => {
    // The POS file's own urban flag, and its disagreement with the ZIP, is tested on the POS layout
    // (datasets/facilities/facilities.test.ts).
    const r = await t.request('/v1/facilities/331316');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ is_rural: true, rural_source: 'zip_locality', facility_type: 'critical_access_hospital', source_layout: 'care_compare' });
  });

  it('answers 404 with a message naming the CCN for an unknown facility', async () => {
    const r = await t.request('/v1/facilities/999999');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: 'CCN 999999 is not in the facility reference data and not registered by this tenant', code: 'not_found' });
  });

  it('answers 422 for a CCN that is not 6 letters or digits', async () => {
    for (const bad of ['33010', '3301011', '33-101', '0101_F']) {
      const r = await t.request(`/v1/facilities/${bad}`);
      expect(r.status, bad).toBe(422);
      expect(r.body.detail[0]).toMatchObject({ loc: ['path', 'ccn'], input: bad });
    }
  });

  it('requires an API key', async () => {
    const r = await t.request('/v1/facilities/330101', { key: null });
    expect(r.status).toBe(401);
  });
});

describe("PUT /v1/facilities/{ccn}: a critical access hospital's Method II election", () => {
  it('stores cah_method_ii in the registration and answers it in the profile; omitted or null is not elected', async () => {
    // A tenant of its own, so its registration touches no other test's answers.
    const own = await t.srv.state.admin.createTenant('facilities-method-ii');
    const key = await t.newKey('test', ['knowledge'], own.name);
    const put = await t.request('/v1/facilities/011300', { method: 'PUT', key, body: { cah_method_ii: true } });
    expect(put.status).toBe(201);
    FacilityProfileSchema.parse(put.body);
    expect(put.body).toMatchObject({ ccn: '011300', facility_type: 'critical_access_hospital', cah_method_ii: true, registered: true, registration: { cah_method_ii: true } });
    expect(ruleWarnings(put.body.reliability.warnings)).toEqual([]);
    const get = await t.request('/v1/facilities/011300', { key });
    expect(get.body).toMatchObject({ cah_method_ii: true, registration: { cah_method_ii: true } });
    // Another tenant (the default one) has elected nothing.
    expect((await t.request('/v1/facilities/011300')).body).toMatchObject({ cah_method_ii: false });
    // The body replaces the registration: omitted, then null, is not elected.
    expect((await t.request('/v1/facilities/011300', { method: 'PUT', key, body: {} })).body).toMatchObject({ cah_method_ii: false, registration: { cah_method_ii: false } });
    expect((await t.request('/v1/facilities/011300', { method: 'PUT', key, body: { cah_method_ii: null } })).body).toMatchObject({ cah_method_ii: false });
    // A soft-deleted registration elects nothing (its stored field stays readable).
    await t.request('/v1/facilities/011300', { method: 'PUT', key, body: { cah_method_ii: true } });
    expect((await t.request('/v1/facilities/011300', { method: 'DELETE', key })).status).toBe(200);
    expect((await t.request('/v1/facilities/011300', { key })).body).toMatchObject({ cah_method_ii: false, is_active: false, registration: { cah_method_ii: true } });
  });

  it('warns when the registration elects Method II for a facility that is not a critical access hospital, and refuses a non-boolean', async () => {
    const own = await t.srv.state.admin.createTenant('facilities-method-ii-acute');
    const key = await t.newKey('test', ['knowledge'], own.name);
    const acute = await t.request('/v1/facilities/330101', { method: 'PUT', key, body: { cah_method_ii: true } });
    expect(acute.status).toBe(201);
    expect(acute.body.cah_method_ii).toBe(true);
    expect(ruleWarnings(acute.body.reliability.warnings)).toEqual([expect.stringContaining('330101 is not a critical access hospital (facility type acute_care_hospital): payment ignores it')]);
    const bad = await t.request('/v1/facilities/011300', { method: 'PUT', key, body: { cah_method_ii: 'yes' } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'cah_method_ii'] });
  });
});
