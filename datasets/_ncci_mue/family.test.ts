import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectFile, openTestSnapshot, parseAll, writeTempFile } from '../../testing/datasets.js';
import { MUE_SEEDS, PRACTITIONER_0001U_2026Q3, mueHeader } from '../../testing/mue.js';
import { medicaidMueDme } from '../medicaid_mue_dme/dataset.js';
import { medicaidMueHosp } from '../medicaid_mue_hosp/dataset.js';
import { medicaidMuePrac } from '../medicaid_mue_prac/dataset.js';
import { ncciMueDme } from '../ncci_mue_dme/dataset.js';
import { ncciMueHosp } from '../ncci_mue_hosp/dataset.js';
import { ncciMuePrac } from '../ncci_mue_prac/dataset.js';
import type { Dataset } from '../types.js';
import type { MedicaidMueRow, MueRow } from './mue.js';
import { lookupMueInDataset } from './queries.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';

/*
 * The six MUE datasets share one parser (mue.ts): what each member must do alike is checked here
 * for every member; what only one member shows stays in its own datasets/<id>/<id>.test.ts.
 */

type Seeded = keyof typeof MUE_SEEDS;

/** The Medicare tables: each refuses a neighbouring setting's table and its Medicaid twin. */
const MEDICARE: { id: Seeded; dataset: Dataset<MueRow>; setting: string; type: string; rows: number; key: MueRow; other: { id: Seeded; setting: string }; twin: Seeded }[] = [
  {
    id: 'ncci_mue_prac',
    dataset: ncciMuePrac,
    setting: 'Practitioner Services',
    type: 'practitioner',
    rows: 16,
    key: PRACTITIONER_0001U_2026Q3,
    other: { id: 'ncci_mue_hosp', setting: 'Outpatient Hospital Services' },
    twin: 'medicaid_mue_prac',
  },
  {
    id: 'ncci_mue_hosp',
    dataset: ncciMueHosp,
    setting: 'Outpatient Hospital Services',
    type: 'hosp-op',
    rows: 9,
    key: { proc_cd: '99213', mue_type: 'hosp-op', mue_value: 1, mue_adj_ind: 2, mue_adj_ind_label: 'Date of Service Edit: Policy', mue_rationale: 'CMS NCCI Policy' },
    other: { id: 'ncci_mue_prac', setting: 'Practitioner Services' },
    twin: 'medicaid_mue_hosp',
  },
  {
    id: 'ncci_mue_dme',
    dataset: ncciMueDme,
    setting: 'DME Supplier Services',
    type: 'dme',
    rows: 4,
    key: { proc_cd: 'J9035', mue_type: 'dme', mue_value: 0, mue_adj_ind: 3, mue_adj_ind_label: 'Date of Service Edit: Clinical', mue_rationale: 'CMS Policy' },
    other: { id: 'ncci_mue_hosp', setting: 'Outpatient Hospital Services' },
    twin: 'medicaid_mue_dme',
  },
];

describe.each(MEDICARE)('$id (Medicare MUE family member)', (m) => {
  it(`parses its seed: no rejects, ${m.rows} ${m.type} rows, ${m.key.proc_cd} as published`, async () => {
    const { rows, rejects } = await parseAll(m.dataset, MUE_SEEDS[m.id]);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(m.rows);
    expect(rows.every((r) => r.mue_type === m.type)).toBe(true);
    expect(rows.find((r) => r.proc_cd === m.key.proc_cd)).toEqual(m.key);
  });

  it('detects its own table and takes 2026Q3 from the file name', async () => {
    expect(await detectFile(m.dataset, MUE_SEEDS[m.id])).toEqual({ detected: true, version: { label: '2026Q3', effective_date: '2026-07-01' } });
  });

  it(`refuses the ${m.other.setting} table, naming both tables`, async () => {
    expect((await detectFile(m.dataset, MUE_SEEDS[m.other.id])).detected).toBe(false);
    await expect(parseAll(m.dataset, MUE_SEEDS[m.other.id])).rejects.toThrow(`this is the ${m.other.setting} MUE table; ${m.id} takes the ${m.setting} table`);
  });

  it('refuses its Medicaid twin, which has no adjudication indicator column', async () => {
    expect((await detectFile(m.dataset, MUE_SEEDS[m.twin])).detected).toBe(false);
    await expect(parseAll(m.dataset, MUE_SEEDS[m.twin])).rejects.toThrow(/field header: no "MUE Adjudication Indicator" column: this looks like a Medicaid MUE file/);
  });

  it('fails on an empty file and on a header with no rows', async () => {
    await expect(parseAll(m.dataset, await writeTempFile('MCR_MUE_Eff_07-01-2026.csv', ''))).rejects.toThrow(/file is empty/);
    await expect(parseAll(m.dataset, await writeTempFile('MCR_MUE_Eff_07-01-2026.csv', mueHeader(m.setting)))).rejects.toThrow(/line 2: header found but no data rows/);
  });
});

