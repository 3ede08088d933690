import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ascAddendumAa } from '../../datasets/asc_addendum_aa/dataset.js';
import { cp1252 } from '../../datasets/_shared/source.js';
import { ingestFiles } from '../../ingest/pipeline.js';
import { parseAll, REPO_ROOT } from '../../testing/datasets.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

/*
 * CMS ASC Addendum AA, January 2025 (508-Version-Jan-2025-ASC-AA.csv, SOURCE.md in asc-addenda/):
 * the whole file through the parser and the ingest pipeline, then the ASC block of the payment
 * route at place of service 24, worked by hand from the file's rows and the wage_index seed
 * (illustrative FY2026 values, so every wage-adjusted answer is degraded):
 * - 29881 A2 "$1,579.16" at CBSA 35614 (1.3456): 1579.16 x (0.5 x 1.3456 + 0.5) = 1852.038848 -> $1,852.04
 * - 47562 G2 "$2,860.32" at CBSA 41884 (1.9315): 2860.32 x 1.46575 = 4192.51404 -> $4,192.51
 * - 22551 J8 "$9,069.02" at CBSA 13820 (0.8283): 9069.02 x 0.91415 = 8290.444633 -> $8,290.44
 * - 0214T N1 (blank weight and rate): packaged, no amount.
 */
const present = requireShared('asc-addenda/508-Version-Jan-2025-ASC-AA.csv', 'mpfs-rvu/PPRRVU2025_Oct.csv', 'gpci/ZIP5_OCT2025.txt', 'gpci/25LOCCO.csv');
const CBSA_SEED = 'FY2026 CBSA to County Crosswalk.csv';
const shared = sharedDataDir();
const AA = join(shared, 'asc-addenda', '508-Version-Jan-2025-ASC-AA.csv');
const RVU = join(shared, 'mpfs-rvu', 'PPRRVU2025_Oct.csv');
const WAGE_SEED = join(REPO_ROOT, 'seeds', 'wage_index', 'FY2026 IPPS Final Rule Table 3.csv');
const DOS = '2025-06-10';

/** The code rows of the file read with no CSV parser: a line starting with a code, its last cell's money text. */
async function rawRates(): Promise<Map<string, string>> {
  const lines = cp1252(await readFile(AA)).split('\r\n').filter((l) => /^[0-9A-Z]{5},/.test(l));
  return new Map(lines.map((l) => [l.slice(0, 5), /,("\$[\d,]+\.\d\d"|\$[\d.]+|)$/.exec(l)?.[1] ?? '(none)']));
}

