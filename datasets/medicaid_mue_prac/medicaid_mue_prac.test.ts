import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestSnapshot, parseAll, writeTempFile } from '../../testing/datasets.js';
import { MUE_SEEDS, mueHeader } from '../../testing/mue.js';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { findMedicaidMues } from '../_ncci_mue/queries.js';
import { ncciMuePrac } from '../ncci_mue_prac/dataset.js';
import { medicaidMuePrac } from './dataset.js';
import { lookupMueInDataset } from '../_ncci_mue/queries.js';
import type { MedicaidMueRow } from '../_ncci_mue/mue.js';

// What every MUE table does (seed rows, detection, refusals, empty files) is in
// datasets/_ncci_mue/family.test.ts; this file holds what the Medicaid practitioner table alone shows.
const SEED = MUE_SEEDS.medicaid_mue_prac;
const MCR = MUE_SEEDS.ncci_mue_prac;

describe('medicaid_mue_prac dataset', () => {
  it('parses code, value and rationale (no indicator in Medicaid rows)', async () => {
    const { rows } = await parseAll(medicaidMuePrac, SEED);
    expect(rows).toHaveLength(16);
    expect(rows.find((r) => r.proc_cd === '99213')).toEqual({ proc_cd: '99213', mue_type: 'practitioner', mue_value: 3, mue_rationale: 'Clinical: Data' });
  });

  it('accepts a generic "MUE Values" header when the file name names the setting', async () => {
    const path = await writeTempFile('MCD_MUE_Practitioner_2026Q4.csv', 'HCPCS/CPT Code,MUE Values,MUE Rationale\r\n99213,2,Clinical: Data\r\n');
    const s = await sampleFile(await toSourceFile(path));
    expect(medicaidMuePrac.detect(s)).toBe(true);
    expect(medicaidMuePrac.version([s])).toEqual({ label: '2026Q4', effective_date: '2026-10-01' });
    expect((await parseAll(medicaidMuePrac, path)).rows).toEqual([{ proc_cd: '99213', mue_type: 'practitioner', mue_value: 2, mue_rationale: 'Clinical: Data' }]);
  });

  it('fails on a header-only file and reports a bad row by line and field', async () => {
    const header = mueHeader('Practitioner Services', 'medicaid');
    await expect(parseAll(medicaidMuePrac, await writeTempFile('MCD_MUE_Practitioner_Services_2026Q3.csv', header))).rejects.toThrow(/header found but no data rows/);
    const bad = await writeTempFile('MCD_MUE_Practitioner_Services_2026Q3.csv', header + '99213,,Clinical: Data\r\n99214,2,Clinical: Data\r\n');
    const { rows, rejects } = await parseAll(medicaidMuePrac, bad);
    expect(rows.map((r) => r.proc_cd)).toEqual(['99214']);
    expect(rejects).toEqual([{ line: 3, issues: [{ loc: ['row', 3, 'mue_value'], msg: 'Field required', type: 'missing', input: '' }] }]);
  });
});

describe('Medicaid lookups', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([
      { dataset: medicaidMuePrac, files: [SEED] },
      { dataset: ncciMuePrac, files: [MCR] },
    ]);
  });
  afterAll(() => snap?.close());

  it('lookupMueInDataset (medicaid_mue_prac) returns the Medicaid row and its source file', async () => {
    const r = await lookupMueInDataset<MedicaidMueRow>(snap, 'medicaid_mue_prac', 'practitioner', '99213');
    expect(r?.row?.mue_value).toBe(3);
    expect(r?.used).toMatchObject({ version: '2026Q3', source_file: 'MCD_MUE_Practitioner_Services_2026Q3.csv' });
  });

  it('findMedicaidMues pairs each Medicaid row with the Medicare value and reports unloaded settings', async () => {
    const r = await findMedicaidMues(snap, '99213', '2026-07-15');
    expect(r.lookups.filter((l) => l.row).map((l) => [l.mue_type, l.row!.mue_value, l.medicare_mue_value])).toEqual([['practitioner', 3, 2]]);
    expect(r.versions).toEqual({ medicaid_mue_prac: '2026Q3', ncci_mue_prac: '2026Q3' });
    expect(r.missing).toEqual(['medicaid_mue_hosp', 'medicaid_mue_dme']);
    expect(r.degraded).toBe(true);
  });
});
