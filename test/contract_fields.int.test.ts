import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENTS } from '../server/agents/registry.js';
import type { NppesRegistry } from '../server/npi/registry.js';
import { TestClock } from '../testing/clock.js';
import { startTestServer, type TestResponse, type TestServer } from '../testing/harness.js';
import { fixtureRegistry } from '../testing/nppes.js';
import { startReceiver } from '../testing/receiver.js';

/**
 * Field by field, what the served OpenAPI document says against what the service answers: each
 * answer here is validated against the document, and the field it is about is asserted itself.
 * The walks over every route's examples (headers, dataset versions) are in contract.int.test.ts.
 */

// Inside the 2026Q2 NCCI quarter of the seeds (2026Q2 from 2026-04-01, 2026Q3 from 2026-07-01).
const clock = new TestClock('2026-05-15T12:00:00Z');
let t: TestServer;
let doc: any;
const ajv = new Ajv2020({ strict: false, allErrors: true });
const addFormats = ((addFormatsPlugin as unknown as { default?: typeof addFormatsPlugin }).default ?? addFormatsPlugin) as unknown as (a: Ajv2020) => void;
addFormats(ajv);

beforeAll(async () => {
  t = await startTestServer({ now: clock.now, npi: { registry: fixtureRegistry } });
  doc = (await t.request('/v1/openapi.json')).body;
});
afterAll(async () => {
  await t.close();
});

/** The operation of the document at `method path`. */
const op = (method: string, path: string) => doc.paths[path][method];

