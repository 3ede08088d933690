import { describe, expect, it } from 'vitest';
import { startTestServer } from './helpers/harness.js';

describe('per-snapshot answer cache', () => {
  it("keys 'daily' routes by today's date, so a default date of service never goes stale", async () => {
    let now = new Date('2026-08-03T23:59:00Z');
    const t = await startTestServer({ now: () => now });
    try {
      const a = await t.request('/v1/ncci/ptp/prac?column1=99214&column2=99213');
      expect(a.status).toBe(200);
      expect(a.body.date_of_service).toBe('2026-08-03');
      now = new Date('2026-08-04T00:01:00Z');
      const b = await t.request('/v1/ncci/ptp/prac?column1=99214&column2=99213');
      expect(b.body.date_of_service).toBe('2026-08-04');
    } finally {
      await t.close();
    }
  });

  it('serves a repeat of a cached route from memory with the same body', async () => {
    const t = await startTestServer();
    try {
      const a = await t.request('/v1/codes/99213');
      const b = await t.request('/v1/codes/99213');
      expect(b.text).toBe(a.text);
      expect(b.headers['content-type']).toBe('application/json; charset=utf-8');
    } finally {
      await t.close();
    }
  });

  it('never caches a rejected request: the same bad URL is answered 422 each time', async () => {
    const t = await startTestServer();
    try {
      for (let i = 0; i < 2; i++) {
        const r = await t.request('/v1/data/changes?limit=0');
        expect(r.status).toBe(422);
        expect(r.body.detail[0].loc).toEqual(['query', 'limit']);
      }
      expect((await t.request('/v1/data/changes?limit=1')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
