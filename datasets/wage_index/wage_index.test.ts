import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../warehouse/errors.js';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { openTestSnapshot, parseAll, writeTempFile } from '../../testing/datasets.js';
import { wageIndex } from './dataset.js';
import { getWageIndex } from './queries.js';
import { selectVersion } from '../_shared/versions.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const seed = join(repoRoot, 'seeds/wage_index/FY2026 IPPS Final Rule Table 3.csv');

describe('wage_index parser (seed Table 3)', () => {
  it('detects Table 3 and labels it FY2026 from the title line', async () => {
    const s = await sampleFile(await toSourceFile(seed));
    expect(wageIndex.detect(s)).toBe(true);
    expect(wageIndex.version([s])).toEqual({ label: 'FY2026', effective_date: '2025-10-01' });
  });

  it('reads urban CBSAs and the 2-digit state rural areas', async () => {
    const { rows, rejects } = await parseAll(wageIndex, [seed]);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(11);
    expect(rows.find((r) => r.cbsa === '41884')).toEqual({
      cbsa: '41884',
      area_name: 'San Francisco-San Mateo-Redwood City, CA',
      state: 'CA',
      wage_index: 1.9315,
      gaf: 1.5696,
      reclassified_wage_index: 1.9315,
      reclassified_gaf: 1.5696,
      is_rural: false,
      fiscal_year: 2026,
    });
    expect(rows.find((r) => r.cbsa === '01')).toMatchObject({ area_name: 'ALABAMA', is_rural: true, reclassified_wage_index: null });
    expect(rows.find((r) => r.cbsa === '35614')?.state).toBe('NY-NJ');
  });

  it('finds columns by name in a tab-delimited Table 3 with another column order', async () => {
    const p = await writeTempFile('table3.txt', 'Table 3. Wage Index and Capital Geographic Adjustment Factor (GAF) by CBSA - FY 2027 Final Rule\nCBSA\tState\tArea Name\tGAF\tWage Index\n10180\tTX\tAbilene, TX\t0.8813\t0.8315\n');
    const s = await sampleFile(await toSourceFile(p));
    expect(wageIndex.detect(s)).toBe(true);
    expect(wageIndex.version([s])?.label).toBe('FY2027');
    const { rows } = await parseAll(wageIndex, [p]);
    expect(rows).toEqual([expect.objectContaining({ cbsa: '10180', state: 'TX', wage_index: 0.8315, gaf: 0.8813, fiscal_year: 2027 })]);
  });
});

describe('wage_index bad input', () => {
  it('throws "file is empty" for an empty file', async () => {
    await expect(parseAll(wageIndex, [await writeTempFile('empty.csv', '')])).rejects.toThrow(/file is empty/);
  });

  it('yields nothing for a header-only file', async () => {
    const p = await writeTempFile('FY2026 t3.csv', 'CBSA,Area Name,State,Wage Index,GAF\r\n');
    expect(await parseAll(wageIndex, [p])).toEqual({ rows: [], rejects: [] });
  });

  it('refuses a file without a fiscal year', async () => {
    const p = await writeTempFile('t3.csv', 'CBSA,Area Name,State,Wage Index,GAF\r\n10180,"Abilene, TX",TX,0.8315,0.8813\r\n');
    await expect(parseAll(wageIndex, [p])).rejects.toThrow(/no fiscal year/);
  });

  it('does not claim the county crosswalk and cannot find its header there', async () => {
    const p = await writeTempFile('FY2026 xwalk.csv', 'FIPS State County Code,SSA State County Code,County Name,State,CBSA,CBSA Name\r\n06075,05480,SAN FRANCISCO,CA,41884,"San Francisco"\r\n');
    expect(wageIndex.detect(await sampleFile(await toSourceFile(p)))).toBe(false);
    await expect(parseAll(wageIndex, [p])).rejects.toThrow(/no header row found/);
  });

  it('rejects a row with a bad CBSA and a non-numeric wage index, naming both fields', async () => {
    const p = await writeTempFile('FY2026 t3.csv', 'Table 3 ... Wage Index ... FY 2026\r\nCBSA,Area Name,State,Wage Index,GAF\r\n1O180,"Abilene, TX",TX,n/a1,0.8813\r\n10180,"Abilene, TX",TX,0.8315,0.8813\r\n');
    const { rows, rejects } = await parseAll(wageIndex, [p]);
    expect(rows).toHaveLength(1);
    expect(rejects).toEqual([
      {
        line: 3,
        issues: [
          expect.objectContaining({ loc: ['row', 3, 'cbsa'], type: 'string_pattern_mismatch', input: '1O180' }),
          expect.objectContaining({ loc: ['row', 3, 'wage_index'], type: 'float_parsing', input: 'n/a1' }),
        ],
      },
    ]);
  });
});

describe('getWageIndex', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: wageIndex, files: [seed] }]);
  });
  afterAll(() => snap.close());

  it('returns the CBSA row with the version label', async () => {
    expect(await getWageIndex(snap, '35614')).toMatchObject({ cbsa: '35614', wage_index: 1.3456, gaf: 1.2254, version: 'FY2026' });
    expect(await getWageIndex(snap, '33')).toMatchObject({ area_name: 'NEW YORK', is_rural: true, wage_index: 0.8954 });
  });

  it('picks the fiscal year in force on a date of service', () => {
    const at = (date: string) => selectVersion('wage_index', snap.versions('wage_index'), { rule: 'effective', date });
    expect(at('2026-03-15')).toMatchObject({ version: { version: 'FY2026' }, covered: true });
    expect(at('2025-10-01')).toMatchObject({ version: { version: 'FY2026' }, covered: true });
    expect(at('2025-09-30')).toMatchObject({ covered: false });
  });

  it('throws NotFoundError for an unknown CBSA or version', async () => {
    await expect(getWageIndex(snap, '99999')).rejects.toThrow(NotFoundError);
    await expect(getWageIndex(snap, '35614', 'FY2025')).rejects.toThrow(/FY2025 is not loaded/);
  });
});
