import { viewName } from '../../warehouse/manifest.js';
import { quoteIdent } from '../../warehouse/sql_quote.js';
import { readInChunks, type SnapshotReader } from '../../warehouse/snapshot.js';
import { selectVersion } from '../_shared/versions.js';
import { fdaNdc } from './dataset.js';
import { NDC_TABLES, type ProductRow } from './schema.js';

/** The NDC directory version that answers, with its version file: the newest loaded (the directory is a current listing, not dated rules). */
export function ndcVersion(snapshot: SnapshotReader): { version: string; file: string } | null {
  return selectVersion(fdaNdc.id, snapshot.versions(fdaNdc.id), { rule: 'effective' })?.version ?? null;
}

/** The columns of a directory table in its stored order (what `json_array` rows list). */
export const directoryColumns = (table: 'product' | 'package'): string[] => NDC_TABLES[table].columns.map((c) => c.name);

/** The ingredient fields a package answer shows, in its order. */
export const INGREDIENT_SHOWN = ['ingredient_ordinal', 'ingredient_name', 'ingredient_strength', 'strength_value', 'strength_unit'] as const;

const jsonRow = (table: 'product' | 'package') => `CAST(json_array(${directoryColumns(table).map(quoteIdent).join(', ')}) AS VARCHAR)`;

/**
 * What the drug directory keeps of a version, each row one JSON text written by DuckDB and handed
 * to `each` a chunk at a time: a product's values (`directoryColumns('product')` order) in
 * product_id order. One text column per row: converting DuckDB values to JS costs about 2 us
 * each, so the 27 columns of 111,502 products took 3.6 s of the mount, six 1.6 s, one 0.4 s;
 * objects per row and column held a whole directory in about 1 GB.
 */
export function readProductRows(snapshot: SnapshotReader, version: string, each: (rows: unknown[][]) => void): Promise<void> {
  return readInChunks(snapshot, `SELECT ${jsonRow('product')} FROM ${viewName(fdaNdc.id, 'product')} WHERE version = $1 ORDER BY product_id`, [version], each);
}

/** Each product's ingredients (`INGREDIENT_SHOWN` arrays in ordinal order, `[]` for none) as one JSON text, in the order of `readProductRows`. */
export function readIngredientLists(snapshot: SnapshotReader, version: string, each: (rows: unknown[][]) => void): Promise<void> {
  const lists = `SELECT product_id, CAST(to_json(list(json_array(${INGREDIENT_SHOWN.join(', ')}) ORDER BY ingredient_ordinal)) AS VARCHAR) AS list FROM ${viewName(fdaNdc.id, 'ingredient')} WHERE version = $1 GROUP BY product_id`;
  return readInChunks(snapshot, `SELECT coalesce(i.list, '[]') FROM ${viewName(fdaNdc.id, 'product')} p LEFT JOIN (${lists}) i ON i.product_id = p.product_id WHERE p.version = $1 ORDER BY p.product_id`, [version], each);
}

/** Each package of a version as one JSON text of its values (`directoryColumns('package')` order). */
export function readPackageRows(snapshot: SnapshotReader, version: string, each: (rows: unknown[][]) => void): Promise<void> {
  return readInChunks(snapshot, `SELECT ${jsonRow('package')} FROM ${viewName(fdaNdc.id, 'package')} WHERE version = $1`, [version], each);
}

/** The products of a version openFDA annotates with RxNorm ids, in product_id order: their names and ids. */
export function findRxcuiProducts(snapshot: SnapshotReader, version: string): Promise<Pick<ProductRow, 'brand_name' | 'generic_name' | 'openfda_rxcui'>[]> {
  return snapshot.all(`SELECT brand_name, generic_name, openfda_rxcui FROM ${viewName(fdaNdc.id, 'product')} WHERE version = $1 AND openfda_rxcui IS NOT NULL ORDER BY product_id`, [version]);
}

/** A package NDC as FDA prints it, padded in SQL to its 11-digit form without dashes (`0002-3229-30` -> `00002322930`). */
const NDC11_SQL = "lpad(split_part(package_ndc, '-', 1), 5, '0') || lpad(split_part(package_ndc, '-', 2), 4, '0') || lpad(split_part(package_ndc, '-', 3), 2, '0')";

/**
 * The labeler's published package NDC (dashed as FDA prints it) of each 11-digit form given, from
 * the directory version that answers; an NDC FDA does not list is absent from the map. Null when
 * fda_ndc is not loaded. For answers that carry an NDC from another source (the ASP crosswalk
 * prints 5-4-2), so every NDC on the wire has its published form beside its `ndc11`.
 */
export async function findPublishedPackageNdcs(snapshot: SnapshotReader, ndc11s: readonly string[]): Promise<{ version: string; byNdc11: Map<string, string> } | null> {
  const picked = ndcVersion(snapshot);
  if (!picked) return null;
  const wanted = [...new Set(ndc11s.filter((n) => /^\d{11}$/.test(n)))].sort();
  if (wanted.length === 0) return { version: picked.version, byNdc11: new Map() };
  return snapshot.memo(`${fdaNdc.id}:published:${picked.version}:${wanted.join(',')}`, async () => {
    // The values are 11 checked digits each: listed inline.
    const rows = await snapshot.all<{ ndc11: string; package_ndc: string }>(
      `SELECT ${NDC11_SQL} AS ndc11, min(package_ndc) AS package_ndc FROM ${viewName(fdaNdc.id, 'package')} WHERE version = $1 AND ${NDC11_SQL} IN (${wanted.map((n) => `'${n}'`).join(', ')}) GROUP BY 1`,
      [picked.version],
    );
    return { version: picked.version, byNdc11: new Map(rows.map((r) => [r.ndc11, r.package_ndc])) };
  });
}
