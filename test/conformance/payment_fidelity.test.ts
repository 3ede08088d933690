import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dec, toCents } from '../../lib/decimal.js';
import { gpci } from '../../datasets/gpci/dataset.js';
import { mpfsRvu, type MpfsRvuRow } from '../../datasets/mpfs_rvu/dataset.js';
import { oppsCap, type OppsCapRow } from '../../datasets/opps_cap/dataset.js';
import type { GpciRow } from '../../datasets/gpci/dataset.js';
import { ingestFiles } from '../../ingest/pipeline.js';
import { readPfrev, verifyOppsCap, verifyPfrev } from '../../server/payment/verify.js';
import { parseAll } from '../../testing/datasets.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';
import { tempDir } from '../../testing/temp_dirs.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';
import { Warehouse } from '../../warehouse/store.js';

/*
 * Payment fidelity against amounts CMS publishes, through the HTTP route:
 * - PFREV25C.txt (CY2025 payment file, layout PF25PC.pdf): 76145 in all 109 localities, non-facility
 *   (field 6) and facility (field 7) amounts, from PPRRVU2025_Oct.csv, GPCI2025.csv and the 2025
 *   CONV FACTOR 32.3465 of the RVU file.
 * - OPPSCAP_Oct.csv: every status-A row (code, modifier, carrier/locality), both settings: the
 *   physician block pays the lesser of the PFS amount (worked here from the RVU and GPCI rows) and
 *   the cap.
 */
const present = requireShared('mpfs-rvu/PPRRVU2025_Oct.csv', 'gpci/GPCI2025.csv', 'mpfs-rvu/OPPSCAP_Oct.csv', 'mpfs-rvu/PFREV25C.txt');
const shared = sharedDataDir();
const RVU = join(shared, 'mpfs-rvu', 'PPRRVU2025_Oct.csv');
const GPCI = join(shared, 'gpci', 'GPCI2025.csv');
const CAP = join(shared, 'mpfs-rvu', 'OPPSCAP_Oct.csv');
const PFREV = join(shared, 'mpfs-rvu', 'PFREV25C.txt');
const DOS = '2025-10-15';
/** PFREV25C.txt's line for Alabama (carrier 10112, locality 00). */
const ALABAMA_LINE = 79;

let t: TestServer;

/** Runs `fn` over `items` with `n` requests in flight (loopback HTTP). */
async function pool<T>(items: T[], n: number, fn: (x: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (i < items.length) await fn(items[i++]!);
  }));
}

