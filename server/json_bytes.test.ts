import { describe, expect, it } from 'vitest';
import { jsonBytes } from './json_bytes.js';

describe('jsonBytes', () => {
  it('writes exactly what JSON.stringify writes, at every depth', () => {
    const values: unknown[] = [
      null,
      1.5,
      'a "quoted" \u0000 text',
      [],
      {},
      [1, undefined, () => 1, null, 'x'],
      { a: undefined, b: () => 1, c: Symbol('s'), d: null, e: [{ f: undefined, g: 2 }], 2: 'two', 1: 'one' },
      { when: new Date('2026-11-27T00:00:00Z'), nested: { deeper: { deepest: { list: [1, { x: [true, false] }] } } } },
      { transactions: [{ claims: Array.from({ length: 50 }, (_, i) => ({ pcn: `P${i}`, lines: [{ amount: i / 3 }] })) }] },
    ];
    for (const v of values) for (const depth of [0, 1, 2, 4, 8]) expect(jsonBytes(v, depth).toString('utf8')).toBe(JSON.stringify(v));
  });

  it('writes a text larger than one chunk of a million characters', () => {
    const big = { claims: Array.from({ length: 3000 }, (_, i) => ({ i, text: 'x'.repeat(500) })) };
    const b = jsonBytes(big);
    expect(b.length).toBeGreaterThan(1 << 20);
    expect(JSON.parse(b.toString('utf8'))).toEqual(big);
  });
});