describe.skipIf(!present)('ASC Addendum AA January 2025: the whole file, and the asc block of GET /v1/codes/{code}/payment', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ seeded: false });
    await ingestFiles(t.wh, { dataset: 'mpfs_rvu', files: [RVU] });
    await ingestFiles(t.wh, { dataset: 'wage_index', files: [WAGE_SEED], seed: true, illustrative: true });
    await ingestFiles(t.wh, { dataset: 'cbsa_county', files: [join(REPO_ROOT, 'seeds', 'cbsa_county', CBSA_SEED)], seed: true, illustrative: true });
    await ingestFiles(t.wh, { dataset: 'zip_locality', files: [join(shared, 'gpci', 'ZIP5_OCT2025.txt')] });
    await ingestFiles(t.wh, { dataset: 'locality_county', files: [join(shared, 'gpci', '25LOCCO.csv')] });
    const last = await ingestFiles(t.wh, { dataset: 'asc_addendum_aa', files: [AA] });
    for (let i = 0; i < 100 && t.srv.snapshots.snapshot?.id !== last.snapshot_id; i++) await new Promise((r) => setTimeout(r, 100));
    expect(t.srv.snapshots.snapshot?.id).toBe(last.snapshot_id);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('reads all 4,183 code rows with no reject, each rate equal to the text the line prints', async () => {
    const { rows, rejects } = await parseAll(ascAddendumAa, AA);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(4183);
    const counts: Record<string, number> = {};
    for (const r of rows) counts[r.payment_indicator] = (counts[r.payment_indicator] ?? 0) + 1;
    expect(counts).toEqual({ A2: 2018, G2: 631, J8: 516, N1: 443, P3: 406, P2: 67, R2: 57, D2: 45 });
    // Packaged rows print neither weight nor rate; every other row prints a rate.
    expect(rows.filter((r) => r.payment_indicator === 'N1').every((r) => r.payment_rate === null && r.payment_weight === null)).toBe(true);
    expect(rows.filter((r) => r.payment_rate === null).length).toBe(443);
    const raw = await rawRates();
    expect(raw.size).toBe(4183);
    for (const r of rows) {
      const text = raw.get(r.hcpcs_code)!.replace(/"/g, '');
      expect(r.payment_rate === null ? '' : `$${r.payment_rate.toLocaleString('en-US', { minimumFractionDigits: 2 })}`, r.hcpcs_code).toBe(text);
    }
    expect(rows.filter((r) => r.marker === '*')).toHaveLength(9);
    expect(rows.filter((r) => r.marker === '**').map((r) => r.hcpcs_code)).toEqual(['G0104', 'G0105', 'G0121']);
    expect(rows.every((r) => r.year === 2025)).toBe(true);
  });

  it('loads the file as release 2025-01 through the pipeline', () => {
    const v = t.srv.snapshots.snapshot!.versions('asc_addendum_aa');
    expect(v.map((x) => [x.version, x.effective_date, x.rows, x.rejects])).toEqual([['2025-01', '2025-01-01', 4183, 0]]);
  });

  it('prices 29881, 47562 and 22551 at their CBSAs by 42 CFR 416.172(c), degraded on the illustrative wage index', async () => {
    for (const [code, cbsa, rate, want] of [['29881', '35614', 1579.16, 1852.04], ['47562', '41884', 2860.32, 4192.51], ['22551', '13820', 9069.02, 8290.44]] as const) {
      const r = await t.request(`/v1/codes/${code}/payment?place_of_service=24&cbsa=${cbsa}&date_of_service=${DOS}`);
      expect(r.status).toBe(200);
      expect(r.body.asc, code).toMatchObject({ allowed_asc_payment: want, national_rate: rate, wage_adjusted: true, cbsa, release: '2025-01', multiple_procedure_discount: true });
      expect(r.body.reliability).toMatchObject({ degraded: true, dataset_versions: { asc_addendum_aa: '2025-01', wage_index: 'FY2026' } });
      expect(r.body.reliability.warnings).toContainEqual(expect.stringMatching(/^asc: the wage index of CBSA \d+ is from wage_index FY2026, an illustrative seed/));
    }
  });

  it('answers the national rate with a warning without a CBSA, and no amount for a packaged code', async () => {
    const national = await t.request(`/v1/codes/29881/payment?place_of_service=24&date_of_service=${DOS}`);
    expect(national.body.asc).toMatchObject({ allowed_asc_payment: 1579.16, wage_adjusted: false, payment_indicator: 'A2' });
    expect(national.body.reliability.warnings).toContainEqual(expect.stringMatching(/^asc: no cbsa, ccn or zip given/));
    const packaged = await t.request(`/v1/codes/0214T/payment?place_of_service=24&cbsa=35614&date_of_service=${DOS}`);
    expect(packaged.status).toBe(200);
    expect(packaged.body.asc).toMatchObject({ allowed_asc_payment: null, national_rate: null, payment_indicator: 'N1', payment_indicator_meaning: 'packaged service or item; no separate payment made' });
  });

  it("finds the CBSA of a ZIP whose locality is one county (ZIP5 and 25LOCCO real; the crosswalk seed illustrative), and names the CBSAs of one that spans two", async () => {
    // 94901 (San Rafael) is in locality 0111252, MARIN alone in 25LOCCO; MARIN is CBSA 42034 (2.0412):
    // 29881: 1579.16 x (0.5 x 2.0412 + 0.5) = 1579.16 x 1.5206 = 2401.270696 -> $2,401.27.
    const r = await t.request(`/v1/codes/29881/payment?place_of_service=24&zip=94901&date_of_service=${DOS}`);
    expect(r.body.asc).toMatchObject({ allowed_asc_payment: 2401.27, wage_adjusted: true, cbsa: '42034' });
    expect(r.body.reliability.warnings).toContainEqual('asc: CBSA 42034 from ZIP 94901 (CA, payment locality 0111252): every county of the locality (MARIN) is in CBSA 42034');
    expect(r.body.reliability.dataset_versions).toMatchObject({ zip_locality: '2025Q4', locality_county: '2025', cbsa_county: 'FY2026' });
    const two = await t.request(`/v1/codes/29881/payment?place_of_service=24&zip=94143&date_of_service=${DOS}`);
    expect(two.body.asc).toMatchObject({ allowed_asc_payment: 1579.16, wage_adjusted: false });
    expect(two.body.reliability.warnings).toContainEqual(expect.stringMatching(/^asc: ZIP 94143 \(CA, payment locality 0111205\): its locality's counties lie in CBSAs 36084, 41884/));
  });
});
