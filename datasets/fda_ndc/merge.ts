import { NDC_TABLES } from './schema.js';

type Run = (sql: string) => Promise<Record<string, unknown>[]>;

/** Columns the text files own outright, and those only the openFDA annotation carries. */
const FROM_TEXT = new Set(['product_id', 'product_ndc', 'ndc_segments', 'spl_id', 'finished', 'package_ndc', 'ndc_exclude_flag', 'version']);
const FROM_JSON = new Set(['openfda_manufacturer_name', 'openfda_rxcui', 'openfda_unii']);

/** The SELECT list of a merged row of table `t` from its text row `t` and openFDA row `j`. */
function mergedColumns(table: 'product' | 'package'): string {
  const cols = [...NDC_TABLES[table].columns.map((c) => c.name), 'version'];
  return cols
    .map((c) => {
      if (c === 'source') return `'ndc_text+openfda' AS source`;
      if (FROM_TEXT.has(c)) return `t."${c}"`;
      if (FROM_JSON.has(c)) return `j."${c}"`;
      return `coalesce(t."${c}", j."${c}") AS "${c}"`;
    })
    .join(', ');
}

/**
 * When one ingest reads both the NDC Directory text files and the openFDA JSON export, a product
 * both list becomes one row (`source` `ndc_text+openfda`). Products pair by `product_ndc`; where
 * an NDC has several products on a side (the 2018 unfinished file lists 273 NDCs under 2 to 11
 * SPLs), only rows with the same `product_id` pair, so no product is merged into another SPL's.
 * The text files win on every field they fill (FDA's own file; the export is openFDA's
 * derivative of it), the export fills what they leave empty (brand, route and application number
 * of unfinished rows, a package's start date and sample flag), and the `openfda_*` annotations
 * come from the export alone. Packages pair by `package_ndc` under the same rule; a paired
 * product keeps the text file's ingredients when it has any, else takes the export's.
 */
export async function mergeSources(run: Run): Promise<void> {
  await run(`CREATE TEMP TABLE ndc_pair AS
    WITH t AS (SELECT product_id, product_ndc, count(*) OVER (PARTITION BY product_ndc) AS n FROM product WHERE source = 'ndc_text'),
         j AS (SELECT product_id, product_ndc, count(*) OVER (PARTITION BY product_ndc) AS n FROM product WHERE source = 'openfda')
    SELECT t.product_id AS t_id, j.product_id AS j_id FROM t JOIN j USING (product_ndc)
    WHERE t.product_id = j.product_id OR (t.n = 1 AND j.n = 1)`);
  await run(`CREATE TEMP TABLE product_merged AS SELECT ${mergedColumns('product')}
    FROM ndc_pair p JOIN product t ON t.product_id = p.t_id AND t.source = 'ndc_text' JOIN product j ON j.product_id = p.j_id AND j.source = 'openfda'`);
  await run(`DELETE FROM product WHERE (source = 'ndc_text' AND product_id IN (SELECT t_id FROM ndc_pair)) OR (source = 'openfda' AND product_id IN (SELECT j_id FROM ndc_pair))`);
  await run('INSERT INTO product SELECT * FROM product_merged');

  await run(`UPDATE package SET product_id = p.t_id FROM ndc_pair p WHERE package.source = 'openfda' AND package.product_id = p.j_id`);
  await run(`CREATE TEMP TABLE package_merged AS SELECT ${mergedColumns('package')}
    FROM package t JOIN package j USING (package_ndc) WHERE t.source = 'ndc_text' AND j.source = 'openfda'`);
  await run('DELETE FROM package WHERE package_ndc IN (SELECT package_ndc FROM package_merged)');
  await run('INSERT INTO package SELECT * FROM package_merged');

  await run(`DELETE FROM ingredient WHERE source = 'openfda' AND product_id IN (
    SELECT p.j_id FROM ndc_pair p WHERE EXISTS (SELECT 1 FROM ingredient i WHERE i.source = 'ndc_text' AND i.product_id = p.t_id))`);
  await run(`UPDATE ingredient SET product_id = p.t_id FROM ndc_pair p WHERE ingredient.source = 'openfda' AND ingredient.product_id = p.j_id`);
  for (const t of ['ndc_pair', 'product_merged', 'package_merged']) await run(`DROP TABLE ${t}`);
}
