import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MemoryRateLimiter } from './limits.js';
import { checkRoute, withFieldsFirst } from './invoke.js';
import { defineRoute, json } from '../route.js';
import { TestClock } from '../../testing/clock.js';
import { LIVE_HOST, startTestServer, type TestServer } from '../../testing/harness.js';
import { probeRoutes, WidgetSchema } from '../../testing/probes.js';

const SECRET = 'admin-secret-for-tests-0123456789';
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ extraRoutes: probeRoutes, adminSecret: SECRET });
});
afterAll(async () => {
  await t.close();
});

describe('auth kinds', () => {
  it('public: answers without a key', async () => {
    const r = await t.request('/v1/_probe/public', { key: null });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ auth: 'public', tenant_id: null, key_type: null });
  });

  it('keyType live: refuses a test key, accepts a live key on the production host', async () => {
    const onTest = await t.request('/v1/_probe/live');
    expect(onTest.status).toBe(403);
    expect(onTest.body.code).toBe('live_key_required');
    const live = await t.newKey('live', ['knowledge']);
    const r = await t.request('/v1/_probe/live', { key: live, host: LIVE_HOST });
    expect(r.status).toBe(200);
    expect(r.body.key_type).toBe('live');
  });

  it('admin_secret_or_test_key: takes X-Admin-Secret, or a test key on the test host', async () => {
    // The secret acts for the tenant X-Tenant-Id names (by id), in the mode of the host.
    const bySecret = await t.request('/v1/_probe/admin', { key: null, headers: { 'X-Admin-Secret': SECRET, 'X-Tenant-Id': t.tenantId } });
    expect(bySecret.status).toBe(200);
    expect(bySecret.body).toMatchObject({ auth: 'admin_secret_or_test_key', tenant_id: t.tenantId, key_type: 'test' });
    const onLive = await t.request('/v1/_probe/admin', { key: null, host: LIVE_HOST, headers: { 'X-Admin-Secret': SECRET, 'X-Tenant-Id': t.tenantId } });
    expect(onLive.body).toMatchObject({ tenant_id: t.tenantId, key_type: 'live' });
    const noTenant = await t.request('/v1/_probe/admin', { key: null, headers: { 'X-Admin-Secret': SECRET } });
    expect(noTenant.status).toBe(422);
    expect(noTenant.body.detail[0].loc).toEqual(['header', 'x-tenant-id']);
    const unknown = await t.request('/v1/_probe/admin', { key: null, headers: { 'X-Admin-Secret': SECRET, 'X-Tenant-Id': 'no-such-tenant' } });
    expect(unknown.status).toBe(404);
    const tenantName = (await t.srv.state.admin.getTenant(t.tenantId)).name;
    const byName = await t.request('/v1/_probe/admin', { key: null, headers: { 'X-Admin-Secret': SECRET, 'X-Tenant-Id': tenantName } });
    expect(byName.status, 'an id, not a name').toBe(404);
    const wrong = await t.request('/v1/_probe/admin', { key: null, headers: { 'X-Admin-Secret': `${SECRET}x` } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('invalid_admin_secret');
    const byTestKey = await t.request('/v1/_probe/admin');
    expect(byTestKey.status).toBe(200);
    expect(byTestKey.body.tenant_id).toBe(t.tenantId);
    const live = await t.newKey('live', ['admin']);
    const byLive = await t.request('/v1/_probe/admin', { key: live, host: LIVE_HOST });
    expect(byLive.status).toBe(403);
    expect(byLive.body.code).toBe('admin_secret_required');
    expect((await t.request('/v1/_probe/admin', { key: null })).status).toBe(401);
  });

  it('refuses X-Admin-Secret when no secret is configured', async () => {
    const s = await startTestServer({ extraRoutes: probeRoutes });
    try {
      const r = await s.request('/v1/_probe/admin', { key: null, headers: { 'X-Admin-Secret': 'anything-at-all-here' } });
      expect(r.status).toBe(401);
    } finally {
      await s.close();
    }
  });
});

