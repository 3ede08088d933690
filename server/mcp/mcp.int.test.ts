import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { examplePolicyPdf } from '../policy_documents/example_pdf.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolResultBytes, toolsFromRoutes } from './tools.js';
import { defineRoute } from '../route.js';
import { LIVE_HOST, rawRequest, startTestServer, type TestServer } from '../../testing/harness.js';
import { claim837, remit835 } from '../../testing/x12.js';

let t: TestServer;
const clients: Client[] = [];
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await t.close();
});

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'rcm-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${t.port}/v1/mcp`), { requestInit: { headers: { 'X-API-Key': key } } });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** The REST answer without fields minted per call. */
function stable(body: any): any {
  const copy = structuredClone(body);
  if (copy?.reliability) delete copy.reliability.generated_at;
  return copy;
}

describe('MCP tools generated from the route table', () => {
  it('lists one tool per data route, named by operationId, with the route summary and annotations', async () => {
    const client = await connect(t.key);
    const { tools } = await client.listTools();
    // A route declared `mcp: false` (a PDF upload) is no tool; a live-key route (340B watches) is none for this test key.
    const dataRoutes = t.srv.routes.filter((r) => r.tag !== 'system' && r.mcp !== false && !(typeof r.auth === 'object' && r.auth.keyType === 'live'));
    expect(tools.map((x) => x.name).sort()).toEqual(dataRoutes.map((r) => r.operationId).sort());
    const pay = tools.find((x) => x.name === 'getCodePayment')!;
    expect(pay.description).toContain('Payment composition');
    expect(pay.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(Object.keys(pay.inputSchema.properties ?? {}).sort()).toEqual(['anesthesia_minutes', 'cah_method_ii', 'cbsa', 'ccn', 'code', 'date_of_service', 'deductible_met', 'locality', 'modifier', 'place_of_service', 'qpp', 'qpp_flag', 'use_facility_rate', 'zip'].sort());
    expect(pay.inputSchema.required).toEqual(['code']);
    expect(pay.outputSchema?.properties).toHaveProperty('estimated_payment');
  });

  it('keeps every tool in step with its route: inputs, output and hints', () => {
    for (const tool of toolsFromRoutes(t.srv.routes)) {
      const r = tool.route;
      expect(tool.name).toBe(r.operationId);
      const names = [...tool.pathNames, ...tool.queryNames, ...tool.bodyNames].sort();
      expect(Object.keys(tool.inputSchema.properties as object).sort(), r.operationId).toEqual(names);
      expect(new Set(names).size, `${r.operationId} has no colliding input names`).toBe(names.length);
      expect(tool.annotations.readOnlyHint).toBe(r.method === 'get' && !r.persist);
      expect(tool.annotations.destructiveHint).toBe(r.method === 'delete');
      expect(tool.outputSchema.type).toBe('object');
    }
  });

  it('refuses a route whose path and query share an input name', () => {
    const clash = defineRoute({
      method: 'get',
      path: '/v1/x/{code}',
      operationId: 'clash',
      tag: 'codes',
      summary: 'clash',
      auth: { scope: 'knowledge' },
      reads: 'none',
      params: z.object({ code: z.string() }),
      query: z.object({ code: z.string() }),
      response: z.object({}),
      examples: [{ summary: 'x' }],
      handler: () => ({}),
    });
    expect(() => toolsFromRoutes([clash])).toThrow(/input code/);
  });

  it('wraps a REST array answer as {results: [...]}', () => {
    const arr = defineRoute({
      method: 'get',
      path: '/v1/x',
      operationId: 'arr',
      tag: 'payers',
      summary: 'array answer',
      auth: { scope: 'knowledge' },
      reads: 'none',
      response: z.array(z.object({ slug: z.string() })),
      examples: [{ summary: 'x' }],
      handler: () => [],
    });
    const [tool] = toolsFromRoutes([arr]);
    expect(tool!.wrapsArray).toBe(true);
    expect(tool!.outputSchema).toMatchObject({ type: 'object', required: ['results'], properties: { results: { type: 'array' } } });
    expect(tool!.description).toMatch(/wraps the REST array/);
  });

  it("builds a cached answer's tool result once, and never hands it to another tool or status", () => {
    const def = (operationId: string, response: z.ZodType) =>
      defineRoute({ method: 'get', path: `/v1/${operationId}`, operationId, tag: 'payers', summary: 's', auth: { scope: 'knowledge' }, reads: 'none', response, examples: [{ summary: 'x' }], handler: () => [] });
    const [one, many] = toolsFromRoutes([def('one', z.object({ slug: z.string() })), def('many', z.array(z.object({ slug: z.string() })))]);
    const body = Buffer.from('[{"slug":"a\\"b"}]');
    const first = toolResultBytes(many!, { status: 200, headers: {}, body });
    expect(toolResultBytes(many!, { status: 200, headers: {}, body })).toBe(first); // the same bytes, not built again
    expect(JSON.parse(first.toString())).toEqual({ content: [{ type: 'text', text: '[{"slug":"a\\"b"}]' }], structuredContent: { results: [{ slug: 'a"b' }] } });
    expect(JSON.parse(toolResultBytes(one!, { status: 200, headers: {}, body }).toString()).structuredContent).toEqual([{ slug: 'a"b' }]);
    expect(JSON.parse(toolResultBytes(one!, { status: 404, headers: {}, body }).toString())).toMatchObject({ isError: true });
  });
});

describe('explainRemittance as an MCP tool', () => {
  it('takes the 835 text as its `remittance` argument and answers the bounded summary of what REST answers', async () => {
    const body = remit835(['CLP*PCN001*1*150*80*20*MB*ICN0001', 'SVC*HC:99213*150*80**1', 'DTM*472*20251201', 'CAS*CO*45*50', 'CAS*PR*1*20'], { bpr: '80' });
    const client = await connect(t.key);
    const { tools } = await client.listTools();
    const tool = tools.find((x) => x.name === 'explainRemittance');
    expect(tool?.inputSchema).toMatchObject({ required: ['remittance'], properties: { remittance: { type: 'string' } } });
    const res = await client.callTool({ name: 'explainRemittance', arguments: { remittance: body, as_of: '2026-01-10' } });
    expect(res.isError ?? false, JSON.stringify(res.content)).toBe(false);
    const rest = await t.request('/v1/remittances/explain?as_of=2026-01-10', { method: 'POST', body, headers: { 'Content-Type': 'application/edi-x12' } });
    // The same counts, totals and worklist; the transactions without their claims, said in `truncated` and a warning.
    const summary = res.structuredContent as { summary: { adjustments: number }; transactions: { claims: unknown[] }[]; truncated: boolean; reliability: { warnings: string[] } };
    const { claims: _, ...header } = rest.body.transactions[0];
    expect(summary.transactions).toEqual([{ ...header, claims: [] }]);
    expect(stable({ ...summary, transactions: [], truncated: undefined, reliability: undefined })).toEqual(stable({ ...rest.body, transactions: [], reliability: undefined }));
    expect(summary.summary.adjustments).toBe(2);
    expect(summary.truncated).toBe(true);
    expect(summary.reliability.warnings.join(' ')).toMatch(/the whole answer comes from POST \/v1\/remittances\/explain or `rcm remit explain`/);
  });
});

describe('checkClaims as an MCP tool', () => {
  it('takes the 837 text as its `claims` argument and answers what REST answers, at most 100 claims', async () => {
    const few = claim837([{ pcn: 'M1', lines: [{ code: '11042' }, { code: '97597' }] }]);
    const client = await connect(t.key);
    const res = await client.callTool({ name: 'checkClaims', arguments: { claims: few } });
    expect(res.isError ?? false, JSON.stringify(res.content)).toBe(false);
    const rest = await t.request('/v1/claims/check', { method: 'POST', body: few, headers: { 'Content-Type': 'application/edi-x12' } });
    const answer = res.structuredContent as { claims: unknown[]; summary: { truncated: boolean } };
    expect(stable({ ...answer, reliability: undefined })).toEqual(stable({ ...rest.body, reliability: undefined }));
    const many = claim837(Array.from({ length: 105 }, (_, i) => ({ pcn: `N${i}`, member: `M${String(i).padStart(10, '0')}`, lines: [{ code: '99213' }] })));
    const cut = (await client.callTool({ name: 'checkClaims', arguments: { claims: many } })).structuredContent as { claims: unknown[]; summary: { claims: number; truncated: boolean }; reliability: { warnings: string[] } };
    expect([cut.claims.length, cut.summary.claims, cut.summary.truncated]).toEqual([100, 105, true]);
    expect(cut.reliability.warnings.join(' ')).toMatch(/the first 100 of 105 claims/);
  });
});

describe("docs/api.md's MCP example", () => {
  it('calls a tool with a date of service and is answered for that quarter', async () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/api.md'), 'utf8');
    const literal = /client\.callTool\((\{.*\})\)\)/.exec(doc)?.[1];
    expect(literal).toBeDefined();
    const request = new Function(`return (${literal});`)() as { name: string; arguments: Record<string, unknown> };
    expect(request.arguments.date_of_service).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const client = await connect(t.key);
    const res = await client.callTool(request);
    expect(res.isError ?? false, JSON.stringify(res.content)).toBe(false);
    expect(res.structuredContent).toMatchObject({ date_of_service: request.arguments.date_of_service });
  });
});

