import { viewName } from '../../warehouse/manifest.js';
import { readInChunks, type SnapshotReader } from '../../warehouse/snapshot.js';
import { selectVersion } from '../_shared/versions.js';
import { fdaNdc } from './dataset.js';
import { jsonRow, NDC11_SQL, productRowsSql } from './directory_sql.js';
import type { ProductRow } from './schema.js';

/** The NDC directory version that answers, with its version file: the newest loaded (the directory is a current listing, not dated rules). */
export function ndcVersion(snapshot: SnapshotReader): { version: string; file: string } | null {
  return selectVersion(fdaNdc.id, snapshot.versions(fdaNdc.id), { rule: 'effective' })?.version ?? null;
}

/** One version's rows of a directory table with `where` (parameters: $1 the version, $2 a key), as a table expression. */
const versionRows = (table: 'product' | 'package' | 'ingredient', where = '') => `(SELECT * FROM ${viewName(fdaNdc.id, table)} WHERE version = $1${where})`;

/**
 * Each product of a version from DuckDB as the products sidecar holds it (number, values,
 * ingredients: JSON texts DuckDB writes), in number order, a chunk at a time; for a version
 * without the sidecar.
 */
export function readProductRows(snapshot: SnapshotReader, version: string, each: (rows: unknown[][]) => void): Promise<void> {
  return readInChunks(snapshot, `SELECT k, row, ingredients FROM (${productRowsSql(versionRows('product'), versionRows('ingredient'))}) ORDER BY k`, [version], each);
}

/** The packages of an 11-digit NDC in a version from DuckDB (values, product_id), for a version without the packages sidecar or a block that cannot be read. */
export function findPackageRows(snapshot: SnapshotReader, version: string, ndc11: string): Promise<{ row: string; product_id: string }[]> {
  return snapshot.all(`SELECT ${jsonRow('package', 'g')} AS row, product_id FROM ${versionRows('package', ` AND ${NDC11_SQL} = $2`)} g ORDER BY row`, [version, ndc11]);
}

/** The products of a version openFDA annotates with RxNorm ids, in product_id order: their names and ids. */
export function findRxcuiProducts(snapshot: SnapshotReader, version: string): Promise<Pick<ProductRow, 'brand_name' | 'generic_name' | 'openfda_rxcui'>[]> {
  return snapshot.all(`SELECT brand_name, generic_name, openfda_rxcui FROM ${viewName(fdaNdc.id, 'product')} WHERE version = $1 AND openfda_rxcui IS NOT NULL ORDER BY product_id`, [version]);
}

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
