import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRoutes } from '../server/routes.js';
import { startTestServer, type TestServer } from './helpers/harness.js';

/**
 * Sample requests per operation: at least one success and one error each. The last test fails
 * when a route is added without samples here, so the contract stays covered.
 */
const SAMPLES: Record<string, { path: string; status: number; key?: null }[]> = {
  health: [{ path: '/v1/health', status: 200, key: null }],
  healthReady: [{ path: '/v1/health/ready', status: 200, key: null }],
  meta: [
    { path: '/v1/meta', status: 200 },
    { path: '/v1/meta', status: 401, key: null },
  ],
  metrics: [
    { path: '/v1/metrics', status: 200 },
    { path: '/v1/metrics', status: 401, key: null },
  ],
  openapi: [
    { path: '/v1/openapi.json', status: 200 },
    { path: '/v1/openapi.json', status: 401, key: null },
  ],
  getCode: [
    { path: '/v1/codes/99213', status: 200 },
    { path: '/v1/codes/ZZZZZ', status: 404 },
    { path: '/v1/codes/12', status: 422 },
  ],
  listDataChanges: [
    { path: '/v1/data/changes?limit=3', status: 200 },
    { path: '/v1/data/changes?limit=500', status: 422 },
  ],
  getCodePayment: [
    { path: '/v1/codes/99213/payment?locality=1320201', status: 200 },
    { path: '/v1/codes/99213/payment?ccn=12', status: 422 },
    { path: '/v1/codes/ZZZZZ/payment?locality=1320201', status: 404 },
  ],
  getFacility: [
    { path: '/v1/facilities/050454', status: 200 },
    { path: '/v1/facilities/999999', status: 404 },
    { path: '/v1/facilities/12', status: 422 },
  ],
  getDmeFees: [
    { path: '/v1/fee-schedules/dme/E0110', status: 200 },
    { path: '/v1/fee-schedules/dme/E0110?limit=0', status: 422 },
  ],
  getOppsFee: [
    { path: '/v1/fee-schedules/opps/G0463', status: 200 },
    { path: '/v1/fee-schedules/opps/G0463?year=abc', status: 422 },
  ],
  getLabFee: [
    { path: '/v1/fee-schedules/lab/80053', status: 200 },
    { path: '/v1/fee-schedules/lab/8005', status: 422 },
  ],
  getCrosswalk: [
    { path: '/v1/codes/crosswalk/G0463', status: 200 },
    { path: '/v1/codes/crosswalk/ZZZZZ', status: 404 },
  ],
  getPtpPrac: [
    { path: '/v1/ncci/ptp/prac?column1=99214&column2=99213&date_of_service=2026-08-01', status: 200 },
    { path: '/v1/ncci/ptp/prac?column1=9921&column2=99213', status: 422 },
  ],
  getPtpHosp: [
    { path: '/v1/ncci/ptp/hosp?column1=99214&column2=99213&date_of_service=2026-08-01', status: 200 },
    { path: '/v1/ncci/ptp/hosp?column1=99214&column2=99213&payer=nope', status: 422 },
  ],
  getMue: [
    { path: '/v1/ncci/mue/99213', status: 200 },
    { path: '/v1/ncci/mue/99213?date_of_service=2026-02-30', status: 422 },
  ],
  getAoc: [
    { path: '/v1/ncci/aoc/99417', status: 200 },
    { path: '/v1/ncci/aoc/994', status: 422 },
  ],
  getMedicaidMue: [
    { path: '/v1/ncci/medicaid/mue/99213', status: 200 },
    { path: '/v1/ncci/medicaid/mue/99-13', status: 422 },
  ],
};

let t: TestServer;
let doc: any;
const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = ((addFormatsPlugin as unknown as { default?: typeof addFormatsPlugin }).default ?? addFormatsPlugin) as unknown as (a: Ajv2020) => void;
addFormats(ajv);

beforeAll(async () => {
  t = await startTestServer();
  doc = (await t.request('/v1/openapi.json')).body;
});
afterAll(async () => {
  await t.close();
});

function operations(d: any): Map<string, { path: string; method: string; op: any }> {
  const m = new Map();
  for (const [path, item] of Object.entries<any>(d.paths)) for (const [method, op] of Object.entries<any>(item)) m.set(op.operationId, { path, method, op });
  return m;
}

describe('OpenAPI contract', () => {
  it('is an OpenAPI 3.1 document listing exactly the operations of the route table', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.1');
    const table = buildRoutes({ snapshots: t.srv.snapshots, state: t.srv.state, metrics: () => ({}) as never, serviceVersion: '0.1.1', startedAt: new Date() });
    const fromTable = table.map((r) => `${r.method} ${r.path} ${r.operationId}`).sort();
    const fromDoc = [...operations(doc)].map(([id, o]) => `${o.method} ${o.path} ${id}`).sort();
    expect(fromDoc).toEqual(fromTable);
  });

  it('declares the API key header and scope on every keyed operation', () => {
    for (const [id, { op }] of operations(doc)) {
      if (['health', 'healthReady'].includes(id)) continue;
      expect(op['x-required-scope'], id).toBeTruthy();
      expect(op.parameters.some((p: { name: string }) => p.name === 'X-API-Key'), id).toBe(true);
    }
  });

  const ops = Object.entries(SAMPLES);
  for (const [id, samples] of ops) {
    for (const s of samples) {
      it(`${id}: ${s.path} answers ${s.status} with a body matching the document`, async (ctx) => {
        const o = operations(doc).get(id);
        if (!o) ctx.skip();
        const r = await t.request(s.path, s.key === null ? { key: null } : {});
        expect(r.status, r.text.slice(0, 300)).toBe(s.status);
        const resp = o!.op.responses[String(s.status)];
        expect(resp, `status ${s.status} is documented`).toBeTruthy();
        const schema = resp.content['application/json']?.schema;
        if (!schema) return;
        const validate = ajv.compile(schema);
        const ok = validate(r.body);
        expect(ok, JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
      });
    }
  }

  it('has a success and an error sample for every documented operation', () => {
    for (const [id, { op }] of operations(doc)) {
      const samples = SAMPLES[id] ?? [];
      expect(samples.length, `samples for ${id}`).toBeGreaterThan(0);
      // Liveness has no error answer of its own.
      if (!['health', 'healthReady'].includes(id)) expect(samples.some((s) => s.status >= 400), `error sample for ${id}`).toBe(true);
      expect(samples.some((s) => s.status < 300), `success sample for ${id}`).toBe(true);
      for (const s of samples) expect(op.responses[String(s.status)], `${id} documents ${s.status}`).toBeTruthy();
    }
  });
});
