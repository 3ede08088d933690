import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { verifyDmepos } from '../../server/fee_schedules/verify.js';
import { tempDir } from '../../testing/temp_dirs.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../../datasets/_shared/source.js';
import { openTestSnapshot, parseAll } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';
import { dmepos, type DmeposRow } from '../../datasets/dmepos/dataset.js';
import { findDmeRates, findDmeFees } from '../../datasets/dmepos/queries.js';
import { dmeposRuralZip } from '../../datasets/dmepos_rural_zip/dataset.js';
import { isDmeRuralZip } from '../../datasets/dmepos_rural_zip/queries.js';

const FILES = ['dmepos/DMEPOS25_APR.csv', 'dmepos/DME Rural ZIP Code Quarter 1, 2025.csv'];
const present = requireShared(...FILES);
const [FEES, ZIPS] = FILES.map((f) => join(sharedDataDir(), f)) as [string, string];

describe.skipIf(!present)('dmepos on the real CMS April 2025 file', () => {
  let rows: DmeposRow[];
  beforeAll(async () => {
    const r = await parseAll(dmepos, [FEES]);
    expect(r.rejects).toEqual([]);
    rows = r.rows;
  });

  it('detects it and labels it 2025-04', async () => {
    const s = await sampleFile(await toSourceFile(FEES));
    expect(dmepos.detect(s)).toBe(true);
    expect(dmepos.version([s])).toEqual({ label: '2025-04', effective_date: '2025-04-01' });
  });

  it('stores 3,511 code/modifier lines x 53 state columns, keys unique', () => {
    expect(rows).toHaveLength(3511 * 53);
    expect(new Set(rows.map((r) => r.state)).size).toBe(53);
    const keys = new Set(rows.map((r) => `${r.hcpcs_code}|${r.modifier}|${r.modifier2}|${r.state}`));
    expect(keys.size).toBe(rows.length);
    expect(rows.at(-1)).toMatchObject({ hcpcs_code: 'V2786', state: 'VI', short_descriptor: 'Occupational multifocal lens' });
  });

  it('reads state fees, rural-only fees and the inch-mark description as published', () => {
    const find = (c: string, m: string, m2: string, st: string) => rows.find((r) => r.hcpcs_code === c && r.modifier === m && r.modifier2 === m2 && r.state === st);
    expect(find('E0110', 'NU', '', 'AK')).toMatchObject({ non_rural_rate: 113.78, rural_rate: null, ceiling: 108.41, floor: 92.15 });
    expect(find('E0110', 'NU', '', 'TX')?.non_rural_rate).toBe(99.73);
    expect(find('K0001', 'RR', '', 'TX')).toMatchObject({ non_rural_rate: 27.77, rural_rate: 52.48, ceiling: null, floor: null, category: 'CR' });
    expect(find('A4636', 'NU', 'KE', 'AL')).toMatchObject({ non_rural_rate: null, rural_rate: 4.52 });
    expect(find('A4407', '', '', 'AL')?.short_descriptor).toBe('Ext wear ost skn barr <=4sq"');
    // `0.00` is never stored as $0.
    expect(rows.some((r) => r.non_rural_rate === 0 || r.rural_rate === 0 || r.ceiling === 0)).toBe(false);
  });
});

describe.skipIf(!present)('dmepos_rural_zip on the real Q1 2025 list and the queries over both', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([
      { dataset: dmepos, files: [FEES] },
      { dataset: dmeposRuralZip, files: [ZIPS] },
    ]);
  });
  afterAll(() => snap?.close());

  it('reads all 15,913 ZIPs as 2025Q1 with leading zeros', async () => {
    const s = await sampleFile(await toSourceFile(ZIPS));
    expect(dmeposRuralZip.version([s])).toEqual({ label: '2025Q1', effective_date: '2025-01-01' });
    const { rows, rejects } = await parseAll(dmeposRuralZip, [ZIPS]);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(15913);
    expect(new Set(rows.map((r) => r.zip)).size).toBe(15913);
    expect(rows[0]).toEqual({ zip: '01223', state: 'MA', year_quarter: '202501', year: 2025, quarter: 1 });
    expect(rows.at(-1)?.zip).toBe('99371');
  });

  it('rcm verify dmepos reads every state row of the file back through the DME route: 186,083 rows, none differ; a changed fee is named', async () => {
    const r = await verifyDmepos(snap, await toSourceFile(FEES));
    expect(r).toMatchObject({ version: '2025-04', checked: 3511 * 53, differences: [] });
    const text = await readFile(FEES, 'latin1');
    const changed = join(await tempDir('rcm-dme-verify-'), 'DMEPOS25_APR.csv');
    // E0110 NU's Alaska fee, 113.78 in the file, written as 113.79.
    const line = text.split('\n').findIndex((l) => l.startsWith('E0110,NU,'));
    expect(line).toBeGreaterThan(0);
    const lines = text.split('\n');
    lines[line] = lines[line]!.replace('113.78', '113.79');
    await writeFile(changed, lines.join('\n'), 'latin1');
    const bad = await verifyDmepos(snap, await toSourceFile(changed));
    expect(bad.differences).toEqual([{ line: line + 1, code: 'E0110', modifiers: 'NU', state: 'AK', field: 'non_rural_rate', file: 113.79, answered: 113.78 }]);
  });

  it('answers rural ZIP and DME rate lookups from the real files', async () => {
    expect(await isDmeRuralZip(snap, '01223')).toBe(true);
    expect(await isDmeRuralZip(snap, '10001')).toBe(false);
    expect((await findDmeRates(snap, 'K0001', 'TX'))[0]?.rural_rate).toBe(52.48);
    expect((await findDmeRates(snap, 'A4636', 'AL', 'UE KE'))[0]?.rural_rate).toBe(3.52);
    const list = await findDmeFees(snap, 'E0110', { state: 'AK', limit: 50 });
    expect(list).toMatchObject({ version: '2025-04', total_count: 3, known: true });
    expect((await findDmeFees(snap, 'E0110', { year: 2024, limit: 50 })).rows).toEqual([]);
  });
});
