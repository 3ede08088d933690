import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { selectVersion } from '../_shared/versions.js';
import { publishedForms } from './ndc.js';
import type { IngredientRow, PackageRow, ProductRow } from './schema.js';

/** The NDC directory version that answers: the newest loaded (the directory is a current listing, not dated rules). */
export function ndcVersion(snapshot: SnapshotReader): string | null {
  return selectVersion('fda_ndc', snapshot.versions('fda_ndc'), { rule: 'effective' })?.version.version ?? null;
}

/** Every product of a version, in product_id order (what the search index is built from). */
export function findAllProducts(snapshot: SnapshotReader, version: string): Promise<ProductRow[]> {
  return snapshot.all<ProductRow>('SELECT * EXCLUDE (version) FROM fda_ndc__product WHERE version = $1 ORDER BY product_id', [version]);
}

/**
 * The package listed under one of the published forms of an 11-digit NDC (`00002-3229-30` can
 * only have been `0002-3229-30`; `12345-6789-01` only `12345-6789-1`); several only if FDA listed
 * two packages whose 11-digit forms collide.
 */
export function findPackages(snapshot: SnapshotReader, version: string, ndc11: string): Promise<PackageRow[]> {
  const forms = publishedForms(ndc11);
  if (forms.length === 0) return Promise.resolve([]);
  const marks = forms.map((_, i) => `$${i + 2}`).join(', ');
  return snapshot.all<PackageRow>(`SELECT * EXCLUDE (version) FROM fda_ndc__package WHERE version = $1 AND package_ndc IN (${marks}) ORDER BY package_ndc`, [version, ...forms]);
}

/** A product and its active ingredients (in their published order). */
export async function findProductWithIngredients(snapshot: SnapshotReader, version: string, productId: string): Promise<{ product: ProductRow | undefined; ingredients: IngredientRow[] }> {
  const [[product], ingredients] = await Promise.all([
    snapshot.all<ProductRow>('SELECT * EXCLUDE (version) FROM fda_ndc__product WHERE version = $1 AND product_id = $2', [version, productId]),
    snapshot.all<IngredientRow>('SELECT * EXCLUDE (version) FROM fda_ndc__ingredient WHERE version = $1 AND product_id = $2 ORDER BY ingredient_ordinal', [version, productId]),
  ]);
  return { product, ingredients };
}
