import type { z } from 'zod';
import type { Issue } from '../warehouse/errors.js';
import type { FileSample, SourceFile } from './_shared/source.js';
import { table, type TableSpec } from './_shared/table.js';

/**
 * DuckDB column types used by dataset tables (same names as the JSON fields: no renaming layer).
 * Dates are stored as ISO `YYYY-MM-DD` VARCHAR (they sort and compare correctly, no conversions).
 * `JSON` is a VARCHAR column holding JSON text (lists and objects of curated rows).
 */
export type ColumnType = 'VARCHAR' | 'DOUBLE' | 'INTEGER' | 'BIGINT' | 'BOOLEAN' | 'JSON';

export interface Column {
  name: string;
  type: ColumnType;
  description?: string;
}

/** A version label found in the file (name, title line) and the date it takes effect. */
export interface VersionInfo {
  label: string;
  /** `YYYY-MM-DD` */
  effective_date?: string;
}

/**
 * What a parser yields for each source record: a typed row (of `table`, the main table when
 * omitted), or the issues that reject it.
 */
export type ParsedItem<Row> =
  | { line: number; row: Row; table?: string; issues?: undefined }
  | { line: number; row?: undefined; table?: string; issues: Issue[] };

export interface ParseContext {
  /** Report bytes of `file` consumed so far, for the progress line. */
  onBytes(bytes: number): void;
}

/** Rows and rejects a native (SQL) loader produced. */
export interface NativeLoadResult {
  rows: number;
  rejects: { line: number; issues: Issue[] }[];
  /** Rows per table, for a loader that fills several (default: all `rows` in the main table). */
  tables?: Record<string, number>;
}

/**
 * One published source dataset: what it accepts, how its rows look, how to find its version and
 * how to parse it. Adding a dataset is adding a folder under `datasets/` and registering it
 * (`npm run new:dataset -- <id>` does both; datasets/README.md). `Id` keeps the literal id of a
 * declaration, so the registry's ids form the closed union `DatasetId`. How its versions are
 * stored (DuckDB indexes, row groups, sidecars) is not declared here: `datasets/storage.ts`.
 */
export interface Dataset<Row extends object = Record<string, unknown>, Id extends string = string> {
  /** snake_case id, identical in folder, table, CLI argument and manifest. */
  id: Id;
  title: string;
  publisher: string;
  /** Accepted formats in words, shown by `rcm datasets`. */
  formats: string[];
  /**
   * The dataset's tables, main first. A single-table dataset has one, named like the dataset
   * (view `<dataset>`); others are read through views `<dataset>__<table>`.
   */
  tables: TableSpec[];
  /** The main table's columns in order (the pipeline adds `version`). */
  columns: Column[];
  /** Columns that identify a row of the main table within a version (diffs compare by these). */
  key: string[];
  /** True when this dataset reads a file that looks like `sample` (by content, not by name alone). */
  detect(sample: FileSample): boolean;
  /** The version label from the files themselves (file name, title line); undefined when not found. */
  version(samples: FileSample[]): VersionInfo | undefined;
  /** Reads one file. Issues for a single row reject that row; throw IngestError for a broken file. */
  parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<Row>>;
  /** Checks a set of files belongs together (e.g. all four PTP parts); throws IngestError. */
  checkFiles?(files: SourceFile[], samples: FileSample[]): void;
  /**
   * Optional SQL run on the loaded table before validation of keys (e.g. merging the QPP and
   * non-QPP files of one RVU release into one row per code).
   */
  finalize?(run: (sql: string) => Promise<Record<string, unknown>[]>, table: string): Promise<void>;
  /**
   * For a publisher that ships deltas between whole releases (NPPES's weekly files): which
   * inputs are a delta and how one folds into its base. A delta version is materialised (the
   * base version's rows plus the delta's upserts), so a reader sees a whole version either way.
   */
  delta?: DeltaSpec;
  /**
   * For a publisher that ships one table in several layouts whose names differ (ICD-10-CM's order
   * and codes files), or a dataset whose version is one file (an APR-DRG list): which table a file
   * is (`key`) and how much it is preferred (`rank`, lower first). A release with several files of
   * one key reads only the first; the others are named with the command that loads them alone.
   * Default: files with the same name but their extension are one table, CSV before TXT before XLSX.
   */
  twin?(sample: FileSample): { key: string; rank: number } | undefined;
  /** True for a file that may carry its header and no rows (an NPPES reference file of a week with no such changes). */
  mayBeEmpty?(file: SourceFile): boolean;
  /**
   * Optional fast path: load straight into `table` (already created with `columns` + version)
   * with DuckDB's own reader. `run` executes SQL on the new version file. Null hands the files to
   * `parse` instead (the loader found something only the row parser reports exactly), with the
   * table left empty.
   */
  loadNative?(
    files: SourceFile[],
    samples: FileSample[],
    run: (sql: string) => Promise<Record<string, unknown>[]>,
    table: string,
    version: string,
  ): Promise<NativeLoadResult | null>;
}

/** How a dataset's delta releases fold into the version before them (`Dataset.delta`). */
export interface DeltaSpec {
  /** The dates (`YYYY-MM-DD`) a delta release covers; undefined when the inputs are a whole release. */
  rangeOf(samples: FileSample[]): { from: string; to: string } | undefined;
  /**
   * SQL on the staging connection, whose tables hold the delta's rows: adds the rows of the base
   * version (attached as schema `base`) that the delta does not replace, each with `version`.
   * Returns how many of the base's keys the delta explicitly removes (NPPES: deactivations), the
   * only removals the publish guard counts for a delta.
   */
  fold(run: (sql: string) => Promise<Record<string, unknown>[]>, base: string, version: string): Promise<{ explicitRemovals: number }>;
}

/** A dataset's `loadNative`. */
export type NativeLoader = NonNullable<Dataset['loadNative']>;

/** A dataset declaration without what `defineDataset` derives. */
export type DatasetSpec<Row extends object> = Omit<Dataset<Row>, 'tables' | 'columns' | 'key'>;

/**
 * Declares a single-table dataset from its row schema: the table is named like the dataset,
 * its columns come from the schema and the row type is `z.infer` of it (declared once). The id
 * keeps its literal type, so queries that read `dataset.id` are typed by it.
 */
export function defineDataset<S extends z.ZodObject, const Id extends string>(
  d: DatasetSpec<z.infer<S>> & {
    id: Id;
    row: S;
    key: (keyof z.infer<S> & string)[];
    /** Release-level columns a diff ignores (see `TableSpec.meta`). */
    meta?: (keyof z.infer<S> & string)[];
  },
): Dataset<z.infer<S>, Id> {
  const { row, key, meta, ...rest } = d;
  const main = table(d.id, row, key, meta);
  return { ...rest, tables: [main], columns: main.columns, key: main.key };
}

/** The `tables`, `columns` and `key` of a dataset whose one table is `t` (for dataset factories). */
export function mainTable(t: TableSpec): Pick<Dataset, 'tables' | 'columns' | 'key'> {
  return { tables: [t], columns: t.columns, key: t.key };
}

/**
 * Declares a dataset of several tables (curated knowledge, product + package files): main first.
 * The row type is inferred from `parse`, the id keeps its literal type.
 */
export function defineMultiTableDataset<Row extends object, const Id extends string>(d: DatasetSpec<Row> & { id: Id; tables: TableSpec[] }): Dataset<Row, Id> {
  const main = d.tables[0];
  if (!main) throw new Error(`dataset ${d.id} declares no table`);
  return { ...d, columns: main.columns, key: main.key };
}
