import { describe, expect, it } from 'vitest';
import type { DatasetVersion } from '../../warehouse/manifest.js';
import { quarterEnd, quarterFromFileName, quarterLabel, selectVersion } from './quarter.js';

const v = (version: string, effective_date: string | null): DatasetVersion => ({
  dataset: 'x',
  version,
  effective_date,
  file: `${version}.duckdb`,
  source_files: [{ name: `${version}.csv`, sha256: '', bytes: 1 }],
  rows: 1,
  rejects: 0,
  loaded_at: '2026-11-01T00:00:00Z',
});

describe('quarter helpers', () => {
  it('reads quarters from CMS file names', () => {
    expect(quarterFromFileName('MCR_MUE_PractitionerServices_Eff_07-01-2026.csv')).toEqual({ label: '2026Q3', effective_date: '2026-07-01' });
    expect(quarterFromFileName('MCR_MUE_OutpatientHospitalServices_Eff_01-01-2027.excerpt.csv')).toEqual({ label: '2027Q1', effective_date: '2027-01-01' });
    expect(quarterFromFileName('AOC_V2026Q3-MCR.xlsx')).toEqual({ label: '2026Q3', effective_date: '2026-07-01' });
    expect(quarterFromFileName('MCD_MUE_DME_Supplier_Services_2025Q4.csv')).toEqual({ label: '2025Q4', effective_date: '2025-10-01' });
    expect(quarterFromFileName('MCR_MUE_Eff_02-30-2026.csv')).toBeUndefined();
    expect(quarterFromFileName('mue.csv')).toBeUndefined();
  });

  it('computes quarter labels and ends', () => {
    expect(quarterLabel('2026-12-31')).toBe('2026Q4');
    expect(quarterEnd('2026-07-01')).toBe('2026-09-30');
    expect(quarterEnd('2024-01-15')).toBe('2024-03-31');
  });
});

describe('selectVersion', () => {
  const versions = [v('2026Q1', '2026-01-01'), v('2026Q3', '2026-07-01')];

  it('picks the version whose quarter contains the date, the latest without a date', () => {
    expect(selectVersion('x', versions, '2026-03-31')).toEqual({ version: versions[0], covered: true });
    expect(selectVersion('x', versions, '2026-07-01')?.version.version).toBe('2026Q3');
    expect(selectVersion('x', versions)?.version.version).toBe('2026Q3');
    expect(selectVersion('x', [], '2026-07-01')).toBeUndefined();
  });

  it('falls back to the nearest version with a warning when no quarter covers the date', () => {
    const gap = selectVersion('x', versions, '2026-04-20'); // 20 days after Q1, 72 before Q3
    expect(gap).toMatchObject({ covered: false, version: { version: '2026Q1' } });
    expect(gap?.warning).toBe('x: no loaded version covers date of service 2026-04-20; answered from the nearest version 2026Q1 (effective 2026-01-01)');
    expect(selectVersion('x', versions, '2026-06-20')?.version.version).toBe('2026Q3');
    expect(selectVersion('x', versions, '2019-01-01')?.version.version).toBe('2026Q1');
  });

  it('prefers the later of two versions that both cover the date (a mid-quarter correction)', () => {
    const both = [v('2026Q3', '2026-07-01'), v('2026Q3b', '2026-08-15')];
    expect(selectVersion('x', both, '2026-09-01')?.version.version).toBe('2026Q3b');
    expect(selectVersion('x', both, '2026-08-01')?.version.version).toBe('2026Q3');
  });
});
