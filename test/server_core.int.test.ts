import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SqliteStateStore } from '../warehouse/state.js';
import { createLogger } from '../server/logger.js';
import { defineRoute } from '../server/route.js';
import { TestClock } from '../testing/clock.js';
import { LIVE_HOST, startTestServer, type TestServer } from '../testing/harness.js';

let t: TestServer;
const clock = new TestClock();
beforeAll(async () => {
  t = await startTestServer({ now: clock.now });
});
afterAll(async () => {
  await t.close();
});

describe('authentication, host pairing and scopes', () => {
  it('returns 401 missing_api_key without a key', async () => {
    const r = await t.request('/v1/codes/99213', { key: null });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ detail: 'X-API-Key header is required', code: 'missing_api_key' });
  });

  it('returns 401 invalid_api_key for an unknown key', async () => {
    const r = await t.request('/v1/codes/99213', { key: 'kp_test_nope' });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('invalid_api_key');
  });

  it('honours a key created by another process while running, and rejects it once revoked', async () => {
    // The CLI opens its own connection to the same SQLite file.
    const cli = new SqliteStateStore(t.wh.path('state.sqlite'));
    const tenant = (await cli.admin.findTenants())[0]!;
    const { record, secret } = await cli.admin.createKey({ tenant: tenant.id, type: 'test', scopes: ['knowledge'] });
    expect((await t.request('/v1/codes/99213', { key: secret })).status).toBe(200);
    await cli.admin.revokeKey(record.id);
    await cli.close();
    // Cross-process changes are seen within the authenticator's check interval (200 ms of its clock).
    expect((await t.request('/v1/codes/99213', { key: secret })).status).toBe(200);
    clock.advance(t.srv.pipeline.keys.checkEveryMs);
    const r = await t.request('/v1/codes/99213', { key: secret });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('invalid_api_key');
  });

  it('returns 403 and no data when a test key calls the production host', async () => {
    const r = await t.request('/v1/codes/99213', { host: LIVE_HOST });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ detail: 'a test key cannot be used on the production host', code: 'key_host_mismatch' });
  });

  it('returns 403 when a live key calls the test host, 200 on the production host', async () => {
    const live = await t.newKey('live', ['knowledge']);
    const onTest = await t.request('/v1/codes/99213', { key: live, host: 'localhost:8080' });
    expect(onTest.status).toBe(403);
    expect(onTest.body.code).toBe('key_host_mismatch');
    expect(onTest.text).not.toContain('work_rvu');
    const onLive = await t.request('/v1/codes/99213', { key: live, host: `${LIVE_HOST}:443` });
    expect(onLive.status).toBe(200);
  });

  it('returns 403 insufficient_scope when the key lacks the route scope', async () => {
    const k = await t.newKey('test', ['knowledge']);
    const r = await t.request('/v1/metrics', { key: k });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('insufficient_scope');
  });
});

describe('validation', () => {
  it('answers 422 with every issue in the spec body shape', async () => {
    const r = await t.request('/v1/data/changes?limit=0&since=2026-13-01&dataset=Bad-Name');
    expect(r.status).toBe(422);
    const locs = r.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
    expect(locs.sort()).toEqual(['query.dataset', 'query.limit', 'query.since']);
    const limit = r.body.detail.find((d: { loc: string[] }) => d.loc[1] === 'limit');
    expect(limit).toMatchObject({ type: 'greater_than_equal', ctx: { ge: 1 }, input: '0' });
    for (const d of r.body.detail) expect(Object.keys(d)).toEqual(expect.arrayContaining(['loc', 'msg', 'type']));
  });

  it('answers 422 for a malformed path code, never 500', async () => {
    for (const bad of ['9921', '99213X', '%E2%9C%93%E2%9C%93%E2%9C%93%E2%9C%93%E2%9C%93', 'a%27%3B--']) {
      const r = await t.request(`/v1/codes/${bad}`);
      expect(r.status, bad).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['path', 'code']);
    }
  });

  it('answers 422 when a query parameter is repeated', async () => {
    const r = await t.request('/v1/data/changes?limit=1&limit=2');
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['query', 'limit']);
  });

  it('answers 404 with a JSON body for an unknown route', async () => {
    const r = await t.request('/v1/nope');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });
});

