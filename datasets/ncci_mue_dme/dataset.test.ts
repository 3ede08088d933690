import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { REPO_ROOT, buildTestSnapshot, parseAll, writeTempFile } from '../../test/helpers/datasets.js';
import { ncciMueDme } from './dataset.js';
import { findMueDme } from './queries.js';

const SEED = join(REPO_ROOT, 'seeds/ncci_mue_dme/MCR_MUE_DMESupplierServices_Eff_07-01-2026.csv');
const HOSP = join(REPO_ROOT, 'seeds/ncci_mue_hosp/MCR_MUE_OutpatientHospitalServices_Eff_07-01-2026.csv');
const MCD_DME = join(REPO_ROOT, 'seeds/medicaid_mue_dme/MCD_MUE_DME_Supplier_Services_2026Q3.csv');

describe('ncci_mue_dme dataset', () => {
  it('parses the DME supplier seed, including a 0 value', async () => {
    const { rows, rejects } = await parseAll(ncciMueDme, SEED);
    expect(rejects).toEqual([]);
    expect(rows.map((r) => [r.proc_cd, r.mue_value, r.mue_adj_ind])).toEqual([
      ['E0110', 1, 2],
      ['E0114', 1, 2],
      ['J9035', 0, 3],
      ['K0001', 1, 2],
    ]);
    expect(rows.every((r) => r.mue_type === 'dme')).toBe(true);
  });

  it('detects only the DME table; refuses the hospital and the Medicaid DME file', async () => {
    expect(ncciMueDme.detect(await sampleFile(await toSourceFile(SEED)))).toBe(true);
    expect(ncciMueDme.detect(await sampleFile(await toSourceFile(HOSP)))).toBe(false);
    expect(ncciMueDme.detect(await sampleFile(await toSourceFile(MCD_DME)))).toBe(false);
    await expect(parseAll(ncciMueDme, HOSP)).rejects.toThrow(/Outpatient Hospital Services MUE table; ncci_mue_dme takes the DME Supplier Services table/);
    await expect(parseAll(ncciMueDme, MCD_DME)).rejects.toThrow(/field header: no "MUE Adjudication Indicator" column: this looks like a Medicaid MUE file/);
  });

  it('rejects a decimal MUE value', async () => {
    const path = await writeTempFile(
      'MCR_MUE_DMESupplierServices_Eff_10-01-2026.csv',
      '"HCPCS/\nCPT Code",DME Supplier Services MUE Values,MUE Adjudication Indicator,MUE Rationale\r\nE0110,1.5,1 Line Edit,Nature of Equipment\r\nE0111,1,1 Line Edit,Nature of Equipment\r\n',
    );
    const { rows, rejects } = await parseAll(ncciMueDme, path);
    expect(rows.map((r) => r.proc_cd)).toEqual(['E0111']);
    expect(rows[0]).toMatchObject({ mue_adj_ind: 1, mue_adj_ind_label: 'Line Edit' });
    expect(rejects[0]!.issues).toEqual([expect.objectContaining({ loc: ['row', 3, 'mue_value'], type: 'int_parsing', input: '1.5' })]);
    expect(ncciMueDme.version([await sampleFile(await toSourceFile(path))])).toEqual({ label: '2026Q4', effective_date: '2026-10-01' });
  });
});

describe('findMueDme', () => {
  let snap: Awaited<ReturnType<typeof buildTestSnapshot>>;
  beforeAll(async () => {
    snap = await buildTestSnapshot([{ dataset: ncciMueDme, files: [SEED] }]);
  });
  afterAll(() => snap?.close());

  it('finds E0110 and memoises the per-version index', async () => {
    const a = await findMueDme(snap.snapshot, 'E0110');
    expect(a?.row?.mue_value).toBe(1);
    const idx1 = await snap.snapshot.memo('mue-index:ncci_mue_dme:2026Q3', async () => new Map(), { pin: true });
    expect(idx1.size).toBe(4);
  });
});
