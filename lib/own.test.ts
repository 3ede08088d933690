import { describe, expect, it } from 'vitest';
import { isOwnKey, ownValue } from './own.js';
import { carcClassOf } from './vocabulary/carc.js';

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString'];

describe('lookups keyed by caller text', () => {
  const TABLE: Record<string, string> = { ipps: 'wage_index', x12: 'x12_codes' };

  it('finds own keys and nothing of the prototype', () => {
    expect(ownValue(TABLE, 'ipps')).toBe('wage_index');
    for (const k of PROTOTYPE_NAMES) {
      expect(TABLE[k], `${k} is read from the prototype by plain indexing`).toBeDefined();
      expect(ownValue(TABLE, k), k).toBeUndefined();
      expect(isOwnKey(TABLE, k), k).toBe(false);
    }
    expect(ownValue(TABLE, null)).toBeUndefined();
    expect(ownValue(TABLE, undefined)).toBeUndefined();
    expect(isOwnKey(TABLE, 'x12')).toBe(true);
  });

  it('takes a numeric key as its string (a year table)', () => {
    expect(ownValue({ 2026: 'a' }, 2026)).toBe('a');
  });

  it('gives a CARC read from an 835 or a request its class only when the X12 list has it', () => {
    expect(carcClassOf('45')).toBe('contractual');
    for (const k of [...PROTOTYPE_NAMES, '', null, undefined]) expect(carcClassOf(k)).toBeUndefined();
  });
});
