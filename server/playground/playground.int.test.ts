import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canCall } from '../pipeline/auth.js';
import type { KeyScope, KeyType } from '../../warehouse/tenant_state.js';
import { TestClock } from '../../testing/clock.js';
import { LIVE_HOST, startTestServer, type TestServer } from '../../testing/harness.js';

const clock = new TestClock('2026-11-01T12:00:00Z');
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ now: clock.now });
});
afterAll(async () => {
  await t.close();
});

const mint = (ip: string, host?: string) => t.request('/v1/playground/session', { method: 'POST', key: null, host, headers: { 'X-Forwarded-For': ip } });

describe('POST /v1/playground/session', () => {
  it('mints a knowledge-only test key, in a tenant of its own, that works for an hour on the test host', async () => {
    const r = await mint('10.1.1.1');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ tenant: expect.stringMatching(/^playground-/), scopes: ['knowledge'], expires_at: '2026-11-01T13:00:00.000Z' });
    expect(r.body.key).toMatch(/^kp_test_[A-Za-z0-9]{32}$/);
    expect((await t.request('/v1/codes/99213', { key: r.body.key })).status).toBe(200);
    expect((await t.request('/v1/metrics', { key: r.body.key })).status).toBe(403);
    expect((await t.request('/v1/codes/99213', { key: r.body.key, host: LIVE_HOST })).status).toBe(403);
    clock.advance(3_600_000);
    const expired = await t.request('/v1/codes/99213', { key: r.body.key });
    expect(expired.status).toBe(401);
  });

  it('is refused on the production host', async () => {
    const r = await mint('10.1.1.2', LIVE_HOST);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('playground_not_on_production');
    expect(r.text).not.toContain('kp_');
  });

  it('limits how many keys one address mints per hour', async () => {
    const s = await startTestServer({ now: clock.now });
    try {
      // The harness's default is 20 per hour; the 21st from one address is refused, another address is not.
      const statuses: number[] = [];
      for (let i = 0; i < 21; i++) statuses.push((await s.request('/v1/playground/session', { method: 'POST', key: null })).status);
      expect(statuses.slice(0, 20).every((x) => x === 201)).toBe(true);
      expect(statuses[20]).toBe(429);
    } finally {
      await s.close();
    }
  });

  it("keeps visitors apart, stores no determinations, and deletes a visitor's tenant with its data once the key expires", async () => {
    // Issue 20 item 7: one shared tenant let visitors read each other's roster notes, and one key stored 600 determinations.
    const a = (await mint('10.1.1.3')).body;
    const b = (await mint('10.1.1.4')).body;
    expect(a.tenant).not.toBe(b.tenant);
    const put = await t.request('/v1/facilities/050454', { method: 'PUT', key: a.key, body: { name: 'Visitor A hospital' } });
    expect(put.status).toBe(201);
    expect((await t.request('/v1/facilities', { key: a.key })).body.total).toBe(1);
    expect((await t.request('/v1/facilities', { key: b.key })).body.total).toBe(0);
    const pa = await t.request('/v1/prior-auth/check?payer=medicare_ffs&code=64490&date_of_service=2026-08-01', { key: a.key });
    expect(pa.status).toBe(200);
    expect(pa.body.determination_id).toBeUndefined();
    const tenantA = await t.srv.state.admin.getTenant(a.tenant);
    clock.advance(2 * 3_600_000);
    await mint('10.1.1.5');
    await expect(t.srv.state.admin.getTenant(a.tenant)).rejects.toThrow();
    await expect(t.srv.state.admin.getTenant(b.tenant)).rejects.toThrow();
    const db = (t.srv.state as unknown as { db: { prepare(s: string): { get(...a: unknown[]): unknown } } }).db;
    expect(db.prepare('SELECT count(*) AS n FROM facilities WHERE tenant_id = ?').get(tenantA.id)).toEqual({ n: 0 });
    expect(db.prepare('SELECT count(*) AS n FROM api_keys WHERE tenant_id = ?').get(tenantA.id)).toEqual({ n: 0 });
    // A real tenant whose name merely starts alike is never touched.
    await t.srv.state.admin.createTenant('playgroundish');
    clock.advance(2 * 3_600_000);
    await mint('10.1.1.6');
    expect((await t.srv.state.admin.getTenant('playgroundish')).name).toBe('playgroundish');
    // A tenant's own keys are what keep it: the main test key's tenant stays.
    expect((await t.srv.state.admin.getTenant(t.tenantId)).id).toBe(t.tenantId);
  });
});

describe('who may call an operation, as the OpenAPI document says it', () => {
  /**
   * The rule a client reads from the document (the playground page lists operations by it): no
   * security requirement is public; else an ApiKey of the type `x-key-type` names, if any, holding
   * `x-required-scope` and every `x-also-required-scopes` (an admin key holds every scope).
   */
  const documentAllows = (op: any, key: { key_type: KeyType; scopes: KeyScope[] }): boolean => {
    if (!op.security.length) return true;
    if (!op.security.some((s: object) => 'ApiKey' in s)) return false;
    if (op['x-key-type'] && op['x-key-type'] !== key.key_type) return false;
    if (key.scopes.includes('admin')) return true;
    return [op['x-required-scope'], ...(op['x-also-required-scopes'] ?? [])].filter(Boolean).every((s: KeyScope) => key.scopes.includes(s));
  };

  it("agrees with the pipeline for every operation and key: the playground's test knowledge key, live keys, an agents-only key", async () => {
    const doc = (await t.request('/v1/openapi.json', { key: null })).body;
    const keys: { key_type: KeyType; scopes: KeyScope[] }[] = [
      { key_type: 'test', scopes: ['knowledge'] },
      { key_type: 'live', scopes: ['knowledge'] },
      { key_type: 'test', scopes: ['agents'] },
      { key_type: 'live', scopes: ['admin'] },
    ];
    for (const r of t.srv.routes) {
      const op = doc.paths[r.path][r.method];
      for (const key of keys) expect(documentAllows(op, key), `${r.operationId} for a ${key.key_type} ${key.scopes} key`).toBe(canCall(r.auth, key));
    }
    // The cases the playground hides: 340B watches take a live key only, customer documents a test key only.
    expect(doc.paths['/v1/340b/watches'].post['x-key-type']).toBe('live');
    expect(doc.paths['/v1/policy/retrieve'].post['x-key-type']).toBe('test');
  });
});
