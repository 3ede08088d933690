import { quoteIdent } from '../../warehouse/sql_quote.js';
import { WHOLE, type KeyRange } from '../../warehouse/storage.js';
import { NDC_TABLES } from './schema.js';

/**
 * The drug directory's rows as SQL, over a version's tables (the staged tables at ingest, where
 * the range sidecars are written from them; a reader's views filtered to one version otherwise):
 * each row one JSON text DuckDB writes (converting values to JS costs about 2 us each).
 */

/** The columns of a directory table in its stored order (what `json_array` rows list). */
export const directoryColumns = (table: 'product' | 'package'): string[] => NDC_TABLES[table].columns.map((c) => c.name);

/** The ingredient fields a package answer shows, in its order. */
export const INGREDIENT_SHOWN = ['ingredient_ordinal', 'ingredient_name', 'ingredient_strength', 'strength_value', 'strength_unit'] as const;

/** A row of `table` (aliased `alias`) as one JSON array text of its values, in `directoryColumns` order. */
export const jsonRow = (table: 'product' | 'package', alias: string) => `CAST(json_array(${directoryColumns(table).map((c) => `${alias}.${quoteIdent(c)}`).join(', ')}) AS VARCHAR)`;

/**
 * A product's number in the directory (product_id order, from 0), written as 7 digits: the products
 * sidecar's key. Over one pass's products (`range` of product_id), it counts from the number of the
 * products before them.
 */
const productNo = (product: string, range: KeyRange) =>
  `lpad(CAST(row_number() OVER (ORDER BY product_id) - 1${range === WHOLE ? '' : ` + (SELECT count(*) FROM ${product} WHERE ${range.before('product_id')})`} AS VARCHAR), 7, '0')`;

/** A package NDC as FDA prints it, padded in SQL to its 11-digit form without dashes (`0002-3229-30` -> `00002322930`). */
export const NDC11_SQL = "lpad(split_part(package_ndc, '-', 1), 5, '0') || lpad(split_part(package_ndc, '-', 2), 4, '0') || lpad(split_part(package_ndc, '-', 3), 2, '0')";

/** The rows of `table` (a table or a parenthesised query) whose `key` is in `range`. */
const within = (table: string, key: string, range: KeyRange) => (range === WHOLE ? table : `(SELECT * FROM ${table} WHERE ${range.test(key)})`);

/**
 * Every product of `product` (a table or a parenthesised query with an alias) as `k` (its number,
 * 7 digits), `row` (its values, `directoryColumns('product')` order) and `ingredients` (its
 * ingredients from `ingredient`: `INGREDIENT_SHOWN` arrays in ordinal order, `[]` for none); with
 * `range`, only the products whose product_id is in it (the ingest's passes).
 */
export const productRowsSql = (product: string, ingredient: string, range: KeyRange = WHOLE): string =>
  `SELECT ${productNo(product, range)} AS k, ${jsonRow('product', 'p')} AS row, coalesce(i.list, '[]') AS ingredients FROM ${within(product, 'product_id', range)} p ` +
  `LEFT JOIN (SELECT product_id, CAST(to_json(list(json_array(${INGREDIENT_SHOWN.join(', ')}) ORDER BY ingredient_ordinal)) AS VARCHAR) AS list FROM ${within(ingredient, 'product_id', range)} GROUP BY product_id) i USING (product_id)`;

/**
 * Every package of `pkg` as `ndc11`, `row` (its values, `directoryColumns('package')` order) and
 * `product` (its product's number, null when `product` does not list it); with `range`, only the
 * packages whose 11 digits are in it.
 */
export const packageRowsSql = (pkg: string, product: string, range: KeyRange = WHOLE): string =>
  `SELECT ${NDC11_SQL.replace(/package_ndc/g, 'g.package_ndc')} AS ndc11, ${jsonRow('package', 'g')} AS row, n.k AS product FROM ${within(pkg, NDC11_SQL, range)} g ` +
  `LEFT JOIN (SELECT product_id, ${productNo(product, WHOLE)} AS k FROM ${product}) n USING (product_id)`;
