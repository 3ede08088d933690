import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { TestClock } from '../../testing/clock.js';
import { rawRequest, startTestServer, type TestServer } from '../../testing/harness.js';

const ACCEPT = 'application/json, text/event-stream';
const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'limits', version: '1' } } };

/** POSTs `body` (a value, or JSON text as it is) to /v1/mcp with `key`, in session `sid` when given. */
function post(t: TestServer, key: string, body: unknown, sid?: string) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const headers: Record<string, string> = { 'X-API-Key': key, 'Content-Type': 'application/json', Accept: ACCEPT, 'Content-Length': String(Buffer.byteLength(text)) };
  if (sid) Object.assign(headers, { 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-06-18' });
  return rawRequest(t.port, '/v1/mcp', { method: 'POST', headers, body: text });
}

async function openSession(t: TestServer, key: string): Promise<string> {
  const r = await post(t, key, INIT);
  expect(r.status, r.text).toBe(200);
  return r.headers['mcp-session-id'] as string;
}

/** `{"a":{"a":...1...}}` nested `depth` levels, as text (a value this deep is built by no serializer test code calls). */
const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{"a":1}${'}'.repeat(depth - 1)}`;

describe('MCP bodies nested deeper than RCM_JSON_MAX_DEPTH', () => {
  const lines: string[] = [];
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ logger: createLogger({ write: (l: string) => void lines.push(l) }) });
  });
  afterAll(async () => t.close());

  for (const depth of [4_500, 4_000]) {
    it(`answers a tools/call whose arguments nest ${depth} deep with a JSON-RPC error naming the limit, never the value`, async () => {
      const sid = await openSession(t, t.key);
      const body = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"getCode","arguments":{"code":${nested(depth)}}}}`;
      const r = await post(t, t.key, body, sid);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, data: { type: 'json_too_deep', max_depth: 64 } } });
      expect(r.body.error.message).toMatch(/64 levels \(RCM_JSON_MAX_DEPTH\)/);
      expect(r.text.length).toBeLessThan(400);
      expect(r.text).not.toContain('"a"');
      expect(lines.some((l) => l.includes('nested too deep'))).toBe(true);
      // The session and the connection's server are fine: the next call is answered.
      const ok = await post(t, t.key, { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'getCode', arguments: { code: '99213' } } }, sid);
      expect(ok.status).toBe(200);
      expect(ok.body.result.isError ?? false).toBe(false);
    });
  }

  it('leaves a tool the same argument depth as its REST body: 64 levels pass the envelope, 65 are the route\'s json_too_deep', async () => {
    const sid = await openSession(t, t.key);
    const call = (depth: number) =>
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"priceMediCalAprDrg","arguments":{"apr_drg":"640","x":${nested(depth - 1)}}}}`;
    const at = await post(t, t.key, call(64), sid);
    expect(at.status).toBe(200);
    // 64 levels deep is not refused for its depth (the unknown field is the route's ordinary 422).
    expect(at.body.result.content[0].text).not.toContain('json_too_deep');
    const past = await post(t, t.key, call(65), sid);
    expect(past.status).toBe(200);
    expect(JSON.parse(past.body.result.content[0].text)).toMatchObject({ detail: [{ type: 'json_too_deep', ctx: { max_depth: 64 } }] });
  });
});

describe('MCP internal errors', () => {
  const lines: string[] = [];
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ logger: createLogger({ write: (l: string) => void lines.push(l) }) });
  });
  afterAll(async () => t.close());

  it("answers a -32603 with a generic message and a request id, never the SDK's zod text, and logs it", async () => {
    const sid = await openSession(t, t.key);
    // The SDK parses a request's params with zod before any handler: a wrong type there was a
    // -32603 whose message was zod's issue list.
    const r = await post(t, t.key, { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { cursor: 5 } }, sid);
    expect(r.body.id).toBe(4);
    expect(r.body.error.code).toBe(-32603);
    expect(r.body.error.message).toMatch(/^internal error \(request_id [0-9a-f-]{36}\)$/);
    expect(r.text).not.toMatch(/expected|invalid_type/);
    const ref = /request_id ([0-9a-f-]{36})/.exec(r.body.error.message)![1]!;
    expect(lines.some((l) => l.includes(ref) && l.includes('invalid_type'))).toBe(true);
  });

  it('answers 500 with a JSON-RPC error and logs it when the adapter itself fails, instead of dropping the connection', async () => {
    const sid = await openSession(t, t.key);
    const pipeline = t.srv.pipeline;
    const invoke = pipeline.invoke;
    pipeline.invoke = () => Promise.reject(new Error('secret internals'));
    try {
      const r = await post(t, t.key, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'getCode', arguments: { code: '99213' } } }, sid);
      expect(r.status).toBe(500);
      expect(r.body.error.code).toBe(-32603);
      expect(r.text).not.toContain('secret internals');
      const id = r.headers['x-request-id'] as string;
      expect(r.body.error.message).toBe(`internal error (request_id ${id})`);
      expect(lines.some((l) => l.includes(id) && l.includes('secret internals'))).toBe(true);
    } finally {
      pipeline.invoke = invoke;
    }
  });
});

describe("every MCP method counts against the key's rate limit", () => {
  const clock = new TestClock('2026-11-01T12:00:10Z');
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ rateLimitPerMin: 5, now: clock.now });
  });
  afterAll(async () => t.close());

  it('answers tools/list and ping 429 with Retry-After once the minute is spent, and counts a tool call once', async () => {
    const key = await t.newKey('test', ['knowledge']);
    const sid = await openSession(t, key); // 1
    // A notification is no request: not counted.
    expect((await post(t, key, { jsonrpc: '2.0', method: 'notifications/initialized' }, sid)).status).toBe(202);
    const call = await post(t, key, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getCode', arguments: { code: '99213' } } }, sid); // 2
    expect(call.body.result.isError ?? false).toBe(false);
    const listed = await post(t, key, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, sid); // 3
    expect(listed.status).toBe(200);
    expect(listed.headers['ratelimit-remaining']).toBe('2');
    expect((await post(t, key, { jsonrpc: '2.0', id: 3, method: 'ping' }, sid)).status).toBe(200); // 4
    expect((await post(t, key, { jsonrpc: '2.0', id: 4, method: 'resources/list' }, sid)).status).toBe(200); // 5

    for (const method of ['tools/list', 'ping']) {
      const r = await post(t, key, { jsonrpc: '2.0', id: 5, method }, sid);
      expect(r.status, method).toBe(429);
      expect(r.headers['retry-after']).toMatch(/^\d+$/);
      expect(r.body).toMatchObject({ code: 'rate_limited' });
      expect(r.text.length).toBeLessThan(400);
    }
    // A batch counts each request in it.
    const other = await t.newKey('test', ['knowledge']);
    const sid2 = await openSession(t, other); // 1
    const batch = await post(t, other, [1, 2, 3, 4, 5].map((id) => ({ jsonrpc: '2.0', id, method: 'ping' })), sid2);
    expect(batch.status).toBe(429);
  });
});
