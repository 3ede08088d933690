import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFiles, type IngestSummary } from '../../ingest/pipeline.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';
import { Warehouse } from '../../warehouse/store.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

const present = requireShared('mpfs-rvu/PPRRVU2025_Oct.csv', 'mpfs-rvu/PPRRVU2026_Jul_nonQPP.excerpt.redacted.csv', 'gpci/GPCI2025.csv', 'gpci/GPCI2026.csv');
const SHARED = sharedDataDir();
const RVU25 = join(SHARED, 'mpfs-rvu/PPRRVU2025_Oct.csv');
const RVU26 = join(SHARED, 'mpfs-rvu/PPRRVU2026_Jul_nonQPP.excerpt.redacted.csv');

let dir: string;
let wh: Warehouse;
const loaded: Record<string, IngestSummary> = {};

describe.skipIf(!present)('foundation datasets on the real CMS files', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rcm-conf-'));
    wh = new Warehouse(dir);
    loaded.rvu25 = await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [RVU25] });
    // The 2026 file here is a 61-row excerpt: against the full 2025 release it removes nearly every key.
    loaded.rvu26 = await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [RVU26], allowRemovals: true });
    loaded.gpci25 = await ingestFiles(wh, { dataset: 'gpci', files: [join(SHARED, 'gpci/GPCI2025.csv')] });
    loaded.gpci26 = await ingestFiles(wh, { dataset: 'gpci', files: [join(SHARED, 'gpci/GPCI2026.csv')] });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads every row of PPRRVU2025_Oct.csv (31 columns, RVU25D) with no rejects', () => {
    expect(loaded.rvu25).toMatchObject({ version: '2025D', effective_date: '2025-10-01', rows: 19090, rejects: 0 });
  });

  it('loads the 2026 32-column layout (PRIC IND) as release 2026C from the title line', () => {
    expect(loaded.rvu26).toMatchObject({ version: '2026C', effective_date: '2026-07-01', rows: 61, rejects: 0 });
  });

  it('loads 109 localities from each GPCI year, and records 2025 -> 2026 changes by locality', () => {
    expect(loaded.gpci25).toMatchObject({ version: '2025', rows: 109, rejects: 0 });
    expect(loaded.gpci26).toMatchObject({ version: '2026', rows: 109, rejects: 0 });
    expect(loaded.gpci26!.change).toMatchObject({ from_version: '2025', to_version: '2026', counts: { added: 0, removed: 0 } });
    expect(loaded.gpci26!.change.counts.changed).toBeGreaterThan(50);
  });

  it('keeps the values of hand-checked rows', async () => {
    const snap = await MountedSnapshot.open(wh, (await wh.current())!);
    try {
      // PPRRVU2025_Oct.csv: 99213,,Office o/p est low 20 min,A,,1.30,1.35,,0.57,,0.10,2.75,1.97,0,XXX,...,32.3465
      const [r] = await snap.all(`SELECT * FROM mpfs_rvu WHERE hcpcs = '99213' AND version = '2025D'`);
      expect(r).toMatchObject({ modifier: '', status_code: 'A', work_rvu: 1.3, non_fac_pe_rvu: 1.35, facility_pe_rvu: 0.57, mp_rvu: 0.1, non_facility_total: 2.75, facility_total: 1.97, global_days: 'XXX', conv_factor: 32.3465, pricing_indicator: null });
      // 27447 has NA in the non-facility NA indicator column.
      const [tka] = await snap.all(`SELECT * FROM mpfs_rvu WHERE hcpcs = '27447' AND version = '2025D'`);
      expect(tka).toMatchObject({ work_rvu: 19.6, non_fac_na_indicator: 'NA', global_days: '090', mult_proc: '2' });
      // A quoted description with a doubled quote: "Ext wear ost skn barr <=4sq"""
      const [a4407] = await snap.all(`SELECT description FROM mpfs_rvu WHERE hcpcs = 'A4407'`);
      expect(a4407!.description).toBe('Ext wear ost skn barr <=4sq"');
      // 2026 excerpt: 00100,,REDACTED,J,...,9,9,9,9,9,9(PRIC IND),,33.4009,09,...
      const [anes] = await snap.all(`SELECT * FROM mpfs_rvu WHERE hcpcs = '00100' AND version = '2026C'`);
      expect(anes).toMatchObject({ status_code: 'J', team_surg: '9', pricing_indicator: '9', endo_base: '', conv_factor: 33.4009, cf_variant: 'nonQPP', phys_supervision: '09' });
      const mods = await snap.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM mpfs_rvu WHERE version = '2025D' AND modifier <> ''`);
      expect(mods[0]!.n).toBe(2239);
      // GPCI2026.csv line 78: 13202,NY,01,MANHATTAN,1.064,1.162,1.586; GPCI2025.csv: 1.065,1.166,1.656
      const g = await snap.all(`SELECT version, pw_gpci, pe_gpci, mp_gpci, locality_name FROM gpci WHERE locality = '1320201' ORDER BY version`);
      expect(g).toEqual([
        { version: '2025', pw_gpci: 1.065, pe_gpci: 1.166, mp_gpci: 1.656, locality_name: 'MANHATTAN' },
        { version: '2026', pw_gpci: 1.064, pe_gpci: 1.162, mp_gpci: 1.586, locality_name: 'MANHATTAN' },
      ]);
      // 2025 drops trailing zeros: 10112,AL,00,ALABAMA,1,0.869,0.575
      const [al] = await snap.all(`SELECT pw_gpci, pe_gpci, mp_gpci FROM gpci WHERE locality = '1011200' AND version = '2025'`);
      expect(al).toEqual({ pw_gpci: 1, pe_gpci: 0.869, mp_gpci: 0.575 });
      const [ak] = await snap.all(`SELECT locality_name FROM gpci WHERE locality = '0210201' AND version = '2026'`);
      expect(ak!.locality_name).toBe('ALASKA');
    } finally {
      snap.close();
    }
  });
});
