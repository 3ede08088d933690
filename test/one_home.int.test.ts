import { describe, expect, it, afterAll, beforeAll } from 'vitest';
import { connect } from 'node:net';
import { paymentSystemOf } from '../server/facilities/service.js';
import type { RateDecision, RateLimiter } from '../server/pipeline/limits.js';
import { startTestServer, type TestServer } from '../testing/harness.js';

// The shared mechanisms of "one home per idea": the facility rule every area follows, answers
// shared across tenants when they do not depend on one, every submit issue in one 422, and the
// rate limiter behind its interface.

const CCN = '050454';
const D = '2026-03-02';

describe('the facility payment system, decided once', () => {
  it('is opps for a hospital, cah_cost for a critical access hospital, maryland for CCN state code 21, non_hospital otherwise', () => {
    expect(paymentSystemOf('050454', 'acute_care_hospital')).toBe('opps');
    expect(paymentSystemOf('051300', 'critical_access_hospital')).toBe('cah_cost');
    expect(paymentSystemOf('210009', 'acute_care_hospital')).toBe('maryland');
    expect(paymentSystemOf('210009', 'rural_health_clinic')).toBe('non_hospital');
    expect(paymentSystemOf('050454', 'medicaid_only_hospital')).toBe('non_hospital');
  });
});

describe('one facility rule over HTTP', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ now: () => new Date('2026-03-02T12:00:00Z') });
  });
  afterAll(async () => t.close());

  it('an inactive (soft-deleted) registration changes nothing: profile, payment and prior auth answer from the reference data', async () => {
    const reg = await t.request(`/v1/facilities/${CCN}`, { method: 'PUT', body: { name: 'Our Clinic', facility_type: 'rural_health_clinic', place_of_service: '11', state: 'TX' } });
    expect(reg.status).toBe(201);
    const active = (await t.request(`/v1/facilities/${CCN}`)).body;
    expect(active).toMatchObject({ name: 'Our Clinic', facility_type: 'rural_health_clinic', place_of_service: '11', state: 'TX', registered: true, is_active: true });
    const paActive = (await t.request(`/v1/prior-auth/check?payer=medicare_ffs&code=64490&ccn=${CCN}&date_of_service=${D}`)).body;
    expect(paActive).toMatchObject({ state: 'TX', place_of_service: '11' });
    const payActive = (await t.request(`/v1/codes/99213/payment?ccn=${CCN}&date_of_service=${D}`)).body;
    expect(payActive.facility).toMatchObject({ registered: true, facility_type: 'rural_health_clinic', pos_code: '11' });

    expect((await t.request(`/v1/facilities/${CCN}`, { method: 'DELETE' })).status).toBe(200);
    const profile = (await t.request(`/v1/facilities/${CCN}`)).body;
    // The registration record is still shown (it can be re-activated), but it changes no field.
    expect(profile).toMatchObject({ registered: true, is_active: false, name: 'UCSF MEDICAL CENTER', state: 'CA', place_of_service: '22' });
    expect(profile.facility_type).not.toBe('rural_health_clinic');
    expect(profile.reliability.warnings.join(' ')).toContain('inactive');
    const pa = (await t.request(`/v1/prior-auth/check?payer=medicare_ffs&code=64490&ccn=${CCN}&date_of_service=${D}`)).body;
    expect(pa).toMatchObject({ state: 'CA', place_of_service: '22' });
    expect(pa.reliability.warnings.join(' ')).not.toContain('its registration');
    const pay = (await t.request(`/v1/codes/99213/payment?ccn=${CCN}&date_of_service=${D}`)).body;
    expect(pay.facility).toMatchObject({ registered: false, pos_code: '22' });
    expect(pay.facility.facility_type).not.toBe('rural_health_clinic');
  });

  it('shares a payment answer without ccn across tenants, and keeps one with ccn per tenant', async () => {
    const b = await t.srv.state.admin.createTenant('share-b');
    const keyB = await t.newKey('test', ['knowledge'], b.name);
    const url = '/v1/codes/99214/payment?locality=1320201&date_of_service=2025-11-04';
    const before = t.srv.cache.size;
    const a1 = await t.request(url);
    const b1 = await t.request(url, { key: keyB });
    expect(a1.status).toBe(200);
    expect(b1.text).toBe(a1.text);
    expect(t.srv.cache.size - before).toBe(1);
    const withCcn = `/v1/codes/99214/payment?ccn=${CCN}&date_of_service=2026-03-03`;
    await t.request(withCcn);
    await t.request(withCcn, { key: keyB });
    expect(t.srv.cache.size - before).toBe(3);
  });
});

