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
  it('mints a knowledge-only test key of the playground tenant that works for an hour on the test host', async () => {
    const r = await mint('10.1.1.1');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ tenant: 'playground', scopes: ['knowledge'], expires_at: '2026-11-01T13:00:00.000Z' });
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

  it('purges expired playground keys when it mints', async () => {
    const before = (await t.srv.state.admin.findKeys((await t.srv.state.admin.getTenant('playground')).id)).length;
    clock.advance(2 * 3_600_000);
    await mint('10.1.1.3');
    const after = await t.srv.state.admin.findKeys((await t.srv.state.admin.getTenant('playground')).id);
    expect(after.length).toBeLessThan(before + 1);
    expect(after.every((k) => k.expires_at! > clock.now().toISOString())).toBe(true);
  });
});
