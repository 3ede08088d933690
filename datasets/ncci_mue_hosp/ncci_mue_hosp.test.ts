import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestSnapshot, parseAll, writeTempFile } from '../../testing/datasets.js';
import { MUE_SEEDS, mueHeader } from '../../testing/mue.js';
import { ncciMueHosp } from './dataset.js';
import { lookupMueInDataset } from '../_ncci_mue/queries.js';
import type { MueRow } from '../_ncci_mue/mue.js';

// What every MUE table does (seed rows, detection, refusals, empty files) is in
// datasets/_ncci_mue/family.test.ts; this file holds what the hospital table alone shows.
const SEED = MUE_SEEDS.ncci_mue_hosp;
const HEADER = mueHeader('Outpatient Hospital Services');

describe('ncci_mue_hosp dataset', () => {
  it('rejects a row whose indicator cell lost its number', async () => {
    const path = await writeTempFile('h.csv', HEADER + '93000,1,Date of Service Edit: Clinical,Clinical: Data\r\n93005,1,3 Date of Service Edit: Clinical,\r\n');
    const { rows, rejects } = await parseAll(ncciMueHosp, path);
    expect(rows).toEqual([expect.objectContaining({ proc_cd: '93005', mue_rationale: null })]);
    expect(rejects).toEqual([{ line: 3, issues: [expect.objectContaining({ loc: ['row', 3, 'mue_adj_ind'], type: 'enum', input: 'Date of Service Edit: Clinical' })] }]);
  });
});

describe('lookupMueInDataset (ncci_mue_hosp)', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: ncciMueHosp, files: [SEED] }]);
  });
  afterAll(() => snap?.close());

  it('finds a code in the loaded quarter and null for a code the table lacks', async () => {
    expect((await lookupMueInDataset<MueRow>(snap, 'ncci_mue_hosp', 'hosp-op', '80053', '2026-08-01'))?.row?.mue_value).toBe(1);
    expect((await lookupMueInDataset<MueRow>(snap, 'ncci_mue_hosp', 'hosp-op', 'E0110', '2026-08-01'))?.row).toBeNull();
  });
});