describe('data routes', () => {
  it('looks up a code with its RVUs per release and a reliability object', async () => {
    const r = await t.request('/v1/codes/99213');
    expect(r.status).toBe(200);
    expect(r.body.description).toBe('Office o/p est low 20 min');
    expect(r.body.status_code).toBe('A');
    // PPRRVU2025_Oct.csv row 99213: work 1.30, non-fac PE 1.35, fac PE 0.57, MP 0.10
    expect(r.body.rvus[0]).toMatchObject({ version: '2025D', rvu_year: 2025, rvu_quarter: 4, work_rvu: 1.3, non_fac_pe_rvu: 1.35, facility_pe_rvu: 0.57, mp_rvu: 0.1, conv_factor: 32.3465 });
    expect(r.body.reliability.dataset_versions).toEqual({ mpfs_rvu: '2025D' });
    expect(r.body.reliability.data_sources.mpfs_rvu.source_files).toEqual(['PPRRVU2025_Oct.csv']);
    expect(r.body.reliability.degraded).toBe(false);
  });

  it('lists professional and technical component modifiers of a code', async () => {
    const r = await t.request('/v1/codes/71046');
    expect(r.body.modifiers).toEqual(['26', 'TC']);
    const tc = r.body.rvus.find((x: { modifier: string }) => x.modifier === 'TC');
    expect(tc).toMatchObject({ work_rvu: 0, non_fac_pe_rvu: 0.69, mp_rvu: 0.01 });
  });

  it('returns 404 for a code absent from every release', async () => {
    const r = await t.request('/v1/codes/ZZZZZ');
    expect(r.status).toBe(404);
    expect(r.body.detail).toContain('ZZZZZ');
  });

  it('serves change records filtered by dataset family and limit', async () => {
    const r = await t.request('/v1/data/changes?dataset=mpfs&limit=5');
    expect(r.status).toBe(200);
    expect(r.body.changes).toHaveLength(1);
    expect(r.body.changes[0]).toMatchObject({ dataset: 'mpfs_rvu', from_version: null, to_version: '2025D', counts: { added: 59, removed: 0, changed: 0, unchanged: 0 } });
    const none = await t.request('/v1/data/changes?dataset=mpfs&since=2030-01-01');
    expect(none.body.changes).toEqual([]);
  });
});

