import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { REPO_ROOT, buildTestSnapshot, parseAll, writeTempFile } from '../../test/helpers/datasets.js';
import { medicaidMueDme } from './dataset.js';
import { findMedicaidMueDme } from './queries.js';

const SEED = join(REPO_ROOT, 'seeds/medicaid_mue_dme/MCD_MUE_DME_Supplier_Services_2026Q3.csv');
const MCR = join(REPO_ROOT, 'seeds/ncci_mue_dme/MCR_MUE_DMESupplierServices_Eff_07-01-2026.csv');
const PRAC = join(REPO_ROOT, 'seeds/medicaid_mue_prac/MCD_MUE_Practitioner_Services_2026Q3.csv');

describe('medicaid_mue_dme dataset', () => {
  it('parses the seed as dme rows without an indicator', async () => {
    const { rows, rejects } = await parseAll(medicaidMueDme, SEED);
    expect(rejects).toEqual([]);
    expect(rows.every((r) => r.mue_type === 'dme' && !('mue_adj_ind' in r))).toBe(true);
    expect(rows.find((r) => r.proc_cd === 'E0110')?.mue_value).toBe(1);
  });

  it('detects its own file, version 2026Q3, and refuses the Medicare and practitioner files', async () => {
    const s = await sampleFile(await toSourceFile(SEED));
    expect(medicaidMueDme.detect(s)).toBe(true);
    expect(medicaidMueDme.version([s])).toEqual({ label: '2026Q3', effective_date: '2026-07-01' });
    expect(medicaidMueDme.detect(await sampleFile(await toSourceFile(MCR)))).toBe(false);
    expect(medicaidMueDme.detect(await sampleFile(await toSourceFile(PRAC)))).toBe(false);
    await expect(parseAll(medicaidMueDme, MCR)).rejects.toThrow(/this is a Medicare MUE file, not Medicaid/);
    await expect(parseAll(medicaidMueDme, PRAC)).rejects.toThrow(/Practitioner Services MUE table; medicaid_mue_dme takes the/);
  });

  it('fails on an empty file', async () => {
    await expect(parseAll(medicaidMueDme, await writeTempFile('MCD_MUE_DME_Supplier_Services_2026Q3.csv', ''))).rejects.toThrow(/file is empty/);
  });
});

describe('findMedicaidMueDme', () => {
  let snap: Awaited<ReturnType<typeof buildTestSnapshot>>;
  beforeAll(async () => {
    snap = await buildTestSnapshot([{ dataset: medicaidMueDme, files: [SEED] }]);
  });
  afterAll(() => snap?.close());

  it('finds E0110 and flags a date outside 2026Q3 as not covered', async () => {
    const r = await findMedicaidMueDme(snap.snapshot, 'E0110', '2026-01-05');
    expect(r?.row?.mue_value).toBe(1);
    expect(r?.used.covered).toBe(false);
  });
});
