import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from './helpers/clock.js';
import { LIVE_HOST, startTestServer, type TestServer } from './helpers/harness.js';

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
