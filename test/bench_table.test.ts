import { describe, expect, it } from 'vitest';
import { table } from '../bench/lib.js';

describe('the bench printout', () => {
  it('shows every column any row has, in the order they first appear, a cell a row lacks left blank', () => {
    // An area whose first row (an ingest) has no p99 beside request rows that do.
    const out = table([
      { case: 'ingest', 'req/s': '35,152 rows/s', 'p50 ms': 56900 },
      { case: 'search', 'req/s': 418, 'p50 ms': 1, 'p99 ms': 8 },
    ]).split('\n');
    expect(out[0]!.trimEnd().split(/\s{2,}/)).toEqual(['case', 'req/s', 'p50 ms', 'p99 ms']);
    expect(out[2]!.trimEnd()).toBe('ingest  35,152 rows/s  56900');
    expect(out[3]!.trimEnd().split(/\s{2,}/)).toEqual(['search', '418', '1', '8']);
    expect(table([])).toBe('');
  });
});
