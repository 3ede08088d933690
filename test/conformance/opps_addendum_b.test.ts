import { join } from 'node:path';
import readXlsxFile from 'read-excel-file/node';
import { beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../../datasets/_shared/source.js';
import { openTestSnapshot, parseAll } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';
import { isOppsHeader, oppsAddendumB, oppsLayout, type OppsAddendumBRow } from '../../datasets/opps_addendum_b/dataset.js';
import { xlsxCellText } from '../../datasets/_shared/workbook.js';
import type { Issue } from '../../warehouse/errors.js';
import { findOppsRates } from '../../datasets/opps_addendum_b/queries.js';

const present = requireShared('opps-addendum-b/2023_January_Web_Addendum_B.12212022.xlsx', 'opps-addendum-b/Section 508 version of January 2025 Web Addendum A.12.31.24.excerpt.csv');
const dir = join(sharedDataDir(), 'opps-addendum-b');
const XLSX = join(dir, '2023_January_Web_Addendum_B.12212022.xlsx');
const ADD_A = join(dir, 'Section 508 version of January 2025 Web Addendum A.12.31.24.excerpt.csv');

describe.skipIf(!present)('opps_addendum_b on the real CY2023 January workbook', () => {
  let rows: OppsAddendumBRow[];
  let rejects: { line: number; issues: Issue[] }[];
  beforeAll(async () => {
    ({ rows, rejects } = await parseAll(oppsAddendumB, [XLSX]));
  });

  it('detects the workbook by signature and name and labels it 2023-01', async () => {
    const s = await sampleFile(await toSourceFile(XLSX));
    expect(oppsAddendumB.detect(s)).toBe(true);
    expect(oppsAddendumB.version([s])).toEqual({ label: '2023-01', effective_date: '2023-01-01' });
  });

  it('reads the header on row 4 by content, whatever the padding of its names', async () => {
    const [sheet] = await readXlsxFile(XLSX);
    const data = sheet!.data.map((r) => r.map(xlsxCellText));
    expect(data.findIndex((r) => isOppsHeader(r))).toBe(3);
    expect(oppsLayout(data[3]!)).toMatchObject({ hcpcs: 0, si: 2, apc: 3, weight: 4, rate: 5, nationalCopay: 6, minimumCopay: 7, note: 8, passThrough: 9, changed: 10, ira: -1 });
  });

  it('maps all 17,559 HCPCS rows without an issue, codes unique after stripping padding', () => {
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(17559);
    expect(new Set(rows.map((r) => r.hcpcs_code)).size).toBe(17559);
  });

  it('reads the example rows of the workbook', () => {
    const by = new Map(rows.map((r) => [r.hcpcs_code, r]));
    expect(by.get('G0463')).toMatchObject({ status_indicator: 'J2', apc_code: '5012', relative_weight: 1.4122, payment_rate: 120.86, national_unadjusted_copayment: null, minimum_unadjusted_copayment: 24.18 });
    expect(by.get('71046')).toMatchObject({ status_indicator: 'Q3', apc_code: '5521', relative_weight: 1.0151, payment_rate: 86.88, minimum_unadjusted_copayment: 17.38 });
    expect(by.get('36415')).toMatchObject({ status_indicator: 'Q4', apc_code: null, payment_rate: null });
    expect(by.get('G0465')).toMatchObject({ status_indicator: 'T', apc_code: '5054', payment_rate: 1725.86 });
    expect(by.get('J9035')).toMatchObject({ status_indicator: 'K', apc_code: '9214', payment_rate: 70.752, changed: true });
    expect(by.get('0134A')?.apc_code).toBe('9398');
  });

  it('collapses padded status indicators to 25 codes with the published counts', () => {
    const si: Record<string, number> = {};
    for (const r of rows) si[r.status_indicator] = (si[r.status_indicator] ?? 0) + 1;
    expect(Object.keys(si)).toHaveLength(25);
    expect(si).toMatchObject({ J1: 3041, N: 2017, A: 1764, C: 1723, M: 1298, E1: 1232, Q4: 1226, B: 1201, T: 848, F: 1 });
  });

  it('never turns "." into a $0 copay', () => {
    expect(rows.filter((r) => r.payment_rate !== null)).toHaveLength(6182);
    expect(rows.filter((r) => r.national_unadjusted_copayment !== null)).toHaveLength(126);
    expect(rows.filter((r) => r.payment_rate !== null && r.national_unadjusted_copayment === null)).toHaveLength(6182 - 126);
  });
});

describe.skipIf(!present)('findOppsRates over the real workbook', () => {
  it('answers the 2023 row and nothing for a year that is not loaded', async () => {
    const snap = await openTestSnapshot([{ dataset: oppsAddendumB, files: [XLSX] }]);
    try {
      expect((await findOppsRates(snap, 'G0463'))[0]).toMatchObject({ apc_code: '5012', payment_rate: 120.86, version: '2023-01' });
      expect((await findOppsRates(snap, 'G0463', 2023))[0]).toMatchObject({ year: 2023 });
      expect(await findOppsRates(snap, 'G0463', 2026)).toEqual([]);
    } finally {
      snap.close();
    }
  });
});

describe.skipIf(!present)('opps_addendum_b against the real Addendum A 508 CSV', () => {
  it('does not take the APC table (Addendum A) for Addendum B', async () => {
    const s = await sampleFile(await toSourceFile(ADD_A));
    expect(oppsAddendumB.detect(s)).toBe(false);
    await expect(parseAll(oppsAddendumB, [ADD_A])).rejects.toThrow(/no header row/);
  });
});
