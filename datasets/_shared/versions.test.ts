import { describe, expect, it } from 'vitest';
import { quarterEndOf, quarterStartOf } from './dates.js';
import { pickForRequest, requireCovered, selectVersion, versionForRequest } from './versions.js';
import type { DatasetVersion } from '../../warehouse/manifest.js';

const v = (version: string, effective_date: string | null, loaded_at = '2026-11-01T00:00:00Z'): DatasetVersion => ({
  dataset: 'x',
  version,
  effective_date,
  file: `${version}.duckdb`,
  source_files: [{ name: `${version}.csv`, sha256: '', bytes: 1 }],
  rows: 1,
  rejects: 0,
  loaded_at,
});

describe('selectVersion, quarter rule (NCCI PTP, MUE, add-on)', () => {
  const versions = [v('32.0', '2026-01-01'), v('32.2', '2026-07-01')];
  const at = (date?: string, vs = versions) => selectVersion('x', vs, { rule: 'quarter', date });

  it('picks the version whose quarter contains the date, the latest without a date', () => {
    expect(at('2026-03-31')).toEqual({ version: versions[0], covered: true });
    expect(at('2026-01-01')).toEqual({ version: versions[0], covered: true });
    expect(at('2026-07-01')?.version.version).toBe('32.2');
    expect(at('2026-09-30')?.version.version).toBe('32.2');
    expect(at()?.version.version).toBe('32.2');
    expect(at('2026-07-01', [])).toBeUndefined();
  });

  it('falls back to the nearest quarter with a warning (a gap, before the first, after the last)', () => {
    const gap = at('2026-04-20'); // 20 days after Q1, 72 before Q3
    expect(gap).toMatchObject({ covered: false, version: { version: '32.0' } });
    expect(gap?.warning).toMatch(/^no x version loaded covers date of service 2026-04-20; answered from the nearest version 32.0 \(effective 2026-01-01\); loaded: 32.0 \(from 2026-01-01\), 32.2 \(from 2026-07-01\)$/);
    expect(at('2026-06-25')).toMatchObject({ covered: false, version: { version: '32.2' } });
    expect(at('2019-01-01')).toMatchObject({ covered: false, version: { version: '32.0' } });
    expect(at('2027-03-01')).toMatchObject({ covered: false, version: { version: '32.2' } });
  });

  it('prefers the later of two versions covering the date (a mid-quarter correction, a re-posted revision)', () => {
    const both = [v('2026Q3', '2026-07-01'), v('2026Q3b', '2026-08-15')];
    expect(at('2026-09-01', both)?.version.version).toBe('2026Q3b');
    expect(at('2026-08-01', both)?.version.version).toBe('2026Q3');
    const reposted = [v('32.2r1', '2026-07-01', '2026-07-20T00:00:00Z'), v('32.2', '2026-07-01', '2026-06-01T00:00:00Z')];
    expect(at('2026-08-01', reposted)?.version.version).toBe('32.2r1');
  });

  it('reads the quarter from a label when a version has no effective date, and says when none has one', () => {
    expect(at('2026-08-01', [v('2026Q3', null)])).toMatchObject({ covered: true });
    expect(at('2026-08-01', [v('a', null)])?.warning).toMatch(/has no effective date/);
  });
});

describe('selectVersion, effective rule (PFS RVU and GPCI releases, wage index)', () => {
  const versions = [v('2026A', '2026-01-01'), v('2025D', '2025-10-01'), v('2026C', '2026-07-01')];
  const at = (date?: string) => selectVersion('mpfs_rvu', versions, { rule: 'effective', date });

  it('picks the latest release effective on or before the date, in effective order whatever the load order', () => {
    expect(at('2026-06-30')?.version.version).toBe('2026A');
    expect(at('2026-07-01')?.version.version).toBe('2026C');
    expect(at('2025-12-31')?.version.version).toBe('2025D');
    expect(at('2030-01-01')?.version.version).toBe('2026C');
    expect(at()?.version.version).toBe('2026C');
  });

  it('answers a date before every release with the earliest, flagged and explained', () => {
    expect(at('2024-03-01')).toEqual({
      version: versions[1],
      covered: false,
      warning: 'no mpfs_rvu release loaded is effective on 2024-03-01; used 2025D (effective 2025-10-01)',
    });
  });
});

describe('selectVersion, year rule (calendar-year payment files: PFS RVU, GPCI, OPPS Addendum B)', () => {
  const versions = [v('2025D', '2025-10-01'), v('2025A', '2025-01-01')];
  const at = (date: string, vs = versions) => selectVersion('mpfs_rvu', vs, { rule: 'year', date });

  it('covers a date only with a release of its year, the latest in force', () => {
    expect(at('2025-11-03')).toEqual({ version: versions[0], covered: true });
    expect(at('2025-06-30')).toEqual({ version: versions[1], covered: true });
  });

  it('answers a year with no release from the nearest one, flagged, the warning naming both years', () => {
    expect(at('2026-03-02')).toEqual({
      version: versions[0],
      covered: false,
      warning: 'no mpfs_rvu release of 2026 is loaded for date of service 2026-03-02; answered from the nearest release 2025D (2025, effective 2025-10-01)',
    });
    expect(at('2024-12-31')).toMatchObject({ version: versions[1], covered: false, warning: expect.stringMatching(/of 2024 .*2025A \(2025, effective 2025-01-01\)/) });
    // The effective rule keeps the 2025 release in force for 2026: only the year rule says it is not 2026's.
    expect(selectVersion('mpfs_rvu', versions, { rule: 'effective', date: '2026-03-02' })?.covered).toBe(true);
  });
});

