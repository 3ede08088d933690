import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDrugIndex, normalizeText, searchDrugIndex, type SearchableProduct } from './search.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { drugDirectory, getPackageDetail, productAt } from './service.js';
import { Trace } from '../trace.js';
import { toNdc11 } from '../../datasets/_shared/ndc.js';
import type { IngredientRow, PackageRow, ProductRow } from '../../datasets/fda_ndc/schema.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';
import { Warehouse } from '../../warehouse/store.js';

// Expected values are the seed's rows (seeds/fda_ndc/): FDA's 2018 unfinished lines, the
// openFDA 2020-05-01 slice and the finished rows re-typed from it (datasets/fda_ndc/README.md).

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({});
});
afterAll(async () => t.close());

const STRATTERA = '0002-3229_f1ee27ad-c38e-430a-b027-0b7ebad7403e';

describe('GET /v1/drugs/ndc/package/{package_ndc}', () => {
  it('answers a 4-4-2 package typed in every accepted form with both forms, its product and ingredients', async () => {
    for (const form of ['0002-3229-30', '00002-3229-30', '00002322930']) {
      const r = await t.request(`/v1/drugs/ndc/package/${form}`);
      expect(r.status, form).toBe(200);
      expect(r.body.package).toMatchObject({ package_ndc: '0002-3229-30', ndc11: '00002322930', ndc_segments: '4-4-2', description: '30 CAPSULE in 1 BOTTLE (0002-3229-30)', sample: false, marketing_start_date: '2003-01-10' });
      expect(r.body.product).toMatchObject({ product_id: STRATTERA, brand_name: 'Strattera', openfda_rxcui: expect.stringContaining('349592'), source: 'ndc_text+openfda' });
      expect(r.body.ingredients).toEqual([{ ingredient_ordinal: 1, ingredient_name: 'ATOMOXETINE HYDROCHLORIDE', ingredient_strength: '40 mg/1', strength_value: '40', strength_unit: 'mg/1' }]);
      expect(r.body.reliability.dataset_versions).toEqual({ fda_ndc: '2020-05-01' });
    }
  });

  it('pads the product segment of a 5-3-2 NDC and the package segment of a 5-4-1 NDC', async () => {
    const lorazepam = await t.request('/v1/drugs/ndc/package/71610-0199-30');
    expect(lorazepam.body.package).toMatchObject({ package_ndc: '71610-199-30', ndc11: '71610019930' });
    const ranitidine = await t.request('/v1/drugs/ndc/package/10022336601');
    expect(ranitidine.status).toBe(200);
    expect(ranitidine.body.package).toMatchObject({ package_ndc: '10022-3366-1', ndc11: '10022336601', ndc_segments: '5-4-1', sample: null });
    expect(ranitidine.body.product).toMatchObject({ finished: false, brand_name: null, labeler_name: expect.stringMatching(/^Saraca/) });
  });

  it('lists every ingredient of a multi-ingredient product in order, and a CP1252 labeler decoded', async () => {
    const r = await t.request('/v1/drugs/ndc/package/0023-6100-00');
    expect(r.body.ingredients.map((i: { ingredient_ordinal: number; ingredient_name: string }) => [i.ingredient_ordinal, i.ingredient_name])).toEqual([
      [1, 'PANCRELIPASE LIPASE'],
      [2, 'PANCRELIPASE PROTEASE'],
      [3, 'PANCRELIPASE AMYLASE'],
    ]);
    const weleda = await t.request('/v1/drugs/ndc/package/00164-0025-00');
    expect(weleda.body.product.labeler_name).toBe('Weleda A.G. Schwäbisch Gmünd, Zweigniederlassung der Weled');
  });

  it('refuses a malformed NDC with 422 saying why, and answers 404 for one the directory lacks', async () => {
    const undashed = await t.request('/v1/drugs/ndc/package/0002322930');
    expect(undashed.status).toBe(422);
    expect(undashed.body.detail).toEqual([expect.objectContaining({ loc: ['path', 'package_ndc'], msg: expect.stringMatching(/needs its dashes/), input: '0002322930' })]);
    for (const bad of ['0002-3229', 'abc', '000023229301', '00002-3229-3x']) expect((await t.request(`/v1/drugs/ndc/package/${bad}`)).status, bad).toBe(422);
    const missing = await t.request('/v1/drugs/ndc/package/12345-6789-01');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'not_found', detail: expect.stringContaining('12345-6789-01') });
    // 00002-3229-31 could only be 0002-3229-31, which FDA does not list.
    expect((await t.request('/v1/drugs/ndc/package/00002-3229-31')).status).toBe(404);
  });
});

