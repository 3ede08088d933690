import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { REPO_ROOT, buildTestSnapshot, parseAll, writeTempFile } from '../../test/helpers/datasets.js';
import { ncciMueHosp } from './dataset.js';
import { findMueHosp } from './queries.js';

const SEED = join(REPO_ROOT, 'seeds/ncci_mue_hosp/MCR_MUE_OutpatientHospitalServices_Eff_07-01-2026.csv');
const PRAC = join(REPO_ROOT, 'seeds/ncci_mue_prac/2026Q3/MCR_MUE_PractitionerServices_Eff_07-01-2026.csv');
const HEADER = '"HCPCS/\nCPT Code",Outpatient Hospital Services MUE Values,MUE Adjudication Indicator,MUE Rationale\r\n';

describe('ncci_mue_hosp dataset', () => {
  it('parses the outpatient hospital seed with hosp-op rows', async () => {
    const { rows, rejects } = await parseAll(ncciMueHosp, SEED);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(9);
    expect(rows.find((r) => r.proc_cd === '99213')).toEqual({
      proc_cd: '99213',
      mue_type: 'hosp-op',
      mue_value: 1,
      mue_adj_ind: 2,
      mue_adj_ind_label: 'Date of Service Edit: Policy',
      mue_rationale: 'CMS NCCI Policy',
    });
  });

  it('detects the hospital table and versions it from the file name', async () => {
    const s = await sampleFile(await toSourceFile(SEED));
    expect(ncciMueHosp.detect(s)).toBe(true);
    expect(ncciMueHosp.version([s])).toEqual({ label: '2026Q3', effective_date: '2026-07-01' });
  });

  it('refuses the practitioner table', async () => {
    expect(ncciMueHosp.detect(await sampleFile(await toSourceFile(PRAC)))).toBe(false);
    await expect(parseAll(ncciMueHosp, PRAC)).rejects.toThrow(/this is the Practitioner Services MUE table; ncci_mue_hosp takes the Outpatient Hospital Services table/);
  });

  it('fails on an empty file and a header-only file', async () => {
    await expect(parseAll(ncciMueHosp, await writeTempFile('h.csv', ''))).rejects.toThrow(/file is empty/);
    await expect(parseAll(ncciMueHosp, await writeTempFile('h.csv', HEADER))).rejects.toThrow(/line 2: header found but no data rows/);
  });

  it('rejects a row whose indicator cell lost its number', async () => {
    const path = await writeTempFile('h.csv', HEADER + '93000,1,Date of Service Edit: Clinical,Clinical: Data\r\n93005,1,3 Date of Service Edit: Clinical,\r\n');
    const { rows, rejects } = await parseAll(ncciMueHosp, path);
    expect(rows).toEqual([expect.objectContaining({ proc_cd: '93005', mue_rationale: null })]);
    expect(rejects).toEqual([{ line: 3, issues: [expect.objectContaining({ loc: ['row', 3, 'mue_adj_ind'], type: 'enum', input: 'Date of Service Edit: Clinical' })] }]);
  });
});

describe('findMueHosp', () => {
  let snap: Awaited<ReturnType<typeof buildTestSnapshot>>;
  beforeAll(async () => {
    snap = await buildTestSnapshot([{ dataset: ncciMueHosp, files: [SEED] }]);
  });
  afterAll(() => snap?.close());

  it('finds a code in the loaded quarter and null for a code the table lacks', async () => {
    expect((await findMueHosp(snap.snapshot, '80053', '2026-08-01'))?.row?.mue_value).toBe(1);
    expect((await findMueHosp(snap.snapshot, 'E0110', '2026-08-01'))?.row).toBeNull();
  });
});
