import { viewName } from '../../warehouse/manifest.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { selectVersion } from '../_shared/versions.js';
import { fdaNdc } from './dataset.js';
import type { IngredientRow, PackageRow, ProductRow } from './schema.js';

/** The NDC directory version that answers, with its version file: the newest loaded (the directory is a current listing, not dated rules). */
export function ndcVersion(snapshot: SnapshotReader): { version: string; file: string } | null {
  return selectVersion(fdaNdc.id, snapshot.versions(fdaNdc.id), { rule: 'effective' })?.version ?? null;
}

/** Every product of a version, in product_id order (what the search index is built from). */
export function findAllProducts(snapshot: SnapshotReader, version: string): Promise<ProductRow[]> {
  return snapshot.all<ProductRow>(`SELECT * EXCLUDE (version) FROM ${viewName(fdaNdc.id, 'product')} WHERE version = $1 ORDER BY product_id`, [version]);
}

/** Every package of a version (the lookup index is built from them). */
export function findAllPackages(snapshot: SnapshotReader, version: string): Promise<PackageRow[]> {
  return snapshot.all<PackageRow>(`SELECT * EXCLUDE (version) FROM ${viewName(fdaNdc.id, 'package')} WHERE version = $1`, [version]);
}

/** Every ingredient of a version, in product and ordinal order. */
export function findAllIngredients(snapshot: SnapshotReader, version: string): Promise<IngredientRow[]> {
  return snapshot.all<IngredientRow>(`SELECT * EXCLUDE (version) FROM ${viewName(fdaNdc.id, 'ingredient')} WHERE version = $1 ORDER BY product_id, ingredient_ordinal`, [version]);
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