/** The Medicaid tables: same shape without the indicator; each refuses the Medicare table and another setting. */
const MEDICAID: {
  id: Seeded;
  dataset: Dataset<MedicaidMueRow>;
  setting: string;
  type: string;
  code: string;
  value: number;
  find: (snap: SnapshotReader, code: string, dos?: string) => ReturnType<typeof lookupMueInDataset<MedicaidMueRow>>;
  medicare: Seeded;
  other: { id: Seeded; setting: string };
}[] = [
  {
    id: 'medicaid_mue_prac',
    dataset: medicaidMuePrac,
    setting: 'Practitioner Services',
    type: 'practitioner',
    code: '99213',
    value: 3,
    find: (snap, code, dos) => lookupMueInDataset<MedicaidMueRow>(snap, 'medicaid_mue_prac', 'practitioner', code, dos),
    medicare: 'ncci_mue_prac',
    other: { id: 'medicaid_mue_hosp', setting: 'Outpatient Hospital Services' },
  },
  {
    id: 'medicaid_mue_hosp',
    dataset: medicaidMueHosp,
    setting: 'Outpatient Hospital Services',
    type: 'hosp-op',
    code: '36415',
    value: 2,
    find: (snap, code, dos) => lookupMueInDataset<MedicaidMueRow>(snap, 'medicaid_mue_hosp', 'hosp-op', code, dos),
    medicare: 'ncci_mue_hosp',
    other: { id: 'medicaid_mue_prac', setting: 'Practitioner Services' },
  },
  {
    id: 'medicaid_mue_dme',
    dataset: medicaidMueDme,
    setting: 'DME Supplier Services',
    type: 'dme',
    code: 'E0110',
    value: 1,
    find: (snap, code, dos) => lookupMueInDataset<MedicaidMueRow>(snap, 'medicaid_mue_dme', 'dme', code, dos),
    medicare: 'ncci_mue_dme',
    other: { id: 'medicaid_mue_prac', setting: 'Practitioner Services' },
  },
];

describe.each(MEDICAID)('$id (Medicaid MUE family member)', (m) => {
  it(`parses the seed as ${m.type} rows without an indicator; ${m.code} allows ${m.value}`, async () => {
    const { rows, rejects } = await parseAll(m.dataset, MUE_SEEDS[m.id]);
    expect(rejects).toEqual([]);
    expect(rows.every((r) => r.mue_type === m.type && !('mue_adj_ind' in r))).toBe(true);
    expect(rows.find((r) => r.proc_cd === m.code)?.mue_value).toBe(m.value);
  });

  it(`detects its own file, version 2026Q3, and refuses the Medicare and ${m.other.setting} files`, async () => {
    expect(await detectFile(m.dataset, MUE_SEEDS[m.id])).toEqual({ detected: true, version: { label: '2026Q3', effective_date: '2026-07-01' } });
    expect((await detectFile(m.dataset, MUE_SEEDS[m.medicare])).detected).toBe(false);
    expect((await detectFile(m.dataset, MUE_SEEDS[m.other.id])).detected).toBe(false);
    await expect(parseAll(m.dataset, MUE_SEEDS[m.medicare])).rejects.toThrow(/this is a Medicare MUE file, not Medicaid/);
    await expect(parseAll(m.dataset, MUE_SEEDS[m.other.id])).rejects.toThrow(`this is the ${m.other.setting} MUE table; ${m.id} takes the ${m.setting} table`);
  });

  it('fails on an empty file', async () => {
    await expect(parseAll(m.dataset, await writeTempFile(MUE_SEEDS[m.id].split('/').pop()!, ''))).rejects.toThrow(/file is empty/);
  });

  describe('lookup', () => {
    let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
    beforeAll(async () => {
      snap = await openTestSnapshot([{ dataset: m.dataset, files: [MUE_SEEDS[m.id]] }]);
    });
    afterAll(() => snap?.close());

    it(`finds ${m.code} and flags a date outside 2026Q3 as not covered`, async () => {
      const r = await m.find(snap, m.code, '2026-01-05');
      expect(r?.row?.mue_value).toBe(m.value);
      expect(r?.used.covered).toBe(false);
    });
  });
});
