import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIO } from '../../cli/main.js';
import { seedAll } from '../../ingest/seed.js';
import { Warehouse } from '../../warehouse/store.js';
import { startTestServer, waitForSnapshot, type TestServer } from '../../testing/harness.js';
import { REPO_ROOT } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

// A data team's first real loads over a fresh clone's seeds, exactly as the README says: `rcm
// ingest <dataset> <file> --version <label>`, no effective date. Each real release must then be
// what the API serves, whatever its label or date next to the seed's.
const present = requireShared('pos-facilities/Hospital_General_Information.csv', 'openfda-ndc/unfinished_product.txt', 'openfda-ndc/unfinished_package.txt');
const SHARED = sharedDataDir();

async function rcm(dataDir: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const o = { out: '', err: '' };
  const io: CliIO = { isTTY: false, env: { RCM_DATA_DIR: dataDir }, stdout: (s) => void (o.out += s), stderr: (s) => void (o.err += s) };
  const code = await main(args, io);
  return { code, ...o };
}

describe.skipIf(!present)('real releases loaded with --version and --effective-date replace the seeds', () => {
  let dir: string;
  let t: TestServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rcm-real-over-seeds-'));
    await seedAll(new Warehouse(dir), join(REPO_ROOT, 'seeds'), () => new Date('2026-11-01T00:00:00Z'));
    t = await startTestServer({ seeded: false, dataDir: dir });
  });
  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('without --version the message asks for --effective-date too', async () => {
    const r = await rcm(dir, 'ingest', 'facilities', join(SHARED, 'pos-facilities/Hospital_General_Information.csv'), '--dry-run');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/pass --version <label> and --effective-date YYYY-MM-DD/);
  });

  it('Care Compare hospitals under --version 2025-10: 5,421 rows served, the 8-row seed gone', async () => {
    expect((await t.request('/v1/facilities/010005')).status).toBe(404);
    const r = await rcm(dir, 'ingest', 'facilities', join(SHARED, 'pos-facilities/Hospital_General_Information.csv'), '--version', '2025-10', '--effective-date', '2025-10-01', '--json');
    expect(r.code, r.err).toBe(0);
    const summary = JSON.parse(r.out);
    expect(summary).toMatchObject({ version: '2025-10', effective_date: '2025-10-01', rows: 5421, rejects: 0 });
    expect(summary.change).toMatchObject({ from_version: '2025-10', to_version: '2025-10', replaces_seed: true, replaced_seeds: ['2025-10'] });
    await waitForSnapshot(t, summary.snapshot_id);
    const res = await t.request('/v1/facilities/010005');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ccn: '010005' });
    expect(res.body.reliability.dataset_versions.facilities).toBe('2025-10');
    // A VA hospital's CCN ends in a letter, as CMS assigns it.
    expect((await t.request('/v1/facilities/01014F')).status).toBe(200);
  });

  it("FDA's 2018 directory under --version 2018-06-25 replaces the 2020 seed and is searched", async () => {
    const r = await rcm(dir, 'ingest', 'fda_ndc', join(SHARED, 'openfda-ndc/unfinished_product.txt'), join(SHARED, 'openfda-ndc/unfinished_package.txt'), '--version', '2018-06-25', '--effective-date', '2018-06-25', '--json');
    expect(r.code, r.err).toBe(0);
    const summary = JSON.parse(r.out);
    expect(summary.change).toMatchObject({ to_version: '2018-06-25', replaces_seed: true });
    await waitForSnapshot(t, summary.snapshot_id);
    const res = await t.request('/v1/drugs/ndc/search?q=insulin%20lispro');
    expect(res.status).toBe(200);
    expect(res.body.results.map((p: { product_ndc: string }) => p.product_ndc)).toContain('0002-0535');
    expect(res.body.reliability.dataset_versions.fda_ndc).toBe('2018-06-25');
  });

  it('rcm seed afterwards keeps both real releases in front', async () => {
    const r = await rcm(dir, 'seed', '--json');
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).kept_real).toEqual(expect.arrayContaining(['facilities', 'fda_ndc']));
    const m = (await new Warehouse(dir).current())!;
    expect(m.datasets.facilities!.map((v) => v.version)).toEqual(['2025-10']);
    expect(m.datasets.fda_ndc!.map((v) => v.version)).toEqual(['2018-06-25']);
  });
});