describe.skipIf(!present)('payment fidelity: CMS CY2025 payment amounts and OPPS caps through GET /v1/codes/{code}/payment', () => {
  beforeAll(async () => {
    t = await startTestServer({ seeded: false });
    await ingestFiles(t.wh, { dataset: 'mpfs_rvu', files: [RVU] });
    await ingestFiles(t.wh, { dataset: 'gpci', files: [GPCI] });
    const last = await ingestFiles(t.wh, { dataset: 'opps_cap', files: [CAP], version: '2025D', effectiveDate: '2025-10-01' });
    for (let i = 0; i < 100 && t.srv.snapshots.snapshot?.id !== last.snapshot_id; i++) await new Promise((r) => setTimeout(r, 100));
    expect(t.srv.snapshots.snapshot?.id).toBe(last.snapshot_id);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('reproduces all 218 amounts of PFREV25C.txt (76145, 109 localities x 2 settings) with the CY2025 factor', async () => {
    const lines = (await readFile(PFREV, 'latin1')).split(/\r?\n/).filter((l) => l.startsWith('"20'));
    const records = lines.map((l) => l.split('","').map((f) => f.replace(/"/g, '')));
    expect(records).toHaveLength(109);
    let matched = 0;
    await pool(records, 8, async (f) => {
      const [year, carrier, locality, code, mod, nonFac, fac] = f;
      expect(year).toBe('2025');
      // CMS publishes each row's non-facility and facility price: the facility price of a row is
      // asked with use_facility_rate (a hospital place of service prices what the practitioner is
      // paid there instead: the -26 row of a PC/TC indicator 1 code, ch. 13 section 20).
      for (const [setting, want] of [['place_of_service=11', nonFac], ['use_facility_rate=true', fac]] as const) {
        const r = await t.request(`/v1/codes/${code}/payment?locality=${carrier}${locality}&date_of_service=${DOS}&${setting}${mod!.trim() ? `&modifier=${mod!.trim()}` : ''}`);
        expect(r.status).toBe(200);
        expect(r.body.physician.allowed_phy_payment, `${code} ${carrier}${locality} ${setting}`).toBe(Number(want));
        expect(r.body.physician).toMatchObject({ conversion_factor: 32.3465, conversion_factor_source: expect.stringContaining('CONV FACTOR of PPRRVU2025_Oct.csv') });
        matched++;
      }
    });
    expect(matched).toBe(218);
  });

  it('rcm verify pfrev finds every one of the 218 amounts of PFREV25C.txt (the same read back, as a data team\'s CI runs it)', async () => {
    const r = await verifyPfrev(t.srv.snapshots.snapshot!, readPfrev(await readFile(PFREV, 'latin1')));
    expect(r).toMatchObject({ checked: 218, differences: [], rvu_version: '2025D', date_of_service: '2025-10-01' });
  });

  it('rcm verify opps-cap finds the lesser of the PFS amount and the cap for every priced row, the six cross-MAC localities skipped', async () => {
    const r = await verifyOppsCap(t.srv.snapshots.snapshot!);
    expect(r.differences).toEqual([]);
    expect([...new Set(r.skipped.map((s) => s.locality))].sort()).toEqual(['0111217', '0111218', '0111271', '0111272', '0111273', '0111274']);
    expect(r.checked / 2 + r.skipped.length).toBe(6670);
    expect(r.capped).toBeGreaterThan(0);
  });

  it('pays the lesser of the PFS amount and the cap for every status-A row of OPPSCAP_Oct.csv, both settings', async () => {
    const caps = (await parseAll<OppsCapRow>(oppsCap, CAP)).rows.filter((r) => r.procstat === 'A');
    expect(caps).toHaveLength(6670);
    const rvus = new Map(((await parseAll<MpfsRvuRow>(mpfsRvu, RVU)).rows).map((r) => [`${r.hcpcs}|${r.modifier}`, r]));
    const gpcis = new Map(((await parseAll<GpciRow>(gpci, GPCI)).rows).map((g) => [g.locality, g]));
    let checked = 0;
    let capped = 0;
    // The cap file also lists six Southern California localities under carrier 01112 (17, 18,
    // 71-74) that GPCI2025 lists only under MAC 01182: the 01112 form is a 422 on locality.
    const orphans = caps.filter((c) => !gpcis.has(c.locality));
    expect([...new Set(orphans.map((c) => c.locality))].sort()).toEqual(['0111217', '0111218', '0111271', '0111272', '0111273', '0111274']);
    const o = orphans[0]!;
    const orphan = await t.request(`/v1/codes/${o.hcpcs}/payment?locality=${o.locality}&date_of_service=${DOS}`);
    expect(orphan.status).toBe(422);
    expect(orphan.body.detail[0]).toMatchObject({ loc: ['query', 'locality'] });
    const priced = caps.filter((c) => gpcis.has(c.locality));
    await pool(priced, 8, async (c) => {
      const rvu = rvus.get(`${c.hcpcs}|${c.modifier}`)!;
      const g = gpcis.get(c.locality)!;
      expect(rvu, `${c.hcpcs}-${c.modifier} in the RVU file`).toBeDefined();
      for (const facility of [false, true]) {
        const pe = facility ? rvu.facility_pe_rvu : rvu.non_fac_pe_rvu;
        const total = Dec.of(rvu.work_rvu ?? 0).mul(g.pw_gpci).add(Dec.of(pe ?? 0).mul(g.pe_gpci)).add(Dec.of(rvu.mp_rvu ?? 0).mul(g.mp_gpci));
        const pfs = toCents(total.mul('32.3465'));
        const cap = facility ? c.facility_price : c.non_facility_price;
        const want = Math.min(pfs, cap);
        const q = `locality=${c.locality}&date_of_service=${DOS}&${facility ? 'use_facility_rate=true' : 'place_of_service=11'}${c.modifier ? `&modifier=${c.modifier}` : ''}`;
        const r = await t.request(`/v1/codes/${c.hcpcs}/payment?${q}`);
        expect(r.status, q).toBe(200);
        expect(r.body.physician, `${c.hcpcs} ${q}`).toMatchObject({ allowed_phy_payment: want, opps_cap_amount: cap, opps_cap_applied: cap < pfs });
        checked++;
        if (cap < pfs) capped++;
      }
    });
    expect(checked).toBe(priced.length * 2);
    expect(priced.length + orphans.length).toBe(6670);
    // The issue's example: 70496 in carrier 01112 locality 05 is capped at $343.62.
    const r = await t.request(`/v1/codes/70496/payment?locality=0111205&date_of_service=${DOS}&place_of_service=11`);
    expect(r.body.physician).toMatchObject({ allowed_phy_payment: 343.62, opps_cap_applied: true });
    // At a hospital place of service the practitioner bills 70496-26: priced from that row.
    const pro = await t.request(`/v1/codes/70496/payment?locality=0111205&date_of_service=${DOS}&place_of_service=22`);
    const pc = await t.request(`/v1/codes/70496/payment?locality=0111205&date_of_service=${DOS}&modifier=26&use_facility_rate=true`);
    expect(pro.body.physician.rvu_row).toBe('26');
    expect(pro.body.physician.allowed_phy_payment).toBe(pc.body.physician.allowed_phy_payment);
    console.info(`OPPSCAP: ${checked} setting checks over ${priced.length} priced status-A rows (${orphans.length} under carrier 01112 for localities GPCI2025 lists under 01182), ${capped} capped`);
  });

  it('a carrier-priced (status C) cap row is reported, not priced; a 2026 service is priced by no 2025 file', async () => {
    const c = (await parseAll<OppsCapRow>(oppsCap, CAP)).rows.find((r) => r.procstat === 'C' && r.modifier === 'TC')!;
    const r = await t.request(`/v1/codes/${c.hcpcs}/payment?locality=${c.locality}&modifier=TC&date_of_service=${DOS}`);
    expect(r.status).toBe(200);
    expect(r.body.reliability.warnings.join(' ')).toContain('carrier priced');
    const y2026 = await t.request(`/v1/codes/70496/payment?locality=0111205&date_of_service=2026-03-02&place_of_service=11`);
    // The date rule: no CY2026 RVU release is loaded, so the 2025 RVUs and cap never price a 2026 date.
    expect(y2026.status).toBe(404);
    expect(y2026.body.detail).toBe('no mpfs_rvu version loaded covers date of service 2026-03-02 (CY2026); the nearest loaded is 2025D (CY2025, effective 2025-10-01)');
  });

  it('a code billed only with a modifier answers 200 with no physician block and names the modifiers', async () => {
    const r = await t.request(`/v1/codes/86153/payment?date_of_service=${DOS}`);
    expect(r.status).toBe(200);
    expect(r.body.physician).toBeNull();
    expect(r.body.reliability.warnings.join(' ')).toContain('only with modifier 26');
  });
});

describe.skipIf(!present)('rcm verify pfrev against a GPCI file with one value changed', () => {
  it('names the two amounts of that locality (both settings) and no other', async () => {
    const wh = new Warehouse(await tempDir('rcm-verify-gpci-'));
    const changed = join(await tempDir('rcm-verify-gpci-src-'), 'GPCI2025.csv');
    // Alabama's PE GPCI, 0.869 in CMS's file, written as 0.870.
    const text = await readFile(GPCI, 'latin1');
    expect(text).toContain('10112,AL,00,ALABAMA,1,0.869,0.575');
    await writeFile(changed, text.replace('10112,AL,00,ALABAMA,1,0.869,0.575', '10112,AL,00,ALABAMA,1,0.870,0.575'), 'latin1');
    await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [RVU] });
    await ingestFiles(wh, { dataset: 'gpci', files: [changed] });
    const snap = await MountedSnapshot.open(wh, (await wh.current())!, { connections: 1, threads: 1 });
    try {
      const r = await verifyPfrev(snap, readPfrev(await readFile(PFREV, 'latin1')));
      expect(r.checked).toBe(218);
      expect(r.differences.map((d) => `${d.line} ${d.locality} ${d.setting}`)).toEqual([`${ALABAMA_LINE} 1011200 non_facility`, `${ALABAMA_LINE} 1011200 facility`]);
      for (const d of r.differences) expect(d.answered).not.toBe(d.expected);
    } finally {
      snap.close();
    }
  });
});