describe('MCP tool calls go through the same pipeline as REST', () => {
  const calls: [string, Record<string, unknown>, string][] = [
    ['getCode', { code: '99213' }, '/v1/codes/99213'],
    ['getCodePayment', { code: '99213', locality: '1320201', date_of_service: '2025-11-03' }, '/v1/codes/99213/payment?locality=1320201&date_of_service=2025-11-03'],
    ['getPtpPrac', { column1: '99214', column2: '99213', date_of_service: '2026-08-01' }, '/v1/ncci/ptp/prac?column1=99214&column2=99213&date_of_service=2026-08-01'],
    ['listDataChanges', { dataset: 'ncci', limit: 5 }, '/v1/data/changes?dataset=ncci&limit=5'],
  ];
  for (const [name, args, url] of calls) {
    it(`${name} answers what ${url} answers`, async () => {
      const client = await connect(t.key);
      const res = await client.callTool({ name, arguments: args });
      expect(res.isError ?? false, JSON.stringify(res.content)).toBe(false);
      const rest = await t.request(url);
      expect(rest.status).toBe(200);
      expect(stable(res.structuredContent)).toEqual(stable(rest.body));
      const text = (res.content as { type: string; text: string }[])[0]!.text;
      expect(stable(JSON.parse(text))).toEqual(stable(rest.body));
    });
  }

  it('priceMediCalAprDrg answers what POST /v1/medi-cal/apr-drg/payment answers, and its 404 with suggestions', async () => {
    const client = await connect(t.key);
    const body = { apr_drg: '640', soi: 3, oshpd_id: '106999001', length_of_stay: 4, patient_age: 0, total_charges: 40000, discharge_date: '2025-09-15' };
    const res = await client.callTool({ name: 'priceMediCalAprDrg', arguments: body });
    expect(res.isError ?? false, JSON.stringify(res.content)).toBe(false);
    const rest = await t.request('/v1/medi-cal/apr-drg/payment', { method: 'POST', body });
    expect(rest.status).toBe(200);
    expect(stable(res.structuredContent)).toEqual(stable(rest.body));
    expect((res.structuredContent as { calculation: { policy_adjustor_code: string } }).calculation.policy_adjustor_code).toBe('A');
    const missing = await client.callTool({ name: 'priceMediCalAprDrg', arguments: { ...body, oshpd_id: '106999099' } });
    expect(missing.isError).toBe(true);
    expect(JSON.parse((missing.content as { text: string }[])[0]!.text)).toMatchObject({ code: 'not_found', suggestions: expect.arrayContaining([expect.objectContaining({ oshpd_id: '106999001' })]) });
  });

  it('takes an argument named __proto__, constructor or toString as the unknown field it is (a 422 tool error), never as the object prototype', async () => {
    const client = await connect(t.key);
    for (const name of ['__proto__', 'constructor', 'toString']) {
      // JSON.parse makes an own property of each name (an object literal would set the prototype instead).
      const args = JSON.parse(`{"apr_drg":"640","soi":3,"oshpd_id":"106999001","length_of_stay":4,"patient_age":0,"total_charges":40000,${JSON.stringify(name)}:{"x":1}}`);
      const res = await client.callTool({ name: 'priceMediCalAprDrg', arguments: args });
      expect(res.isError, name).toBe(true);
      expect(JSON.parse((res.content as { text: string }[])[0]!.text).detail, name).toEqual([expect.objectContaining({ loc: ['body', name], type: 'extra_forbidden' })]);
    }
  });

  it('retrievePolicyChunks and getPolicyStructure answer what REST answers, for the key tenant only', async () => {
    const doc = (await t.request('/v1/policy/parse', { method: 'POST', body: examplePolicyPdf(), headers: { 'Content-Type': 'application/pdf' } })).body;
    const client = await connect(t.key);
    const body = { query: 'sleeve gastrectomy prior authorization', top_k: 3 };
    const res = await client.callTool({ name: 'retrievePolicyChunks', arguments: body });
    expect(res.isError ?? false, JSON.stringify(res.content)).toBe(false);
    const rest = await t.request('/v1/policy/retrieve', { method: 'POST', body });
    expect(stable(res.structuredContent)).toEqual(stable(rest.body));
    expect((res.structuredContent as { results: { document_id: string }[] }).results[0]!.document_id).toBe(doc.document_id);
    const tree = await client.callTool({ name: 'getPolicyStructure', arguments: { document_id: doc.document_id } });
    expect((tree.structuredContent as { tree: { title: string }[] }).tree.map((n) => n.title)).toEqual(['Coverage Rationale', 'Applicable Codes']);
    // Another tenant's test key: the document is not found through MCP either.
    const other = await t.srv.state.admin.createTenant(`mcp-policy-${Math.random().toString(36).slice(2, 8)}`);
    const otherClient = await connect(await t.newKey('test', ['knowledge'], other.name));
    const hidden = await otherClient.callTool({ name: 'getPolicyStructure', arguments: { document_id: doc.document_id } });
    expect(hidden.isError).toBe(true);
    expect(JSON.parse((hidden.content as { text: string }[])[0]!.text)).toMatchObject({ code: 'not_found' });
  });

  it('returns the REST 422 issues as a tool error', async () => {
    const client = await connect(t.key);
    const res = await client.callTool({ name: 'getCodePayment', arguments: { code: '99213', qpp_flag: '2', qpp_flg: '1' } });
    expect(res.isError).toBe(true);
    const mcpBody = JSON.parse((res.content as { text: string }[])[0]!.text);
    const rest = await t.request('/v1/codes/99213/payment?qpp_flag=2&qpp_flg=1');
    expect(rest.status).toBe(422);
    expect(mcpBody).toEqual(rest.body);
    expect(mcpBody.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['query.qpp_flag', 'query.qpp_flg']);
  });

  it('shows a key only the tools its scopes allow, and refuses the others like REST', async () => {
    const auditOnly = await t.newKey('test', ['audit']);
    const client = await connect(auditOnly);
    const { tools } = await client.listTools();
    expect(tools.some((x) => x.name === 'getCode')).toBe(false);
    const res = await client.callTool({ name: 'getCode', arguments: { code: '99213' } });
    expect(res.isError).toBe(true);
    expect(JSON.parse((res.content as { text: string }[])[0]!.text).code).toBe('insufficient_scope');
  });

  it('counts tool calls in the key rate limit and in the metrics as mcp', async () => {
    const client = await connect(t.key);
    await client.callTool({ name: 'getCode', arguments: { code: '99213' } });
    const metrics = await t.request('/v1/metrics');
    expect(metrics.text).toMatch(/rcm_http_requests_total\{method="GET",route="\/v1\/codes\/\{code\}",status="200",transport="mcp"\} \d+/);
  });
});

