import { describe, expect, it } from 'vitest';
import { counted, dollars, grouped } from './money_text.js';

describe('dollars', () => {
  it.each([
    [211366.97, '$211,366.97'],
    [-1.08, '-$1.08'],
    [0, '$0.00'],
    [-0.001, '$0.00'],
    [1234567890.5, '$1,234,567,890.50'],
    [0.1 + 0.2, '$0.30'],
    [-150000, '-$150,000.00'],
  ])('%s reads %s', (n, text) => expect(dollars(n)).toBe(text));
});

describe('counted', () => {
  it('is singular for exactly one and plural otherwise', () => {
    expect(counted(1, 'claim')).toBe('1 claim');
    expect(counted(0, 'claim')).toBe('0 claims');
    expect(counted(1000, 'line')).toBe('1,000 lines');
    expect(counted(2, 'entry', 'entries')).toBe('2 entries');
  });
});

describe('grouped', () => {
  it('writes what toLocaleString(en-US) writes for whole numbers', () => {
    for (const n of [0, 7, 999, 1000, 12345, 999999, 1000000, -1, -1234, 2 ** 40, Number.MAX_SAFE_INTEGER]) expect(grouped(n)).toBe(n.toLocaleString('en-US'));
  });
});
