import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../testing/clock.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';

/**
 * The process-wide MCP session cap is shared fairly: per tenant (`RCM_MCP_SESSIONS_PER_TENANT`),
 * the playground's session keys in one small pool, and past the cap a new session closes the
 * idlest of the biggest tenant, never of a smaller one. Sessions of a key that stopped working
 * are freed.
 */
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'sessions', version: '1' } } };
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
const ACCEPT = 'application/json, text/event-stream';

const open = (t: TestServer, key: string, ip = '198.51.100.1') => t.request('/v1/mcp', { method: 'POST', key, body: INIT, headers: { Accept: ACCEPT, 'X-Forwarded-For': ip } });
const list = (t: TestServer, key: string, sid: string) =>
  t.request('/v1/mcp', { method: 'POST', key, body: LIST, headers: { Accept: ACCEPT, 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-06-18' } });
const sidOf = (r: { headers: Record<string, unknown> }) => r.headers['mcp-session-id'] as string;

async function tenantKey(t: TestServer, name: string): Promise<{ id: string; secret: string; tenantId: string }> {
  const tenant = await t.srv.state.admin.createTenant(`${name}-${Math.random().toString(36).slice(2, 8)}`);
  const { record, secret } = await t.srv.state.admin.createKey({ tenant: tenant.id, type: 'test', scopes: ['knowledge'] });
  return { id: record.id, secret, tenantId: tenant.id };
}

describe('anonymous playground visitors', () => {
  const clock = new TestClock('2026-11-01T12:00:00Z');
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ trustProxy: true, now: clock.now, mcp: { maxSessions: 20, sessionsPerKey: 3, idleMs: 3 * 3_600_000 } });
  });
  afterAll(async () => t.close());

  it("cannot fill the process's sessions: three addresses' playground keys share a tenth of them, and a paying tenant still opens one", async () => {
    // The flood, scaled: three addresses mint keys and open every session each key may.
    const statuses: number[] = [];
    for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      for (let k = 0; k < 4; k++) {
        const minted = await t.request('/v1/playground/session', { method: 'POST', key: null, headers: { 'X-Forwarded-For': ip } });
        expect(minted.status).toBe(201);
        for (let s = 0; s < 3; s++) {
          clock.advance(1);
          statuses.push((await open(t, minted.body.key, ip)).status);
        }
      }
    }
    // 36 sessions asked for, past the process's 20: each visitor is answered (the pool's idlest
    // makes way), and the pool holds at most 2 (a tenth of 20).
    expect(statuses.every((s) => s === 200), statuses.join()).toBe(true);
    expect(t.srv.mcp.sessionCount()).toBeLessThanOrEqual(2);

    const paying = await open(t, t.key, '192.0.2.9');
    expect(paying.status, JSON.stringify(paying.body)).toBe(200);
    // More visitors come: the paying tenant's session stays open.
    const minted = await t.request('/v1/playground/session', { method: 'POST', key: null, headers: { 'X-Forwarded-For': '203.0.113.4' } });
    for (let s = 0; s < 3; s++) expect((await open(t, minted.body.key, '203.0.113.4')).status).toBe(200);
    expect((await list(t, t.key, sidOf(paying))).status).toBe(200);
  });
});

