import { describe, expect, it, vi } from 'vitest';
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

  it('serves a repeat of a cached route from memory with the same body: the handler runs once', async () => {
    const t = await startTestServer();
    // Every computed answer of a cached route goes through fill(); a hit is served without it.
    const fill = vi.spyOn(t.srv.cache, 'fill');
    try {
      const before = t.srv.cache.size;
      const a = await t.request('/v1/codes/99213');
      expect(a.status).toBe(200);
      expect(fill).toHaveBeenCalledTimes(1);
      expect(t.srv.cache.size - before).toBe(1);
      const b = await t.request('/v1/codes/99213');
      expect(fill).toHaveBeenCalledTimes(1);
      expect(t.srv.cache.size - before).toBe(1);
      expect(b.text).toBe(a.text);
      expect(b.headers['content-type']).toBe('application/json; charset=utf-8');
    } finally {
      fill.mockRestore();
      await t.close();
    }
  });

  it('caches a POST that only reads the snapshot by its validated body: the same stay is priced once, another stay again', async () => {
    const t = await startTestServer();
    const fill = vi.spyOn(t.srv.cache, 'fill');
    const path = '/v1/medi-cal/apr-drg/payment';
    const stay = { apr_drg: '139-2', oshpd_id: '106999002', length_of_stay: 4, patient_age: 67, total_charges: 30000 };
    try {
      const a = await t.request(path, { method: 'POST', body: stay });
      expect(a.status).toBe(200);
      expect(fill).toHaveBeenCalledTimes(1);
      // The same question written differently (field order, DRG and SOI apart) validates to the same input: no new pricing.
      const b = await t.request(path, { method: 'POST', body: { total_charges: 30000, soi: 2, apr_drg: '139', oshpd_id: '106999002', patient_age: 67, length_of_stay: 4 } });
      expect(fill).toHaveBeenCalledTimes(1);
      expect(b.text).toBe(a.text);
      const c = await t.request(path, { method: 'POST', body: { ...stay, total_charges: 3000 } });
      expect(fill).toHaveBeenCalledTimes(2);
      expect([a.body.payment_amount, c.body.payment_amount]).toEqual([4668.86, 3000]);
      // A rejected body is never cached.
      for (let i = 0; i < 2; i++) expect((await t.request(path, { method: 'POST', body: { ...stay, soi: 3 } })).status).toBe(422);
      expect(fill).toHaveBeenCalledTimes(2);
    } finally {
      fill.mockRestore();
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
