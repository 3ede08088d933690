import { describe, expect, it } from 'vitest';
import { editDistance } from './text_match.js';

/** The optimal string alignment distance from the whole table (no cap, no reuse). */
function reference(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

describe('editDistance', () => {
  it('is the alignment distance up to its cap, and more than the cap past it, call after call (its rows are reused and grow)', () => {
    let seed = 11;
    const r = (n: number) => ((seed = (seed * 16807) % 2147483647) % n);
    const word = (n: number) => Array.from({ length: n }, () => 'abcde'[r(5)]).join('');
    for (let k = 0; k < 3000; k++) {
      const a = word(1 + r(k % 100 === 0 ? 90 : 9));
      // Often a near copy: a letter changed, dropped or two swapped.
      const i = r(a.length);
      const b = [word(1 + r(9)), a.slice(0, i) + 'e' + a.slice(i + 1), a.slice(0, i) + a.slice(i + 1) || 'a', a.slice(0, i) + (a[i + 1] ?? '') + a[i] + a.slice(i + 2)][r(4)]!;
      const cap = 1 + r(3);
      expect(Math.min(editDistance(a, b, cap), cap + 1), `${a} ${b} ${cap}`).toBe(Math.min(reference(a, b), cap + 1));
    }
    expect(editDistance('strattera', 'stratetra', 2)).toBe(1);
    expect(editDistance('x'.repeat(200), `${'x'.repeat(199)}y`, 3)).toBe(1);
  });
});