describe('tenants sharing the process cap', () => {
  const clock = new TestClock('2026-11-01T12:00:00Z');
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ now: clock.now, mcp: { maxSessions: 6, sessionsPerKey: 10, sessionsPerTenant: 4, idleMs: 3_600_000 } });
  });
  afterAll(async () => t.close());

  it('holds a tenant to RCM_MCP_SESSIONS_PER_TENANT across its keys, closing its own idlest session', async () => {
    const a1 = await tenantKey(t, 'budget');
    const { secret: a2 } = await t.srv.state.admin.createKey({ tenant: a1.tenantId, type: 'test', scopes: ['knowledge'] });
    const sids: string[] = [];
    for (const key of [a1.secret, a1.secret, a1.secret, a2, a2, a2]) {
      clock.advance(1);
      const r = await open(t, key);
      expect(r.status).toBe(200);
      sids.push(sidOf(r));
    }
    expect(t.srv.mcp.sessionCount({ tenantId: a1.tenantId })).toBe(4);
    // The two idlest (the first key's first two) were closed; the newest of each key are open.
    expect((await list(t, a1.secret, sids[0]!)).status).toBe(404);
    expect((await list(t, a1.secret, sids[1]!)).status).toBe(404);
    expect((await list(t, a1.secret, sids[2]!)).status).toBe(200);
    expect((await list(t, a2, sids[5]!)).status).toBe(200);
  });

  it("gives a tenant within its fair share a session when the process is full, from the biggest tenant's idlest, never a smaller one's", async () => {
    // The first test's sessions idle out; then tenant B holds 4 (its budget) and tenant C 2: the process cap of 6.
    clock.advance(3_600_001);
    t.srv.mcp.sweep();
    expect(t.srv.mcp.sessionCount()).toBe(0);
    const b = await tenantKey(t, 'big');
    const c = await tenantKey(t, 'small');
    const bSids: string[] = [];
    for (let i = 0; i < 4; i++) {
      clock.advance(1);
      bSids.push(sidOf(await open(t, b.secret)));
    }
    const cSids: string[] = [];
    for (let i = 0; i < 2; i++) {
      clock.advance(1);
      cSids.push(sidOf(await open(t, c.secret)));
    }
    expect(t.srv.mcp.sessionCount()).toBe(6);
    expect(t.srv.mcp.sessionCount({ tenantId: b.tenantId })).toBe(4);

    // A new tenant, holding nothing: it gets a session (not 503), and the biggest tenant (B) gives up its idlest.
    const d = await tenantKey(t, 'new');
    clock.advance(1);
    const dOpen = await open(t, d.secret);
    expect(dOpen.status, JSON.stringify(dOpen.body)).toBe(200);
    expect(t.srv.mcp.sessionCount({ tenantId: b.tenantId })).toBe(3);
    expect((await list(t, b.secret, bSids[0]!)).status).toBe(404);
    expect(t.srv.mcp.sessionCount({ tenantId: c.tenantId })).toBe(2);

    // C (2) opens again while B (3) is bigger: B's idlest goes, C's sessions stay.
    clock.advance(1);
    expect((await open(t, c.secret)).status).toBe(200);
    expect(t.srv.mcp.sessionCount({ tenantId: b.tenantId })).toBe(2);
    expect(t.srv.mcp.sessionCount({ tenantId: c.tenantId })).toBe(3);

    // Now C is the biggest: its next session closes its own idlest, no one else's.
    clock.advance(1);
    expect((await open(t, c.secret)).status).toBe(200);
    expect(t.srv.mcp.sessionCount({ tenantId: c.tenantId })).toBe(3);
    expect(t.srv.mcp.sessionCount({ tenantId: b.tenantId })).toBe(2);
    expect(t.srv.mcp.sessionCount({ tenantId: d.tenantId })).toBe(1);
    expect((await list(t, c.secret, cSids[0]!)).status).toBe(404);
    expect((await list(t, d.secret, sidOf(dOpen))).status).toBe(200);
  });
});

describe('sessions of a key that stopped working', () => {
  const clock = new TestClock('2026-11-01T12:00:00Z');
  let t: TestServer;
  beforeAll(async () => {
    // Idle expiry far away: only the key's own end can free these sessions.
    t = await startTestServer({ now: clock.now, mcp: { idleMs: 24 * 3_600_000 } });
  });
  afterAll(async () => t.close());

  it("frees an expired playground key's sessions at the periodic sweep and when another session opens", async () => {
    const first = (await t.request('/v1/playground/session', { method: 'POST', key: null })).body;
    for (let i = 0; i < 2; i++) expect((await open(t, first.key)).status).toBe(200);
    expect(t.srv.mcp.sessionCount({ keyId: first.key_id })).toBe(2);
    clock.advance(3_600_000); // the key's hour is over
    t.srv.mcp.sweep();
    expect(t.srv.mcp.sessionCount({ keyId: first.key_id })).toBe(0);

    const second = (await t.request('/v1/playground/session', { method: 'POST', key: null })).body;
    expect((await open(t, second.key)).status).toBe(200);
    clock.advance(3_600_000);
    expect((await open(t, t.key)).status).toBe(200);
    expect(t.srv.mcp.sessionCount({ keyId: second.key_id })).toBe(0);
  });

  it("frees every session of a revoked key when the key is next presented", async () => {
    const k = await tenantKey(t, 'revoked');
    const sid = sidOf(await open(t, k.secret));
    expect((await open(t, k.secret)).status).toBe(200);
    expect(t.srv.mcp.sessionCount({ keyId: k.id })).toBe(2);
    await t.srv.state.admin.revokeKey(k.id);
    expect((await list(t, k.secret, sid)).status).toBe(401);
    expect(t.srv.mcp.sessionCount({ keyId: k.id })).toBe(0);
  });
});
