import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestSnapshot, parseAll, writeTempFile } from '../../testing/datasets.js';
import { MUE_SEEDS, mueHeader } from '../../testing/mue.js';
import { IngestError } from '../_shared/issue.js';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { ncciMuePrac } from './dataset.js';
import { lookupMueInDataset } from '../_ncci_mue/queries.js';
import type { MueRow } from '../_ncci_mue/mue.js';

// What every MUE table does (seed rows, detection, refusals, empty files) is in
// datasets/_ncci_mue/family.test.ts; this file holds what the practitioner table alone shows.
const SEED_Q3 = MUE_SEEDS.ncci_mue_prac;
const FIXTURE_Q2 = MUE_SEEDS.ncci_mue_prac_q2;
const SEED_HOSP = MUE_SEEDS.ncci_mue_hosp;

const NOTICE = '"CPT codes are copyright 2025 American Medical Association.\n\nCPT\u00ae is a registered trademark.",,,\r\n';
const HEADER = mueHeader('Practitioner Services');

async function sample(path: string) {
  return sampleFile(await toSourceFile(path));
}

describe('ncci_mue_prac dataset', () => {
  it('reads J9035 as a clinical date-of-service edit of 200 units', async () => {
    const { rows } = await parseAll(ncciMuePrac, SEED_Q3);
    expect(rows.find((r) => r.proc_cd === 'J9035')).toMatchObject({ mue_value: 200, mue_adj_ind: 3, mue_adj_ind_label: 'Date of Service Edit: Clinical' });
  });

  it('reads the quarter and effective date from the file name', async () => {
    expect(ncciMuePrac.version([await sample(FIXTURE_Q2)])).toEqual({ label: '2026Q2', effective_date: '2026-04-01' });
    const unnamed = await writeTempFile('mue.csv', NOTICE + HEADER + '99213,2,3 Date of Service Edit: Clinical,Clinical: Data\r\n', true);
    expect(ncciMuePrac.version([await sample(unnamed)])).toBeUndefined();
  });

  it('rejects the outpatient hospital file with an IngestError naming the field and line', async () => {
    const err = await parseAll(ncciMuePrac, SEED_HOSP).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IngestError);
    expect((err as IngestError).field).toBe('header');
    expect((err as IngestError).line).toBe(9);
  });

  it('fails on a header with no rows below the CP1252 notice, and on a file with no header', async () => {
    const headerOnly = await writeTempFile('MCR_MUE_PractitionerServices_Eff_07-01-2026.csv', NOTICE + HEADER, true);
    await expect(parseAll(ncciMuePrac, headerOnly)).rejects.toThrow(/header found but no data rows/);
    const noHeader = await writeTempFile('x.csv', 'a,b,c\r\n1,2,3\r\n');
    await expect(parseAll(ncciMuePrac, noHeader)).rejects.toThrow(/no header row found/);
  });

  it('rejects corrupted rows with every issue located by line and field, keeping good rows', async () => {
    const text =
      NOTICE +
      HEADER +
      '99213,2,3 Date of Service Edit: Clinical,Clinical: Data\r\n' +
      '99214,two,7 Something,Clinical: Data\r\n' +
      '9921,1,,Clinical: Data\r\n' +
      ',,,\r\n' +
      '99215,-1,1 Line Edit,Clinical: Data\r\n';
    const path = await writeTempFile('MCR_MUE_PractitionerServices_Eff_07-01-2026.csv', text, true);
    const { rows, rejects } = await parseAll(ncciMuePrac, path);
    expect(rows.map((r) => r.proc_cd)).toEqual(['99213']);
    // Notice spans lines 1-3, the header lines 4-5 (quoted newline), so data starts on line 6.
    expect(rejects.map((r) => r.line)).toEqual([7, 8, 10]);
    expect(rejects[0]!.issues.map((i) => i.loc)).toEqual([
      ['row', 7, 'mue_value'],
      ['row', 7, 'mue_adj_ind'],
    ]);
    expect(rejects[0]!.issues[0]).toMatchObject({ type: 'float_parsing', input: 'two' });
    expect(rejects[0]!.issues[1]).toMatchObject({ type: 'enum', input: '7 Something' });
    expect(rejects[1]!.issues.map((i) => [i.loc[2], i.type])).toEqual([
      ['proc_cd', 'string_pattern_mismatch'],
      ['mue_adj_ind', 'missing'],
    ]);
    expect(rejects[2]!.issues).toEqual([
      { loc: ['row', 10, 'mue_value'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal', input: '-1', ctx: { ge: 0 } },
    ]);
  });
});

describe('lookupMueInDataset (ncci_mue_prac) over two loaded quarters', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([
      { dataset: ncciMuePrac, files: [FIXTURE_Q2] },
      { dataset: ncciMuePrac, files: [SEED_Q3] },
    ]);
  });
  afterAll(() => snap?.close());

  it('answers from the quarter that contains the date of service', async () => {
    const q2 = await lookupMueInDataset<MueRow>(snap, 'ncci_mue_prac', 'practitioner', '36415', '2026-05-15');
    expect(q2?.row?.mue_value).toBe(1);
    expect(q2?.used).toMatchObject({ version: '2026Q2', effective_date: '2026-04-01', covered: true });
    const q3 = await lookupMueInDataset<MueRow>(snap, 'ncci_mue_prac', 'practitioner', '36415', '2026-07-01');
    expect(q3?.row?.mue_value).toBe(2);
    expect(q3?.used).toMatchObject({ version: '2026Q3', covered: true, source_file: 'MCR_MUE_PractitionerServices_Eff_07-01-2026.csv' });
  });

  it('uses the latest quarter without a date', async () => {
    const r = await lookupMueInDataset<MueRow>(snap, 'ncci_mue_prac', 'practitioner', '99417');
    expect(r?.row?.mue_value).toBe(4);
    expect(r?.used.version).toBe('2026Q3');
  });

  it('answers from the nearest quarter with a warning when none covers the date', async () => {
    const late = await lookupMueInDataset<MueRow>(snap, 'ncci_mue_prac', 'practitioner', '99417', '2026-11-02');
    expect(late?.used).toMatchObject({ version: '2026Q3', covered: false });
    expect(late?.used.warning).toMatch(/no ncci_mue_prac version loaded covers date of service 2026-11-02.*2026Q3/);
    const early = await lookupMueInDataset<MueRow>(snap, 'ncci_mue_prac', 'practitioner', '99417', '2025-12-31');
    expect(early?.used.version).toBe('2026Q2');
    expect(early?.row?.mue_value).toBe(3);
  });

  it('returns row null for a code only in another quarter or in no table', async () => {
    expect((await lookupMueInDataset<MueRow>(snap, 'ncci_mue_prac', 'practitioner', '99418', '2026-04-01'))?.row).toBeNull();
    expect((await lookupMueInDataset<MueRow>(snap, 'ncci_mue_prac', 'practitioner', '99418', '2026-09-30'))?.row?.mue_value).toBe(4);
    expect((await lookupMueInDataset<MueRow>(snap, 'ncci_mue_prac', 'practitioner', '00000'))?.row).toBeNull();
  });
});