describe('system routes', () => {
  it('answers health and readiness without a key', async () => {
    expect((await t.request('/v1/health', { key: null })).body.status).toBe('ok');
    const ready = await t.request('/v1/health/ready', { key: null });
    expect(ready.status).toBe(200);
    expect(ready.body.snapshot_id).toBe(t.srv.snapshots.snapshot!.id);
  });

  it('reports readiness 503 when no snapshot is published, and data routes say so', async () => {
    const empty = await startTestServer({ seeded: false });
    try {
      expect((await empty.request('/v1/health/ready', { key: null })).status).toBe(503);
      const r = await empty.request('/v1/codes/99213');
      expect(r.status).toBe(503);
      expect(r.body.code).toBe('not_ready');
    } finally {
      await empty.close();
    }
  });

  it('reports service version 0.1.1, the snapshot and dataset versions in /v1/meta', async () => {
    const r = await t.request('/v1/meta');
    expect(r.body.version).toBe('0.1.1');
    expect(r.body.snapshot_id).toBe(t.srv.snapshots.snapshot!.id);
    const gpci = r.body.datasets.find((d: { id: string }) => d.id === 'gpci');
    expect(gpci.versions.map((v: { version: string }) => v.version)).toEqual(['2026']);
  });

  it('exposes Prometheus counters and histograms by route and status to admin keys', async () => {
    await t.request('/v1/codes/99213');
    await t.request('/v1/codes/ZZZZZ');
    const r = await t.request('/v1/metrics');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toContain('text/plain');
    expect(r.text).toMatch(/rcm_http_requests_total\{method="GET",route="\/v1\/codes\/\{code\}",status="200",transport="http"\} \d+/);
    expect(r.text).toMatch(/rcm_http_requests_total\{method="GET",route="\/v1\/codes\/\{code\}",status="404",transport="http"\} \d+/);
    expect(r.text).toMatch(/rcm_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/v1\/codes\/\{code\}",transport="http"\} \d+/);
    expect(r.text).toMatch(/rcm_answer_cache_lookups_total\{outcome="hit"\} \d+/);
    expect(r.text).toContain('rcm_process_resident_memory_bytes');
  });

  it('returns a request id header and echoes a sane inbound one', async () => {
    const r = await t.request('/v1/health', { key: null, headers: { 'X-Request-Id': 'abc-123' } });
    expect(r.headers['x-request-id']).toBe('abc-123');
  });
});

describe('rate limiting', () => {
  it('answers 429 with Retry-After and RateLimit headers past the per-key limit', async () => {
    const s = await startTestServer({ rateLimitPerMin: 3 });
    try {
      const seen: number[] = [];
      let last;
      for (let i = 0; i < 4; i++) {
        last = await s.request('/v1/codes/99213');
        seen.push(last.status);
      }
      expect(seen).toEqual([200, 200, 200, 429]);
      expect(last!.body.code).toBe('rate_limited');
      expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
      expect(last!.headers['ratelimit-limit']).toBe('3');
      expect(last!.headers['ratelimit-remaining']).toBe('0');
      // another key has its own budget
      const other = await s.newKey('test', ['knowledge']);
      expect((await s.request('/v1/codes/99213', { key: other })).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('errors', () => {
  it('answers 500 without internals, with a request id, and logs the stack', async () => {
    const lines: string[] = [];
    const boom = defineRoute({
      method: 'get',
      path: '/v1/boom',
      operationId: 'boom',
      tag: 'system',
      summary: 'boom',
      auth: 'public',
      reads: 'none',
      response: z.object({}).meta({ id: 'BoomTest' }),
      examples: [{ summary: 'fails' }],
      handler: () => {
        throw new Error('secret database password in /etc/internal');
      },
    });
    const s = await startTestServer({ extraRoutes: [boom], logger: createLogger({ write: (l: string) => void lines.push(l) }) });
    try {
      const r = await s.request('/v1/boom', { key: null });
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ detail: 'internal server error', code: 'internal_error', request_id: r.headers['x-request-id'] });
      expect(r.text).not.toContain('secret');
      expect(lines.join('\n')).toContain('secret database password');
    } finally {
      await s.close();
    }
  });
});

describe('key cache', () => {
  it('revoking through the server process itself takes effect on the next request', async () => {
    const k = await t.srv.state.admin.createKey({ tenant: t.tenantId, type: 'test', scopes: ['knowledge'] });
    expect((await t.request('/v1/codes/99213', { key: k.secret })).status).toBe(200);
    await t.srv.state.admin.revokeKey(k.record.id);
    expect((await t.request('/v1/codes/99213', { key: k.secret })).status).toBe(401);
  });

  it('a key unknown at first and created by another process afterwards is accepted at once', async () => {
    const cli = new SqliteStateStore(t.wh.path('state.sqlite'));
    const { record, secret } = await cli.admin.createKey({ tenant: t.tenantId, type: 'test', scopes: ['knowledge'] });
    await cli.admin.revokeKey(record.id);
    clock.advance(t.srv.pipeline.keys.checkEveryMs);
    // cached as revoked now
    expect((await t.request('/v1/codes/99213', { key: secret })).status).toBe(401);
    const fresh = await cli.admin.createKey({ tenant: t.tenantId, type: 'test', scopes: ['knowledge'] });
    // A secret never seen before is looked up in the database: no wait needed.
    expect((await t.request('/v1/codes/99213', { key: fresh.secret })).status).toBe(200);
    await cli.close();
  });
});

describe('routing', () => {
  it('answers 405 with Allow for a known path and another method', async () => {
    const r = await t.request('/v1/codes/99213', { method: 'POST', body: {} });
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET');
    expect(r.body.code).toBe('method_not_allowed');
  });

  it('prefers literal segments: /v1/codes/crosswalk/{code} is not read as a payment path', async () => {
    const r = await t.request('/v1/codes/crosswalk/G0463');
    expect(r.status).toBe(200);
    expect(r.body.code).toBe('G0463');
  });

  it('decodes path parameters and treats an empty segment or trailing slash as no route', async () => {
    expect((await t.request('/v1/codes/%39%39213')).body.code).toBe('99213');
    expect((await t.request('/v1/codes/')).status).toBe(404);
    expect((await t.request('/v1/codes/99213/')).status).toBe(404);
    expect((await t.request('/v1/codes/%E0%A4%A')).status).toBe(422);
  });

  it('answers HEAD like GET without a body', async () => {
    const r = await t.request('/v1/health', { method: 'HEAD', key: null });
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
  });
});

describe('logs', () => {
  it('writes one JSON line per request with the request id, route template, status and tenant', async () => {
    const lines: string[] = [];
    const s = await startTestServer({ logger: createLogger({ write: (l: string) => void lines.push(l) }) });
    try {
      const r = await s.request('/v1/codes/99213?x=secret-looking');
      const entries = lines.map((l) => JSON.parse(l)).filter((e) => e.msg === 'request');
      const e = entries.find((x) => x.request_id === r.headers['x-request-id']);
      expect(e).toMatchObject({ level: 'info', transport: 'http', method: 'GET', route: '/v1/codes/{code}', status: 422, tenant_id: s.tenantId });
      expect(typeof e.latency_ms).toBe('number');
      expect(typeof e.time).toBe('string');
      // The query string (which may carry PHI on other routes) is never logged.
      expect(lines.join('')).not.toContain('secret-looking');
      expect(lines.every((l) => l.endsWith('\n'))).toBe(true);
    } finally {
      await s.close();
    }
  });
});
