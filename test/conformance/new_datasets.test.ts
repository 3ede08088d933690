import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aprDrgCodes } from '../../datasets/apr_drg_codes/dataset.js';
import { findAprDrgCodes } from '../../datasets/apr_drg_codes/queries.js';
import { hcpcsLevel2 } from '../../datasets/hcpcs_level2/dataset.js';
import { hcpcsRelease } from '../../datasets/hcpcs_level2/queries.js';
import { oppsAddendumA } from '../../datasets/opps_addendum_a/dataset.js';
import { ingestFiles } from '../../ingest/pipeline.js';
import { parseAll } from '../../testing/datasets.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';
import { claim837 } from '../../testing/x12.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';

/*
 * hcpcs_level2, opps_addendum_a and apr_drg_codes from their real files (shared/data), through the
 * ingest pipeline into the seeded service, each answering where it is used. Figures worked by hand
 * from the files' lines:
 * - HCPC2026_OCT_ANWEB.excerpt.csv: `   JG,…,20180101,20250101,20241231,N` (ended 2024-12-31);
 *   `   AC,…,20260701,20260701,,N` (in force from 2026-07-01); 35 rows, all RECID 7.
 * - January 2025 Addendum A: `0701,Sr89 strontium,K,,"$4,146.335",.,$829.27,,$829.27,,,`;
 *   227 APCs (0701 … 1511), none with a relative weight.
 * - The 2023 Addendum B workbook: G0463 J2 APC 5012 (no CY2023 Addendum A exists offline).
 * - Tuva's lists: 2023 `181,1,"Lower extremity arterial procedures #"` (318 DRGs x SOI 1-4); 2024
 *   `"139","M","04","OTHER PNEUMONIA"` (316 DRGs; 181 is not among them).
 */
const present = requireShared(
  'hcpcs-level2/HCPC2026_OCT_ANWEB.excerpt.csv',
  'opps-addendum-b/Section 508 version of January 2025 Web Addendum A.12.31.24.excerpt.csv',
  'opps-addendum-b/2023_January_Web_Addendum_B.12212022.xlsx',
  'apr-drg-codes/terminology__apr_drg.31cd028.csv',
  'apr-drg-codes/terminology__apr_drg.296f4dc.csv',
);
const shared = sharedDataDir();
const HCPCS = join(shared, 'hcpcs-level2', 'HCPC2026_OCT_ANWEB.excerpt.csv');
const ADD_A = join(shared, 'opps-addendum-b', 'Section 508 version of January 2025 Web Addendum A.12.31.24.excerpt.csv');
const ADD_B_2023 = join(shared, 'opps-addendum-b', '2023_January_Web_Addendum_B.12212022.xlsx');
const DRG_2023 = join(shared, 'apr-drg-codes', 'terminology__apr_drg.31cd028.csv');
const DRG_2024 = join(shared, 'apr-drg-codes', 'terminology__apr_drg.296f4dc.csv');

