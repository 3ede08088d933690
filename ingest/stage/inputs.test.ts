import { describe, expect, it } from 'vitest';
import { latestDate } from './inputs.js';

const sample = (text: string) => ({ name: 'f.csv', text, lines: text.split('\n') });

describe('the date a file suggests for its release', () => {
  it('is the latest calendar date of its first rows, written with or without dashes, never after today', () => {
    expect(latestDate([sample('code,start,modified\n1,1995-01-01,2026-08-17\n2,20250401,\n')], '2026-12-06')).toBe('2026-08-17');
    expect(latestDate([sample('a,20250401\nb,2027-01-01\n')], '2026-12-06')).toBe('2025-04-01');
    // Not a date: 13th months, phone numbers, NDCs and ids that only look like digits.
    expect(latestDate([sample('(334) 793-8701,0002-0485,20251345,1234567893\n')], '2026-12-06')).toBeNull();
  });
});
