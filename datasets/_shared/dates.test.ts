import { describe, expect, it } from 'vitest';
import { addBusinessDays, addDays, addMonths, daysBetween, endOfMonth, federalHolidays, monthNamed, monthRelease, nextBusinessDay, titleCalendarYear, toDays } from './dates.js';

describe('calendar arithmetic', () => {
  it('adds months clamping to the month end, across leap years', () => {
    expect(addMonths('2024-02-29', 12)).toBe('2025-02-28');
    expect(addMonths('2024-02-29', 48)).toBe('2028-02-29');
    expect(addMonths('2025-01-31', 1)).toBe('2025-02-28');
    expect(addMonths('2024-01-31', 1)).toBe('2024-02-29');
    expect(addMonths('2025-08-31', 6)).toBe('2026-02-28');
    expect(addMonths('2025-12-15', 1)).toBe('2026-01-15');
    expect(addMonths('2026-03-31', -1)).toBe('2026-02-28');
  });

  it('adds days and counts days across month ends, leap days and years', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2025-02-28', 1)).toBe('2025-03-01');
    expect(addDays('2026-03-02', 125)).toBe('2026-07-05');
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(daysBetween('2024-02-01', '2024-03-01')).toBe(29);
    expect(daysBetween('2026-04-01', '2026-03-31')).toBe(-1);
    expect(endOfMonth('2024-02-10')).toBe('2024-02-29');
    expect(endOfMonth('2100-02-10')).toBe('2100-02-28');
  });

  it('refuses impossible dates', () => {
    expect(() => toDays('2025-02-29')).toThrow(/not a calendar date/);
    expect(() => toDays('2025-2-1')).toThrow(/not an ISO date/);
  });

  it('knows the federal holidays as observed (5 U.S.C. 6103)', () => {
    const h2026 = federalHolidays(2026);
    expect([...h2026.keys()].sort()).toEqual([
      '2026-01-01',
      '2026-01-19',
      '2026-02-16',
      '2026-05-25',
      '2026-06-19',
      '2026-07-03', // July 4 is a Saturday
      '2026-09-07',
      '2026-10-12',
      '2026-11-11',
      '2026-11-26',
      '2026-12-25',
    ]);
    // 2022-01-01 was a Saturday: observed on Friday 2021-12-31.
    expect(federalHolidays(2021).get('2021-12-31')).toMatch(/New Year/);
    // Juneteenth only from 2021.
    expect([...federalHolidays(2020).values()].some((n) => n.includes('Juneteenth'))).toBe(false);
  });

  it('moves a date to the next business day, saying why', () => {
    expect(nextBusinessDay('2026-07-06')).toEqual({ date: '2026-07-06', moved_from: null, reasons: [] });
    // Friday July 3 2026 is the observed Independence Day, then a weekend.
    expect(nextBusinessDay('2026-07-03')).toEqual({
      date: '2026-07-06',
      moved_from: '2026-07-03',
      reasons: ['2026-07-03 is Independence Day', '2026-07-04 is a Saturday', '2026-07-05 is a Sunday'],
    });
    expect(nextBusinessDay('2026-12-25').date).toBe('2026-12-28');
    expect(addBusinessDays('2026-11-24', 3)).toBe('2026-11-30'); // skips Thanksgiving and the weekend
  });
});

describe('date arithmetic, one home (datasets/_shared/dates.ts)', () => {
  it('is the only source file that turns instants into calendar dates by hand', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const root = join(import.meta.dirname, '../..');
    const byHand: string[] = [];
    for (const top of ['cli', 'server', 'ingest', 'datasets', 'warehouse']) {
      for (const f of await readdir(join(root, top), { recursive: true })) {
        if (!f.endsWith('.ts') || f.endsWith('.test.ts') || `${top}/${f}` === 'datasets/_shared/dates.ts') continue;
        const text = await readFile(join(root, top, f), 'utf8');
        text.split('\n').forEach((l, i) => {
          if (/Date\.UTC\(|toISOString\(\)\.slice\(0, ?10\)|Date\.parse\(`\$\{[^}]+\}T00:00:00Z`\)/.test(l)) byHand.push(`${top}/${f}:${i + 1}: ${l.trim()}`);
        });
      }
    }
    expect(byHand).toEqual([]);
  });

  it('gives quarters: start, end (leap February included), next and label', async () => {
    const { nextQuarterStart, quarterEndOf, quarterLabel, quarterStart, quarterStartOf, isoOfYmd, isoDateOf } = await import('./dates.js');
    expect(quarterStart(2026, 3)).toBe('2026-07-01');
    expect(quarterStartOf('2026-12-31')).toBe('2026-10-01');
    expect(quarterEndOf('2024-02-29')).toBe('2024-03-31');
    expect(quarterEndOf('2026-11-30')).toBe('2026-12-31');
    expect(nextQuarterStart('2026-10-01')).toBe('2027-01-01');
    expect(nextQuarterStart('2026-11-15')).toBe('2027-01-01');
    expect(quarterLabel('2026-08-15')).toBe('2026Q3');
    expect(isoOfYmd(2024, 2, 29)).toBe('2024-02-29');
    expect(isoOfYmd(2025, 2, 29)).toBeNull();
    expect(isoDateOf(new Date('2026-03-01T23:59:59.999Z'))).toBe('2026-03-01');
  });
});

describe('a monthly release named in a file name or title', () => {
  it('reads a month spelled out or abbreviated as a word, never inside another word', () => {
    expect(monthNamed('Section 508 version of January 2025 Web Addendum A.12.31.24.csv')).toBe(1);
    expect(monthNamed('508-Version-Jan-2025-ASC-AA.csv')).toBe(1);
    expect(monthNamed('2023_January_Web_Addendum_B.12212022.xlsx')).toBe(1);
    expect(monthNamed('october 2026 Payment Indicator')).toBe(10);
    expect(monthNamed('Market basket 2025')).toBeUndefined();
    expect(monthNamed('Decision memo')).toBeUndefined();
  });

  it('labels a month YYYY-MM effective its first day, a year alone YYYY effective January 1', () => {
    expect(monthRelease(2025, 1)).toEqual({ label: '2025-01', effective_date: '2025-01-01' });
    expect(monthRelease(2026, 10)).toEqual({ label: '2026-10', effective_date: '2026-10-01' });
    expect(monthRelease(2024)).toEqual({ label: '2024', effective_date: '2024-01-01' });
  });

  it('finds the calendar year on the title line its pattern names, among the first ten lines', () => {
    const lines = ['', ',Addendum B.- OPPS Payment by HCPCS Code for CY 2026,,', 'notice CY 2020'];
    expect(titleCalendarYear(lines, /Addendum B\b/i)).toBe(2026);
    expect(titleCalendarYear(lines, /Addendum A\b/i)).toBeUndefined();
    expect(titleCalendarYear(['Addendum AA -- ASC Covered Surgical Procedures for CY 2025'], /Addendum A\b/i)).toBeUndefined();
  });
});
