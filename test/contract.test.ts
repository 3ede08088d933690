import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRoutes } from '../server/routes.js';
import { LIVE_HOST, startTestServer, type TestServer } from './helpers/harness.js';

/**
 * Sample requests per operation: at least one success and one error each. The last test fails
 * when a route is added without samples here, so the contract stays covered.
 */
interface Sample {
  path: string;
  status: number;
  key?: null;
  method?: string;
  body?: unknown;
  host?: string;
}

const SAMPLES: Record<string, Sample[]> = {
  submitCodeResearch: [
    { path: '/v1/agents/code-research', method: 'POST', status: 202, body: { code: '99213', query: 'units per day?' } },
    { path: '/v1/agents/code-research', method: 'POST', status: 422, body: { query: 'no code here' } },
  ],
  submitMedicalNecessity: [
    { path: '/v1/agents/medical-necessity', method: 'POST', status: 202, body: { cpt_code: '15823', dx_codes: ['H02.831'] } },
    { path: '/v1/agents/medical-necessity', method: 'POST', status: 422, body: { dx_codes: ['not a code'] } },
  ],
  submitDenialResolution: [
    { path: '/v1/agents/denial-resolution', method: 'POST', status: 202, body: { denial_code: 'N290' } },
    { path: '/v1/agents/denial-resolution', method: 'POST', status: 422, body: { group_code: 'ZZ' } },
  ],
  getAgentJob: [
    { path: '/v1/agents/jobs/{job}', status: 200 },
    { path: '/v1/agents/jobs/00000000-0000-4000-8000-000000000000', status: 404 },
    { path: '/v1/agents/jobs/not-a-uuid', status: 422 },
  ],
  createPlaygroundSession: [
    { path: '/v1/playground/session', method: 'POST', status: 201, key: null },
    { path: '/v1/playground/session', method: 'POST', status: 403, key: null, host: LIVE_HOST },
  ],
  health: [
    { path: '/v1/health', status: 200, key: null },
    { path: '/v1/health?verbose=1', status: 422, key: null },
  ],
  healthReady: [
    { path: '/v1/health/ready', status: 200, key: null },
    { path: '/v1/health/ready?x=1', status: 422, key: null },
  ],
  meta: [
    { path: '/v1/meta', status: 200 },
    { path: '/v1/meta', status: 401, key: null },
  ],
  metrics: [
    { path: '/v1/metrics', status: 200 },
    { path: '/v1/metrics', status: 401, key: null },
  ],
  openapi: [
    { path: '/v1/openapi.json', status: 200, key: null },
    { path: '/v1/openapi.json?format=yaml', status: 422, key: null },
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
  validateClaimNcci: [
    { path: '/v1/ncci/validate', method: 'POST', status: 200, body: { date_of_service: '2026-08-01', setting: 'hosp', payer: 'medicaid', lines: [{ code: '11042' }, { code: '97597', modifiers: ['59'] }, { code: 'ZZZZZ' }] } },
    { path: '/v1/ncci/validate', method: 'POST', status: 422, body: { date_of_service: '2026-08-01', setting: 'prac', lines: [] } },
  ],
  listFacilities: [
    { path: '/v1/facilities', status: 200 },
    { path: '/v1/facilities?state=CA', status: 422 },
  ],
  registerFacility: [
    { path: '/v1/facilities/330101', method: 'PUT', status: 201, body: {} },
    { path: '/v1/facilities/330101', method: 'PUT', status: 200, body: { facility_type: 'acute_care_hospital' } },
    { path: '/v1/facilities/99999Z', method: 'PUT', status: 201, body: { name: 'Clinic not in the CMS files', state: 'TX' } },
    { path: '/v1/facilities/999999', method: 'PUT', status: 404, body: {} },
    { path: '/v1/facilities/330101', method: 'PUT', status: 422, body: { place_of_service: 'office', color: 'red' } },
  ],
  upsertFacilityPayer: [
    { path: '/v1/facilities/330101/payers', method: 'POST', status: 201, body: { payer_slug: 'aetna' } },
    { path: '/v1/facilities/330101/payers', method: 'POST', status: 200, body: { payer_slug: 'Aetna', network_status: 'out_of_network' } },
    { path: '/v1/facilities/330101/payers', method: 'POST', status: 422, body: { payer_slug: 'no such payer', notes: 'x'.repeat(2001) } },
    { path: '/v1/facilities/999999/payers', method: 'POST', status: 404, body: { payer_slug: 'aetna' } },
  ],
  listFacilityPayers: [
    { path: '/v1/facilities/330101/payers', status: 200 },
    { path: '/v1/facilities/3301/payers', status: 422 },
  ],
  createPaOverride: [
    { path: '/v1/facilities/330101/pa-overrides', method: 'POST', status: 201, body: { service_category: 'vein_ablation', pa_required: false } },
    { path: '/v1/facilities/330101/pa-overrides', method: 'POST', status: 422, body: { code: '70553' } },
  ],
  listPaOverrides: [
    { path: '/v1/facilities/330101/pa-overrides', status: 200 },
    { path: '/v1/facilities/3301/pa-overrides', status: 422 },
  ],
  deletePaOverride: [
    { path: '/v1/facilities/050454/pa-overrides/{override}', method: 'DELETE', status: 200 },
    { path: '/v1/facilities/050454/pa-overrides/{override}', method: 'DELETE', status: 404 },
    { path: '/v1/facilities/050454/pa-overrides/not-a-uuid', method: 'DELETE', status: 422 },
  ],
  deleteFacility: [
    { path: '/v1/facilities/99999Z?hard=true', method: 'DELETE', status: 200 },
    { path: '/v1/facilities/99999Z', method: 'DELETE', status: 404 },
    { path: '/v1/facilities/330101?hard=maybe', method: 'DELETE', status: 422 },
  ],
  checkPriorAuth: [
    { path: '/v1/prior-auth/check?payer=medicare&code=64483&place_of_service=22&date_of_service=2026-03-02', status: 200 },
    { path: '/v1/prior-auth/check?payer=aetna&code=99213&ccn=330101', status: 200 },
    { path: '/v1/prior-auth/check?payer=nobody&visit_count=-1', status: 422 },
  ],
  getPriorAuthDetermination: [
    { path: '/v1/prior-auth/determinations/{determination}', status: 200 },
    { path: '/v1/prior-auth/determinations/00000000-0000-4000-8000-000000000000', status: 404 },
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
  searchPayers: [
    { path: '/v1/payers/search?q=united%20helthcare', status: 200 },
    { path: '/v1/payers/search?q=u', status: 422 },
  ],
  listDirectoryPayers: [
    { path: '/v1/directory/payers?payer_type=medicaid', status: 200, key: null },
    { path: '/v1/directory/payers?cursor=bogus', status: 422, key: null },
  ],
  getDirectoryPayer: [
    { path: '/v1/directory/payers/medicare', status: 200, key: null },
    { path: '/v1/directory/payers/bcbs', status: 404, key: null },
  ],
  listPayerDenialPatterns: [
    { path: '/v1/directory/payers/medicare_ffs/denial-patterns', status: 200 },
    { path: '/v1/directory/payers/medicare_ffs/denial-patterns', status: 401, key: null },
    { path: '/v1/directory/payers/nobody_here/denial-patterns', status: 404 },
  ],
  lookupDenialCode: [
    { path: '/v1/payers/denial-codes/CO-50', status: 200 },
    { path: '/v1/payers/denial-codes/N290', status: 200 },
    { path: '/v1/payers/denial-codes/XX-ABC', status: 422 },
  ],
  getAppealDeadline: [
    { path: '/v1/payers/medicare_ffs/appeal-deadline?denial_date=2026-03-02&as_of=2026-04-01', status: 200 },
    { path: '/v1/payers/medicare_ffs/appeal-deadline?denial_date=2026-02-30', status: 422 },
    { path: '/v1/payers/acme/appeal-deadline?denial_date=2026-03-02', status: 404 },
  ],
  getTimelyFiling: [
    { path: '/v1/payers/medicare_ffs/timely-filing?date_of_service=2024-02-29&as_of=2025-01-15', status: 200 },
    { path: '/v1/payers/medicare_ffs/timely-filing', status: 422 },
  ],
  getClaimIntelligence: [
    { path: '/v1/payers/medicare_ffs/claim-intelligence?code=99213', status: 200 },
    { path: '/v1/payers/uhc/claim-intelligence?code=43644&plan_type=group', status: 200 },
    { path: '/v1/payers/medicare_ffs/claim-intelligence', status: 422 },
  ],
};

/** The MCP endpoint's operations, exercised with the official SDK client in test/mcp.test.ts. */
const MCP_OPS = { mcpPost: 'test/mcp.test.ts', mcpGet: 'test/mcp.test.ts', mcpDelete: 'test/mcp.test.ts' };

let t: TestServer;
/** A job created before the samples run, for the job poll's success sample. */
let jobId = '';
/** A facility override and a persisted determination, for the delete and audit samples. */
let overrideId = '';
let determinationId = '';
let doc: any;
const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = ((addFormatsPlugin as unknown as { default?: typeof addFormatsPlugin }).default ?? addFormatsPlugin) as unknown as (a: Ajv2020) => void;
addFormats(ajv);

beforeAll(async () => {
  t = await startTestServer();
  doc = (await t.request('/v1/openapi.json')).body;
  jobId = (await t.request('/v1/agents/code-research', { method: 'POST', body: { code: '99213' } })).body.job_id;
  overrideId = (await t.request('/v1/facilities/050454/pa-overrides', { method: 'POST', body: { code: '15823', pa_required: true } })).body.id;
  determinationId = (await t.request('/v1/prior-auth/check?payer=medicare_ffs&code=15823')).body.determination_id;
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
    const mcp = ['post /v1/mcp mcpPost', 'get /v1/mcp mcpGet', 'delete /v1/mcp mcpDelete'];
    const fromTable = [...t.srv.routes.map((r) => `${r.method} ${r.path} ${r.operationId}`), ...mcp].sort();
    const fromDoc = [...operations(doc)].map(([id, o]) => `${o.method} ${o.path} ${id}`).sort();
    expect(fromDoc).toEqual(fromTable);
  });

  it('declares the API key header and scope on every keyed operation, and no key on public ones', () => {
    for (const r of t.srv.routes) {
      const { op } = operations(doc).get(r.operationId)!;
      const keyParam = op.parameters.some((p: { name: string }) => p.name === 'X-API-Key');
      if (r.auth === 'public') {
        expect(op.security, r.operationId).toEqual([]);
        expect(keyParam, r.operationId).toBe(false);
      } else {
        expect(op['x-required-scope'], r.operationId).toBe(typeof r.auth === 'object' ? r.auth.scope : undefined);
        expect(keyParam, r.operationId).toBe(true);
      }
    }
  });

  it('has servers, a license, tags with descriptions and a named component per response resource', () => {
    expect(doc.servers.length).toBeGreaterThan(0);
    expect(doc.info.license.name).toBeTruthy();
    for (const tag of doc.tags) expect(tag.description, tag.name).toBeTruthy();
    for (const id of ['Reliability', 'HTTPValidationError', 'ErrorBody', 'PaymentComposition', 'NcciPtpEdit', 'MedicaidMUEResponse', 'MedicaidMUEListResponse', 'DmeRow', 'OppsRow', 'CrosswalkResult', 'DatasetChangeList']) {
      expect(doc.components.schemas[id], id).toBeTruthy();
    }
    // Every success response of a JSON operation is a reference to a named component.
    for (const [id, { op }] of operations(doc)) {
      if (id in MCP_OPS) continue;
      const ok = op.responses['200'] ?? op.responses['201'] ?? op.responses['202'];
      const json = ok.content['application/json'];
      if (json) expect(json.schema.$ref, id).toMatch(/^#\/components\/schemas\//);
    }
  });

  for (const r of buildRoutes({ snapshots: null as never, state: null as never, metrics: null as never, serviceVersion: '0.1.1', startedAt: new Date() })) {
    it(`${r.operationId}: its documented example answers 2xx with a body matching the document`, async () => {
      const ex = r.examples[0]!;
      const path = r.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(ex.params?.[n] ?? ''));
      const qs = new URLSearchParams(ex.query ?? {}).toString();
      const res = await t.request(qs ? `${path}?${qs}` : path, { method: r.method.toUpperCase(), body: ex.body, key: r.auth === 'public' ? null : undefined });
      if (ex.status !== undefined) expect(res.status, res.text.slice(0, 300)).toBe(ex.status);
      else {
        expect(res.status, res.text.slice(0, 300)).toBeGreaterThanOrEqual(200);
        expect(res.status, res.text.slice(0, 300)).toBeLessThan(300);
      }
      const o = operations(doc).get(r.operationId)!;
      const schema = o.op.responses[String(res.status)].content['application/json']?.schema;
      if (schema) {
        const validate = ajv.compile({ ...schema, components: doc.components });
        expect(validate(res.body), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
      }
    });
  }

  const ops = Object.entries(SAMPLES);
  for (const [id, samples] of ops) {
    for (const s of samples) {
      it(`${id}: ${s.path} answers ${s.status} with a body matching the document`, async (ctx) => {
        const o = operations(doc).get(id);
        if (!o) ctx.skip();
        const r = await t.request(s.path.replace('{job}', jobId).replace('{override}', overrideId).replace('{determination}', determinationId), { ...(s.key === null ? { key: null } : {}), method: s.method, body: s.body, host: s.host });
        expect(r.status, r.text.slice(0, 300)).toBe(s.status);
        const resp = o!.op.responses[String(s.status)];
        expect(resp, `status ${s.status} is documented`).toBeTruthy();
        const schema = resp.content['application/json']?.schema;
        if (!schema) return;
        const validate = ajv.compile({ ...schema, components: doc.components });
        const ok = validate(r.body);
        expect(ok, JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
      });
    }
  }

  it('has a success and an error sample for every documented operation', () => {
    for (const [id, { op }] of operations(doc)) {
      if (id in MCP_OPS) continue;
      const samples = SAMPLES[id] ?? [];
      expect(samples.length, `samples for ${id}`).toBeGreaterThan(0);
      // Liveness has no error answer of its own.
      if (!['health', 'healthReady'].includes(id)) expect(samples.some((s) => s.status >= 400), `error sample for ${id}`).toBe(true);
      expect(samples.some((s) => s.status < 300), `success sample for ${id}`).toBe(true);
      for (const s of samples) expect(op.responses[String(s.status)], `${id} documents ${s.status}`).toBeTruthy();
    }
  });
});
