import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { REPO_ROOT, buildTestSnapshot, parseAll, writeTempFile } from '../../test/helpers/datasets.js';
import { findMedicaidMues } from '../_ncci_mue/queries.js';
import { ncciMuePrac } from '../ncci_mue_prac/dataset.js';
import { medicaidMuePrac } from './dataset.js';
import { findMedicaidMuePrac } from './queries.js';

const SEED = join(REPO_ROOT, 'seeds/medicaid_mue_prac/MCD_MUE_Practitioner_Services_2026Q3.csv');
const MCR = join(REPO_ROOT, 'seeds/ncci_mue_prac/2026Q3/MCR_MUE_PractitionerServices_Eff_07-01-2026.csv');
const MCD_HOSP = join(REPO_ROOT, 'seeds/medicaid_mue_hosp/MCD_MUE_Outpatient_Hospital_Services_2026Q3.csv');

describe('medicaid_mue_prac dataset', () => {
  it('parses code, value and rationale (no indicator in Medicaid rows)', async () => {
    const { rows, rejects } = await parseAll(medicaidMuePrac, SEED);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(16);
    expect(rows.find((r) => r.proc_cd === '99213')).toEqual({ proc_cd: '99213', mue_type: 'practitioner', mue_value: 3, mue_rationale: 'Clinical: Data' });
  });

  it('takes the quarter from the file name', async () => {
    const s = await sampleFile(await toSourceFile(SEED));
    expect(medicaidMuePrac.detect(s)).toBe(true);
    expect(medicaidMuePrac.version([s])).toEqual({ label: '2026Q3', effective_date: '2026-07-01' });
  });

  it('refuses the Medicare practitioner table and the Medicaid hospital table', async () => {
    expect(medicaidMuePrac.detect(await sampleFile(await toSourceFile(MCR)))).toBe(false);
    expect(medicaidMuePrac.detect(await sampleFile(await toSourceFile(MCD_HOSP)))).toBe(false);
    await expect(parseAll(medicaidMuePrac, MCR)).rejects.toThrow(/this is a Medicare MUE file, not Medicaid/);
    await expect(parseAll(medicaidMuePrac, MCD_HOSP)).rejects.toThrow(/Outpatient Hospital Services MUE table; medicaid_mue_prac takes the Practitioner Services table/);
  });

  it('accepts a generic "MUE Values" header when the file name names the setting', async () => {
    const path = await writeTempFile('MCD_MUE_Practitioner_2026Q4.csv', 'HCPCS/CPT Code,MUE Values,MUE Rationale\r\n99213,2,Clinical: Data\r\n');
    const s = await sampleFile(await toSourceFile(path));
    expect(medicaidMuePrac.detect(s)).toBe(true);
    expect(medicaidMuePrac.version([s])).toEqual({ label: '2026Q4', effective_date: '2026-10-01' });
    expect((await parseAll(medicaidMuePrac, path)).rows).toEqual([{ proc_cd: '99213', mue_type: 'practitioner', mue_value: 2, mue_rationale: 'Clinical: Data' }]);
  });

  it('fails on empty and header-only files and reports a bad row by line and field', async () => {
    await expect(parseAll(medicaidMuePrac, await writeTempFile('MCD_MUE_Practitioner_Services_2026Q3.csv', ''))).rejects.toThrow(/file is empty/);
    const header = '"HCPCS/\nCPT Code",Practitioner Services MUE Values,MUE Rationale\r\n';
    await expect(parseAll(medicaidMuePrac, await writeTempFile('MCD_MUE_Practitioner_Services_2026Q3.csv', header))).rejects.toThrow(/header found but no data rows/);
    const bad = await writeTempFile('MCD_MUE_Practitioner_Services_2026Q3.csv', header + '99213,,Clinical: Data\r\n99214,2,Clinical: Data\r\n');
    const { rows, rejects } = await parseAll(medicaidMuePrac, bad);
    expect(rows.map((r) => r.proc_cd)).toEqual(['99214']);
    expect(rejects).toEqual([{ line: 3, issues: [{ loc: ['row', 3, 'mue_value'], msg: 'Field required', type: 'missing', input: '' }] }]);
  });
});

describe('Medicaid lookups', () => {
  let snap: Awaited<ReturnType<typeof buildTestSnapshot>>;
  beforeAll(async () => {
    snap = await buildTestSnapshot([
      { dataset: medicaidMuePrac, files: [SEED] },
      { dataset: ncciMuePrac, files: [MCR] },
    ]);
  });
  afterAll(() => snap?.close());

  it('findMedicaidMuePrac returns the Medicaid row and its source file', async () => {
    const r = await findMedicaidMuePrac(snap.snapshot, '99213');
    expect(r?.row?.mue_value).toBe(3);
    expect(r?.used).toMatchObject({ version: '2026Q3', source_file: 'MCD_MUE_Practitioner_Services_2026Q3.csv' });
  });

  it('findMedicaidMues pairs each Medicaid row with the Medicare value and reports unloaded settings', async () => {
    const r = await findMedicaidMues(snap.snapshot, '99213', '2026-07-15');
    expect(r.lookups.filter((l) => l.row).map((l) => [l.mue_type, l.row!.mue_value, l.medicare_mue_value])).toEqual([['practitioner', 3, 2]]);
    expect(r.versions).toEqual({ medicaid_mue_prac: '2026Q3', ncci_mue_prac: '2026Q3' });
    expect(r.missing).toEqual(['medicaid_mue_hosp', 'medicaid_mue_dme']);
    expect(r.degraded).toBe(true);
  });
});
