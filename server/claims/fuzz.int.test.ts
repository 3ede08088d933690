import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../testing/harness.js';
import { claim837 } from '../../testing/x12.js';
import { mutate, PIECES_837, prng } from '../../testing/x12_mutate.js';

const server = useTestServer({ now: () => new Date('2026-08-20T12:00:00Z') });

// Names and ids that must never come back in an error.
const BASE = claim837([
  { pcn: 'SECRETPCN1', member: 'SECRETMBR01', dx: ['M5416', 'M47816'], lines: [{ code: '11042' }, { code: '97597', mods: ['59'] }, { code: '99213', units: 3, pointers: '1:2' }] },
  { pcn: 'SECRETPCN2', lines: [{ code: '64493', mods: ['GA'] }] },
]);

describe('POST /v1/claims/check under mutated input', () => {
  it('answers 200 or 422 (never a 5xx), and never echoes the file in an error, for 200 mutated 837s', async () => {
    const r = prng(837);
    const statuses = new Map<number, number>();
    const started = Date.now();
    let n = 0;
    // Bounded in count and in time.
    for (; n < 200 && Date.now() - started < 30_000; n++) {
      let text = BASE;
      for (let k = 1 + Math.floor(r() * 3); k > 0; k--) text = mutate(text, r, PIECES_837);
      const res = await server().request('/v1/claims/check?locality=1320201', { method: 'POST', body: text, headers: { 'Content-Type': 'application/edi-x12' } });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect([200, 422], `case ${n}: ${res.status} ${res.text.slice(0, 200)}`).toContain(res.status);
      if (res.status === 422) {
        expect(res.text).not.toMatch(/SECRET/);
        expect(res.body.detail.every((d: object) => !('input' in d))).toBe(true);
      }
    }
    expect(n).toBeGreaterThanOrEqual(60);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(422) ?? 0).toBeGreaterThan(0);
  });
});