describe('body kinds and results', () => {
  it('json: answers 201 with a Location header', async () => {
    const r = await t.request('/v1/_probe/widgets', { method: 'POST', body: { name: 'gear' } });
    expect(r.status).toBe(201);
    expect(r.headers.location).toBe('/v1/_probe/widgets/w_gear');
    expect(r.body).toEqual({ id: 'w_gear', name: 'gear' });
  });

  it('json: names an unknown field (a typo never passes silently)', async () => {
    const r = await t.request('/v1/_probe/widgets', { method: 'POST', body: { name: 'gear', callback_secert: 'abcdefgh12', extra: { a: 1 } } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([
      { loc: ['body', 'callback_secert'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 'abcdefgh12' },
      { loc: ['body', 'extra'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: { a: 1 } },
    ]);
  });

  it('json: reports every issue of the body at once, and bad JSON as json_invalid', async () => {
    const r = await t.request('/v1/_probe/widgets', { method: 'POST', body: { name: '', callback_url: 'not a url', callback_secret: 'short', tags: ['a', 'b', 'c', 'd'] } });
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['body.callback_secret', 'body.callback_url', 'body.name', 'body.tags']);
    const bad = await t.request('/v1/_probe/widgets', { method: 'POST', body: '{"name": ' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    const missing = await t.request('/v1/_probe/widgets', { method: 'POST' });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body'], type: 'missing' });
  });

  it('json: 413 past the route limit, 415 for another content type', async () => {
    const big = await t.request('/v1/_probe/widgets', { method: 'POST', body: { name: 'x'.repeat(4000) } });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('payload_too_large');
    const form = await t.request('/v1/_probe/widgets', { method: 'POST', body: 'name=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
  });

  it('a status declared on the route: 202 for an accepted job', async () => {
    const r = await t.request('/v1/_probe/jobs', { method: 'POST', body: { name: 'nightly' } });
    expect(r.status).toBe(202);
    expect(r.body.id).toBe('j_nightly');
  });

  it('raw: hands the bytes over, checks type, size and emptiness', async () => {
    const pdf = '%PDF-1.7 tiny';
    const ok = await t.request('/v1/_probe/upload', { method: 'POST', body: pdf, headers: { 'Content-Type': 'application/pdf', 'X-Admin-Secret': SECRET, 'X-Tenant-Id': t.tenantId }, key: null });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ bytes: pdf.length, starts_with: '%PDF-' });
    const wrongType = await t.request('/v1/_probe/upload', { method: 'POST', body: pdf, headers: { 'Content-Type': 'text/plain' } });
    expect(wrongType.status).toBe(415);
    const big = await t.request('/v1/_probe/upload', { method: 'POST', body: 'x'.repeat(2000), headers: { 'Content-Type': 'application/pdf' } });
    expect(big.status).toBe(413);
    const empty = await t.request('/v1/_probe/upload', { method: 'POST', body: '', headers: { 'Content-Type': 'application/pdf' } });
    expect(empty.status).toBe(422);
  });

  it('refuses a body on a route that takes none', async () => {
    const r = await t.request('/v1/codes/99213', { method: 'GET', body: { a: 1 } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ['body'], type: 'extra_forbidden' });
  });
});

describe('tenant reads', () => {
  it('a cached tenant answer is recomputed after a write bumps the generation', async () => {
    const k = await t.srv.state.admin.createKey({ tenant: t.tenantId, type: 'test', scopes: ['knowledge'] });
    const first = await t.request('/v1/_probe/keys');
    expect(first.body.key_ids).toContain(k.record.id);
    const again = await t.request('/v1/_probe/keys');
    expect(again.body).toEqual(first.body);
    const del = await t.request(`/v1/_probe/keys/${k.record.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    const after = await t.request('/v1/_probe/keys');
    expect(after.body.key_ids).not.toContain(k.record.id);
    expect(after.body.generation).toBe(first.body.generation + 1);
  });

  it('two tenants asking the same URL get their own answers, and cannot change each other', async () => {
    await t.srv.state.admin.createTenant('probe-b');
    const keyB = await t.newKey('test', ['knowledge', 'admin'], 'probe-b');
    const a = await t.request('/v1/_probe/keys');
    const b = await t.request('/v1/_probe/keys', { key: keyB });
    expect(a.body.tenant_id).toBe(t.tenantId);
    expect(b.body.tenant_id).not.toBe(t.tenantId);
    expect(b.body.key_ids.some((id: string) => a.body.key_ids.includes(id))).toBe(false);
    const stolen = await t.request(`/v1/_probe/keys/${a.body.key_ids[0]}`, { method: 'DELETE', key: keyB });
    expect(stolen.status).toBe(404);
    expect((await t.request('/v1/_probe/keys')).body.key_ids).toEqual(a.body.key_ids);
  });

  it('a handler that reads tenant state without declaring it fails instead of caching across tenants', async () => {
    const r = await t.request('/v1/_probe/sneaky');
    expect(r.status).toBe(500);
    expect(r.body.code).toBe('internal_error');
  });
});

describe('per-client limit on public routes', () => {
  it('limits each client address, taking X-Forwarded-For only behind a trusted proxy', async () => {
    const s = await startTestServer({ extraRoutes: probeRoutes, publicRateLimitPerMin: 2 });
    const p = await startTestServer({ extraRoutes: probeRoutes, publicRateLimitPerMin: 2, trustProxy: true });
    try {
      const hit = (srv: TestServer, ip: string) => srv.request('/v1/_probe/public', { key: null, headers: { 'X-Forwarded-For': `${ip}, 10.0.0.1` } });
      expect([(await hit(s, '1.1.1.1')).status, (await hit(s, '2.2.2.2')).status, (await hit(s, '3.3.3.3')).status]).toEqual([200, 200, 429]);
      expect([(await hit(p, '1.1.1.1')).status, (await hit(p, '1.1.1.1')).status, (await hit(p, '1.1.1.1')).status]).toEqual([200, 200, 429]);
      expect((await hit(p, '2.2.2.2')).status).toBe(200);
    } finally {
      await s.close();
      await p.close();
    }
  });
});

describe('MemoryRateLimiter', () => {
  it('slides with the injected clock: the previous minute weighs less as time passes', () => {
    const clock = new TestClock('2026-11-01T12:00:00Z');
    const l = new MemoryRateLimiter(10, () => clock.now().getTime());
    for (let i = 0; i < 10; i++) expect(l.take('k').allowed).toBe(true);
    expect(l.take('k')).toMatchObject({ allowed: false, remaining: 0, reset: 60 });
    clock.advance(60_000); // next minute starts: 10 of the previous minute still weigh fully
    expect(l.take('k').allowed).toBe(false);
    clock.advance(30_000); // half-way: 5 weigh
    expect(l.take('k')).toMatchObject({ allowed: true, remaining: 4 });
    expect(l.take('other').allowed).toBe(true);
  });
});

describe('route declarations', () => {
  const base = {
    method: 'get' as const,
    path: '/v1/x',
    operationId: 'x',
    tag: 'system' as const,
    summary: 'x',
    response: z.object({}).meta({ id: 'RouteCheckProbe' }),
    examples: [{ summary: 'x' }],
    handler: () => ({}),
  };
  it('refuses incoherent declarations at start-up', () => {
    expect(() => checkRoute(defineRoute({ ...base, auth: 'public', reads: 'tenant' }))).toThrow(/public route cannot read tenant/);
    expect(() => checkRoute(defineRoute({ ...base, auth: { scope: 'knowledge' }, reads: 'none', cache: true }))).toThrow(/must say what it reads/);
    expect(() => checkRoute(defineRoute({ ...base, method: 'post', auth: { scope: 'knowledge' }, reads: 'tenant', cache: true, body: json(WidgetSchema) }))).toThrow(/only GET/);
    expect(() => checkRoute(defineRoute({ ...base, method: 'put', auth: { scope: 'knowledge' }, reads: 'snapshot', cache: true, body: json(WidgetSchema) }))).toThrow(/only GET/);
    // A POST that reads the snapshot (a question in a JSON body, like pricing a stay, or with tenant state, knowledge resolve) may be cached.
    expect(() => checkRoute(defineRoute({ ...base, method: 'post', auth: { scope: 'knowledge' }, reads: 'snapshot', cache: true, body: json(WidgetSchema) }))).not.toThrow();
    expect(() => checkRoute(defineRoute({ ...base, method: 'post', auth: { scope: 'knowledge' }, reads: 'snapshot+tenant', cache: 'daily', body: json(WidgetSchema) }))).not.toThrow();
    expect(() => checkRoute(defineRoute({ ...base, auth: 'public', reads: 'none', examples: [] }))).toThrow(/example/);
    expect(() => checkRoute(defineRoute({ ...base, auth: 'public', reads: 'none', response: z.object({ a: z.string() }), handler: () => ({ a: 'x' }) }))).toThrow(/\.meta\(\{ id \}\)/);
    expect(() => checkRoute(defineRoute({ ...base, auth: 'public', reads: 'none' }))).not.toThrow();
  });
});

describe('a cached POST that reads tenant state (a question, like knowledge resolve)', () => {
  const Answer = z.object({ facilities: z.number(), wrote: z.string() }).meta({ id: 'ProbeQuestionAnswer' });
  let runs = 0;
  const question = defineRoute({
    method: 'post',
    path: '/v1/_probe/question',
    operationId: 'probeQuestion',
    tag: 'system',
    summary: 'a tenant-reading question',
    auth: { scope: 'knowledge' },
    reads: 'snapshot+tenant',
    cache: true,
    body: json(WidgetSchema),
    response: Answer,
    examples: [{ summary: 'ask', body: { name: 'x' } }],
    handler: async ({ body, tenant }) => {
      runs++;
      const facilities = (await tenant.facilities.list()).length;
      let wrote = 'no';
      if (body.name === 'write') {
        try {
          await tenant.facilities.register('050454', { name: null, facility_type: null, place_of_service: null, state: null }, new Date());
          wrote = 'yes';
        } catch (e) {
          wrote = (e as Error).message;
        }
      }
      return { facilities, wrote };
    },
  });
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ extraRoutes: [question] });
  });
  afterAll(async () => s.close());

  it("reads the caller's state, refuses to write it, and is answered again from the cache until a write of the tenant", async () => {
    const ask = (name: string) => s.request('/v1/_probe/question', { method: 'POST', body: { name } });
    expect((await ask('write')).body).toEqual({ facilities: 0, wrote: 'probeQuestion: a cached POST answers a question and writes nothing (facilities.register refused)' });
    expect((await s.request('/v1/facilities')).body.total).toBe(0);
    expect((await ask('read')).body.facilities).toBe(0);
    const before = runs;
    expect((await ask('read')).body.facilities).toBe(0);
    expect(runs).toBe(before);
    await s.request('/v1/facilities/050454', { method: 'PUT', body: {} });
    // The PUT bumped the tenant's generation: the same question is computed again.
    expect((await ask('read')).body.facilities).toBe(1);
    expect(runs).toBe(before + 1);
  });
});

describe('fields a persist step adds to an answer (no second parse and stringify)', () => {
  const join = (fields: Record<string, unknown>, answer: string) => JSON.parse(withFieldsFirst(fields, Buffer.from(answer)).toString('utf8')) as unknown;

  it('puts the fields first and keeps the answer, as {...fields, ...answer} would', () => {
    const out = withFieldsFirst({ determination_id: 'd1' }, Buffer.from('{"pa_required":true,"code":"70553"}')).toString('utf8');
    expect(out).toBe('{"determination_id":"d1","pa_required":true,"code":"70553"}');
  });

  it('lets the answer win a member both have, and handles an empty answer object', () => {
    expect(join({ a: 1 }, '{"a":2,"b":3}')).toEqual({ a: 2, b: 3 });
    expect(join({ a: 1 }, '{ }')).toEqual({ a: 1 });
    expect(join({}, '{"b":3}')).toEqual({ b: 3 });
  });
});
