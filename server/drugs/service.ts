import { directoryColumns, INGREDIENT_SHOWN, ndcVersion, readIngredientLists, readPackageRows, readProductRows } from '../../datasets/fda_ndc/queries.js';
import { FileShared } from '../../warehouse/file_shared.js';
import type { IngredientRow, PackageRow, ProductRow } from '../../datasets/fda_ndc/schema.js';
import { dashed542, parsePackageNdc, productNdcOfQuery, toNdc11 } from '../../datasets/_shared/ndc.js';
import { NotFoundError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { Trace } from '../trace.js';
import { buildDrugIndex, searchDrugIndex, type DrugIndex, type SearchableProduct } from './search.js';

/**
 * The loaded NDC directory in memory, compact: the search index, and each product, package and
 * product's ingredients as one JSON array of values (an object is made only for the few rows an
 * answer shows). Objects per row and column held a whole directory in about 1 GB.
 */
export interface DrugDirectory {
  version: string;
  index: DrugIndex;
  /** Product rows in product_id order (the index's product numbers), each a JSON array of values in `PRODUCT_COLUMNS` order. */
  products: string[];
  /** product_id -> product number. */
  productNo: Map<string, number>;
  /** 11-digit NDC -> package rows (one, unless FDA lists two whose 11-digit forms collide), each a JSON array of values in `PACKAGE_COLUMNS` order. */
  packages: Map<string, string[]>;
  /** Each product's ingredients in ordinal order (by product number), a JSON array of `INGREDIENT_SHOWN` arrays. */
  ingredients: string[];
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
const PRODUCT_COLUMNS = directoryColumns('product');
const PACKAGE_COLUMNS = directoryColumns('package');

async function buildDirectory(snapshot: SnapshotReader, version: string): Promise<DrugDirectory> {
  const dir: Omit<DrugDirectory, 'index'> = { version, products: [], productNo: new Map(), packages: new Map(), ingredients: [] };
  const searchable: SearchableProduct[] = [];
  const [id, ndc, brand, generic, labeler] = ['product_id', 'product_ndc', 'brand_name', 'generic_name', 'labeler_name'].map((c) => PRODUCT_COLUMNS.indexOf(c));
  const pkgNdc = PACKAGE_COLUMNS.indexOf('package_ndc');
  await Promise.all([
    readProductRows(snapshot, version, (rows) => {
      for (const [row] of rows as string[][]) {
        const v = JSON.parse(row!) as (string | null)[];
        dir.productNo.set(v[id!]!, dir.products.length);
        dir.products.push(row!);
        searchable.push({ product_ndc: v[ndc!]!, brand_name: v[brand!]!, generic_name: v[generic!]!, labeler_name: v[labeler!]! });
      }
    }),
    readIngredientLists(snapshot, version, (rows) => {
      for (const [list] of rows as string[][]) dir.ingredients.push(list!);
    }),
    readPackageRows(snapshot, version, (rows) => {
      for (const [row] of rows as string[][]) {
        const published = (JSON.parse(row!) as string[])[pkgNdc]!;
        const k = toNdc11(published) ?? published;
        const l = dir.packages.get(k);
        if (l) l.push(row!);
        else dir.packages.set(k, [row!]);
      }
    }),
  ]);
  // Both lists are in product_id order, a key of the version: they align by product number.
  if (dir.ingredients.length !== dir.products.length) throw new Error(`fda_ndc ${version}: ${dir.ingredients.length} ingredient lists for ${dir.products.length} products`);
  return { ...dir, index: buildDrugIndex(searchable) };
}

/** A row kept as an array of values, as the object its columns name. */
function rowOf<T>(columns: readonly string[], values: unknown[]): T {
  const o: Record<string, unknown> = {};
  columns.forEach((c, i) => (o[c] = values[i]));
  return o as T;
}

/** Product number `i` of the directory as its row. */
export function productAt(dir: DrugDirectory, i: number): ProductRow {
  return rowOf<ProductRow>(PRODUCT_COLUMNS, JSON.parse(dir.products[i]!) as unknown[]);
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
  const pkgs = (dir.packages.get(ndc11) ?? []).map((t) => rowOf<PackageRow>(PACKAGE_COLUMNS, JSON.parse(t) as unknown[]));
  const pkg = pkgs[0];
  if (!pkg) throw new NotFoundError(`package NDC ${dashed542(ndc11)} is not in the FDA NDC directory ${dir.version}`);
  if (pkgs.length > 1) trace.warn(`FDA lists ${pkgs.map((p) => p.package_ndc).join(' and ')}, which share the 11-digit form ${ndc11}; answering ${pkg.package_ndc}`);
  const no = dir.productNo.get(pkg.product_id);
  if (no === undefined) throw new NotFoundError(`package NDC ${pkg.package_ndc} is listed, but its product ${pkg.product_id} is not in the FDA NDC directory ${dir.version}`);
  const { package_ndc, ndc_segments, description, marketing_start_date, marketing_end_date, sample, source } = pkg;
  return {
    package: { package_ndc, ndc11, ndc_segments, description, marketing_start_date, marketing_end_date, sample, source },
    product: productAt(dir, no),
    ingredients: (JSON.parse(dir.ingredients[no]!) as unknown[][]).map((i) => rowOf<Pick<IngredientRow, (typeof INGREDIENT_SHOWN)[number]>>(INGREDIENT_SHOWN, i)),
    reliability: trace.reliability(),
  };
}

/** Products matching a search text, ranked, with the count of all matches. */
export async function searchDrugs(snapshot: SnapshotReader, q: string, limit: number, trace: Trace) {
  const dir = await directoryOrThrow(snapshot, trace);
  const { hits, total } = searchDrugIndex(dir.index, q, limit);
  return { total_count: total, reliability: trace.reliability(), results: hits.map((h) => productAt(dir, h.index)) };
}

/** The product an NDC names in any accepted form (a package NDC names its product), or null. */
export function productOfNdc(dir: DrugDirectory, ndc: string): ProductRow | null {
  const pkg = parsePackageNdc(ndc);
  if (pkg.ok) {
    const p = dir.packages.get(pkg.ndc11)?.[0];
    if (p !== undefined) {
      const no = dir.productNo.get(rowOf<PackageRow>(PACKAGE_COLUMNS, JSON.parse(p) as unknown[]).product_id);
      return no === undefined ? null : productAt(dir, no);
    }
  }
  const product = productNdcOfQuery(ndc);
  const no = product ? dir.index.byNdc.get(product)?.[0] : undefined;
  return no === undefined ? null : productAt(dir, no);
}