/** Validates an answer against the schema its operation documents for its status. */
function expectDocumented(method: string, path: string, res: TestResponse): void {
  const schema = op(method, path).responses[String(res.status)]?.content?.['application/json']?.schema;
  expect(schema, `${method} ${path} documents ${res.status}`).toBeTruthy();
  const validate = ajv.compile({ ...schema, components: doc.components });
  expect(validate(res.body), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
}

/** A component schema of the document, resolved. */
const component = (id: string) => doc.components.schemas[id];

describe('payers', () => {
  it('answers a filing limit in calendar months in standard_months (standard_days null), and one in days in standard_days', async () => {
    const medicare = await t.request('/v1/payers/medicare_ffs/claim-intelligence?code=99213');
    expectDocumented('get', '/v1/payers/{slug}/claim-intelligence', medicare);
    // Medicare: 12 months from the date of service (42 CFR 424.44).
    expect(medicare.body.filing_rules[0]).toMatchObject({ standard_days: null, standard_months: 12, applied_limit: { value: 12, unit: 'months' } });
    const mass = await t.request('/v1/payers/masshealth/claim-intelligence?code=99213');
    expectDocumented('get', '/v1/payers/{slug}/claim-intelligence', mass);
    const days = mass.body.filing_rules.find((r: { applied_limit: { unit: string } }) => r.applied_limit.unit === 'days');
    expect(days).toMatchObject({ standard_days: days.applied_limit.value, standard_months: null });
    const rule = component('ClaimIntelligence').properties.filing_rules.items;
    expect(rule.required).toEqual(expect.arrayContaining(['standard_days', 'standard_months']));
  });

  it('tags the public payer directory and its denial patterns with the group the spec names (payers-public)', () => {
    const tag = doc.tags.find((x: { name: string }) => x.name === 'payers-public');
    expect(tag?.description).toMatch(/directory/i);
    for (const path of ['/v1/directory/payers', '/v1/directory/payers/{slug}', '/v1/directory/payers/{slug}/denial-patterns']) expect(op('get', path).tags, path).toEqual(['payers-public']);
    // The denial patterns take a key though they sit in the public group (spec, Authentication 7).
    expect(op('get', '/v1/directory/payers/{slug}/denial-patterns').security).toEqual([{ ApiKey: [] }]);
    expect(op('get', '/v1/directory/payers').security).toEqual([]);
  });
});

describe('NCCI', () => {
  it('answers an MUE lookup without a date for today (the injected clock) from the quarter covering it, as PTP does', async () => {
    const undated = await t.request('/v1/ncci/mue/99213');
    expectDocumented('get', '/v1/ncci/mue/{code}', undated);
    expect(undated.body.date_of_service).toBe('2026-05-15');
    expect(undated.body.reliability.dataset_versions.ncci_mue_prac).toBe('2026Q2');
    const dated = await t.request('/v1/ncci/mue/99213?date_of_service=2026-05-15');
    expect(undated.body.results).toEqual(dated.body.results);
    const ptp = await t.request('/v1/ncci/ptp/prac?column1=99214&column2=99213');
    expect(ptp.body.date_of_service).toBe(undated.body.date_of_service);
    expect(component('MedicareMueList').properties.date_of_service.type).toBe('string');
  });

  it('answers state_overlay null with the reason when no state overlay is loaded', async () => {
    const withState = await t.request('/v1/ncci/ptp/prac?column1=99214&column2=99213&state=CA&date_of_service=2026-05-15');
    expectDocumented('get', '/v1/ncci/ptp/prac', withState);
    expect(withState.body).toMatchObject({ state: 'CA', state_overlay: null, state_overlay_note: 'no state-specific PTP overlay is loaded for CA: the national Medicare edit answers' });
    const without = await t.request('/v1/ncci/ptp/hosp?column1=99214&column2=99213&payer=medicaid&date_of_service=2026-08-01');
    expectDocumented('get', '/v1/ncci/ptp/hosp', without);
    expect(without.body).toMatchObject({ state_overlay: null, state_overlay_note: 'no state-specific PTP overlay is loaded: the national Medicaid edit answers' });
    expect(component('NcciPtpEdit').properties.state_overlay.type).toEqual(['string', 'null']);
  });
});

describe('NPI', () => {
  const unavailable: NppesRegistry = { lookup: async () => ({ kind: 'unavailable', reason: 'the registry did not answer within 200 ms' }) };

  it('gives a local miss one warning saying what became of the registry: asked, off, or not answering', async () => {
    const asked = await t.request('/v1/npi/1003000118');
    expectDocumented('get', '/v1/npi/{npi_number}', asked);
    expect(asked.body.reliability.warnings).toEqual(['NPI 1003000118 is not in the local NPPES copy (nppes 2019-06-09): the live NPPES registry was asked']);
    for (const [registry, warning] of [
      [null, 'NPI 1003000118 is not in the local NPPES copy (nppes 2019-06-09), and live NPPES lookups are off on this server (RCM_NPPES_LIVE=0): the registry could not be asked'],
      [unavailable, 'NPI 1003000118 is not in the local NPPES copy (nppes 2019-06-09): the live NPPES registry was asked, and it could not answer: the registry did not answer within 200 ms'],
    ] as const) {
      const s = await startTestServer({ npi: { registry } });
      try {
        const r = await s.request('/v1/npi/1003000118');
        expectDocumented('get', '/v1/npi/{npi_number}', r);
        expect(r.body).toMatchObject({ found: false, reliability: { degraded: true, warnings: [warning] } });
      } finally {
        await s.close();
      }
    }
  });

  it('names the live registry among the dataset versions of an answer it gave', async () => {
    const live = await t.request('/v1/npi/1720377294?live=true');
    expectDocumented('get', '/v1/npi/{npi_number}', live);
    expect(live.body.reliability.dataset_versions).toEqual({ nppes_api: '2.1' });
    expect(live.body.reliability.data_sources.nppes_api).toEqual({ publisher: 'CMS NPPES NPI Registry API (live)', source_files: [], loaded_at: '2026-05-15T12:00:00.000Z' });
    const miss = await t.request('/v1/npi/1003000118');
    expect(miss.body.reliability.dataset_versions).toEqual({ nppes: '2019-06-09', nppes_api: '2.1' });
  });
});

describe('dataset versions of an answer that found nothing', () => {
  it('names the facilities dataset on an empty facility list', async () => {
    const fresh = await t.srv.state.admin.createTenant(`fields-${Math.random().toString(36).slice(2, 8)}`);
    const key = await t.newKey('test', ['knowledge'], fresh.name);
    const r = await t.request('/v1/facilities', { key });
    expectDocumented('get', '/v1/facilities', r);
    expect(r.body.total).toBe(0);
    expect(Object.keys(r.body.reliability.dataset_versions)).toEqual(['facilities']);
  });
});

describe('agents', () => {
  const submit = (agent: string, body: unknown) => t.request(`/v1/agents/${agent}`, { method: 'POST', body });
  const run = async (agent: string, body: unknown) => {
    const r = await submit(agent, body);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    await t.srv.runner.settle();
    const job = await t.request(`/v1/agents/jobs/${r.body.job_id}`);
    expect(job.body.status, JSON.stringify(job.body.error)).toBe('completed');
    return job;
  };

  it("takes a denial code written only in the query, as the other agents take a code from theirs, echoing it and saying so", async () => {
    const job = await run('denial-resolution', { query: 'Medicare denied 64490 with CO-50 and remark N115. Can we appeal?', payer: 'medicare', denial_date: '2026-03-02' });
    expectDocumented('get', '/v1/agents/jobs/{job_id}', job);
    expect(job.body.result).toMatchObject({ denial_code: 'CO-50/N115', group_code: 'CO', carc: '50', rarc: 'N115', recommended_action: 'appeal' });
    expect(job.body.result.warnings).toContain('no denial_code, carc or rarc given: CO-50/N115 was read from the query');
    // A RARC alone, and a CARC written after its name.
    expect((await run('denial-resolution', { query: 'what does N290 mean?' })).body.result).toMatchObject({ denial_code: 'N290', carc: null, rarc: 'N290' });
    expect((await run('denial-resolution', { query: 'CARC 16 on the remittance' })).body.result).toMatchObject({ denial_code: '16', carc: '16', group_code: null });
    // A query naming no denial code (a diagnosis is not a remark code) is still a 422 on denial_code.
    const none = await submit('denial-resolution', { query: 'denied for M54.5, paid $50' });
    expect(none.status).toBe(422);
    expect(none.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(['body.denial_code']);
  });

  it("validates each agent's real result against its schema: in the document (the job's result) and in zod, with no field the schema lacks", async () => {
    const jobs = [
      await run('code-research', { code: '99214' }),
      await run('code-research', { query: 'What does 64490 pay at UCSF?', ccn: '050454' }),
      await run('medical-necessity', { cpt_code: '64493', dx_codes: ['M47.816', 'Z99.99'], ccn: '050454', date_of_service: '2026-03-02' }),
      await run('medical-necessity', { query: 'Is 99213 necessary for I10?', dx_codes: ['I10'], context: { mac: 'JE', place_of_service: '11' } }),
      await run('denial-resolution', { denial_code: 'CO-50', rarc: 'N115', payer: 'medicare', denial_date: '2026-03-02', code: '64490', ccn: '050454', claim_id: 'c-1' }),
      await run('denial-resolution', { denial_code: 'PR-1', payer: 'aetna', modifiers: ['GA'] }),
    ];
    const seen = new Set<string>();
    for (const job of jobs) {
      expectDocumented('get', '/v1/agents/jobs/{job_id}', job);
      const type = job.body.agent_type as (typeof AGENTS)[number]['type'];
      seen.add(type);
      const schema = AGENTS.find((a) => a.type === type)!.output;
      const parsed = schema.safeParse(job.body.result);
      expect(parsed.success, `${type}: ${JSON.stringify(parsed.error?.issues.slice(0, 3))}`).toBe(true);
      expect(Object.keys(job.body.result).sort(), type).toEqual(Object.keys(schema.shape).sort());
      // The document names the same schema for this agent's result.
      const id = { code_research: 'CodeResearchResult', denial_resolution: 'DenialResolutionResult', medical_necessity: 'MedicalNecessityResult' }[type];
      expect(ajv.compile({ $ref: `#/components/schemas/${id}`, components: doc.components })(job.body.result), type).toBe(true);
    }
    expect([...seen].sort()).toEqual(['code_research', 'denial_resolution', 'medical_necessity']);
    const result = component('AgentJob').properties.result;
    expect(JSON.stringify(result)).toContain('#/components/schemas/MedicalNecessityResult');
  });

  it('describes on each submit the signed callback POST a receiver gets: its body and X-SVC-Signature', async () => {
    for (const path of ['/v1/agents/code-research', '/v1/agents/medical-necessity', '/v1/agents/denial-resolution']) {
      const cb = op('post', path).callbacks?.jobFinished?.['{$request.body#/callback_url}']?.post;
      expect(cb, path).toBeTruthy();
      expect(cb.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/AgentJobEvent' });
      expect(cb.parameters).toContainEqual(expect.objectContaining({ name: 'X-SVC-Signature', in: 'header' }));
    }
    const secret = 'contract-secret-1';
    const rx = await startReceiver(secret);
    try {
      await submit('code-research', { code: '99213', callback_url: rx.url, callback_secret: secret });
      await t.srv.runner.settle();
      expect(rx.received).toHaveLength(1);
      const got = rx.received[0]!;
      expect(got.signatureValid).toBe(true);
      const event = JSON.parse(got.body);
      expect(ajv.compile({ $ref: '#/components/schemas/AgentJobEvent', components: doc.components })(event)).toBe(true);
      expect(event).toMatchObject({ type: 'agent.job.completed', status: 'completed', agent_type: 'code_research', result: { code: '99213' } });
    } finally {
      await rx.close();
    }
  });
});
