import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FacilityProfileSchema } from '../server/facilities/schemas.js';
import { startTestServer, type TestServer } from './helpers/harness.js';

// Expected values are the seeds' own cells: seeds/facilities (POS layout, 2025Q3),
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
      source_layout: 'pos',
    });
    expect(r.body.reliability.dataset_versions).toEqual({
      facilities: '2025Q3',
      zip_locality: '2025Q4',
      gpci: '2026',
      cbsa_county: 'FY2026',
      wage_index: 'FY2026',
    });
    expect(r.body.reliability.degraded).toBe(false);
    expect(r.body.reliability.warnings).toEqual([]);
  });

  it('returns the rural critical access hospital in Portola CA with rural CBSA 05 and the rest-of-state locality', async () => {
    const r = await t.request('/v1/facilities/051300');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ locality: '0111275', cbsa: '05', wage_index: 1.4835, is_rural: true, facility_type: 'critical_access_hospital', county: 'PLUMAS' });
  });

  it('lists the POS/ZIP rural disagreement of Hamilton NY in reliability warnings', async () => {
    const r = await t.request('/v1/facilities/331316');
    expect(r.status).toBe(200);
    expect(r.body.is_rural).toBe(false);
    expect(r.body.reliability.warnings).toEqual([expect.stringContaining('ZIP 13346 is rural in zip_locality')]);
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
