import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../../datasets/_shared/source.js';
import { openTestSnapshot, parseAll } from '../../testing/datasets.js';
import { verifyClfs } from '../../server/fee_schedules/verify.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';
import { clfs, type ClfsRow } from '../../datasets/clfs/dataset.js';
import { findLabRates } from '../../datasets/clfs/queries.js';

const FILES = ['clfs/PUF_CLFS_CY2026_Q3V1.csv', 'clfs/PUF_CLFS_CY2026_Q3V1.txt', 'clfs/CLFS 2025 Q2V1.csv'];
const present = requireShared(...FILES);
const [CSV26, TXT26, CSV25] = FILES.map((f) => join(sharedDataDir(), f)) as [string, string, string];

const count = <T>(xs: T[], f: (x: T) => string) => xs.reduce<Record<string, number>>((m, x) => ((m[f(x)] = (m[f(x)] ?? 0) + 1), m), {});

describe.skipIf(!present)('clfs on the real CMS files', () => {
  let csv26: ClfsRow[];
  beforeAll(async () => {
    const r = await parseAll(clfs, [CSV26]);
    expect(r.rejects).toEqual([]);
    csv26 = r.rows;
  });

  it('reads CY2026 Q3V1 CSV: 2,206 rows, 2,081 codes, 125 QW, 79 unpriced L rows', async () => {
    const s = await sampleFile(await toSourceFile(CSV26));
    expect(clfs.detect(s)).toBe(true);
    expect(clfs.version([s])).toEqual({ label: '2026Q3V1', effective_date: '2026-07-01' });
    expect(csv26).toHaveLength(2206);
    expect(new Set(csv26.map((r) => r.hcpcs_code)).size).toBe(2081);
    expect(csv26.filter((r) => r.modifier === 'QW')).toHaveLength(125);
    const l = csv26.filter((r) => r.indicator === 'L');
    expect(l).toHaveLength(79);
    expect(l.every((r) => r.rate === null)).toBe(true);
    expect(csv26.filter((r) => r.rate === null)).toHaveLength(79);
    expect(count(csv26, (r) => r.effective_date)).toEqual({ '2026-01-01': 2158, '2026-04-01': 17, '2026-07-01': 31 });
  });

  it('reads published limits exactly', () => {
    const rate = (c: string, m = '') => csv26.find((r) => r.hcpcs_code === c && r.modifier === m)?.rate;
    expect(rate('0001U')).toBe(720);
    expect(rate('81416')).toBe(12000);
    expect(rate('36415')).toBe(9.34);
    expect(rate('80053', 'QW')).toBe(10.56);
    expect(rate('85025')).toBe(7.77);
    expect(csv26.find((r) => r.hcpcs_code === '0002M')?.extended_long_descriptor).toMatch(/^Liver disease, ten biochemical assays/);
  });

  it('reads the ~ delimited .txt to the same codes and limits as the CSV', async () => {
    const { rows, rejects } = await parseAll(clfs, [TXT26]);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(2206);
    const key = (r: ClfsRow) => `${r.hcpcs_code}|${r.modifier}|${r.rate}|${r.indicator}|${r.effective_date}`;
    expect(rows.map(key)).toEqual(csv26.map(key));
    expect(rows.every((r) => r.long_descriptor === null)).toBe(true);
  });

  it('reads the 2025 Q2V1 CSV (old header, mixed rate formats): 2,105 rows, 66 unpriced', async () => {
    const s = await sampleFile(await toSourceFile(CSV25));
    expect(clfs.version([s])?.label).toBe('2025Q2V1');
    const { rows, rejects } = await parseAll(clfs, [CSV25]);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(2105);
    expect(rows.filter((r) => r.rate === null)).toHaveLength(66);
    expect(rows.find((r) => r.hcpcs_code === '87391')?.rate).toBe(21.9);
    expect(rows.find((r) => r.hcpcs_code === '36415')?.rate).toBe(9.09);
    expect(rows.find((r) => r.hcpcs_code === 'U0002' && r.modifier === 'QW')?.rate).toBe(51.31);
    expect(rows[0]!.extended_long_descriptor).toMatch(/^Red blood cell antigen typing/);
  });

  it('picks the quarter by year when both years are loaded', async () => {
    const snap = await openTestSnapshot([
      { dataset: clfs, files: [CSV25] },
      { dataset: clfs, files: [CSV26] },
    ]);
    try {
      expect((await findLabRates(snap, '36415'))[0]).toMatchObject({ rate: 9.34, version: '2026Q3V1' });
      expect((await findLabRates(snap, '36415', undefined, 2025))[0]).toMatchObject({ rate: 9.09, version: '2025Q2V1' });
      expect((await findLabRates(snap, '0526U'))[0]).toMatchObject({ rate: null, indicator: 'L' });
    } finally {
      snap.close();
    }
  });

  it('rcm verify clfs reads the CSV and its ~-delimited twin back through the lab route: every row of both as loaded from the CSV', async () => {
    const snap = await openTestSnapshot([{ dataset: clfs, files: [CSV26] }]);
    try {
      for (const f of [CSV26, TXT26]) {
        const r = await verifyClfs(snap, await toSourceFile(f));
        expect(r, f).toMatchObject({ version: '2026Q3V1', checked: 2206, differences: [] });
      }
    } finally {
      snap.close();
    }
  });
});
