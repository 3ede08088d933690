import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../testing/clock.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';

/**
 * Failed authentications are counted per client address (`RCM_AUTH_FAILURES_PER_MIN`, 30 by
 * default): past the limit an unknown, expired or revoked key or a wrong admin secret is 429 with
 * Retry-After; a valid key and the right admin secret always pass.
 */
const SECRET = 'the-admin-secret-0123456789';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'auth', version: '1' } } };

const clock = new TestClock('2026-11-01T12:00:00Z');
let s: TestServer;
let ipN = 0;
/** A fresh client address per test: the counter is per address. */
let ip = '';
beforeAll(async () => {
  s = await startTestServer({ trustProxy: true, adminSecret: SECRET, now: clock.now });
});
afterAll(async () => s.close());
beforeEach(() => {
  ip = `203.0.113.${++ipN}`;
  // A new minute for every test: no window carries over.
  clock.advance(120_000);
});

const get = (key: string | null, headers: Record<string, string> = {}, from = ip) => s.request('/v1/codes/99213', { key, headers: { 'X-Forwarded-For': from, ...headers } });
const wrongKeys = async (n: number, from = ip) => {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await get(`kp_test_${String(i).padStart(32, 'x')}`, {}, from)).status);
  return statuses;
};
const documents = (secret: string) => s.request('/v1/policy/documents', { key: null, headers: { 'X-Forwarded-For': ip, 'X-Admin-Secret': secret, 'X-Tenant-Id': s.tenantId } });

describe('failed authentications per client address', () => {
  it('answers an unknown key 401 up to the limit, then 429 rate_limited with Retry-After; another address is not affected', async () => {
    const statuses = await wrongKeys(30);
    expect(statuses).toEqual(Array(30).fill(401));
    const refused = await get('kp_test_wrongwrongwrongwrongwrongwrong');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'rate_limited' });
    expect(refused.body.detail).toMatch(/too many failed authentications from this address \(30 per minute\)/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // A key not even shaped like one counts too.
    expect((await get('not-a-key')).status).toBe(429);
    // Another address is not affected.
    expect((await get('kp_test_wrongwrongwrongwrongwrongwrong', {}, '198.51.100.77')).status).toBe(401);
  });

  it('lets a valid key through after 100 failures from its address, on HTTP and on MCP', async () => {
    const statuses = await wrongKeys(100);
    expect(statuses.filter((x) => x === 429)).toHaveLength(70);
    expect((await get(s.key)).status).toBe(200);
    const mcp = await s.request('/v1/mcp', { method: 'POST', body: INIT, headers: { 'X-Forwarded-For': ip, Accept: 'application/json, text/event-stream' } });
    expect(mcp.status).toBe(200);
    expect(mcp.headers['mcp-session-id']).toBeTruthy();
    // ... and the address's next unknown key is still refused.
    expect((await get('kp_test_wrongwrongwrongwrongwrongwrong')).status).toBe(429);
  });

  it('lets the right admin secret through after 100 wrong ones from its address, and counts the wrong ones', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await documents(`wrong-secret-${i}-xxxxxxxxxxxx`)).status);
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(401));
    expect(new Set(statuses.slice(30))).toEqual(new Set([429]));
    expect((await documents(SECRET)).status).toBe(200);
    // Wrong keys and wrong secrets share the address's count.
    expect((await get('kp_test_wrongwrongwrongwrongwrongwrong')).status).toBe(429);
  });

  it('counts a revoked key and an expired key as failures', async () => {
    const { record, secret: revoked } = await s.srv.state.admin.createKey({ tenant: s.tenantId, type: 'test', scopes: ['knowledge'] });
    expect((await get(revoked)).status).toBe(200);
    await s.srv.state.admin.revokeKey(record.id);
    const { secret: expired } = await s.srv.state.admin.createKey({ tenant: s.tenantId, type: 'test', scopes: ['knowledge'], expiresAt: new Date(clock.now().getTime() - 1000) });
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push((await get(revoked)).status, (await get(expired)).status);
    expect(statuses).toEqual(Array(30).fill(401));
    expect((await get(revoked)).status).toBe(429);
    expect((await get(expired)).status).toBe(429);
    expect((await get(s.key)).status).toBe(200);
  });

  it('forgets an address\'s failures once the minute has passed (the injected clock)', async () => {
    await wrongKeys(31);
    expect((await get('kp_test_wrongwrongwrongwrongwrongwrong')).status).toBe(429);
    clock.advance(120_000);
    expect((await get('kp_test_wrongwrongwrongwrongwrongwrong')).status).toBe(401);
  });

  it('takes its limit from RCM_AUTH_FAILURES_PER_MIN, and leaves the per-key rate limit as it was', async () => {
    const t = await startTestServer({ trustProxy: true, authFailuresPerMin: 3, rateLimitPerMin: 2, now: clock.now });
    try {
      const from = (key: string) => t.request('/v1/codes/99213', { key, headers: { 'X-Forwarded-For': '192.0.2.5' } });
      const wrong = [];
      for (let i = 0; i < 4; i++) wrong.push((await from(`kp_test_${String(i).padStart(32, 'y')}`)).status);
      expect(wrong).toEqual([401, 401, 401, 429]);
      // The valid key passes the failure counter, then meets its own per-key limit of 2 a minute.
      expect([(await from(t.key)).status, (await from(t.key)).status, (await from(t.key)).status]).toEqual([200, 200, 429]);
    } finally {
      await t.close();
    }
  });
});
