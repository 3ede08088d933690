import { describe, expect, it } from 'vitest';
import { BoundedMap } from './bounded_map.js';

describe('BoundedMap', () => {
  it('holds at most max entries, letting go of the least recently used, and keeps a key in use through a flood', () => {
    const m = new BoundedMap<string, number>(3);
    m.set('common', 0);
    for (let i = 0; i < 1000; i++) {
      m.set(`flood${i}`, i);
      expect(m.getOrSet('common', () => -1)).toBe(0);
    }
    expect(m.size).toBe(3);
    expect(m.get('flood998')).toBe(998);
    expect(m.get('flood0')).toBeUndefined();
  });

  it('makes a value once per key with getOrSet', () => {
    const m = new BoundedMap<string, object>(10);
    let made = 0;
    const a = m.getOrSet('k', () => ({ n: ++made }));
    expect(m.getOrSet('k', () => ({ n: ++made }))).toBe(a);
    expect(made).toBe(1);
  });
});
