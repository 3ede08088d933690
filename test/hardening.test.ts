import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonDepth } from '../server/pipeline/input.js';
import { startTestServer, type TestServer } from './helpers/harness.js';

// Issue 20 (hardening): each case answered badly (or not at all) before.

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => t.close());

describe('deeply nested JSON bodies', () => {
  it('answer 422 json_too_deep before parsing (5,000 levels closed the connection with no answer)', async () => {
    const deep = `{"date_of_service":"2026-08-01","setting":"prac","lines":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const r = await t.request('/v1/ncci/validate', { method: 'POST', body: deep });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'json_too_deep', ctx: { max_depth: 64 } })]);
    // An ordinary body is unaffected.
    const ok = await t.request('/v1/ncci/validate', { method: 'POST', body: { date_of_service: '2026-08-01', setting: 'prac', lines: [{ code: '99213' }] } });
    expect(ok.status).toBe(200);
  });

  it('counts depth without being fooled by brackets inside strings', () => {
    expect(jsonDepth('{"a":[1,{"b":"[[[[{{{{"}]}', 10)).toBe(3);
    expect(jsonDepth('"\\"[[["', 10)).toBe(0);
    expect(jsonDepth('['.repeat(100), 10)).toBe(11);
  });
});

describe('smaller ones (item 8)', () => {
  it('refuses a request with two Host headers (400) instead of taking the first', async () => {
    const { connect } = await import('node:net');
    const raw = await new Promise<string>((resolve, reject) => {
      const s = connect(t.port, '127.0.0.1', () => {
        s.write(`GET /v1/codes/99213 HTTP/1.1\r\nHost: localhost\r\nHost: api.example.test\r\nX-API-Key: ${t.key}\r\nConnection: close\r\n\r\n`);
      });
      let out = '';
      s.on('data', (c) => (out += c.toString()));
      s.on('end', () => resolve(out));
      s.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toContain('"code":"invalid_host"');
    expect(raw).not.toContain('allowed_phy_payment');
  });

  it('answers 422 for a date the deadline arithmetic cannot reach (9999-12-31 was a 500)', async () => {
    const r = await t.request('/v1/payers/medicare_ffs/timely-filing?date_of_service=9999-12-31');
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ['query', 'date_of_service'], msg: expect.stringContaining('between 1900-01-01 and 2199-12-31') });
    expect((await t.request('/v1/payers/medicare_ffs/timely-filing?date_of_service=2199-12-31')).status).toBe(200);
  });
});
