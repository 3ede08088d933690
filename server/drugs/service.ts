import { fdaNdc } from '../../datasets/fda_ndc/dataset.js';
import { directoryColumns, INGREDIENT_SHOWN } from '../../datasets/fda_ndc/directory_sql.js';
import { findPackageRows, ndcVersion, readProductRows } from '../../datasets/fda_ndc/queries.js';
import { RangeFile, rangeFields, RANGES_SUFFIX } from '../../lib/sidecar/range.js';
import { FileShared } from '../../warehouse/file_shared.js';
import type { IngredientRow, PackageRow, ProductRow } from '../../datasets/fda_ndc/schema.js';
import { dashed542, parsePackageNdc, productNdcOfQuery } from '../../datasets/_shared/ndc.js';
import { NotFoundError } from '../../warehouse/errors.js';
import { sidecarFallback, versionSidecar, type SnapshotReader } from '../../warehouse/snapshot.js';
import type { Trace } from '../trace.js';
import { buildDrugIndex, searchDrugIndex, type DrugIndex, type SearchableProduct } from './search.js';

/**
 * The loaded NDC directory: its search index and each product (values and ingredients, one JSON
 * text each, as DuckDB writes them) in memory; each package read when asked, from the version's
 * packages sidecar (`fda_ndc`'s `ranges` in `datasets/storage.ts`: one stored block of a few kilobytes, read and checked) or,
 * for a version without it or a block that cannot be read, from DuckDB. Every row held in memory
 * (packages by 11-digit NDC in a Map too) cost 530 MB of server RSS at 111,502 products (objects
 * per row and column about 1 GB); the products read from a sidecar per answer made an uncached
 * search 0.20x a bare route against 0.33x, where a package lookup reads one block either way.
 */
export interface DrugDirectory {
  version: string;
  index: DrugIndex;
  /** Product rows by number (the index's numbering: product_id order): values in `PRODUCT_COLUMNS` order, as JSON text. */
  products: string[];
  /** Each product's ingredients by number: `INGREDIENT_SHOWN` arrays in ordinal order, as JSON text. */
  ingredients: string[];
  /** The packages of an 11-digit NDC (one, unless FDA lists two whose 11-digit forms collide): values (`PACKAGE_COLUMNS` order) as JSON text, and the product's number (null when its product is not listed). */
  packages(ndc11: string): Promise<{ row: string; product: number | null }[]>;
}

/**
 * The directory of the version in force, built once per snapshot (pinned; warmed at mount by
 * server.ts) and shared by snapshots mounting the same version file.
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
  const open = (name: string) => versionSidecar(snapshot, fdaNdc.id, version, `.${name}${RANGES_SUFFIX}`, RangeFile.open);
  const [productFile, packageFile] = await Promise.all([open('products'), open('packages')]);
  // The products in number order: from the sidecar (a sequential read of its blocks), else DuckDB.
  let texts = productFile && productsFrom(productFile);
  if (!texts) {
    sidecarFallback(snapshot, fdaNdc.id, 'products', productFile ? 'damaged' : 'missing');
    texts = await productsFromDuckDb(snapshot, version);
  }
  const { products, ingredients } = texts;
  const [id, ndc, brand, generic, labeler] = ['product_id', 'product_ndc', 'brand_name', 'generic_name', 'labeler_name'].map((c) => PRODUCT_COLUMNS.indexOf(c));
  const searchable: SearchableProduct[] = [];
  const productNo = new Map<string, number>();
  products.forEach((row, no) => {
    const v = JSON.parse(row) as (string | null)[];
    productNo.set(v[id!]!, no);
    searchable.push({ product_ndc: v[ndc!]!, brand_name: v[brand!]!, generic_name: v[generic!]!, labeler_name: v[labeler!]! });
  });
  return {
    version,
    index: buildDrugIndex(searchable),
    products,
    ingredients,
    async packages(ndc11) {
      try {
        const r = packageFile?.rowsOf(ndc11);
        if (r) return r.map((f) => ({ row: f[1]!, product: f[2] ? Number(f[2]) : null }));
        sidecarFallback(snapshot, fdaNdc.id, 'packages', 'missing');
      } catch {
        // A block that cannot be read: DuckDB answers.
        sidecarFallback(snapshot, fdaNdc.id, 'packages', 'damaged');
      }
      return (await findPackageRows(snapshot, version, ndc11)).map((f) => ({ row: f.row, product: productNo.get(f.product_id) ?? null }));
    },
  };
}

/** Products and their ingredient lists, by number. */
type ProductTexts = { products: string[]; ingredients: string[] };

