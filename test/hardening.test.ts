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
