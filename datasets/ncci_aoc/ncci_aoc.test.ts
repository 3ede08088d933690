import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { REPO_ROOT, openTestSnapshot, parseAll, writeTempFile } from '../../testing/datasets.js';
import { MUE_SEEDS } from '../../testing/mue.js';
import { ncciAoc, type AocRow } from './dataset.js';
import { aocApplies, lookupAocEdits } from './queries.js';

const SEED = join(REPO_ROOT, 'seeds/ncci_aoc/AOC_V2026Q3-MCR.csv');
const MUE = MUE_SEEDS.ncci_mue_prac;

/** The seed's 11001/11005 edit as published: retired at the end of 2025. */
const ROW_11001_11005: AocRow = {
  addon_code: '11001',
  primary_code: '11005',
  aoc_edit_type: 1,
  aoc_edit_eff_dt: '2011-01-01',
  aoc_edit_del_dt: '2025-12-31',
  addon_eff_dt: null,
  addon_del_dt: null,
  primary_eff_dt: null,
  primary_del_dt: null,
  special_instruction_notes: null,
};
const HEADER = 'Add-On Code,AOC Del Dt,Primary Code,Primary Code Del Dt,AOC Edit Type,AOC Edit Eff Dt,AOC Edit Del Dt,Special Instruction Notes';

describe('ncci_aoc dataset', () => {
  it('parses the seed: pairs, types, dates as ISO, CCCCC kept for Type 2', async () => {
    const { rows, rejects } = await parseAll(ncciAoc, SEED);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(14);
    expect(rows.find((r) => r.addon_code === '11001' && r.primary_code === '11005')).toEqual(ROW_11001_11005);
    expect(rows.find((r) => r.addon_code === '99100')).toMatchObject({ primary_code: 'CCCCC', aoc_edit_type: 2 });
  });

  it('detects the AOC file (csv and tab txt) and not an MUE file; version from V2026Q3', async () => {
    const s = await sampleFile(await toSourceFile(SEED));
    expect(ncciAoc.detect(s)).toBe(true);
    expect(ncciAoc.version([s])).toEqual({ label: '2026Q3', effective_date: '2026-07-01' });
    expect(ncciAoc.detect(await sampleFile(await toSourceFile(MUE)))).toBe(false);
    const txt = await writeTempFile('AOC_V2026Q4-MCR.txt', `${HEADER.replace(/,/g, '\t')}\r\n22552\t\t22551\t\t1\t20110101\t*\t\r\n`);
    const ts = await sampleFile(await toSourceFile(txt));
    expect(ncciAoc.detect(ts)).toBe(true);
    expect(ncciAoc.version([ts])?.label).toBe('2026Q4');
    expect((await parseAll(ncciAoc, txt)).rows).toEqual([expect.objectContaining({ addon_code: '22552', primary_code: '22551', aoc_edit_del_dt: null })]);
  });

  it('finds columns by header words whatever their order', async () => {
    const path = await writeTempFile(
      'AOC_V2026Q3-MCR.csv',
      'Primary Code,Add-on Code,AOC Edit Type,AOC Edit Effective Date,AOC Edit Deletion Date\r\n99291,99292,1,01/01/2011,\r\n',
    );
    expect((await parseAll(ncciAoc, path)).rows).toEqual([expect.objectContaining({ addon_code: '99292', primary_code: '99291', aoc_edit_eff_dt: '2011-01-01' })]);
  });

  it('fails on an empty file, a header-only file and a file with no AOC header', async () => {
    await expect(parseAll(ncciAoc, await writeTempFile('AOC_V2026Q3-MCR.csv', ''))).rejects.toThrow(/file is empty/);
    await expect(parseAll(ncciAoc, await writeTempFile('AOC_V2026Q3-MCR.csv', `${HEADER}\r\n`))).rejects.toThrow(/line 1: header found but no data rows/);
    await expect(parseAll(ncciAoc, MUE)).rejects.toThrow(/no header row found \(expected Add-On Code, Primary Code, AOC Edit Type/);
  });

  it('rejects corrupted rows with every issue by line and field', async () => {
    const path = await writeTempFile(
      'AOC_V2026Q3-MCR.csv',
      `${HEADER}\r\n99417,,99205,,4,20210101,,\r\n9941,,99215,,1,20211301,,\r\n99418,,99223,,1,20230101,20220101,\r\n99418,,99233,,1,20230101,,ok\r\n`,
    );
    const { rows, rejects } = await parseAll(ncciAoc, path);
    expect(rows.map((r) => r.primary_code)).toEqual(['99233']);
    expect(rejects.map((r) => [r.line, r.issues.map((i) => [i.loc[2], i.type])])).toEqual([
      [2, [['aoc_edit_type', 'less_than_equal']]],
      [
        3,
        [
          ['addon_code', 'string_pattern_mismatch'],
          ['aoc_edit_eff_dt', 'date_parsing'],
        ],
      ],
      [4, [['aoc_edit_del_dt', 'value_error']]],
    ]);
  });
});

describe('aocApplies', () => {
  const row = ROW_11001_11005;
  it('applies from the effective date through the deletion date, not after', () => {
    expect(aocApplies(row, '2010-12-31')).toBe(false);
    expect(aocApplies(row, '2011-01-01')).toBe(true);
    expect(aocApplies(row, '2025-12-31')).toBe(true);
    expect(aocApplies(row, '2026-01-01')).toBe(false);
    expect(aocApplies(row)).toBe(false);
    expect(aocApplies({ ...row, aoc_edit_del_dt: null })).toBe(true);
    expect(aocApplies({ ...row, aoc_edit_del_dt: null, primary_del_dt: '2019-12-31' }, '2020-01-01')).toBe(false);
  });
});

describe('lookupAocEdits', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: ncciAoc, files: [SEED] }]);
  });
  afterAll(() => snap?.close());

  it('answers both ways: primaries of an add-on, add-ons of a primary', async () => {
    const addon = await lookupAocEdits(snap, '22552', '2026-07-15');
    expect(addon?.as_addon.map((r) => r.primary_code)).toEqual(['22551', '22554']);
    expect(addon?.as_primary).toEqual([]);
    const primary = await lookupAocEdits(snap, '99215', '2026-07-15');
    expect(primary?.as_addon).toEqual([]);
    expect(primary?.as_primary.map((r) => r.addon_code)).toEqual(['99417']);
    expect(primary?.used).toMatchObject({ version: '2026Q3', covered: true, source_file: 'AOC_V2026Q3-MCR.csv' });
  });

  it('filters by date of service and flags an uncovered date', async () => {
    const june = await lookupAocEdits(snap, '99205', '2026-06-30');
    expect(june?.as_primary.map((r) => r.addon_code)).toEqual(['99417']);
    expect(june?.used.covered).toBe(false);
    const july = await lookupAocEdits(snap, '99205', '2026-07-01');
    expect(july?.as_primary.map((r) => r.addon_code)).toEqual(['99417', '99418']);
  });

  it('without a date returns only edits with no deletion date', async () => {
    const r = await lookupAocEdits(snap, '11001');
    expect(r?.as_addon.map((x) => x.primary_code)).toEqual(['11000', '11004']);
  });
});