describe('GET /v1/drugs/ndc/search', () => {
  const ndcs = (r: { body: { results: { product_ndc: string }[] } }) => r.body.results.map((p) => p.product_ndc);

  it('finds a product by its NDC in any form, a package NDC finding its product', async () => {
    for (const q of ['71610-199', '71610-0199', '716100199', '71610-199-30', '71610019930']) {
      const r = await t.request(`/v1/drugs/ndc/search?q=${q}`);
      expect(ndcs(r), q).toEqual(['71610-199']);
      expect(r.body.total_count).toBe(1);
    }
    // Three SPLs under one product NDC: all three.
    expect(ndcs(await t.request('/v1/drugs/ndc/search?q=0009-5023'))).toEqual(['0009-5023', '0009-5023', '0009-5023']);
  });

  it('tolerates typos in brand and generic names, and matches labeler words without their umlauts', async () => {
    expect(ndcs(await t.request('/v1/drugs/ndc/search?q=stratera'))).toEqual(['0002-3229']);
    expect(ndcs(await t.request('/v1/drugs/ndc/search?q=atomoxitine'))).toEqual(['0002-3229']);
    expect(ndcs(await t.request('/v1/drugs/ndc/search?q=schwabisch%20gm%C3%BCnd'))).toEqual(['0164-0025']);
    const none = await t.request('/v1/drugs/ndc/search?q=zzzzqqq');
    expect(none.body).toMatchObject({ total_count: 0, results: [] });
  });

  it('ranks brand and generic prefixes before word matches, and counts every match before the limit', async () => {
    // "Bisacodyl" is the brand of 71610-219 and the generic of 10237-905.
    const r = await t.request('/v1/drugs/ndc/search?q=bisacodyl&limit=1');
    expect(r.body.total_count).toBe(2);
    expect(r.body.results).toHaveLength(1);
    // Aphena's three products: by labeler words only; Lorazepam's brand prefix ranks first.
    const lor = await t.request('/v1/drugs/ndc/search?q=lor');
    expect(ndcs(lor)[0]).toBe('71610-199');
  });

  it('refuses a one-character query, a limit out of range and an unknown parameter, every issue at once', async () => {
    const r = await t.request('/v1/drugs/ndc/search?q=s&limit=101&sort=brand');
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['query.limit', 'query.q', 'query.sort']);
  });
});

describe('drug search index', () => {
  const products: SearchableProduct[] = [
    { product_ndc: '0002-3229', brand_name: 'Strattera', generic_name: 'Atomoxetine hydrochloride', labeler_name: 'Eli Lilly and Company' },
    { product_ndc: '11111-222', brand_name: 'Lilly Mix', generic_name: 'lispro insulin', labeler_name: 'Other Labs' },
    { product_ndc: '33333-4444', brand_name: null, generic_name: 'Insulin human', labeler_name: 'Eli Lilly and Company' },
    { product_ndc: '55555-666', brand_name: 'Insulinex', generic_name: 'insulin glargine', labeler_name: 'Acme' },
  ];
  const idx = buildDrugIndex(products);
  const order = (q: string, limit = 10) => searchDrugIndex(idx, q, limit).hits.map((h) => [products[h.index]!.product_ndc, h.tier]);

  it('puts whole-name prefixes (tier 2) before word matches (tier 1) before typos (tier 0)', () => {
    expect(order('insulin')).toEqual([
      ['33333-4444', 2],
      ['55555-666', 2],
      ['11111-222', 1],
    ]);
    expect(order('lilly')).toEqual([
      ['11111-222', 2],
      // equal scores: the shorter brand name first (33333-4444 has none)
      ['33333-4444', 1],
      ['0002-3229', 1],
    ]);
    expect(order('insulim human')).toEqual([['33333-4444', 0]]);
  });

  it('requires every typed word, and puts the NDC match first (tier 3)', () => {
    expect(order('insulin acme')).toEqual([['55555-666', 1]]);
    expect(order('00002-3229')).toEqual([['0002-3229', 3]]);
    expect(searchDrugIndex(idx, 'insulin', 1)).toMatchObject({ total: 3, hits: [{ tier: 2 }] });
  });

  it('answers each query as a fresh index would, whatever was searched before (its work arrays are reused)', () => {
    const queries = ['insulin', 'lilly', 'insulim human', 'insulin acme', '0002-3229', 'eli lilly insulin', 'zzz', 'in', 'glargine', 'strattera', 'lispro lilly'];
    const fresh = queries.map((q) => searchDrugIndex(buildDrugIndex(products), q, 2));
    for (const round of [queries, [...queries].reverse()]) for (const q of round) expect(searchDrugIndex(idx, q, 2), q).toEqual(fresh[queries.indexOf(q)]);
    expect(fresh.filter((f) => f.total > 0).length).toBeGreaterThan(6);
  });

  it('normalises accents, case and punctuation', () => {
    expect(normalizeText('Weleda A.G. Schwäbisch Gmünd')).toBe('weleda a g schwabisch gmund');
  });
});

