import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteString } from './sql_quote.js';

/**
 * A version file's column sidecar (`<version file>.<name>.parquet`, `Dataset.columnFiles`): the
 * result of a query over the version's final tables, written once at ingest as Parquet, so a
 * whole-table index a server builds at mount reads plain columns (one `read_parquet`) instead of
 * computing them from the rows again at every start. A version without one is computed from its
 * tables, as before.
 */
export const COLUMNS_SUFFIX = '.parquet';

/** Where a version file's column sidecar `name` lives. */
export const columnsPath = (versionFile: string, name: string): string => `${versionFile}.${name}${COLUMNS_SUFFIX}`;

/** Writes `sql`'s rows to `path` as Parquet in their order, synced. */
export async function writeColumnFile(conn: DuckDBConnection, sql: string, path: string): Promise<void> {
  await conn.run(`COPY (${sql}) TO ${quoteString(path)} (FORMAT parquet)`);
  const fh = await open(path, 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** `path` when the file is there (a `versionSidecar` opener). */
export const existingColumnFile = async (path: string): Promise<string | null> => (existsSync(path) ? path : null);

/** The SQL reading a column sidecar's columns, in its order. */
export const readColumnFileSql = (path: string, columns: string[]): string => `SELECT ${columns.join(', ')} FROM read_parquet(${quoteString(path)})`;
