import { findAllProducts, findPackages, findProductWithIngredients, ndcVersion } from '../../datasets/fda_ndc/queries.js';
import type { ProductRow } from '../../datasets/fda_ndc/schema.js';
import { toNdc11 } from '../../datasets/fda_ndc/ndc.js';
import { NotFoundError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { Trace } from '../trace.js';
import { buildDrugIndex, searchDrugIndex, type DrugIndex } from './search.js';

/** The version in force, or a 404 naming the missing dataset. */
function versionOrThrow(snapshot: SnapshotReader): string {
  const v = ndcVersion(snapshot);
  if (!v) throw new NotFoundError('no FDA NDC directory (dataset fda_ndc) is loaded');
  return v;
}

/** A package by NDC (validated to the 11-digit form) with its product and ingredients. */
export async function getPackageDetail(snapshot: SnapshotReader, ndc11: string, trace: Trace) {
  const version = versionOrThrow(snapshot);
  trace.use('fda_ndc', version);
  const pkgs = await findPackages(snapshot, version, ndc11);
  const pkg = pkgs[0];
  if (!pkg) throw new NotFoundError(`package NDC ${ndc11} is not in the FDA NDC directory ${version}`);
  if (pkgs.length > 1) trace.warn(`FDA lists ${pkgs.map((p) => p.package_ndc).join(' and ')}, which share the 11-digit form ${ndc11}; answering ${pkg.package_ndc}`);
  const { product, ingredients } = await findProductWithIngredients(snapshot, version, pkg.product_id);
  if (!product) throw new NotFoundError(`package NDC ${pkg.package_ndc} is listed, but its product ${pkg.product_id} is not in the FDA NDC directory ${version}`);
  const { package_ndc, ndc_segments, description, marketing_start_date, marketing_end_date, sample, source } = pkg;
  return {
    package: { package_ndc, package_ndc_11: toNdc11(package_ndc), ndc_segments, description, marketing_start_date, marketing_end_date, sample, source },
    product,
    ingredients: ingredients.map(({ ingredient_ordinal, ingredient_name, ingredient_strength, strength_value, strength_unit }) => ({ ingredient_ordinal, ingredient_name, ingredient_strength, strength_value, strength_unit })),
    reliability: trace.reliability(),
  };
}

/** The directory's products and their search index, built once per snapshot (pinned; warmed at mount). */
export function drugSearchIndex(snapshot: SnapshotReader): Promise<{ version: string; products: ProductRow[]; index: DrugIndex } | null> {
  const version = ndcVersion(snapshot);
  if (!version) return Promise.resolve(null);
  return snapshot.memo(
    `fda_ndc:search:${version}`,
    async () => {
      const products = await findAllProducts(snapshot, version);
      return { version, products, index: buildDrugIndex(products) };
    },
    { pin: true },
  );
}

/** Products matching a search text, ranked, with the count of all matches. */
export async function searchDrugs(snapshot: SnapshotReader, q: string, limit: number, trace: Trace) {
  const idx = await drugSearchIndex(snapshot);
  if (!idx) throw new NotFoundError('no FDA NDC directory (dataset fda_ndc) is loaded');
  trace.use('fda_ndc', idx.version);
  const { hits, total } = searchDrugIndex(idx.index, q, limit);
  return { total_count: total, reliability: trace.reliability(), results: hits.map((h) => idx.products[h.index]!) };
}
