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
