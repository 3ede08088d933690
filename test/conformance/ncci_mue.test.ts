import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../../datasets/_shared/source.js';
import { IngestError } from '../../datasets/_shared/issue.js';
import { parseAll } from '../../testing/datasets.js';
import { PRACTITIONER_0001U_2026Q3 } from '../../testing/mue.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';
import { ingestBatch } from '../../ingest/pipeline.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';
import { Warehouse } from '../../warehouse/store.js';
import { ncciMuePrac } from '../../datasets/ncci_mue_prac/dataset.js';
import { ncciMueHosp } from '../../datasets/ncci_mue_hosp/dataset.js';
import { ncciMueDme } from '../../datasets/ncci_mue_dme/dataset.js';
import { medicaidMuePrac } from '../../datasets/medicaid_mue_prac/dataset.js';
import { lookupMueInDataset } from '../../datasets/_ncci_mue/queries.js';
import type { MueRow } from '../../datasets/_ncci_mue/mue.js';

const REL = 'ncci-mue/MCR_MUE_PractitionerServices_Eff_07-01-2026.excerpt.csv';
const present = requireShared(REL);
const FILE = join(sharedDataDir(), REL);

describe.skipIf(!present)('ncci_mue_prac on the real CMS Q3 2026 practitioner MUE excerpt', () => {
  it('is detected as the practitioner table only, version 2026Q3 effective 2026-07-01', async () => {
    const s = await sampleFile(await toSourceFile(FILE));
    expect(ncciMuePrac.detect(s)).toBe(true);
    expect(ncciMueHosp.detect(s)).toBe(false);
    expect(ncciMueDme.detect(s)).toBe(false);
    expect(medicaidMuePrac.detect(s)).toBe(false);
    expect(ncciMuePrac.version([s])).toEqual({ label: '2026Q3', effective_date: '2026-07-01' });
  });

  it('reads all 44 rows with no rejects, through the CP1252 multi-line notice and wrapped header', async () => {
    const { rows, rejects } = await parseAll(ncciMuePrac, FILE);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(44);
    expect(rows[0]!.proc_cd).toBe('0001U');
    expect(rows.at(-1)!.proc_cd).toBe('0041U');
    // Counted on the file with awk: 30 rows with indicator 2, 14 with 3; 38 values of 1, 6 of 2.
    expect(rows.filter((r) => r.mue_adj_ind === 2)).toHaveLength(30);
    expect(rows.filter((r) => r.mue_adj_ind === 3)).toHaveLength(14);
    expect(rows.filter((r) => r.mue_value === 2).map((r) => r.proc_cd)).toEqual(['0009U', '0010U', '0016M', '0018U', '0022U', '0026U']);
  });

  it('keeps the published values of 0001U, 0002M, 0022U and 0041U', async () => {
    const { rows } = await parseAll(ncciMuePrac, FILE);
    const by = new Map(rows.map((r) => [r.proc_cd, r]));
    expect(by.get('0001U')).toEqual(PRACTITIONER_0001U_2026Q3);
    expect(by.get('0002M')).toMatchObject({ mue_value: 1, mue_adj_ind: 3, mue_adj_ind_label: 'Date of Service Edit: Clinical', mue_rationale: 'Nature of Analyte' });
    expect(by.get('0022U')).toMatchObject({ mue_value: 2, mue_adj_ind: 3, mue_rationale: 'Clinical: CMS Workgroup' });
    expect(by.get('0041U')).toMatchObject({ mue_value: 1, mue_adj_ind: 2 });
  });

  it('is refused by the outpatient hospital dataset with a clear IngestError', async () => {
    const err = await parseAll(ncciMueHosp, FILE).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IngestError);
    expect((err as IngestError).message).toMatch(/line 9, field header: this is the Practitioner Services MUE table; ncci_mue_hosp takes the Outpatient Hospital Services table/);
  });

  describe('ingested by the pipeline and mounted', () => {
    let snap: { snapshot: MountedSnapshot };
    let tmp: string;
    beforeAll(async () => {
      tmp = await mkdtemp(join(tmpdir(), 'rcm-mue-conf-'));
      const wh = new Warehouse(join(tmp, 'data'));
      await wh.init();
      const { manifest, staged } = await ingestBatch(wh, [{ dataset: 'ncci_mue_prac', files: [FILE] }], () => new Date('2026-11-01T00:00:00Z'));
      expect(staged[0]!.entry).toMatchObject({ version: '2026Q3', effective_date: '2026-07-01', rows: 44, rejects: 0 });
      snap = { snapshot: await MountedSnapshot.open(wh, manifest!, { connections: 1, threads: 1 }) };
    });
    afterAll(async () => {
      snap?.snapshot.close();
      await rm(tmp, { recursive: true, force: true });
    });

    it('answers 0009U for a Q3 2026 date of service', async () => {
      const r = await lookupMueInDataset<MueRow>(snap.snapshot, 'ncci_mue_prac', 'practitioner', '0009U', '2026-09-30');
      expect(r?.row).toMatchObject({ mue_value: 2, mue_adj_ind: 3, mue_rationale: 'Nature of Analyte' });
      expect(r?.used).toMatchObject({ version: '2026Q3', effective_date: '2026-07-01', covered: true });
    });

    it('flags a Q4 date as not covered', async () => {
      const r = await lookupMueInDataset<MueRow>(snap.snapshot, 'ncci_mue_prac', 'practitioner', '0009U', '2026-10-01');
      expect(r?.used.covered).toBe(false);
      expect(r?.row?.mue_value).toBe(2);
    });
  });
});
