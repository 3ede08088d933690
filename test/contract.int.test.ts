import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SERVED_EXAMPLES from '../server/openapi-examples.json' with { type: 'json' };
import { isCI } from '../testing/shared.js';
import { readsSnapshot, type RouteDef, type RouteExample } from '../server/route.js';
import { examplePolicyPdf } from '../server/policy_documents/example_pdf.js';
import { routeCatalog } from '../server/routes/index.js';
import { fixtureRegistry } from '../testing/nppes.js';
import { LIVE_HOST, rawRequest, startTestServer, type TestResponse, type TestServer } from '../testing/harness.js';

/** The MCP endpoint's operations, exercised with the official SDK client in server/mcp/mcp.int.test.ts. */
const MCP_OPS = { mcpPost: 'server/mcp/mcp.int.test.ts', mcpGet: 'server/mcp/mcp.int.test.ts', mcpDelete: 'server/mcp/mcp.int.test.ts' };

let t: TestServer;
/** A live key of the test tenant: examples sent to the production host (`host: 'live'`) use it, as a client there would. */
let liveKey: string;
/**
 * Ids the examples name by placeholder (`params: { job_id: '{job}' }`, see `RouteExample`),
 * created before the examples run: a job for the job poll, a PA override of facility 050454 for
 * its delete (200, then 404), a persisted determination for the audit read.
 */
const created: Record<string, string> = {};
let doc: any;
const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = ((addFormatsPlugin as unknown as { default?: typeof addFormatsPlugin }).default ?? addFormatsPlugin) as unknown as (a: Ajv2020) => void;
addFormats(ajv);