describe('the drug directory across snapshots', () => {
  it('is built once per version file: a second snapshot of the same files shares it', async () => {
    const wh = new Warehouse(t.dataDir);
    const manifest = (await wh.current())!;
    const a = await MountedSnapshot.open(wh, manifest, { connections: 1, threads: 1 });
    const b = await MountedSnapshot.open(wh, manifest, { connections: 1, threads: 1 });
    try {
      const first = await drugDirectory(a);
      expect(first?.index.size).toBeGreaterThan(0);
      expect(await drugDirectory(b)).toBe(first);
    } finally {
      a.close();
      b.close();
    }
  });

  /** Every product, package and ingredient list of the directory of `dataDir` against the tables; which row sources were read. */
  async function checkDirectory(dataDir: string): Promise<{ queries: string[] }> {
    const wh = new Warehouse(dataDir);
    const snap = await MountedSnapshot.open(wh, (await wh.current())!, { connections: 2, threads: 1 });
    const queries: string[] = [];
    const all = snap.all.bind(snap);
    snap.all = ((sql: string, params?: never[]) => (queries.push(sql), all(sql, params))) as typeof snap.all;
    const eachChunk = snap.eachChunk.bind(snap);
    snap.eachChunk = ((sql, params, each) => (queries.push(sql), eachChunk(sql, params, each))) as typeof snap.eachChunk;
    try {
      const dir = (await drugDirectory(snap))!;
      const version = dir.version;
      const products = await all<ProductRow>('SELECT * EXCLUDE (version) FROM fda_ndc__product WHERE version = $1 ORDER BY product_id', [version]);
      expect(products.length).toBe(dir.index.size);
      expect(products.map((_, i) => productAt(dir, i))).toEqual(products);
      expect(productAt(dir, products.length)).toBeNull();
      // Every package through the lookup, with its product and ingredients as the tables hold them.
      const packages = await all<PackageRow>('SELECT * EXCLUDE (version) FROM fda_ndc__package WHERE version = $1', [version]);
      const ingredients = await all<IngredientRow>('SELECT * EXCLUDE (version) FROM fda_ndc__ingredient WHERE version = $1 ORDER BY ingredient_ordinal', [version]);
      expect(packages.length).toBeGreaterThan(0);
      for (const p of packages) {
        const got = await getPackageDetail(snap, toNdc11(p.package_ndc)!, new Trace(snap, () => new Date()));
        expect(got.package).toMatchObject({ package_ndc: p.package_ndc, description: p.description, sample: p.sample, marketing_start_date: p.marketing_start_date });
        expect(got.product).toEqual(products.find((x) => x.product_id === p.product_id));
        expect(got.ingredients).toEqual(
          ingredients.filter((i) => i.product_id === p.product_id).map(({ ingredient_ordinal, ingredient_name, ingredient_strength, strength_value, strength_unit }) => ({ ingredient_ordinal, ingredient_name, ingredient_strength, strength_value, strength_unit })),
        );
      }
      await expect(getPackageDetail(snap, '99999999999', new Trace(snap, () => new Date()))).rejects.toThrow(/not in the FDA NDC directory/);
      expect(ingredients.some((i) => packages.some((p) => p.product_id === i.product_id))).toBe(true);
      return { queries };
    } finally {
      snap.close();
    }
  }

  it('reads every product, package and ingredient list from the sidecars as stored, with no query', async () => {
    const { queries } = await checkDirectory(t.dataDir);
    expect(queries).toEqual([]);
  });

  it('answers the same from DuckDB when a sidecar cannot be read', async () => {
    const { cp, mkdtemp, readdir, readFile, rm, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const copy = await mkdtemp(join(tmpdir(), 'rcm-drugs-damaged-'));
    try {
      await cp(t.dataDir, copy, { recursive: true });
      const dir = join(copy, 'datasets', 'fda_ndc');
      const sidecars = (await readdir(dir)).filter((n) => n.endsWith('.ranges'));
      expect(sidecars.length).toBeGreaterThanOrEqual(2);
      // Every block's bytes overwritten (all but the header line and the last 512 bytes): the index reads, no block inflates.
      for (const n of sidecars) {
        const bytes = await readFile(join(dir, n));
        const head = bytes.indexOf(10) + 1;
        await writeFile(join(dir, n), Buffer.concat([bytes.subarray(0, head), Buffer.alloc(bytes.length - head - 512, 7), bytes.subarray(bytes.length - 512)]));
      }
      const { sidecarFallbacks } = await import('../../warehouse/snapshot.js');
      const damaged = (sidecar: string) => sidecarFallbacks().find((f) => f.dataset === 'fda_ndc' && f.sidecar === sidecar && f.reason === 'damaged')?.count ?? 0;
      const before = [damaged('products'), damaged('packages')];
      const { queries } = await checkDirectory(copy);
      expect(queries.some((q) => q.includes('ORDER BY k')) && queries.some((q) => q.includes('= $2) g'))).toBe(true);
      // Counted for /metrics: the products read once at mount, each package lookup.
      expect(damaged('products') - before[0]!).toBe(1);
      expect(damaged('packages') - before[1]!).toBeGreaterThan(0);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});

describe('one NDC rule on the wire, across routes', () => {
  it('answers the same package NDC in the published dashed form with its ndc11 from the drug directory and the HCPCS crosswalk', async () => {
    const { writeFile } = await import('node:fs/promises');
    const { tempDir } = await import('../../testing/temp_dirs.js');
    const { join } = await import('node:path');
    const { ingestFiles } = await import('../../ingest/pipeline.js');
    const { fdaNdc } = await import('../../datasets/fda_ndc/dataset.js');
    const { waitForSnapshot } = await import('../../testing/harness.js');
    // A test directory (FDA's text layout) listing the crosswalk seed's ORENCIA package, which FDA
    // prints 4-4-2 (0003-2187-10) and the ASP crosswalk 5-4-2 (00003-2187-10).
    const s = await startTestServer({ pollMs: 20 });
    try {
      const dir = await tempDir('rcm-ndc-');
      const id = '0003-2187_00000000-0000-4000-8000-000000000001';
      await writeFile(
        join(dir, 'product.txt'),
        'PRODUCTID\tPRODUCTNDC\tPRODUCTTYPENAME\tPROPRIETARYNAME\tPROPRIETARYNAMESUFFIX\tNONPROPRIETARYNAME\tDOSAGEFORMNAME\tROUTENAME\tSTARTMARKETINGDATE\tENDMARKETINGDATE\tMARKETINGCATEGORYNAME\tAPPLICATIONNUMBER\tLABELERNAME\tSUBSTANCENAME\tACTIVE_NUMERATOR_STRENGTH\tACTIVE_INGRED_UNIT\tPHARM_CLASSES\tDEASCHEDULE\tNDC_EXCLUDE_FLAG\tLISTING_RECORD_CERTIFIED_THROUGH\r\n' +
          `${id}\t0003-2187\tHUMAN PRESCRIPTION DRUG\tORENCIA\t\tabatacept\tINJECTION, POWDER, LYOPHILIZED, FOR SOLUTION\tINTRAVENOUS\t20051223\t\tBLA\tBLA125118\tE.R. Squibb & Sons, L.L.C.\tABATACEPT\t250\tmg/15mL\t\t\tN\t20271231\r\n`,
      );
      await writeFile(
        join(dir, 'package.txt'),
        'PRODUCTID\tPRODUCTNDC\tNDCPACKAGECODE\tPACKAGEDESCRIPTION\tSTARTMARKETINGDATE\tENDMARKETINGDATE\tNDC_EXCLUDE_FLAG\tSAMPLE_PACKAGE\r\n' + `${id}\t0003-2187\t0003-2187-10\t1 VIAL in 1 CARTON (0003-2187-10)\t20051223\t\tN\tN\r\n`,
      );
      const published = await ingestFiles(s.wh, { dataset: fdaNdc, files: [join(dir, 'product.txt'), join(dir, 'package.txt')], version: '2026-11-01', effectiveDate: '2026-11-01', rejectThreshold: 1, allowRemovals: true });
      await waitForSnapshot(s, published.snapshot_id);

      const pkg = (await s.request('/v1/drugs/ndc/package/00003-2187-10')).body.package;
      expect(pkg).toMatchObject({ package_ndc: '0003-2187-10', ndc11: '00003218710' });
      const fromNdc = (await s.request('/v1/codes/crosswalk/00003218710')).body;
      expect(fromNdc.crosswalks[0]).toMatchObject({ target_code: 'J0129', attributes: { package_ndc: '0003-2187-10', ndc11: '00003218710' } });
      const fromHcpcs = (await s.request('/v1/codes/crosswalk/J0129')).body.crosswalks.find((c: { target_system: string }) => c.target_system === 'NDC');
      expect(fromHcpcs).toMatchObject({ target_code: '00003218710', attributes: { package_ndc: '0003-2187-10', ndc11: '00003218710' } });
    } finally {
      await s.close();
    }
  });
});
