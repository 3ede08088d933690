import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, openTestSnapshot, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { fdaNdc } from './dataset.js';
import type { IngredientRow, PackageRow, ProductRow } from './schema.js';
import { splitFdaList } from './text_files.js';
import { resultElements } from './openfda_json.js';

const SEEDS = join(REPO_ROOT, 'seeds/fda_ndc');
const seed = (name: string) => join(SEEDS, name);
const fixture = (name: string) => join(REPO_ROOT, 'test/fixtures/fda_ndc', name);
const SEED_FILES = ['product.txt', 'package.txt', 'unfinished_product.txt', 'unfinished_package.txt', 'drug-ndc-0001-of-0001.json'].map(seed);

const UNFINISHED_HEADER = 'PRODUCTID\tPRODUCTNDC\tPRODUCTTYPENAME\tNONPROPRIETARYNAME\tDOSAGEFORMNAME\tSTARTMARKETINGDATE\tENDMARKETINGDATE\tMARKETINGCATEGORYNAME\tLABELERNAME\tSUBSTANCENAME\tACTIVE_NUMERATOR_STRENGTH\tACTIVE_INGRED_UNIT\tDEASCHEDULE\tLISTING_RECORD_CERTIFIED_THROUGH';

// Rows of all three tables come out of one parser; tests read them by field.
type Row = Record<string, any>;
const products = (rows: object[]) => rows.filter((r): r is ProductRow => 'spl_id' in r);

describe('FDA list fields', () => {
  it("splits FDA's '; ' lists outside parentheses and brackets", () => {
    expect(splitFdaList('POLY(METHYL METHACRYLATE; 450000 MW)')).toEqual(['POLY(METHYL METHACRYLATE; 450000 MW)']);
    expect(splitFdaList("[USP'U]/1; [USP'U]/1")).toEqual(["[USP'U]/1", "[USP'U]/1"]);
    expect(splitFdaList('10000; 32000; 42000')).toEqual(['10000', '32000', '42000']);
  });
});

describe('fda_ndc text files', () => {
  it('detects both layouts by header; the text files carry no version', async () => {
    expect(await detectFile(fdaNdc, seed('product.txt'))).toEqual({ detected: true, version: null });
    expect(await detectFile(fdaNdc, seed('unfinished_package.txt'))).toEqual({ detected: true, version: null });
  });

  it('maps the unfinished layout by header and decodes its CP1252 labeler', async () => {
    const { rows, rejects } = await parseAll<Row>(fdaNdc, seed('unfinished_product.txt'));
    expect(rejects).toEqual([]);
    const weleda = products(rows).find((r) => r.product_ndc === '0164-0025')!;
    expect(weleda.labeler_name).toBe('Weleda A.G. Schwäbisch Gmünd, Zweigniederlassung der Weled');
    expect(weleda).toMatchObject({ finished: false, brand_name: null, route: null, ndc_segments: '4-4', spl_id: '5d586e1b-869f-4f3a-88b9-3ec37ff48b9e', marketing_start_date: '2016-05-09', listing_expiration_date: '2018-12-31' });
    // 0009-5023 is listed under three SPLs, each its own product.
    expect(products(rows).filter((r) => r.product_ndc === '0009-5023')).toHaveLength(3);
    const pancrelipase = rows.filter((r) => 'ingredient_ordinal' in r && r.product_ndc === '0023-6100') as IngredientRow[];
    expect(pancrelipase.map((i) => [i.ingredient_ordinal, i.ingredient_name, i.ingredient_strength])).toEqual([
      [1, 'PANCRELIPASE LIPASE', "10000 [USP'U]/1"],
      [2, 'PANCRELIPASE PROTEASE', "32000 [USP'U]/1"],
      [3, 'PANCRELIPASE AMYLASE', "42000 [USP'U]/1"],
    ]);
  });

  it('reads the finished layout: brand, route, application number, exclude flag, packages with sample flags', async () => {
    const { rows } = await parseAll<Row>(fdaNdc, [seed('product.txt'), seed('package.txt')]);
    expect(products(rows).find((r) => r.product_ndc === '0069-4200')).toMatchObject({ brand_name: 'Viagra', route: 'ORAL', application_number: 'NDA020895', ndc_exclude_flag: 'N', finished: true, pharm_classes: 'Phosphodiesterase 5 Inhibitor [EPC],Phosphodiesterase 5 Inhibitors [MoA]' });
    expect(rows.find((r) => r.package_ndc === '0002-3229-30')).toMatchObject({ ndc_segments: '4-4-2', marketing_start_date: '2003-01-10', sample: false, product_id: '0002-3229_f1ee27ad-c38e-430a-b027-0b7ebad7403e' });
  });

  it("rejects FDA's two malformed package codes, naming line and field", async () => {
    const { rows, rejects } = await parseAll<Row>(fdaNdc, fixture('unfinished_package_ugly.txt'));
    expect(rows).toEqual([]);
    expect(rejects.map((r) => [r.line, r.issues[0]!.loc, r.issues[0]!.input])).toEqual([
      [2, ['row', 2, 'NDCPACKAGECODE'], '47848-026-XX'],
      [3, ['row', 3, 'NDCPACKAGECODE'], '02'],
    ]);
  });

  it('rejects a line whose field count differs from the header, and ingredients lists that do not align', async () => {
    const p = await writeTempFile(
      'unfinished_product.txt',
      `${UNFINISHED_HEADER}\r\n0002-0485_x\t0002-0485\tBULK INGREDIENT\r\n0002-0486_y\t0002-0486\tBULK INGREDIENT\tA\tCRYSTAL\t20150401\t\tBULK INGREDIENT\tLilly\tA; B\t1\tg/g\t\t20181231\r\n`,
    );
    const { rejects } = await parseAll(fdaNdc, p);
    expect(rejects).toEqual([
      { line: 2, issues: [expect.objectContaining({ loc: ['row', 2, 'row'], msg: 'expected 14 tab-separated fields as in the header, found 3' })] },
      { line: 3, issues: [expect.objectContaining({ loc: ['row', 3, 'SUBSTANCENAME'], msg: "2 substances but 1 strengths and 1 units (the '; ' lists must align)" })] },
    ]);
  });
});