describe.skipIf(!present)('hcpcs_level2, opps_addendum_a and apr_drg_codes from their real files', () => {
  let t: TestServer;
  let snap: MountedSnapshot;
  beforeAll(async () => {
    t = await startTestServer({ now: () => new Date('2026-11-20T12:00:00Z') });
    await ingestFiles(t.wh, { dataset: 'hcpcs_level2', files: [HCPCS] });
    await ingestFiles(t.wh, { dataset: 'opps_addendum_a', files: [ADD_A] });
    await ingestFiles(t.wh, { dataset: 'opps_addendum_b', files: [ADD_B_2023] });
    await ingestFiles(t.wh, { dataset: 'apr_drg_codes', files: [DRG_2023], version: 'tuva-31cd028', effectiveDate: '2023-04-27' });
    const last = await ingestFiles(t.wh, { dataset: 'apr_drg_codes', files: [DRG_2024], version: 'tuva-296f4dc', effectiveDate: '2024-01-02' });
    for (let i = 0; i < 100 && t.srv.snapshots.snapshot?.id !== last.snapshot_id; i++) await new Promise((r) => setTimeout(r, 100));
    expect(t.srv.snapshots.snapshot?.id).toBe(last.snapshot_id);
    snap = await MountedSnapshot.open(t.wh, (await t.wh.current())!);
  });
  afterAll(async () => {
    snap?.close();
    await t?.close();
  });

  describe('hcpcs_level2', () => {
    it('reads the 35 rows with no reject and labels the release 2026-10 from the name', async () => {
      const { rows, rejects } = await parseAll(hcpcsLevel2, HCPCS);
      expect(rejects).toEqual([]);
      expect(rows).toHaveLength(35);
      expect(rows.filter((r) => r.termination_date !== null).map((r) => [r.code, r.termination_date])).toEqual([
        ['CP', '2017-12-31'],
        ['GD', '2019-12-31'],
        ['JF', '2015-06-30'],
        ['JG', '2024-12-31'],
        ['L1', '2016-12-31'],
      ]);
      const rel = await hcpcsRelease(snap, '2026-11-02');
      expect(rel).toMatchObject({ version: '2026-10', effective_date: '2026-10-01', covered: true, whole: false });
      expect(rel!.codes.size).toBe(35);
    });

    it('answers in the claim check: JG after its termination is CO-182; a modifier the excerpt lacks is not decided', async () => {
      const r = await t.request('/v1/claims/check', { method: 'POST', body: claim837([{ pcn: 'REALH', lines: [{ code: '99213', mods: ['JG', 'AC'], date: '2026-11-02' }, { code: '99213', mods: ['GA'], date: '2026-11-03' }] }]), headers: { 'content-type': 'application/edi-x12' } });
      expect(r.status).toBe(200);
      const [l1, l2] = r.body.claims[0].lines;
      const hcpcs = (l: { findings: { citations: { title: string }[]; message: string }[] }) => l.findings.filter((f) => /HCPCS Level II/.test(f.message));
      expect(hcpcs(l1)).toEqual([expect.objectContaining({ kind: 'modifier', status: 'fail', fix: 'correct_code', if_sent: expect.objectContaining({ group: 'CO', carc: '182' }) })]);
      expect(hcpcs(l1)[0]!.citations[0]!.title).toBe('CMS HCPCS Level II alpha-numeric file, release 2026-10 (effective 2026-10-01): JG TERM DT 2024-12-31');
      expect(hcpcs(l2)).toEqual([expect.objectContaining({ kind: 'modifier', status: 'no_data' })]);
      expect(r.body.reliability.dataset_versions.hcpcs_level2).toBe('2026-10');
    });
  });

  describe('opps_addendum_a', () => {
    it('reads the 227 APCs with no reject, none with a weight', async () => {
      const { rows, rejects } = await parseAll(oppsAddendumA, ADD_A);
      expect(rejects).toEqual([]);
      expect(rows).toHaveLength(227);
      expect([rows[0]!.apc, rows.at(-1)!.apc]).toEqual(['0701', '1511']);
      expect(rows.filter((r) => r.relative_weight !== null)).toEqual([]);
      expect(rows.filter((r) => r.ira_coinsurance_pct !== null).length).toBeGreaterThan(0);
    });

    it('answers GET /v1/fee-schedules/opps-apc/{apc} for CY2025 from the file', async () => {
      const r = await t.request('/v1/fee-schedules/opps-apc/0701?year=2025');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ apc: '0701', group_title: 'Sr89 strontium', status_indicator: 'K', relative_weight: null, payment_rate: 4146.335, national_unadjusted_copayment: null, minimum_unadjusted_copayment: 829.27, adjusted_copayment: 829.27, year: 2025, version: '2025-01' });
      expect((await t.request('/v1/fee-schedules/opps-apc/0701?year=2023')).status).toBe(404);
    });

    it('links the CY2023 Addendum B row of G0463 to no Addendum A: CY2023 is missing, CY2025 is never used', async () => {
      const r = await t.request('/v1/fee-schedules/opps/G0463?year=2023');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ year: 2023, apc_code: '5012', payment_rate: 120.86, apc_group: null });
      expect(r.body.apc_group_note).toBe("no OPPS Addendum A of CY2023 is loaded, so APC 5012's group title, weight and rate are not shown (loaded: CY2025; another year's is not used)");
      expect(r.body.reliability.dataset_versions.opps_addendum_a).toBeUndefined();
    });
  });

  describe('apr_drg_codes', () => {
    it('reads both layouts with no reject: 318 DRGs (SOIs collapsed) and 316', async () => {
      const a = await parseAll(aprDrgCodes, DRG_2023);
      const b = await parseAll(aprDrgCodes, DRG_2024);
      expect([a.rejects, b.rejects]).toEqual([[], []]);
      expect([a.rows.length, b.rows.length]).toEqual([318, 316]);
      expect(a.rows.every((r) => r.severities.join() === '1,2,3,4')).toBe(true);
      expect(a.rows.filter((r) => r.marker === '#').map((r) => r.drg)).toEqual(['181', '182', '322', '469', '470', '695', '696']);
      expect(a.rows.some((r) => /\t|\d\.\d{4}$/.test(r.description))).toBe(false);
      expect(b.rows.filter((r) => r.mdc === null)).toHaveLength(11);
    });

    it('needs a version and an effective date: the files state neither', async () => {
      await expect(ingestFiles(t.wh, { dataset: 'apr_drg_codes', files: [DRG_2024], dryRun: true })).rejects.toThrow(/cannot find the version label/);
      await expect(ingestFiles(t.wh, { dataset: 'apr_drg_codes', files: [DRG_2024], version: 'x', dryRun: true })).rejects.toThrow(/--effective-date YYYY-MM-DD is required/);
    });

    it('answers by date: the 2023 list names 181 in mid-2023, the 2024 list does not have it', async () => {
      expect(await findAprDrgCodes(snap, '181', '2023-06-01')).toEqual([expect.objectContaining({ description: 'Lower extremity arterial procedures', marker: '#', version: 'tuva-31cd028' })]);
      expect(await findAprDrgCodes(snap, '181', '2026-03-02')).toEqual([]);
    });

    it('names the DRG in the Medi-Cal calculator from the list in force on the discharge date, citing it', async () => {
      const r = await t.request('/v1/medi-cal/apr-drg/payment', { method: 'POST', body: { apr_drg: '139-2', oshpd_id: '106999002', length_of_stay: 4, patient_age: 67, total_charges: 30000, discharge_date: '2026-03-02' } });
      expect(r.status).toBe(200);
      expect(r.body.apr_drg_name).toEqual({ apr_drg: '139', description: 'OTHER PNEUMONIA', medical_surgical: 'M', mdc: '04', source: expect.objectContaining({ dataset: 'apr_drg_codes', version: 'tuva-296f4dc', source_files: ['terminology__apr_drg.296f4dc.csv'] }) });
      expect(r.body.reliability.dataset_versions.apr_drg_codes).toBe('tuva-296f4dc');
    });
  });
});
