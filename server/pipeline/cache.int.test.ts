import { describe, expect, it, vi } from 'vitest';
import { startTestServer } from '../../testing/harness.js';
import { inputKey } from './input.js';

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

  it('answers a repeated body whose answer is not cached: the body is decoded again from its bytes', async () => {
    // An answer cache too small for any answer: every repeat finds only the body's answer key.
    const t = await startTestServer({ cacheMaxBytes: 64 });
    try {
      const claim = { date_of_service: '2026-08-01', setting: 'prac', lines: [{ code: '99213', modifiers: ['25'] }, { code: '11042' }, { code: '97597', units: 2 }] };
      const first = await t.request('/v1/ncci/validate', { method: 'POST', body: claim });
      expect(first.status).toBe(200);
      expect(first.body.lines).toHaveLength(3);
      for (let i = 0; i < 2; i++) {
        const again = await t.request('/v1/ncci/validate', { method: 'POST', body: claim });
        expect(again.status).toBe(200);
        // Computed again (a new generated_at), from the same claim.
        expect({ ...again.body, reliability: { ...again.body.reliability, generated_at: null } }).toEqual({ ...first.body, reliability: { ...first.body.reliability, generated_at: null } });
      }
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

  it('keys a validated body by its JSON with every object\'s keys sorted, undefined members left out', () => {
    // What the key was before it was written directly: sorted copies of every object, then JSON.stringify.
    const sorted = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(sorted) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])])) : v;
    const bodies: unknown[] = [
      { b: 1, a: [{ z: 'x"y', y: null, w: undefined }, [], [undefined, 2.5, -0, true]], c: { e: {}, d: 'caf\u00e9\n' } },
      { lines: [{ units: 2, code: '99213', modifiers: ['25'] }], date_of_service: '2026-08-01' },
      [],
      'text',
      0,
      null,
      // An own `__proto__` member (JSON.parse makes one): other objects must not gain it from their prototype.
      JSON.parse('{"b": {"c": 1}, "__proto__": {"x": 1}, "a": [{"d": 2}]}'),
    ];
    for (const body of bodies) {
      expect(inputKey({ params: { code: '1' }, query: { b: 1, a: 2 }, body, resolved: null })).toBe(JSON.stringify([{ code: '1' }, { a: 2, b: 1 }, sorted(body)]));
    }
    expect(inputKey({ params: { code: '1' }, query: { a: 'b' }, body: undefined, resolved: null })).toBe('[{"code":"1"},{"a":"b"}]');
    // Field order does not matter; values do.
    const key = (body: unknown) => inputKey({ params: null, query: null, body, resolved: null });
    expect(key({ a: 1, b: [{ c: 1, d: 2 }] })).toBe(key({ b: [{ d: 2, c: 1 }], a: 1 }));
    expect(key({ a: 1, b: 2 })).not.toBe(key({ a: 2, b: 1 }));
  });

  it('gives random bodies one key whatever their field order, and another key when a value changes (500 cases)', () => {
    let seed = 42;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
    const KEYS = ['a', 'b', 'code', '10', '2', '__x', 'é', 'line_id', 'units', 'Z'];
    const value = (depth: number): unknown => {
      const r = rand(depth > 2 ? 5 : 7);
      if (r === 0) return rand(1000) - 500;
      if (r === 1) return `s${rand(50)}"\n`;
      if (r === 2) return null;
      if (r === 3) return rand(2) === 0;
      if (r === 4) return rand(3) === 0 ? undefined : rand(7) / 4;
      if (r === 5) return Array.from({ length: rand(4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: rand(5) }, () => [KEYS[rand(KEYS.length)]!, value(depth + 1)]));
    };
    // The same value, every object's members inserted in another order.
    const shuffled = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(shuffled);
      if (v === null || typeof v !== 'object') return v;
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i > 0; i--) {
        const j = rand(i + 1);
        [entries[i], entries[j]] = [entries[j]!, entries[i]!];
      }
      return Object.fromEntries(entries.map(([k, x]) => [k, shuffled(x)]));
    };
    const key = (body: unknown) => inputKey({ params: null, query: null, body, resolved: null });
    for (let n = 0; n < 500; n++) {
      const body = { root: value(0), other: value(0) };
      expect(key(shuffled(body))).toBe(key(body));
      // Parsing the key back gives the body as JSON.stringify would write it (members in some order).
      expect(JSON.parse(key(body))[2]).toEqual(JSON.parse(JSON.stringify(body)));
      expect(key({ ...body, extra: n })).not.toBe(key(body));
    }
  });
});