describe('selectVersion, by year (fee-schedule lookups)', () => {
  it("picks that year's newest release, none when the year has none", () => {
    const versions = [v('2025Q4V1', '2025-10-01'), v('2026Q1V1', '2026-01-01'), v('2026Q3V1', '2026-07-01')];
    expect(selectVersion('clfs', versions, { rule: 'effective', year: 2026 })?.version.version).toBe('2026Q3V1');
    expect(selectVersion('clfs', versions, { rule: 'effective', year: 2025 })?.version.version).toBe('2025Q4V1');
    expect(selectVersion('clfs', versions, { rule: 'effective', year: 2024 })).toBeUndefined();
  });
});

describe('quarter arithmetic', () => {
  it('finds quarter starts and ends across month lengths and leap years', () => {
    expect(quarterStartOf('2026-08-15')).toBe('2026-07-01');
    expect(quarterStartOf('2026-12-31')).toBe('2026-10-01');
    expect(quarterEndOf('2024-02-29')).toBe('2024-03-31');
    expect(quarterEndOf('2026-04-01')).toBe('2026-06-30');
    expect(quarterEndOf('2026-11-30')).toBe('2026-12-31');
  });
});

describe('the date rule of a request (pickForRequest, requireCovered, versionForRequest)', () => {
  const quarters = [v('32.0', '2026-01-01'), v('32.2', '2026-07-01')];
  const years = [v('2025-04', '2025-04-01'), v('2026-01', '2026-01-01')];

  it('answers 404 for a date or year no loaded version covers, naming the period asked and the nearest loaded', () => {
    expect(() => versionForRequest('x', quarters, 'quarter', { date: '2026-04-20', today: '2026-12-06' })).toThrow(
      'no x version loaded covers date of service 2026-04-20 (2026Q2); the nearest loaded is 32.0 (2026Q1, effective 2026-01-01)',
    );
    expect(() => versionForRequest('x', years, 'year', { year: 2028, today: '2026-12-06' })).toThrow('no x version loaded covers CY2028; the nearest loaded is 2026-01 (CY2026, effective 2026-01-01)');
    expect(() => versionForRequest('x', years, 'year', { year: 2024, date: '2024-05-01', today: '2026-12-06' })).toThrow('no x version loaded covers date of service 2024-05-01 (CY2024); the nearest loaded is 2025-04 (CY2025, effective 2025-04-01)');
    expect(versionForRequest('x', quarters, 'quarter', { date: '2026-08-01', today: '2026-12-06' })).toEqual({ version: quarters[1], covered: true });
    expect(versionForRequest('x', years, 'year', { year: 2025, today: '2026-12-06' })).toEqual({ version: years[0], covered: true });
    // Nothing loaded: nothing to name, no 404 (the answer says the dataset is not loaded).
    expect(versionForRequest('x', [], 'quarter', { date: '2019-01-01', today: '2026-12-06' })).toBeUndefined();
  });

  it("picks today's version without a date, else the newest loaded, flagged with a warning", () => {
    expect(pickForRequest('x', quarters, 'quarter', { today: '2026-08-01' })).toEqual({ version: quarters[1], covered: true });
    expect(pickForRequest('x', years, 'year', { today: '2026-03-02' })).toEqual({ version: years[1], covered: true });
    expect(pickForRequest('x', quarters, 'quarter', { today: '2026-12-06' })).toEqual({
      version: quarters[1],
      covered: false,
      warning: 'no x version loaded covers today, 2026-12-06 (2026Q4); answered from the newest loaded, 32.2 (2026Q3, effective 2026-07-01)',
    });
    // Between two loaded quarters: the newest, not the nearest (the rule names one version for "no date").
    expect(pickForRequest('x', quarters, 'quarter', { today: '2026-04-02' })?.version.version).toBe('32.2');
    expect(pickForRequest('x', years, 'year', { today: '2027-02-01' })).toMatchObject({ version: years[1], covered: false, warning: 'no x version loaded covers today, 2027-02-01 (CY2027); answered from the newest loaded, 2026-01 (CY2026, effective 2026-01-01)' });
    // No date is never a 404.
    expect(() => versionForRequest('x', quarters, 'quarter', { today: '2030-01-01' })).not.toThrow();
  });

  it('answers 404 for several datasets only when none covers the date, naming each nearest', () => {
    const one = [v('2026Q2', '2026-04-01'), v('2026Q3', '2026-07-01')];
    const other = [v('2026Q3', '2026-07-01')];
    const picks = (date: string) => [
      { dataset: 'a', pick: pickForRequest('a', one, 'quarter', { date, today: date }) },
      { dataset: 'b', pick: pickForRequest('b', other, 'quarter', { date, today: date }) },
    ];
    expect(() => requireCovered({ date: '2026-05-15', today: '2026-12-06' }, 'quarter', picks('2026-05-15'))).not.toThrow();
    expect(() => requireCovered({ date: '2026-01-15', today: '2026-12-06' }, 'quarter', picks('2026-01-15'))).toThrow(
      'no a or b version loaded covers date of service 2026-01-15 (2026Q1); the nearest loaded are a 2026Q2 (effective 2026-04-01); b 2026Q3 (effective 2026-07-01)',
    );
    expect(() => requireCovered({ today: '2026-01-15' }, 'quarter', picks('2026-01-15'))).not.toThrow();
  });
});
