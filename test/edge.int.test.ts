import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostKindOf, normalizeHost } from '../server/pipeline/hosts.js';
import { LIVE_HOST, rawRequest, startTestServer, type TestServer } from '../testing/harness.js';

describe('normalizeHost', () => {
  it('lower-cases and strips the port, an empty port and a trailing dot', () => {
    for (const h of ['api.example.test', 'API.Example.TEST', 'api.example.test.', 'api.example.test:', 'api.example.test:443', 'api.example.test.:8443']) {
      expect(normalizeHost(h), h).toBe('api.example.test');
    }
  });

  it('takes the authority of an absolute-form request target over the Host header', () => {
    expect(normalizeHost('localhost', 'http://api.example.test/v1/codes/99213')).toBe('api.example.test');
    expect(normalizeHost('localhost', 'HTTPS://API.EXAMPLE.TEST.:443/v1')).toBe('api.example.test');
    expect(normalizeHost('localhost', '/v1/codes/99213')).toBe('localhost');
  });

  it('refuses what is not a host name', () => {
    for (const h of ['', 'bad host', 'a_b.example', 'api.example.test:44x', 'exa mple:1', '-lead.example', 'x..y', '[::1', 'user@api.example.test']) {
      expect(normalizeHost(h), JSON.stringify(h)).toBeNull();
    }
    expect(normalizeHost('localhost', 'http://user@api.example.test/v1')).toBeNull();
    expect(normalizeHost('[::1]:8080')).toBe('[::1]');
    expect(normalizeHost('127.0.0.1:8080')).toBe('127.0.0.1');
  });

  it('answers 421 for a host on neither list when both are configured', () => {
    const rules = { liveHosts: ['api.example.test'], testHosts: ['sandbox.example.test'] };
    expect(hostKindOf(rules, 'api.example.test')).toBe('live');
    expect(hostKindOf(rules, 'sandbox.example.test:443')).toBe('test');
    expect(() => hostKindOf(rules, 'evil.example.test')).toThrow(expect.objectContaining({ code: 'misdirected_request' }));
    // With only live hosts configured every other host is the test host.
    expect(hostKindOf({ liveHosts: ['api.example.test'], testHosts: [] }, 'anything.example')).toBe('test');
  });
});

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('host pairing over HTTP', () => {
  const bypasses = [`${LIVE_HOST}.`, `${LIVE_HOST}:`, `${LIVE_HOST.toUpperCase()}:443`];
  for (const host of bypasses) {
    it(`returns 403 and no data when a test key calls the production host as "${host}"`, async () => {
      const r = await t.request('/v1/codes/99213', { host });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('key_host_mismatch');
      expect(r.text).not.toContain('work_rvu');
    });
  }

  it('returns 403 when an absolute-form target names the production host behind a test Host header', async () => {
    const r = await rawRequest(t.port, `http://${LIVE_HOST}/v1/codes/99213`, { headers: { Host: 'localhost', 'X-API-Key': t.key } });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('key_host_mismatch');
  });

  it('accepts a live key on the production host however the host is spelled', async () => {
    const live = await t.newKey('live', ['knowledge']);
    for (const host of bypasses) expect((await t.request('/v1/codes/99213', { key: live, host })).status, host).toBe(200);
  });

  it('answers 400 for a Host that is not a host name', async () => {
    const r = await t.request('/v1/codes/99213', { host: 'bad_host!' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_host');
  });

  it('answers 421 with no data for an unknown host when live and test hosts are both configured', async () => {
    const s = await startTestServer({ liveHosts: [LIVE_HOST], testHosts: ['sandbox.example.test'] });
    try {
      const r = await s.request('/v1/codes/99213', { host: 'other.example.test' });
      expect(r.status).toBe(421);
      expect(r.body.code).toBe('misdirected_request');
      expect(r.text).not.toContain('work_rvu');
      expect((await s.request('/v1/codes/99213', { host: 'sandbox.example.test:8080' })).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('unknown and repeated query parameters', () => {
  it('answers 422 extra_forbidden for a misspelt parameter instead of pricing non-QPP', async () => {
    const r = await t.request('/v1/codes/99213/payment?locality=1320201&qpp_flg=1');
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([{ loc: ['query', 'qpp_flg'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: '1' }]);
  });

  it('names every unknown parameter, beside the other issues', async () => {
    const r = await t.request('/v1/data/changes?limit=0&foo=1&bar=2');
    expect(r.status).toBe(422);
    const byLoc = Object.fromEntries(r.body.detail.map((d: { loc: string[]; type: string }) => [d.loc.join('.'), d.type]));
    expect(byLoc).toEqual({ 'query.foo': 'extra_forbidden', 'query.bar': 'extra_forbidden', 'query.limit': 'greater_than_equal' });
  });

  it('answers 422 for a parameter on a route that takes none', async () => {
    const r = await t.request('/v1/codes/99213?verbose=true');
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ['query', 'verbose'], type: 'extra_forbidden' });
  });

  it('answers 422 repeated_parameter when a scalar is sent twice', async () => {
    const r = await t.request('/v1/codes/99213/payment?qpp_flag=0&qpp_flag=1');
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([{ loc: ['query', 'qpp_flag'], msg: 'Parameter qpp_flag was sent 2 times; send it once', type: 'repeated_parameter', input: ['0', '1'] }]);
  });
});

describe('answer cache', () => {
  it('keys answers by the validated input: equivalent URLs share one entry', async () => {
    const s = await startTestServer();
    try {
      const before = s.srv.cache.size;
      const urls = [
        '/v1/codes/99213/payment?locality=1320201&date_of_service=2025-11-03',
        '/v1/codes/99213/payment?date_of_service=2025-11-03&locality=13202-01',
        '/v1/codes/%39%39213/payment?locality=%201320201%20&date_of_service=2025-11-03',
        '/v1/codes/99213/payment?locality=1320201&date_of_service=2025-11-03&',
      ];
      const bodies = [];
      for (const u of urls) {
        const r = await s.request(u);
        expect(r.status, u).toBe(200);
        bodies.push(r.body.estimated_payment);
      }
      expect(new Set(bodies).size).toBe(1);
      expect(s.srv.cache.size - before).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('never holds more bytes than its bound, however many distinct valid requests arrive', async () => {
    const max = 24 * 1024;
    const s = await startTestServer({ cacheMaxBytes: max });
    try {
      const localities = ['1320201', '1320202', '1320203', '0111205', '0510201', '0510217', '0510218', '0510226'];
      const dates = ['2025-01-05', '2025-02-05', '2025-03-05', '2025-04-05', '2025-05-05'];
      let ok = 0;
      for (const l of localities) {
        for (const d of dates) {
          const r = await s.request(`/v1/codes/99213/payment?locality=${l}&date_of_service=${d}`);
          if (r.status === 200) ok++;
          expect(s.srv.cache.bytes).toBeLessThanOrEqual(max);
        }
      }
      expect(ok).toBeGreaterThanOrEqual(20);
      // It did cache (answers are ~3 KB), and it evicted to stay under the bound.
      expect(s.srv.cache.size).toBeGreaterThan(1);
      expect(s.srv.cache.size).toBeLessThan(ok);
    } finally {
      await s.close();
    }
  });

  it('does not cache an invalid request', async () => {
    const before = t.srv.cache.size;
    for (let i = 0; i < 5; i++) expect((await t.request(`/v1/codes/99213?pad${i}=x`)).status).toBe(422);
    expect(t.srv.cache.size).toBe(before);
  });
});

describe('public routes', () => {
  it('serves the OpenAPI document and health without a key', async () => {
    expect((await t.request('/v1/openapi.json', { key: null })).status).toBe(200);
    expect((await t.request('/v1/health', { key: null })).status).toBe(200);
    expect((await t.request('/v1/health/ready', { key: null })).status).toBe(200);
  });
});