describe('agent submits report every issue at once', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ agents: { resolve: async () => [] } });
  });
  afterAll(async () => t.close());

  it('a bad group_code, an unresolvable callback_url and a bad Idempotency-Key answer one 422 naming all three', async () => {
    const r = await t.request('/v1/agents/denial-resolution', {
      method: 'POST',
      body: { denial_code: 'CO-50', group_code: 'XX', callback_url: 'https://hooks.nowhere.test/rcm' },
      headers: { 'Idempotency-Key': 'has spaces in it' },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['body.callback_url', 'body.group_code', 'header.idempotency-key']);
  });
});

describe('the rate limiter behind its interface', () => {
  let t: TestServer;
  const calls: string[] = [];
  // A limiter answering with a promise, as a networked store would: it refuses the third request of a key.
  const counts = new Map<string, number>();
  const shared: RateLimiter = {
    perMinute: 2,
    take: async (key: string): Promise<RateDecision> => {
      calls.push(key);
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      return { allowed: n <= 2, limit: 2, remaining: Math.max(0, 2 - n), reset: 30 };
    },
  };
  beforeAll(async () => {
    t = await startTestServer({ limiters: { key: shared, ip: shared } });
  });
  afterAll(async () => t.close());

  it('is the one the pipeline asks: its refusal is a 429 with Retry-After and RateLimit headers', async () => {
    expect((await t.request('/v1/codes/99213')).status).toBe(200);
    expect((await t.request('/v1/codes/99213')).status).toBe(200);
    const third = await t.request('/v1/codes/99213');
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ code: 'rate_limited' });
    expect(third.headers['retry-after']).toBe('30');
    expect(third.headers['ratelimit-limit']).toBe('2');
    expect(calls.length).toBe(3);
  });
});

describe('health probes', () => {
  let t: TestServer;
  let pings = 0;
  beforeAll(async () => {
    t = await startTestServer({ publicRateLimitPerMin: 5 });
    const ping = t.srv.state.ping.bind(t.srv.state);
    t.srv.state.ping = () => {
      pings++;
      return ping();
    };
  });
  afterAll(async () => t.close());

  it('are never rate limited, and readiness reads a state computed off the request path', async () => {
    const before = pings;
    for (let i = 0; i < 40; i++) {
      const [h, r] = await Promise.all([t.request('/v1/health', { key: null }), t.request('/v1/health/ready', { key: null })]);
      expect([h.status, r.status]).toEqual([200, 200]);
      expect(h.headers['ratelimit-limit']).toBeUndefined();
    }
    // 80 probes, no state-store ping of their own (the timer runs every 5 s).
    expect(pings - before).toBeLessThanOrEqual(1);
    // Other public routes are still limited per address.
    const statuses = [];
    for (let i = 0; i < 8; i++) statuses.push((await t.request('/v1/directory/payers', { key: null })).status);
    expect(statuses).toContain(429);
  });
});

describe('the error model, one home for statuses and codes', () => {
  it('no server file writes an error status or an error body by hand (only JSON-RPC framing of the MCP transport)', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const root = join(import.meta.dirname, '..', 'server');
    const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'errors.ts');
    const byHand: string[] = [];
    for (const f of files) {
      const lines = (await readFile(join(root, f), 'utf8')).split('\n');
      lines.forEach((l, i) => {
        // An error body `{ detail, code: '...' }`, or a 4xx/5xx status, written outside server/errors.ts.
        const body = /detail: [^}]*code: '[a-z_]+'/.test(l);
        const status = /(writeHead\(|\.status = |fail\(res, requestId, )[45]\d\d\b/.test(l) && !l.includes('rpcError(');
        if (body || status) byHand.push(`server/${f}:${i + 1}: ${l.trim()}`);
      });
    }
    expect(byHand).toEqual([]);
  });

  it('answers the errors raised before the pipeline through the status table: two Host headers, a method not allowed, no route', async () => {
    const { rawRequest } = await import('../testing/harness.js');
    const t = await startTestServer();
    try {
      const twoHosts = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const s = connect(t.port, '127.0.0.1', () => s.write('GET /v1/health HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n'));
        let data = '';
        s.on('data', (c: Buffer) => (data += c.toString()));
        s.on('end', () => resolve({ status: Number(data.split(' ')[1]), body: data.slice(data.indexOf('\r\n\r\n') + 4) }));
        s.on('error', reject);
      });
      expect(twoHosts.status).toBe(400);
      expect(JSON.parse(twoHosts.body)).toEqual({ detail: 'the request carries more than one Host header', code: 'invalid_host' });
      const put = await rawRequest(t.port, '/v1/health', { method: 'PUT' });
      expect(put.status).toBe(405);
      expect(put.headers.allow).toBe('GET');
      expect(put.body).toMatchObject({ code: 'method_not_allowed' });
      expect((await rawRequest(t.port, '/v1/nothing-here')).body).toMatchObject({ code: 'not_found' });
    } finally {
      await t.close();
    }
  });
});
