import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestSnapshot, parseAll, writeTempFile } from '../../testing/datasets.js';
import { MUE_SEEDS, mueHeader } from '../../testing/mue.js';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { ncciMueDme } from './dataset.js';
import { lookupMueInDataset } from '../_ncci_mue/queries.js';
import type { MueRow } from '../_ncci_mue/mue.js';

// What every MUE table does (seed rows, detection, refusals, empty files) is in
// datasets/_ncci_mue/family.test.ts; this file holds what the DME table alone shows.
const SEED = MUE_SEEDS.ncci_mue_dme;

describe('ncci_mue_dme dataset', () => {
  it('parses every row of the DME supplier seed, including a 0 value', async () => {
    const { rows } = await parseAll(ncciMueDme, SEED);
    expect(rows.map((r) => [r.proc_cd, r.mue_value, r.mue_adj_ind])).toEqual([
      ['E0110', 1, 2],
      ['E0114', 1, 2],
      ['J9035', 0, 3],
      ['K0001', 1, 2],
    ]);
  });

  it('rejects a decimal MUE value', async () => {
    const path = await writeTempFile(
      'MCR_MUE_DMESupplierServices_Eff_10-01-2026.csv',
      mueHeader('DME Supplier Services') + 'E0110,1.5,1 Line Edit,Nature of Equipment\r\nE0111,1,1 Line Edit,Nature of Equipment\r\n',
    );
    const { rows, rejects } = await parseAll(ncciMueDme, path);
    expect(rows.map((r) => r.proc_cd)).toEqual(['E0111']);
    expect(rows[0]).toMatchObject({ mue_adj_ind: 1, mue_adj_ind_label: 'Line Edit' });
    expect(rejects[0]!.issues).toEqual([expect.objectContaining({ loc: ['row', 3, 'mue_value'], type: 'int_parsing', input: '1.5' })]);
    expect(ncciMueDme.version([await sampleFile(await toSourceFile(path))])).toEqual({ label: '2026Q4', effective_date: '2026-10-01' });
  });
});

describe('lookupMueInDataset (ncci_mue_dme)', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: ncciMueDme, files: [SEED] }]);
  });
  afterAll(() => snap?.close());

  it('finds E0110 and memoises the per-version index', async () => {
    const a = await lookupMueInDataset<MueRow>(snap, 'ncci_mue_dme', 'dme', 'E0110');
    expect(a?.row?.mue_value).toBe(1);
    const idx1 = await snap.memo('mue-index:ncci_mue_dme:2026Q3', async () => new Map(), { pin: true });
    expect(idx1.size).toBe(4);
  });
});
