import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { REPO_ROOT, buildTestSnapshot, parseAll, writeTempFile } from '../../test/helpers/datasets.js';
import { medicaidMueHosp } from './dataset.js';
import { findMedicaidMueHosp } from './queries.js';

const SEED = join(REPO_ROOT, 'seeds/medicaid_mue_hosp/MCD_MUE_Outpatient_Hospital_Services_2026Q3.csv');
const MCR = join(REPO_ROOT, 'seeds/ncci_mue_hosp/MCR_MUE_OutpatientHospitalServices_Eff_07-01-2026.csv');
const PRAC = join(REPO_ROOT, 'seeds/medicaid_mue_prac/MCD_MUE_Practitioner_Services_2026Q3.csv');

describe('medicaid_mue_hosp dataset', () => {
  it('parses the seed as hosp-op rows without an indicator', async () => {
    const { rows, rejects } = await parseAll(medicaidMueHosp, SEED);
    expect(rejects).toEqual([]);
    expect(rows.every((r) => r.mue_type === 'hosp-op' && !('mue_adj_ind' in r))).toBe(true);
    expect(rows.find((r) => r.proc_cd === '36415')?.mue_value).toBe(2);
  });

  it('detects its own file, version 2026Q3, and refuses the Medicare and practitioner files', async () => {
    const s = await sampleFile(await toSourceFile(SEED));
    expect(medicaidMueHosp.detect(s)).toBe(true);
    expect(medicaidMueHosp.version([s])).toEqual({ label: '2026Q3', effective_date: '2026-07-01' });
    expect(medicaidMueHosp.detect(await sampleFile(await toSourceFile(MCR)))).toBe(false);
    expect(medicaidMueHosp.detect(await sampleFile(await toSourceFile(PRAC)))).toBe(false);
    await expect(parseAll(medicaidMueHosp, MCR)).rejects.toThrow(/this is a Medicare MUE file, not Medicaid/);
    await expect(parseAll(medicaidMueHosp, PRAC)).rejects.toThrow(/Practitioner Services MUE table; medicaid_mue_hosp takes the/);
  });

  it('fails on an empty file', async () => {
    await expect(parseAll(medicaidMueHosp, await writeTempFile('MCD_MUE_Outpatient_Hospital_Services_2026Q3.csv', ''))).rejects.toThrow(/file is empty/);
  });
});

describe('findMedicaidMueHosp', () => {
  let snap: Awaited<ReturnType<typeof buildTestSnapshot>>;
  beforeAll(async () => {
    snap = await buildTestSnapshot([{ dataset: medicaidMueHosp, files: [SEED] }]);
  });
  afterAll(() => snap?.close());

  it('finds 36415 and flags a date outside 2026Q3 as not covered', async () => {
    const r = await findMedicaidMueHosp(snap.snapshot, '36415', '2026-01-05');
    expect(r?.row?.mue_value).toBe(2);
    expect(r?.used.covered).toBe(false);
  });
});
