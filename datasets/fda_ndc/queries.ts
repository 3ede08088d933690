import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { selectVersion } from '../_shared/versions.js';
import type { IngredientRow, PackageRow, ProductRow } from './schema.js';

/** The NDC directory version that answers, with its version file: the newest loaded (the directory is a current listing, not dated rules). */
export function ndcVersion(snapshot: SnapshotReader): { version: string; file: string } | null {
  return selectVersion('fda_ndc', snapshot.versions('fda_ndc'), { rule: 'effective' })?.version ?? null;
}

/** Every product of a version, in product_id order (what the search index is built from). */
export function findAllProducts(snapshot: SnapshotReader, version: string): Promise<ProductRow[]> {
  return snapshot.all<ProductRow>('SELECT * EXCLUDE (version) FROM fda_ndc__product WHERE version = $1 ORDER BY product_id', [version]);
}

/** Every package of a version (the lookup index is built from them). */
export function findAllPackages(snapshot: SnapshotReader, version: string): Promise<PackageRow[]> {
  return snapshot.all<PackageRow>('SELECT * EXCLUDE (version) FROM fda_ndc__package WHERE version = $1', [version]);
}

/** Every ingredient of a version, in product and ordinal order. */
export function findAllIngredients(snapshot: SnapshotReader, version: string): Promise<IngredientRow[]> {
  return snapshot.all<IngredientRow>('SELECT * EXCLUDE (version) FROM fda_ndc__ingredient WHERE version = $1 ORDER BY product_id, ingredient_ordinal', [version]);
}
