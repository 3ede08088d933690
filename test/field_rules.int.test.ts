import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startTestServer, type TestServer } from '../testing/harness.js';

// Request fields as the service description and the publishers define them, on every route that takes them.
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('CCN: two digits (the state code), then four digits or capital letters', () => {
  it('refuses letters where CMS puts the state code, on the path and in queries', async () => {
    for (const path of ['/v1/facilities/ABCDEF', '/v1/codes/99213/payment?ccn=ABCDEF', '/v1/prior-auth/check?ccn=AB0001&payer=medicare_ffs&code=64483']) {
      const r = await t.request(path);
      expect(r.status, path).toBe(422);
      expect(r.body.detail[0].msg).toMatch(/two-digit state code/);
    }
  });

  it("accepts a VA hospital's CCN (01014F): not found in the seed, but well formed", async () => {
    expect((await t.request('/v1/facilities/01014F')).status).toBe(404);
    expect((await t.request('/v1/facilities/01014f')).status).toBe(404);
  });
});

describe('NPI: ten digits, the last a check digit', () => {
  it('refuses letters, on REST and as an MCP argument alike', async () => {
    for (const npi of ['17203772AB', '172037729X', 'ABCDEFGHIJ']) {
      const r = await t.request(`/v1/npi/${npi}`);
      expect(r.status, npi).toBe(422);
      expect(r.body.detail[0]).toMatchObject({ loc: ['path', 'npi_number'], msg: 'an NPI is 10 digits' });
    }
  });
});

describe('state: a US state, DC or territory code', () => {
  it('refuses two letters that name no state, and accepts territories', async () => {
    const bad = await t.request('/v1/payers/medicare_ffs/timely-filing?state=XX&date_of_service=2026-01-05');
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toHaveLength(1);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['query', 'state'], msg: expect.stringMatching(/US state, DC or territory/) });
    expect((await t.request('/v1/340b/resolve?ndc=0074-3799-02&state=PR')).status).not.toBe(422);
  });
});

describe('the change feed filter', () => {
  it("answers the spec's own example dataset=ipps (the IPPS wage index and its CBSA crosswalk)", async () => {
    const r = await t.request('/v1/data/changes?dataset=ipps');
    expect(r.status).toBe(200);
    expect(new Set(r.body.changes.map((c: { dataset: string }) => c.dataset))).toEqual(new Set(['wage_index', 'cbsa_county']));
  });

  it('refuses a name that matches no dataset, listing the known ids', async () => {
    const r = await t.request('/v1/data/changes?dataset=ipsp');
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ['query', 'dataset'] });
    expect(r.body.detail[0].msg).toMatch(/dataset 'ipsp' names no dataset; known: .*wage_index/);
  });

  it('still takes an id and a family prefix', async () => {
    expect((await t.request('/v1/data/changes?dataset=gpci')).body.changes.every((c: { dataset: string }) => c.dataset === 'gpci')).toBe(true);
    const ncci = await t.request('/v1/data/changes?dataset=ncci');
    expect(ncci.body.changes.length).toBeGreaterThan(0);
    expect(ncci.body.changes.every((c: { dataset: string }) => c.dataset.startsWith('ncci_'))).toBe(true);
  });
});

describe('answers name every dataset they read', () => {
  it('the facility list, roster and override writes and a 340B watch carry reliability', async () => {
    await t.request('/v1/facilities/050454', { method: 'PUT', body: {} });
    const list = await t.request('/v1/facilities');
    expect(list.body.reliability.dataset_versions).toHaveProperty('facilities');
    const roster = await t.request('/v1/facilities/050454/payers', { method: 'POST', body: { payer_slug: 'aetna' } });
    expect(Object.keys(roster.body.reliability.dataset_versions).sort()).toEqual(['facilities', 'payers']);
    const override = await t.request('/v1/facilities/050454/pa-overrides', { method: 'POST', body: { payer_slug: 'aetna', code: '70553', pa_required: true } });
    expect(Object.keys(override.body.reliability.dataset_versions).sort()).toEqual(['facilities', 'payers']);
  });
});

describe('whole numbers in a query are written in digits', () => {
  it("refuses 0x10, ' 5', '+5' and 1e1 as a limit (Number() would take each), and takes 5", async () => {
    for (const v of ['0x10', '%205', '%2B5', '1e1', '5.0']) {
      const r = await t.request(`/v1/drugs/ndc/search?q=insulin&limit=${v}`);
      expect(r.status, v).toBe(422);
      expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'limit'], type: 'int_parsing' })]);
    }
    expect((await t.request('/v1/drugs/ndc/search?q=insulin&limit=5')).status).toBe(200);
    expect((await t.request('/v1/fee-schedules/lab/80053?year=2O26')).status).toBe(422);
  });
});

describe('headers a request carries', () => {
  it('refuses a request of too many header lines (431) rather than drop a second Host or a key past the limit', async () => {
    const fillers = Object.fromEntries(Array.from({ length: 1200 }, (_, i) => [`X-Filler-${i}`, 'x']));
    const r = await rawRequest(t.port, '/v1/codes/99213', { headers: { Host: '127.0.0.1', ...fillers, 'X-API-Key': t.key } });
    expect(r.status).toBe(431);
    expect(r.body).toMatchObject({ code: 'headers_too_large' });
  });

  it('refuses a Host whose port is no port (99999)', async () => {
    const r = await rawRequest(t.port, '/v1/codes/99213', { headers: { Host: 'api.example.test:99999', 'X-API-Key': t.key } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_host' });
  });
});

describe('customer policy documents need the knowledge scope', () => {
  it('refuses an agents-only and an audit-only test key on every document route (403), and takes a knowledge key', async () => {
    for (const scopes of [['agents'], ['audit']] as const) {
      const key = await t.newKey('test', [...scopes]);
      expect((await t.request('/v1/policy/documents', { key })).status, scopes[0]).toBe(403);
      expect((await t.request('/v1/policy/retrieve', { method: 'POST', key, body: { query: 'bariatric' } })).body).toMatchObject({ code: 'insufficient_scope' });
      expect((await t.request('/v1/policy/documents/0190a0b0-0000-7000-8000-000000000000', { method: 'DELETE', key })).status).toBe(403);
    }
    expect((await t.request('/v1/policy/documents', { key: await t.newKey('test', ['knowledge']) })).status).toBe(200);
  });
});
