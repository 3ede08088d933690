import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { isoDate } from './io.js';

describe('a date option (--as-of, --effective-date)', () => {
  it('takes a real calendar date, 29 February of a leap year included', () => {
    for (const d of ['2026-08-10', '2028-02-29', '2024-02-29', '2000-02-29', '2026-12-31', '2026-01-01']) expect(isoDate(d)).toBe(d);
  });

  it('refuses a date that is not on the calendar as a usage error (commander InvalidArgumentError: exit 2)', () => {
    // 1900 and 2100 are not leap years (divisible by 100, not by 400).
    for (const d of ['2026-13-45', '2026-02-30', '2026-02-29', '1900-02-29', '2100-02-29', '2026-04-31', '2026-00-10', '2026-01-00']) {
      expect(() => isoDate(d), d).toThrow(InvalidArgumentError);
      expect(() => isoDate(d), d).toThrow(`${d} is not a calendar date (YYYY-MM-DD)`);
    }
  });

  it('refuses a date outside the range the API takes (1900-01-01 to 2199-12-31)', () => {
    expect(isoDate('1900-01-01')).toBe('1900-01-01');
    expect(isoDate('2199-12-31')).toBe('2199-12-31');
    for (const d of ['1899-12-31', '2200-01-01', '0050-01-01']) expect(() => isoDate(d), d).toThrow(`${d} is outside 1900-01-01 to 2199-12-31`);
  });

  it('agrees with the calendar of datasets/_shared/dates.ts on every day of 1900 to 2199', async () => {
    const { isoOfYmd } = await import('../datasets/_shared/dates.js');
    const disagree: string[] = [];
    for (let y = 1900; y <= 2199; y++) {
      for (let m = 1; m <= 12; m++) {
        for (let d = 1; d <= 31; d++) {
          const v = `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
          let ok = true;
          try {
            isoDate(v);
          } catch {
            ok = false;
          }
          if (ok !== (isoOfYmd(y, m, d) !== null)) disagree.push(v);
        }
      }
    }
    expect(disagree).toEqual([]);
  });

  it('refuses anything but YYYY-MM-DD', () => {
    for (const d of ['2026-8-10', '08/10/2026', '20260810', '2026-08-10T00:00', '']) expect(() => isoDate(d), d).toThrow('expected YYYY-MM-DD');
  });
});
