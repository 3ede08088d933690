import { describe, expect, it } from 'vitest';
import { fakePtpSnapshot, ptpRow, TWO_PTP_QUARTERS } from '../../testing/ptp.js';
import { getColumn1Groups, lookupPtpEdit, ptpEditStatus } from './queries.js';

describe('ptpEditStatus', () => {
  it('keeps an edit in force through its deletion date and drops it the day after', () => {
    const r = ptpRow('A0001', 'A0002', '2020-01-01', '2023-12-31');
    expect(ptpEditStatus(r, '2023-12-31')).toBe('active');
    expect(ptpEditStatus(r, '2024-01-01')).toBe('deleted');
    expect(ptpEditStatus(r, '2019-12-31')).toBe('not_yet_effective');
    expect(ptpEditStatus({ ...r, modifier_indicator: '9' }, '2021-06-01')).toBe('not_applicable');
  });
});

describe('lookupPtpEdit', () => {
  it('prefers the re-added row in force over the deleted one and answers in CMS order', async () => {
    const { snap } = fakePtpSnapshot(TWO_PTP_QUARTERS);
    const l = await lookupPtpEdit(snap, 'ncci_ptp_prac', '97597', '11042', '2026-07-02');
    expect(l).toMatchObject({ status: 'active', row: { column1: '11042', column2: '97597', effective_date: '2026-07-01', modifier_indicator: '0' } });
    const q2 = await lookupPtpEdit(snap, 'ncci_ptp_prac', '11042', '97597', '2026-05-01');
    expect(q2).toMatchObject({ status: 'active', choice: { version: { version: '32.1' } }, row: { modifier_indicator: '1', deletion_date: null } });
  });

  it('queries DuckDB once per column-1 code, never for codes that only appear in column 2', async () => {
    const { snap, queries } = fakePtpSnapshot(TWO_PTP_QUARTERS);
    await lookupPtpEdit(snap, 'ncci_ptp_prac', '93000', '93010', '2026-07-02');
    await lookupPtpEdit(snap, 'ncci_ptp_prac', '93010', '93000', '2026-05-02');
    await lookupPtpEdit(snap, 'ncci_ptp_prac', '93000', '99999', '2026-05-02');
    expect(queries.filter((q) => /WHERE column1 = \$1/.test(q))).toHaveLength(1);
    expect(queries.filter((q) => /DISTINCT/.test(q))).toHaveLength(1);
  });

  it('drops the least recently used code groups past the row budget', async () => {
    const { snap, queries } = fakePtpSnapshot(TWO_PTP_QUARTERS);
    const groupQueries = () => queries.filter((q) => /WHERE column1 = \$1/.test(q)).length;
    await getColumn1Groups(snap, 'ncci_ptp_prac', '11042', 3); // 3 rows (one in 32.1, two in 32.2)
    await getColumn1Groups(snap, 'ncci_ptp_prac', '93000', 3); // 2 more rows: 11042 is evicted
    expect(groupQueries()).toBe(2);
    const g = await getColumn1Groups(snap, 'ncci_ptp_prac', '93000', 3);
    expect(groupQueries()).toBe(2);
    expect(g.get('32.2')?.get('93010')?.[0]?.modifier_indicator).toBe('0');
    await getColumn1Groups(snap, 'ncci_ptp_prac', '11042', 3);
    expect(groupQueries()).toBe(3);
  });

  it('tells no edit from no data', async () => {
    const { snap } = fakePtpSnapshot(TWO_PTP_QUARTERS);
    expect((await lookupPtpEdit(snap, 'ncci_ptp_prac', '93000', '99999', '2026-07-02')).status).toBe('no_edit');
    expect((await lookupPtpEdit(snap, 'ncci_ptp_hosp', '93000', '93010', '2026-07-02')).status).toBe('no_data');
  });
});

describe('getColumn1Groups', () => {
  it('loads a code once for concurrent lookups and does not keep a failed load', async () => {
    const { snap, queries } = fakePtpSnapshot(TWO_PTP_QUARTERS);
    const groupQueries = () => queries.filter((q) => /WHERE column1 = \$1/.test(q)).length;
    const [a, b] = await Promise.all([getColumn1Groups(snap, 'ncci_ptp_prac', '11042'), getColumn1Groups(snap, 'ncci_ptp_prac', '11042')]);
    expect(a).toBe(b);
    expect(groupQueries()).toBe(1);
    const all = snap.all.bind(snap);
    snap.all = async () => {
      throw new Error('duckdb down');
    };
    await expect(getColumn1Groups(snap, 'ncci_ptp_prac', '93000')).rejects.toThrow('duckdb down');
    snap.all = all;
    expect((await getColumn1Groups(snap, 'ncci_ptp_prac', '93000')).get('32.2')?.get('93010')).toHaveLength(1);
  });
});
