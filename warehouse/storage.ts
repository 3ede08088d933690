import type { BlockSummary } from '../lib/sidecar/range.js';

/**
 * How a dataset's version files are stored, apart from what the dataset is (its declaration in
 * `datasets/<id>/dataset.ts`): DuckDB indexes and row group size inside the file, and the sidecars
 * written beside it (`lib/sidecar/`). The specs of every dataset are one table,
 * `datasets/storage.ts` (the entries are SQL over a dataset's tables, built by the same functions
 * its readers use, so the table sits on the datasets' floor); ingest writes what it says.
 */
export interface StorageSpec {
  /**
   * Indexes written into each version file, built once its rows are final (after `finalize` and a
   * delta's fold): DuckDB finds a point query's rows through them instead of scanning, when the
   * query names the version's own table (`SnapshotReader.versionTable`), never through the view.
   */
  indexes?: IndexSpec[];
  /**
   * Rows per row group in the version file (DuckDB's default 122,880): smaller groups give its
   * zone maps finer ranges, so a range scan over sorted rows reads fewer rows.
   */
  rowGroupSize?: number;
  /**
   * A record sidecar written beside each version file (`lib/sidecar/record.ts`): one JSON object
   * per key, `{<main.name>: <main row>, <list name>: [<items>], ...}`, so a point lookup reads one
   * compressed block instead of querying DuckDB. The tables are streamed side by side in key order
   * and merged (sorts spill within the ingest's memory bound, where grouping the lists in SQL ran
   * out of it); a delta's fold rewrites only the keys it carries and copies the rest from the base
   * version's sidecar. Readers answer from DuckDB when a version has none.
   */
  records?: RecordsSpec;
  /**
   * Range sidecars written beside each version file (`<version file>.<name>.ranges`,
   * `lib/sidecar/range.ts`): rows of the version's final tables sorted by their first column, so a
   * range of keys is read from the few blocks holding it instead of a scan whose zone-map checks
   * grow with the table. Readers answer from DuckDB when a version has none.
   */
  ranges?: RangesSpec[];
  /**
   * Column sidecars written beside each version file (`<version file>.<name>.parquet`,
   * `lib/sidecar/column.ts`): `sql` over the version's final tables (the main table by the
   * dataset's id), for a whole-table index a server reads at mount instead of computing it.
   */
  columnFiles?: ColumnFileSpec[];
}

/** A DuckDB index on `columns` of `table` in each version file (`StorageSpec.indexes`). */
export interface IndexSpec {
  table: string;
  columns: string[];
}

/**
 * One pass's share of a key's values (`KeyPasses`), as SQL over any expression of the key: `test`
 * holds for the pass's values (the last pass also takes nulls, which sort last), `before` for the
 * values of every earlier pass.
 */
export interface KeyRange {
  test(key: string): string;
  before(key: string): string;
}

/** Every value of a key, in one pass. */
export const WHOLE: KeyRange = { test: () => 'TRUE', before: () => 'FALSE' };

/**
 * A sidecar's statement run in passes over ranges of `key` (a SQL expression over `table`), about
 * `rows` rows of `table` a pass, so its sorts, joins and aggregates hold one pass's rows at a time
 * instead of the file's. The passes' outputs, one after the other, are the whole: the statement
 * orders by this key first.
 */
export interface KeyPasses {
  table: string;
  key: string;
  rows: number;
}

/** A statement's rows whole, or, with `passes`, one pass's share of them at a time. */
type Passed<K extends string> = ({ [P in K]: string } & { passes?: never }) | ({ [P in K]: (range: KeyRange) => string } & { passes: KeyPasses });

/**
 * One range sidecar (`StorageSpec.ranges`): `columns` (SQL expressions, the first the key) of the
 * rows `from` (a table, with a WHERE clause if need be; or a pass's rows, with `passes`) in `order`
 * (none: the table's stored order, when it is stored by the key; the writer refuses a key out of
 * order), `blockRows` rows a block (fewer for point lookups, more for long ranges), `deflate`d or
 * stored.
 */
export type RangesSpec = Passed<'from'> & {
  name: string;
  columns: string[];
  order: string | null;
  blockRows: number;
  /** Blocks deflated (a range read over many), or stored as they are (a point lookup of one row, where zlib's setup per call outweighs the read). */
  deflate: boolean;
  /** Each block summarised in the index, for a reader that can answer from the summary instead of the block. */
  summary?: BlockSummary;
};

/** One column sidecar (`StorageSpec.columnFiles`): `sql` over the version's final tables (or a pass's share of them, with `passes`). */
export type ColumnFileSpec = Passed<'sql'> & { name: string };

/**
 * How a dataset's record sidecar is built (`StorageSpec.records`): each table's rows (all columns
 * but `version`, as JSON) by `key`, a numeric SQL expression over the table; the main table's row
 * is the record's `main.name` member, each list table's rows (in `order` within a key) a list member.
 */
export interface RecordsSpec {
  key: string;
  main: { name: string; table: string };
  lists: { name: string; table: string; order: string }[];
}
