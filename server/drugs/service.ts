import { findAllIngredients, findAllPackages, findAllProducts, ndcVersion } from '../../datasets/fda_ndc/queries.js';
import { FileShared } from '../../warehouse/file_shared.js';
import type { IngredientRow, PackageRow, ProductRow } from '../../datasets/fda_ndc/schema.js';
import { dashed542, parsePackageNdc, productNdcOfQuery, toNdc11, toProductNdc9 } from '../../datasets/_shared/ndc.js';
import { NotFoundError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { Trace } from '../trace.js';
import { buildDrugIndex, searchDrugIndex, type DrugIndex } from './search.js';

/** The loaded NDC directory in memory: products with their search index, packages by 11-digit NDC, ingredients by product. */
export interface DrugDirectory {
  version: string;
  products: ProductRow[];
  index: DrugIndex;
  productById: Map<string, ProductRow>;
  /** 9-digit 5-4 product NDC -> products (several label versions may share one). */
  productsByNdc: Map<string, ProductRow[]>;
  /** 11-digit NDC -> packages (one, unless FDA lists two whose 11-digit forms collide). */
  packages: Map<string, PackageRow[]>;
  ingredients: Map<string, IngredientRow[]>;
}

function groupBy<R>(rows: R[], key: (r: R) => string): Map<string, R[]> {
  const m = new Map<string, R[]>();
  for (const r of rows) {
    const k = key(r);
    const l = m.get(k);
    if (l) l.push(r);
    else m.set(k, [r]);
  }
  return m;
}

/**
 * The directory of the version in force, read once per snapshot (pinned; warmed at mount by
 * server.ts): a package lookup is then two Map reads, where three DuckDB scans of ~215,000 packages
 * and ~111,000 products measured 226 req/s at 16 connections (p99 459 ms) in `npm run bench -- drugs`.
 */
export function drugDirectory(snapshot: SnapshotReader): Promise<DrugDirectory | null> {
  const picked = ndcVersion(snapshot);
  if (!picked) return Promise.resolve(null);
  const { version, file } = picked;
  return snapshot.memo(
    `fda_ndc:directory:${version}`,
    async () => {
      // Shared with every snapshot mounting the same version file: a swap of another dataset rebuilds nothing.
      const dir = await shared.get(snapshot, 'fda_ndc', file, () => buildDirectory(snapshot, version));
      shared.prune(snapshot, 'fda_ndc', [file]);
      return dir;
    },
    { pin: true },
  );
}

const shared = new FileShared<DrugDirectory>();

async function buildDirectory(snapshot: SnapshotReader, version: string): Promise<DrugDirectory> {
  const [products, packages, ingredients] = await Promise.all([findAllProducts(snapshot, version), findAllPackages(snapshot, version), findAllIngredients(snapshot, version)]);
  return {
    version,
    products,
    index: buildDrugIndex(products),
    productById: new Map(products.map((p) => [p.product_id, p])),
    productsByNdc: groupBy(products, (p) => toProductNdc9(p.product_ndc) ?? p.product_ndc),
    packages: groupBy(packages, (p) => toNdc11(p.package_ndc) ?? p.package_ndc),
    ingredients: groupBy(ingredients, (i) => i.product_id),
  };
}

async function directoryOrThrow(snapshot: SnapshotReader, trace: Trace): Promise<DrugDirectory> {
  const dir = await drugDirectory(snapshot);
  if (!dir) throw new NotFoundError('no FDA NDC directory (dataset fda_ndc) is loaded');
  trace.use('fda_ndc', dir.version);
  return dir;
}

/** A package by its `ndc11` (the route validates any accepted form to it) with its product and ingredients. */
export async function getPackageDetail(snapshot: SnapshotReader, ndc11: string, trace: Trace) {
  const dir = await directoryOrThrow(snapshot, trace);
  const pkgs = dir.packages.get(ndc11) ?? [];
  const pkg = pkgs[0];
  if (!pkg) throw new NotFoundError(`package NDC ${dashed542(ndc11)} is not in the FDA NDC directory ${dir.version}`);
  if (pkgs.length > 1) trace.warn(`FDA lists ${pkgs.map((p) => p.package_ndc).join(' and ')}, which share the 11-digit form ${ndc11}; answering ${pkg.package_ndc}`);
  const product = dir.productById.get(pkg.product_id);
  if (!product) throw new NotFoundError(`package NDC ${pkg.package_ndc} is listed, but its product ${pkg.product_id} is not in the FDA NDC directory ${dir.version}`);
  const { package_ndc, ndc_segments, description, marketing_start_date, marketing_end_date, sample, source } = pkg;
  return {
    package: { package_ndc, ndc11, ndc_segments, description, marketing_start_date, marketing_end_date, sample, source },
    product,
    ingredients: (dir.ingredients.get(product.product_id) ?? []).map(({ ingredient_ordinal, ingredient_name, ingredient_strength, strength_value, strength_unit }) => ({ ingredient_ordinal, ingredient_name, ingredient_strength, strength_value, strength_unit })),
    reliability: trace.reliability(),
  };
}

/** Products matching a search text, ranked, with the count of all matches. */
export async function searchDrugs(snapshot: SnapshotReader, q: string, limit: number, trace: Trace) {
  const dir = await directoryOrThrow(snapshot, trace);
  const { hits, total } = searchDrugIndex(dir.index, q, limit);
  return { total_count: total, reliability: trace.reliability(), results: hits.map((h) => dir.products[h.index]!) };
}

/** The product an NDC names in any accepted form (a package NDC names its product), or null. */
export function productOfNdc(dir: DrugDirectory, ndc: string): ProductRow | null {
  const pkg = parsePackageNdc(ndc);
  if (pkg.ok) {
    const p = dir.packages.get(pkg.ndc11)?.[0];
    if (p) return dir.productById.get(p.product_id) ?? null;
  }
  const product = productNdcOfQuery(ndc);
  return product ? (dir.productsByNdc.get(product)?.[0] ?? null) : null;
}
