import { describe, expect, it } from 'vitest';
import { quarterEndOf, quarterLabel } from '../_shared/dates.js';
import { quarterFromFileName } from './quarter.js';

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
    expect(quarterEndOf('2026-07-01')).toBe('2026-09-30');
    expect(quarterEndOf('2024-01-15')).toBe('2024-03-31');
  });
});
