import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fdaNdc } from '../../datasets/fda_ndc/dataset.js';
import { detectFile, openTestSnapshot, parseAll } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

// The real FDA files (../shared/data/openfda-ndc/SOURCE.md): the whole 2018 unfinished product and
// package files (CRLF, CP1252), a 3-row fixture of the finished product.txt (LF) and a 5-record
// slice of openFDA's 2020-05-01 drug-ndc export.
const FILES = ['unfinished_product.txt', 'unfinished_package.txt', 'product.excerpt_openfda_fixture.txt', 'drug-ndc.excerpt_5_results_2020-05-01.json'].map((f) => `openfda-ndc/${f}`);
const present = requireShared(...FILES);
const [PRODUCT, PACKAGE, FINISHED, JSON_SLICE] = FILES.map((f) => join(sharedDataDir(), f)) as [string, string, string, string];

type Row = Record<string, any>;

describe.skipIf(!present)('fda_ndc on the real FDA files', () => {
  it('loads all 21,478 products of the unfinished product file, decoding its CP1252 labeler', async () => {
    const { rows, rejects } = await parseAll<Row>(fdaNdc, PRODUCT);
    expect(rejects).toEqual([]);
    const products = rows.filter((r) => 'spl_id' in r);
    expect(products).toHaveLength(21478);
    expect(new Set(products.map((p) => p.product_id)).size).toBe(21478);
    // 273 product NDCs are listed under 2 to 11 SPLs each: 21,057 distinct NDCs.
    expect(new Set(products.map((p) => p.product_ndc)).size).toBe(21057);
    expect(products.every((p) => p.finished === false)).toBe(true);
    const weleda = products.filter((p) => p.labeler_name?.startsWith('Weleda A.G. Schwäbisch Gmünd'));
    expect(weleda.length).toBeGreaterThan(0);
    expect(products.find((p) => p.product_ndc === '0164-0025')?.labeler_name).toBe('Weleda A.G. Schwäbisch Gmünd, Zweigniederlassung der Weled');
    expect(products.filter((p) => p.labeler_name?.includes('\ufffd'))).toEqual([]);
    // The substance name with '; ' inside parentheses is one ingredient.
    expect(rows.filter((r) => r.product_ndc === '71028-0031' && 'ingredient_ordinal' in r).map((r) => r.ingredient_name)).toEqual(['POLY(METHYL METHACRYLATE; 450000 MW)']);
  });

  it('loads 35,319 of the 35,321 packages and rejects exactly the two whose code is not a package NDC', async () => {
    const { rows, rejects } = await parseAll<Row>(fdaNdc, PACKAGE);
    expect(rows).toHaveLength(35319);
    expect(rejects.map((r) => [r.line, r.issues.map((i) => [i.loc, i.input])])).toEqual([
      [9584, [[['row', 9584, 'NDCPACKAGECODE'], '47848-026-XX']]],
      [16515, [[['row', 16515, 'NDCPACKAGECODE'], '02']]],
    ]);
    expect(rows.filter((r) => r.ndc_segments === '4-4-2').length).toBeGreaterThan(1000);
  });

  it('reads the finished-layout fixture (LF line ends) and the JSON slice, and ingests all four files as one merged version', async () => {
    expect(await detectFile(fdaNdc, JSON_SLICE)).toEqual({ detected: true, version: { label: '2020-05-01', effective_date: '2020-05-01' } });
    const finished = (await parseAll<Row>(fdaNdc, FINISHED)).rows.filter((r) => 'spl_id' in r);
    expect(finished.map((p) => [p.product_ndc, p.brand_name, p.finished, p.ndc_exclude_flag])).toEqual([
      ['0069-4200', 'Viagra', true, 'N'],
      ['0069-4210', 'Viagra', true, 'N'],
      ['0069-4220', 'Viagra', true, 'N'],
    ]);
    const snap = await openTestSnapshot([{ dataset: fdaNdc, files: [PRODUCT, PACKAGE, FINISHED, JSON_SLICE] }]);
    try {
      const count = async (t: string) => Number((await snap.all<{ n: number }>(`SELECT count(*) AS n FROM fda_ndc__${t}`))[0]!.n);
      expect(await count('product')).toBe(21478 + 3 + 5);
      expect(await count('package')).toBe(35319 + 21);
      const [lorazepam] = await snap.all<Row>(`SELECT * FROM fda_ndc__product WHERE product_ndc = '71610-199'`);
      expect(lorazepam).toMatchObject({ source: 'openfda', openfda_rxcui: '197900', openfda_unii: 'O26FZP769L', version: '2020-05-01' });
      const [viagra] = await snap.all<Row>(`SELECT * FROM fda_ndc__product WHERE product_ndc = '0069-4200'`);
      expect(viagra).toMatchObject({ source: 'ndc_text', openfda_rxcui: null });
      // RxCUIs stay queryable one by one.
      const rxcuis = await snap.all<{ rxcui: string }>(`SELECT DISTINCT unnest(string_split(openfda_rxcui, '; ')) AS rxcui FROM fda_ndc__product WHERE openfda_rxcui IS NOT NULL ORDER BY 1`);
      expect(rxcuis.map((r) => r.rxcui)).toContain('617945');
      expect(rxcuis).toHaveLength(14 + 1 + 2 + 1);
    } finally {
      snap.close();
    }
  });
});
