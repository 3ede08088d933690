import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFiles } from '../../ingest/pipeline.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

/*
 * Payment composition on the real CMS files, ingested through the pipeline into an empty data dir:
 *   ../shared/data/mpfs-rvu/PPRRVU2025_Oct.csv (2025 October release, 19,100 lines)
 *   ../shared/data/gpci/GPCI2026.csv (Addendum E, CY 2026, 109 localities)
 * with the curated yearly figures (seeds/medicare_yearly_figures: the CY2026 factors of the PFS
 * final rule, the spec's rule 1). Every expected amount below is worked by hand from the rows
 * named, at the 2026 CFs.
 */
const present = requireShared('mpfs-rvu/PPRRVU2025_Oct.csv', 'gpci/GPCI2026.csv');
const shared = sharedDataDir();
const RVU = join(shared, 'mpfs-rvu', 'PPRRVU2025_Oct.csv');
const GPCI = join(shared, 'gpci', 'GPCI2026.csv');
const FIGURES = [2025, 2026].map((y) => join(import.meta.dirname, '../../seeds/medicare_yearly_figures', `${y}.yaml`));

let t: TestServer;

describe.skipIf(!present)('payment composition on the real PPRRVU2025_Oct.csv and GPCI2026.csv', () => {
  beforeAll(async () => {
    t = await startTestServer({ seeded: false });
    await ingestFiles(t.wh, { dataset: 'mpfs_rvu', files: [RVU] });
    await ingestFiles(t.wh, { dataset: 'medicare_yearly_figures', files: FIGURES });
    const last = await ingestFiles(t.wh, { dataset: 'gpci', files: [GPCI] });
    // The server polls CURRENT; wait until it serves the snapshot holding both datasets.
    for (let i = 0; i < 100 && t.srv.snapshots.snapshot?.id !== last.snapshot_id; i++) await new Promise((r) => setTimeout(r, 100));
    expect(t.srv.snapshots.snapshot?.id).toBe(last.snapshot_id);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('prices 99213 in Manhattan: $103.89 non-facility / $73.62 facility (non-QPP), $104.41 / $73.99 (QPP)', async () => {
    // PPRRVU2025_Oct.csv line 12807: 99213 work 1.30, non-fac PE 1.35, fac PE 0.57, MP 0.10
    // GPCI2026.csv line 78: 13202,NY,01,MANHATTAN,1.064,1.162,1.586
    // non-fac total 1.3832 + 1.5687 + 0.1586 = 3.1105: x33.4009 = 103.893499450, x33.5675 = 104.411708750
    // fac total 1.3832 + 0.66234 + 0.1586 = 2.20414: x33.4009 = 73.620259726, x33.5675 = 73.987469450
    const cases: [string, number][] = [
      ['locality=1320201', 103.89],
      ['locality=1320201&use_facility_rate=true', 73.62],
      ['locality=1320201&qpp=true', 104.41],
      ['locality=1320201&place_of_service=21&qpp_flag=1', 73.99],
    ];
    for (const [q, want] of cases) {
      const r = await t.request(`/v1/codes/99213/payment?${q}`);
      expect(r.status, q).toBe(200);
      expect(r.body.estimated_payment, q).toBe(want);
      expect(r.body.physician.allowed_phy_payment, q).toBe(want);
    }
  });

  it('prices 99214 in Atlanta non-facility: $131.42', async () => {
    // PPRRVU2025_Oct.csv line 12808: 99214 work 1.92, non-fac PE 1.80, MP 0.15
    // GPCI2026.csv line 44: 10212,GA,01,ATLANTA,1.003,1.016,1.201
    // 1.92x1.003 = 1.92576; 1.80x1.016 = 1.82880; 0.15x1.201 = 0.18015; total 3.93471
    // x 33.4009 = 131.422855239 -> 131.42
    const r = await t.request('/v1/codes/99214/payment?locality=10212-01');
    expect(r.body).toMatchObject({ locality: '1021201', total_adjusted_rvu: 3.93471, estimated_payment: 131.42 });
  });

  it('prices 27447 (total knee, facility) in Alaska at the QPP CF: $1,607.46', async () => {
    // PPRRVU2025_Oct.csv line 2773: 27447 work 19.60, fac PE 15.30, MP 3.98 (non-fac NA)
    // GPCI2026.csv line 5: 02102,AK,01,ALASKA*,1.500,1.065,0.551
    // 19.60x1.500 = 29.4; 15.30x1.065 = 16.2945; 3.98x0.551 = 2.19298; total 47.88748
    // x 33.5675 = 1607.462984900 -> 1607.46
    const r = await t.request('/v1/codes/27447/payment?locality=0210201&place_of_service=21&qpp=true');
    expect(r.body.physician).toMatchObject({ work_rvu: 19.6, pe_rvu: 15.3, mp_rvu: 3.98, pe_rvu_source: 'facility', total_adjusted_rvu: 47.88748, allowed_phy_payment: 1607.46 });
  });

  it('prices 71046-26 in Puerto Rico: $10.38', async () => {
    // PPRRVU2025_Oct.csv line 7695: 71046,26 work 0.22, PE 0.08, MP 0.01
    // GPCI2026.csv line 91: 09202,PR,20,PUERTO RICO,1.000,1.011,0.985
    // 0.22 + 0.08088 + 0.00985 = 0.31073 x 33.4009 = 10.378661657 -> 10.38
    const r = await t.request('/v1/codes/71046/payment?locality=0920220&modifier=26');
    expect(r.body.physician).toMatchObject({ work_rvu: 0.22, pe_rvu: 0.08, mp_rvu: 0.01, allowed_phy_payment: 10.38 });
  });

  it('prices G2211 (not in the seeds) in St. Louis: $15.83', async () => {
    // PPRRVU2025_Oct.csv line 15241: G2211 work 0.33, non-fac PE 0.13, MP 0.02
    // GPCI2026.csv line 69: 05302,MO,01,METROPOLITAN ST. LOUIS,1.000,0.952,1.002
    // 0.33 + 0.12376 + 0.02004 = 0.4738 x 33.4009 = 15.825346420 -> 15.83
    const r = await t.request('/v1/codes/G2211/payment?locality=0530201');
    expect(r.body.estimated_payment).toBe(15.83);
  });

  it('serves every one of the 109 GPCI2026 localities', async () => {
    // GPCI2026.csv: 109 locality rows between the header (line 3) and the footnotes.
    const rows = await t.srv.snapshots.snapshot!.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM gpci');
    expect(rows[0]!.n).toBe(109);
    const r = await t.request('/v1/codes/99213/payment?locality=0111205'); // SAN FRANCISCO 1.095/1.410/0.425
    // 1.30x1.095 + 1.35x1.410 + 0.10x0.425 = 1.4235 + 1.9035 + 0.0425 = 3.3695 x 33.4009 = 112.544332550 -> 112.54
    expect(r.body.estimated_payment).toBe(112.54);
  });
});