describe('fda_ndc openFDA JSON', () => {
  it('finds the same results elements however the text is cut into pieces (keys, strings and escapes across a cut)', async () => {
    const text = '{"meta": {"results": "no"}, "res\\"x": [{"a": 1}], "results": [\n{"product_ndc": "0002-3229", "s": "a \\"quoted\\" ]} \\\\"},\n {"b": [1, {"c": "}"}]}\n], "tail": {}}';
    const all = async (pieces: string[]) => {
      const out: { line: number; json: string }[] = [];
      for await (const e of resultElements((async function* () { yield* pieces; })(), 'x.json')) out.push(e);
      return out;
    };
    const whole = await all([text]);
    expect(whole.map((e) => [e.line, JSON.parse(e.json)])).toEqual([
      [2, { product_ndc: '0002-3229', s: 'a "quoted" ]} \\' }],
      [3, { b: [1, { c: '}' }] }],
    ]);
    for (let cut = 1; cut < text.length; cut++) expect(await all([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    expect(await all(text.split(''))).toEqual(whole);
  });

  it('takes the version from meta.last_updated and joins the openfda arrays', async () => {
    expect(await detectFile(fdaNdc, seed('drug-ndc-0001-of-0001.json'))).toEqual({ detected: true, version: { label: '2020-05-01', effective_date: '2020-05-01' } });
    const { rows, rejects } = await parseAll<Row>(fdaNdc, seed('drug-ndc-0001-of-0001.json'));
    expect(rejects).toEqual([]);
    expect(products(rows)).toHaveLength(5);
    expect(products(rows).find((r) => r.product_ndc === '71610-199')).toMatchObject({ openfda_rxcui: '197900', dea_schedule: 'CIV', route: 'ORAL', source: 'openfda' });
    // Merthiolate: `openfda: {}`.
    expect(products(rows).find((r) => r.product_ndc === '0395-9122')).toMatchObject({ openfda_rxcui: null, openfda_unii: null, application_number: 'part333A' });
    expect(rows.find((r) => r.product_ndc === '71610-199' && r.ingredient_ordinal === 1)).toMatchObject({ ingredient_strength: '.5 mg/1', strength_value: '.5', strength_unit: 'mg/1' });
  });

  it('rejects a record with a malformed product NDC or a package of another product, naming the line it starts on', async () => {
    const { rows, rejects } = await parseAll<Row>(fdaNdc, fixture('drug-ndc_ugly.json'));
    expect(products(rows).map((r) => r.product_ndc)).toEqual(['0395-9122']);
    expect(rejects.map((r) => r.issues.map((i) => [i.loc, i.input]))).toEqual([[[['row', rejects[0]!.line, 'packaging.1.package_ndc'], '71610-213-08']], [[['row', rejects[1]!.line, 'product_ndc'], '71610213']]]);
    expect(rejects[0]!.line).toBeGreaterThan(20);
  });

  it('refuses a truncated export, naming the file', async () => {
    const p = await writeTempFile('drug-ndc.json', '{"meta": {"last_updated": "2020-05-01"}, "results": [{"product_ndc": "0002-3229",');
    await expect(parseAll(fdaNdc, p)).rejects.toThrow(/drug-ndc\.json, line 1: the file is truncated or malformed/);
  });
});

describe('fda_ndc merge of text files and the openFDA export', () => {
  it('merges a product both list into one row: text fields, openfda_* from the export, one set of ingredients', async () => {
    const snap = await openTestSnapshot([{ dataset: fdaNdc, files: SEED_FILES }]);
    try {
      const [strattera] = await snap.all<ProductRow>(`SELECT * FROM fda_ndc__product WHERE product_ndc = '0002-3229'`);
      expect(strattera).toMatchObject({ source: 'ndc_text+openfda', ndc_exclude_flag: 'N', openfda_rxcui: expect.stringMatching(/^617945; 608139; /), openfda_unii: '57WVB6I2W0' });
      const ingredients = await snap.all<IngredientRow>(`SELECT * FROM fda_ndc__ingredient WHERE product_ndc = '0002-3229'`);
      expect(ingredients.map((i) => [i.ingredient_name, i.source])).toEqual([['ATOMOXETINE HYDROCHLORIDE', 'ndc_text']]);
      // Lorazepam: one package in package.txt, twelve in the export: one merged, eleven kept from the export under the same product.
      const pkgs = await snap.all<PackageRow>(`SELECT package_ndc, source, product_id FROM fda_ndc__package WHERE product_ndc = '71610-199' ORDER BY package_ndc`);
      expect(pkgs).toHaveLength(12);
      expect(pkgs.find((p) => p.package_ndc === '71610-199-30')?.source).toBe('ndc_text+openfda');
      expect(new Set(pkgs.map((p) => p.product_id))).toEqual(new Set(['71610-199_adbae6b7-14fd-4ce0-a7eb-2154805a2a16']));
      // Products only the text files list keep null openFDA fields.
      const [viagra] = await snap.all<ProductRow>(`SELECT * FROM fda_ndc__product WHERE product_ndc = '0069-4200'`);
      expect(viagra).toMatchObject({ source: 'ndc_text', openfda_rxcui: null });
      expect(Number((await snap.all<{ n: number }>('SELECT count(*) AS n FROM fda_ndc__product'))[0]!.n)).toBe(19);
    } finally {
      snap.close();
    }
  });

  it('fills what an unfinished text row leaves empty from the export, and the text row wins where both have a value', async () => {
    const text = await writeTempFile(
      'unfinished_product.txt',
      `${UNFINISHED_HEADER}\r\n0002-3229_f1ee27ad-c38e-430a-b027-0b7ebad7403e\t0002-3229\tDRUG FOR FURTHER PROCESSING\tatomoxetine\tCAPSULE\t20021126\t\tDRUG FOR FURTHER PROCESSING\tEli Lilly and Company\t\t\t\t\t20181231\r\n`,
      true,
    );
    const snap = await openTestSnapshot([{ dataset: fdaNdc, files: [text, seed('drug-ndc-0001-of-0001.json')] }]);
    try {
      const [p] = await snap.all<ProductRow>(`SELECT * FROM fda_ndc__product WHERE product_ndc = '0002-3229'`);
      expect(p).toMatchObject({ generic_name: 'atomoxetine', product_type: 'DRUG FOR FURTHER PROCESSING', brand_name: 'Strattera', route: 'ORAL', application_number: 'NDA021411', finished: false, source: 'ndc_text+openfda' });
      // The text row names no substance, so the export's ingredient stays, under the merged product.
      const ing = await snap.all<IngredientRow>(`SELECT * FROM fda_ndc__ingredient WHERE product_ndc = '0002-3229'`);
      expect(ing.map((i) => [i.ingredient_strength, i.source])).toEqual([['40 mg/1', 'openfda']]);
    } finally {
      snap.close();
    }
  });

  it('refuses a package file without its product file', async () => {
    const snapPromise = openTestSnapshot([{ dataset: fdaNdc, files: [seed('package.txt')], version: '2026-01-01' }]);
    await expect(snapPromise).rejects.toThrow(/package\.txt, line 1: a package file needs its product file/);
  });
});
