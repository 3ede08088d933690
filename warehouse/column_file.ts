import { existsSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
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

/**
 * Writes the rows of `sqls`, one statement after the other, to `path` as Parquet in their order,
 * synced. Several statements (a sidecar written in passes) are written to parts first and joined in
 * one streamed copy, which keeps the parts' order.
 */
export async function writeColumnFile(conn: DuckDBConnection, sqls: string[], path: string): Promise<void> {
  if (sqls.length === 1) await conn.run(`COPY (${sqls[0]}) TO ${quoteString(path)} (FORMAT parquet)`);
  else {
    const parts = sqls.map((_, i) => `${path}.part${i}`);
    try {
      for (const [i, sql] of sqls.entries()) await conn.run(`COPY (${sql}) TO ${quoteString(parts[i]!)} (FORMAT parquet)`);
      await conn.run(`COPY (SELECT * FROM read_parquet([${parts.map(quoteString).join(', ')}])) TO ${quoteString(path)} (FORMAT parquet)`);
    } finally {
      await Promise.all(parts.map((f) => rm(f, { force: true })));
    }
  }
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