beforeAll(async () => {
  // The NPI route asks a registry: a fixture one here (tests never leave loopback).
  t = await startTestServer({ npi: { registry: fixtureRegistry } });
  doc = (await t.request('/v1/openapi.json')).body;
  created['{job}'] = (await t.request('/v1/agents/code-research', { method: 'POST', body: { code: '99213' } })).body.job_id;
  created['{override}'] = (await t.request('/v1/facilities/050454/pa-overrides', { method: 'POST', body: { code: '15823', pa_required: true } })).body.id;
  created['{determination}'] = (await t.request('/v1/prior-auth/check?payer=medicare_ffs&code=15823')).body.determination_id;
  liveKey = await t.newKey('live', ['knowledge', 'agents', 'audit']);
  created['{watch}'] = (await t.request('/v1/340b/watches', { method: 'POST', body: { manufacturers: ['abbvie'] }, key: liveKey, host: LIVE_HOST })).body.id;
  created['{policy_document}'] = (await t.request('/v1/policy/parse', { method: 'POST', body: examplePolicyPdf(), headers: { 'Content-Type': 'application/pdf' } })).body.document_id;
  for (const [k, v] of Object.entries(created)) expect(v, `the id for ${k}`).toBeTruthy();
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

  it('declares the API key once, as the ApiKey security scheme (no header parameter a generated client must pass on every call), with the scope', () => {
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    for (const r of t.srv.routes) {
      const { op } = operations(doc).get(r.operationId)!;
      expect(op.parameters.some((p: { name: string }) => p.name === 'X-API-Key'), r.operationId).toBe(false);
      // Every parameter says what it means.
      for (const p of op.parameters) expect(p.description, `${r.operationId} ${p.in}:${p.name}`).toBeTruthy();
      if (r.auth === 'public') expect(op.security, r.operationId).toEqual([]);
      else {
        expect(op.security, r.operationId).toContainEqual({ ApiKey: [] });
        // A customer-document route's test key needs knowledge too (the admin secret aside).
        expect(op['x-required-scope'], r.operationId).toBe(typeof r.auth === 'object' ? r.auth.scope : 'knowledge');
      }
    }
    // Agent submits declare the Idempotency-Key header they honour.
    const submit = operations(doc).get('submitCodeResearch')!.op;
    expect(submit.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }));
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

  /** A JSON body with its placeholder values (`{"document_id": "{policy_document}"}`) replaced. */
  function withIds(r: RouteDef, body: unknown): unknown {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
    return Object.fromEntries(
      Object.entries(body).map(([k, v]) => {
        if (typeof v !== 'string' || !/^\{\w+\}$/.test(v)) return [k, v];
        expect(created[v], `${r.operationId}: placeholder ${v} names an id the test creates`).toBeTruthy();
        return [k, created[v]];
      }),
    );
  }

  /** The request an example describes: placeholders replaced, path parameters encoded. */
  function target(r: RouteDef, ex: RouteExample): string {
    const param = (n: string) => {
      const v = ex.params?.[n] ?? '';
      if (/^\{\w+\}$/.test(v)) {
        expect(created[v], `${r.operationId}: placeholder ${v} names an id the test creates`).toBeTruthy();
        return created[v]!;
      }
      return v;
    };
    const path = r.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(param(n)));
    const qs = new URLSearchParams(ex.query ?? {}).toString();
    return qs ? `${path}?${qs}` : path;
  }

  /** The statuses an example without `status` may answer: the route's success statuses. */
  const successStatuses = (r: RouteDef) => [r.status ?? 200, ...(r.alsoStatus ?? [])];

  /** The first success answer of each route: the response examples of the OpenAPI document. */
  const captured: Record<string, unknown> = {};
  /** Every answer the examples got, for the checks that walk them all (headers, dataset versions). */
  const answers: { r: RouteDef; example: string; res: TestResponse }[] = [];

  // Every example of every route, in declaration order (routes in table order) on one server:
  // an example may rely on an earlier one's write (PUT 201 then 200, DELETE 200 then 404).
  for (const r of routeCatalog()) {
    r.examples.forEach((ex, i) => {
      const expected = ex.status !== undefined ? [ex.status] : successStatuses(r);
      it(`${r.operationId} example ${i + 1} (${ex.summary}) answers ${expected.join(' or ')} with a documented body`, async () => {
        const res = await t.request(target(r, ex), {
          method: r.method.toUpperCase(),
          body: withIds(r, ex.body),
          key: r.auth === 'public' || ex.key === 'none' ? null : ex.host === 'live' ? liveKey : undefined,
          host: ex.host === 'live' ? LIVE_HOST : undefined,
          // A raw body (a PDF upload) goes with its content type.
          ...(r.body?.kind === 'raw' ? { headers: { 'Content-Type': r.body.contentType } } : {}),
        });
        expect(expected, res.text.slice(0, 300)).toContain(res.status);
        answers.push({ r, example: `${r.operationId} example ${i + 1}`, res });
        if (res.status < 300 && !(r.operationId in captured)) captured[r.operationId] = exampleOf(r.operationId, res);
        const o = operations(doc).get(r.operationId)!;
        const resp = o.op.responses[String(res.status)];
        expect(resp, `${r.operationId} documents ${res.status}`).toBeTruthy();
        const schema = resp.content?.['application/json']?.schema;
        if (schema) {
          const validate = ajv.compile({ ...schema, components: doc.components });
          expect(validate(res.body), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
        }
        if (res.status >= 400) {
          // Every error code a route answers is documented: a 422 with issues answers validation_error.
          const code = res.body.code ?? (res.status === 422 && Array.isArray(res.body.detail) ? 'validation_error' : undefined);
          expect(code, `${r.operationId}: an error answer names its code: ${res.text.slice(0, 300)}`).toBeTypeOf('string');
          expect(resp['x-error-codes'] ?? [], `${r.operationId}: x-error-codes of ${res.status}`).toContain(code);
        }
      });
    });
  }

  it("declares every header a real answer carries in its operation's response, and every answer carries the headers declared required", () => {
    expect(answers.length).toBeGreaterThan(150);
    const undeclared: string[] = [];
    const absent: string[] = [];
    for (const { r, example, res } of answers) {
      const declared = operations(doc).get(r.operationId)!.op.responses[String(res.status)]?.headers ?? {};
      expect(declared['X-Request-Id'], `${example}: ${res.status} declares X-Request-Id`).toBeTruthy();
      const names = new Map(Object.keys(declared).map((n) => [n.toLowerCase(), n]));
      for (const h of Object.keys(res.headers)) if (!TRANSPORT_HEADERS.has(h) && !names.has(h)) undeclared.push(`${example} (${res.status}): ${h}`);
      for (const [name, d] of Object.entries<{ required?: boolean }>(declared)) if (d.required && res.headers[name.toLowerCase()] === undefined) absent.push(`${example} (${res.status}): ${name}`);
    }
    expect(undeclared).toEqual([]);
    expect(absent).toEqual([]);
  });

  it('declares the headers of a 429 (Retry-After, RateLimit-*) as a rate-limited answer carries them', async () => {
    const limited = await startTestServer({ rateLimitPerMin: 1 });
    try {
      await limited.request('/v1/codes/99213');
      const res = await limited.request('/v1/codes/99213');
      expect(res.status).toBe(429);
      const declared = operations(doc).get('getCode')!.op.responses['429'].headers;
      expect(Object.keys(res.headers).filter((h) => !TRANSPORT_HEADERS.has(h)).sort()).toEqual(['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'x-request-id']);
      for (const h of Object.keys(res.headers)) if (!TRANSPORT_HEADERS.has(h)) expect(Object.keys(declared).map((n) => n.toLowerCase()), h).toContain(h);
      expect(declared['Retry-After'].required).toBe(true);
    } finally {
      await limited.close();
    }
  });

  it('declares the headers and bodies of MCP answers, and a tool call its route refuses as a tool result carrying the REST 422', async () => {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'contract', version: '1' } } });
    const post = (headers: Record<string, string>, body = init) =>
      rawRequest(t.port, '/v1/mcp', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Content-Length': String(Buffer.byteLength(body)), ...headers }, body });
    const opened = await post({ 'X-API-Key': t.key });
    const session = { 'X-API-Key': t.key, 'Mcp-Session-Id': opened.headers['mcp-session-id'] as string, 'Mcp-Protocol-Version': '2025-03-26' };
    const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'getCodePayment', arguments: { code: '99213', qpp_flag: '2' } } });
    const seen: [string, TestResponse][] = [
      ['initialize', opened],
      ['notifications/initialized', await post(session, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))],
      ['tools/call refused', await post(session, call)],
      ['no key', await post({})],
      ['an unknown session', await post({ ...session, 'Mcp-Session-Id': 'no-such-session' }, call)],
      ['no Accept for events', await post({ ...session, Accept: 'application/json' }, call)],
    ];
    expect(seen.map(([, r]) => r.status)).toEqual([200, 202, 200, 401, 404, 406]);
    const post200 = doc.paths['/v1/mcp'].post.responses;
    for (const [what, res] of seen) {
      const declared = post200[String(res.status)];
      expect(declared, `${what}: ${res.status} documented`).toBeTruthy();
      const names = Object.keys(declared.headers ?? {}).map((n) => n.toLowerCase());
      for (const h of Object.keys(res.headers)) if (!TRANSPORT_HEADERS.has(h)) expect(names, `${what} (${res.status}): ${h}`).toContain(h);
      const schema = declared.content?.['application/json']?.schema;
      if (schema) {
        const validate = ajv.compile({ ...schema, components: doc.components });
        expect(validate(res.body), `${what}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
      }
    }
    // The REST 422 of the route, every issue, is the refused call's text; the document shows it as an example.
    const refused = seen[2]![1].body;
    expect(refused.result.isError).toBe(true);
    const text = JSON.parse(refused.result.content[0].text);
    expect(ajv.compile({ $ref: '#/components/schemas/HTTPValidationError', components: doc.components })(text)).toBe(true);
    expect(text).toEqual((await t.request('/v1/codes/99213/payment?qpp_flag=2')).body);
    const shown = post200['200'].content['application/json'].examples.validationError.value;
    expect(shown.result.isError).toBe(true);
    expect(JSON.parse(shown.result.content[0].text).detail[0].loc).toEqual(['query', 'qpp_flag']);
  });

  it('names the dataset versions of every success answer of a route that reads the snapshot, an empty search included', () => {
    const unnamed: string[] = [];
    let checked = 0;
    for (const { r, example, res } of answers) {
      if (!readsSnapshot(r.reads) || res.status >= 300) continue;
      checked++;
      // A bare array (the spec's shape) names them in X-Dataset-Versions.
      const versions = Array.isArray(res.body) ? String(res.headers['x-dataset-versions'] ?? '') : Object.keys(res.body.reliability?.dataset_versions ?? {}).join(', ');
      if (!versions) unnamed.push(example);
    }
    expect(checked).toBeGreaterThan(70);
    expect(unnamed).toEqual([]);
  });

  it('documents a real success answer of every operation as its response example (UPDATE_EXAMPLES=1 re-captures them locally)', async () => {
    const file = join(resolve(import.meta.dirname, '..'), 'server/openapi-examples.json');
    if (process.env.UPDATE_EXAMPLES === '1' && !isCI()) await writeFile(file, JSON.stringify(captured, null, 1) + '\n');
    const examples = process.env.UPDATE_EXAMPLES === '1' && !isCI() ? captured : (SERVED_EXAMPLES as Record<string, unknown>);
    for (const [id, { op }] of operations(doc)) {
      if (id in MCP_OPS) continue;
      expect(examples[id], `a response example for ${id} in server/openapi-examples.json (run the contract test with UPDATE_EXAMPLES=1)`).toBeDefined();
      const ok = op.responses['200'] ?? op.responses['201'] ?? op.responses['202'];
      const [type, content] = Object.entries<{ schema: object; example?: unknown }>(ok.content)[0]!;
      expect(content.example, `${id} serves its example`).toEqual(SERVED_EXAMPLES[id as keyof typeof SERVED_EXAMPLES]);
      if (type === 'application/json' && id !== 'openapi') {
        const validate = ajv.compile({ ...content.schema, components: doc.components });
        expect(validate(examples[id]), `${id}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
      }
    }
  });

  it('has a success and an error example for every documented operation', () => {
    const routes = new Map(routeCatalog().map((r) => [r.operationId, r]));
    for (const [id, { op }] of operations(doc)) {
      if (id in MCP_OPS) continue;
      const r = routes.get(id);
      expect(r, `a route declares ${id}`).toBeTruthy();
      const statuses = r!.examples.map((ex) => ex.status ?? r!.status ?? 200);
      // Liveness has no error answer of its own.
      if (!['health', 'healthReady'].includes(id)) expect(statuses.some((s) => s >= 400), `error example for ${id}`).toBe(true);
      expect(statuses.some((s) => s < 300), `success example for ${id}`).toBe(true);
      for (const s of statuses) expect(op.responses[String(s)], `${id} documents ${s}`).toBeTruthy();
    }
  });
});

/** Headers of the connection and the body's framing, described by HTTP itself rather than by an operation. */
const TRANSPORT_HEADERS = new Set(['content-type', 'content-length', 'connection', 'date', 'keep-alive', 'transfer-encoding']);

/** What an answer contributes as a documented example: the body (the OpenAPI document and metrics abridged). */
function exampleOf(operationId: string, res: { body: any; text: string }): unknown {
  if (operationId === 'openapi') return { openapi: res.body.openapi, info: res.body.info, '...': 'paths, components' };
  if (operationId === 'metrics') return res.text.split('\n').filter((l) => l.startsWith('rcm_http_requests_total') || l.startsWith('# HELP rcm_http_requests_total')).slice(0, 4).join('\n');
  return res.body;
}