describe('MCP endpoint auth and sessions', () => {
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  const post = (headers: Record<string, string>, body = init) =>
    rawRequest(t.port, '/v1/mcp', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Content-Length': String(Buffer.byteLength(body)), ...headers }, body });

  it('answers 401 without a key or with a bad key, before any session', async () => {
    expect((await post({})).status).toBe(401);
    const bad = await post({ 'X-API-Key': 'kp_test_notarealkeynotarealkeynotareal' });
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe('invalid_api_key');
    // The credential is named, so a client does not start an OAuth discovery the service lacks.
    expect(bad.headers['www-authenticate']).toMatch(/^ApiKey header="X-API-Key"/);
  });

  it('answers 403 when the key does not match the host', async () => {
    const live = await t.newKey('live', ['knowledge']);
    const r = await post({ 'X-API-Key': live });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('key_host_mismatch');
    const onLive = await post({ 'X-API-Key': t.key, Host: LIVE_HOST });
    expect(onLive.status).toBe(403);
  });

  it('negotiates a protocol version the SDK supports and binds the session to its key', async () => {
    const r = await post({ 'X-API-Key': t.key });
    expect(r.status).toBe(200);
    expect(r.body.result.protocolVersion).toBe('2025-03-26');
    const sid = r.headers['mcp-session-id'] as string;
    expect(sid).toBeTruthy();
    const other = await t.newKey('test', ['knowledge']);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const hijack = await post({ 'X-API-Key': other, 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-03-26' }, list);
    expect(hijack.status).toBe(403);
    expect(hijack.body.code).toBe('session_key_mismatch');
    const unknown = await post({ 'X-API-Key': t.key, 'Mcp-Session-Id': 'no-such-session' }, list);
    expect(unknown.status).toBe(404);
    const del = await rawRequest(t.port, '/v1/mcp', { method: 'DELETE', headers: { 'X-API-Key': t.key, 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-03-26' } });
    expect(del.status).toBe(200);
    const after = await post({ 'X-API-Key': t.key, 'Mcp-Session-Id': sid }, list);
    expect(after.status).toBe(404);
  });
});

describe('MCP tools/call answered beside the SDK transport', () => {
  const post = (headers: Record<string, string>, body: unknown) => {
    const text = JSON.stringify(body);
    return rawRequest(t.port, '/v1/mcp', {
      method: 'POST',
      headers: { 'X-API-Key': t.key, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Content-Length': String(Buffer.byteLength(text)), ...headers },
      body: text,
    });
  };
  const open = async () => {
    const r = await post({}, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    return { 'Mcp-Session-Id': r.headers['mcp-session-id'] as string, 'Mcp-Protocol-Version': '2025-06-18' };
  };
  const call = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

  it("answers a tools/call exactly as the SDK's transport does, and the answer is a valid CallToolResult", async () => {
    const session = await open();
    for (const [name, args] of [
      ['getCodePayment', { code: '99213', locality: '1320201', date_of_service: '2025-11-03' }],
      ['getCodePayment', { code: '99213', qpp_flag: '2' }], // a 422: an error result
      ['searchPayers', { q: 'aetna' }], // an array answer, wrapped as {results}
    ] as const) {
      await post(session, call(1, name, args)); // fills the answer cache, so both answers below are the same bytes
      const direct = await post(session, call(7, name, args));
      const viaSdk = await post(session, [call(7, name, args)]); // a batch: the SDK's transport answers (one message, one answer)
      expect(direct.status).toBe(200);
      expect(direct.headers['content-type']).toBe('application/json');
      expect(direct.headers['mcp-session-id']).toBe(session['Mcp-Session-Id']);
      expect(direct.body).toEqual(viaSdk.body);
      expect(CallToolResultSchema.safeParse(direct.body.result).success).toBe(true);
    }
  });

  it("leaves every request it does not answer to the SDK: its errors for a bad Accept, protocol version or tool", async () => {
    const session = await open();
    const args = { code: '99213' };
    expect((await post({ ...session, Accept: 'application/json' }, call(1, 'getCode', args))).status).toBe(406);
    const version = await post({ ...session, 'Mcp-Protocol-Version': '1999-01-01' }, call(2, 'getCode', args));
    expect(version.status).toBe(400);
    expect(version.body.error.message).toMatch(/Unsupported protocol version/);
    const unknown = await post(session, call(3, 'noSuchTool', args));
    // The wire message carries no "MCP error" prefix: the client adds one, once.
    expect(unknown.body).toMatchObject({ id: 3, error: { code: -32602, message: 'unknown tool noSuchTool' } });
    const client = await connect(t.key);
    await expect(client.callTool({ name: 'noSuchTool', arguments: args })).rejects.toThrow(/^MCP error -32602: unknown tool noSuchTool$/);
    await expect(client.readResource({ uri: 'rcm://nothing/here' })).rejects.toThrow(/^MCP error -32602: unknown resource rcm:\/\/nothing\/here$/);
  });
});

describe('MCP resources', () => {
  it('lists and reads the dataset versions and the change feed', async () => {
    const client = await connect(t.key);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['rcm://data/changes', 'rcm://snapshot/datasets']);
    const ds = await client.readResource({ uri: 'rcm://snapshot/datasets' });
    const meta = JSON.parse((ds.contents[0] as { text: string }).text);
    expect(meta.snapshot_id).toBe(t.srv.snapshots.snapshot!.id);
    const ch = await client.readResource({ uri: 'rcm://data/changes' });
    expect(JSON.parse((ch.contents[0] as { text: string }).text).changes.length).toBeGreaterThan(0);
  });

  it('lists resource templates (not -32601) and reads a code and a payer through them, as REST answers', async () => {
    const client = await connect(t.key);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate).sort()).toEqual(['rcm://codes/{code}', 'rcm://payers/{slug}']);
    const code = await client.readResource({ uri: 'rcm://codes/99213' });
    const rest = await t.request('/v1/codes/99213');
    expect(JSON.parse((code.contents[0] as { text: string }).text).description).toBe(rest.body.description);
    const payer = await client.readResource({ uri: 'rcm://payers/medicare' });
    expect(JSON.parse((payer.contents[0] as { text: string }).text).slug).toBe('medicare_ffs');
  });

  it('keeps tools/list compact and portable: no type arrays, output schemas to their top-level fields', async () => {
    const client = await connect(t.key);
    const { tools } = await client.listTools();
    const text = JSON.stringify(tools);
    // A budget per tool (the list grows with every area), no looser than the old 80 KB over 41 tools
    // after the schemas were cut to their top-level fields (128 KB before).
    expect(text.length / tools.length, `${text.length} bytes for ${tools.length} tools`).toBeLessThan(1_950);
    let arrays = 0;
    JSON.stringify(tools, (k, v) => {
      if (k === 'type' && Array.isArray(v)) arrays++;
      return v;
    });
    expect(arrays).toBe(0);
  });
});
