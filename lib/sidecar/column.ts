import { existsSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { checkVersion } from './block.js';

/**
 * A column sidecar (`<version file>.<name>.parquet`): the result of a query over a version's final
 * tables, written once at ingest as Parquet, so a whole-table index a server builds at mount reads
 * plain columns (one `read_parquet`) instead of computing them from the rows again at every start.
 * A version without one is computed from its tables.
 *
 * Format version 1: the Parquet file's key-value metadata holds `rcm_column_file_version: '1'`
 * (Parquet's own place for a writer's notes; the columns are the writer's query's). Version 0, a
 * file without the key (written before versions), holds the same columns and is read too.
 */
export const COLUMNS_SUFFIX = '.parquet';

/** Where a version file's column sidecar `name` lives. */
export const columnsPath = (versionFile: string, name: string): string => `${versionFile}.${name}${COLUMNS_SUFFIX}`;

/** The column file format version this build writes (it reads 0 and 1). */
export const COLUMN_FORMAT_VERSION = 1;
const FORMAT = { name: 'column file', version: COLUMN_FORMAT_VERSION, oldest: 0 };
/** The metadata key naming a file's format version. */
const VERSION_KEY = 'rcm_column_file_version';

/** A DuckDB string literal. */
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * Writes the rows of `sqls`, one statement after the other, to `path` as Parquet in their order,
 * at this build's format version, synced. Several statements (a sidecar written in passes) are
 * written to parts first and joined in one streamed copy, which keeps the parts' order.
 */
export async function writeColumnFile(conn: DuckDBConnection, sqls: string[], path: string): Promise<void> {
  const options = `(FORMAT parquet, KV_METADATA {${VERSION_KEY}: '${COLUMN_FORMAT_VERSION}'})`;
  if (sqls.length === 1) await conn.run(`COPY (${sqls[0]}) TO ${literal(path)} ${options}`);
  else {
    const parts = sqls.map((_, i) => `${path}.part${i}`);
    try {
      for (const [i, sql] of sqls.entries()) await conn.run(`COPY (${sql}) TO ${literal(parts[i]!)} (FORMAT parquet)`);
      await conn.run(`COPY (SELECT * FROM read_parquet([${parts.map(literal).join(', ')}])) TO ${literal(path)} ${options}`);
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

/**
 * `path` when the file is there and of a format version this build reads (`all` runs a query on
 * the reader's DuckDB: the version is in the Parquet metadata); null when there is none. Throws
 * `SidecarVersionError` for another version. A file whose metadata does not read (cut short) is
 * handed back: reading its columns fails as well, and the reader computes them instead.
 */
export async function openColumnFile(path: string, all: (sql: string) => Promise<Record<string, unknown>[]>): Promise<string | null> {
  if (!existsSync(path)) return null;
  let rows: Record<string, unknown>[];
  try {
    rows = await all(`SELECT CAST(value AS VARCHAR) AS v FROM parquet_kv_metadata(${literal(path)}) WHERE key = CAST(${literal(VERSION_KEY)} AS BLOB)`);
  } catch {
    return path;
  }
  const found = rows.length === 0 ? 0 : String(rows[0]!.v);
  checkVersion(path, FORMAT, typeof found === 'string' && /^\d{1,9}$/.test(found) ? Number(found) : found);
  return path;
}

/** The SQL reading a column sidecar's columns, in its order. */
export const readColumnFileSql = (path: string, columns: string[]): string => `SELECT ${columns.join(', ')} FROM read_parquet(${literal(path)})`;