/** The products sidecar's rows in number order; null when a block cannot be read (DuckDB answers). */
function productsFrom(file: RangeFile): ProductTexts | null {
  const out: ProductTexts = { products: [], ingredients: [] };
  try {
    file.everyLine((line) => {
      const [, row, list] = rangeFields(line);
      out.products.push(row!);
      out.ingredients.push(list!);
    });
    return out;
  } catch {
    return null;
  }
}

/** The same from DuckDB, for a version without the sidecar or with a damaged block. */
async function productsFromDuckDb(snapshot: SnapshotReader, version: string): Promise<ProductTexts> {
  const out: ProductTexts = { products: [], ingredients: [] };
  await readProductRows(snapshot, version, (rows) => {
    for (const [, row, list] of rows as string[][]) {
      out.products.push(row!);
      out.ingredients.push(list!);
    }
  });
  return out;
}

/** A row kept as an array of values, as the object its columns name. */
function rowOf<T>(columns: readonly string[], values: unknown[]): T {
  const o: Record<string, unknown> = {};
  columns.forEach((c, i) => (o[c] = values[i]));
  return o as T;
}

/** Product number `no` of the directory as its row; null when there is no such product. */
export function productAt(dir: DrugDirectory, no: number): ProductRow | null {
  const row = dir.products[no];
  return row === undefined ? null : rowOf<ProductRow>(PRODUCT_COLUMNS, JSON.parse(row) as unknown[]);
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
  const found = await dir.packages(ndc11);
  const pkgs = found.map((t) => rowOf<PackageRow>(PACKAGE_COLUMNS, JSON.parse(t.row) as unknown[]));
  const pkg = pkgs[0];
  if (!pkg) throw new NotFoundError(`package NDC ${dashed542(ndc11)} is not in the FDA NDC directory ${dir.version}`);
  if (pkgs.length > 1) trace.warn(`FDA lists ${pkgs.map((p) => p.package_ndc).join(' and ')}, which share the 11-digit form ${ndc11}; answering ${pkg.package_ndc}`);
  const no = found[0]!.product;
  const product = no === null ? undefined : dir.products[no];
  if (product === undefined) throw new NotFoundError(`package NDC ${pkg.package_ndc} is listed, but its product ${pkg.product_id} is not in the FDA NDC directory ${dir.version}`);
  const { package_ndc, ndc_segments, description, marketing_start_date, marketing_end_date, sample, source } = pkg;
  return {
    package: { package_ndc, ndc11, ndc_segments, description, marketing_start_date, marketing_end_date, sample, source },
    product: rowOf<ProductRow>(PRODUCT_COLUMNS, JSON.parse(product) as unknown[]),
    ingredients: (JSON.parse(dir.ingredients[no!]!) as unknown[][]).map((i) => rowOf<Pick<IngredientRow, (typeof INGREDIENT_SHOWN)[number]>>(INGREDIENT_SHOWN, i)),
    reliability: trace.reliability(),
  };
}

/** Products matching a search text, ranked, with the count of all matches. */
export async function searchDrugs(snapshot: SnapshotReader, q: string, limit: number, trace: Trace) {
  const dir = await directoryOrThrow(snapshot, trace);
  const { hits, total } = searchDrugIndex(dir.index, q, limit);
  const results = hits.map((h) => productAt(dir, h.index)!);
  return { total_count: total, reliability: trace.reliability(), results };
}

/** The product an NDC names in any accepted form (a package NDC names its product), or null. */
export async function productOfNdc(dir: DrugDirectory, ndc: string): Promise<ProductRow | null> {
  const pkg = parsePackageNdc(ndc);
  if (pkg.ok) {
    const [p] = await dir.packages(pkg.ndc11);
    if (p) return p.product === null ? null : productAt(dir, p.product);
  }
  const product = productNdcOfQuery(ndc);
  const no = product ? dir.index.byNdc.get(product)?.[0] : undefined;
  return no === undefined ? null : productAt(dir, no);
}
