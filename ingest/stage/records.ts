import type { DuckDBConnection } from '@duckdb/node-api';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { RANGE_FIELD_SQL, writeRangeFile } from '../../lib/sidecar/range.js';
import { quoteString } from '../../warehouse/sql_quote.js';
import type { RangesSpec, RecordsSpec } from '../../warehouse/storage.js';
import { RecordFile, writeRecordFile } from '../../lib/sidecar/record.js';
import { runSqlOn } from './load.js';
import { passSql } from './passes.js';

/** One streamed result of (key, JSON text) rows, read a row at a time. */
class Cursor {
  private rows: unknown[][] = [];
  private at = 0;
  private done = false;
  constructor(private readonly chunks: AsyncIterator<unknown[][]>) {}

  /** The current row's key and text, or null past the last. */
  async peek(): Promise<[number, string] | null> {
    while (this.at >= this.rows.length) {
      if (this.done) return null;
      const r = await this.chunks.next();
      if (r.done) {
        this.done = true;
        return null;
      }
      this.rows = r.value;
      this.at = 0;
    }
    const row = this.rows[this.at]!;
    return [Number(row[0]), String(row[1])];
  }

  skip(): void {
    this.at++;
  }
}

/**
 * Where a delta's fold keeps the keys its files carry (before the base's rows are added): a table
 * of the ingest's in-memory catalog, which every connection of its instance sees.
 */
const TOUCHED = 'memory.main.record_keys';

/** Records the keys the staged (delta-only) tables carry, before the fold adds the base's rows. */
export async function noteDeltaKeys(run: (sql: string) => Promise<unknown>, spec: RecordsSpec): Promise<void> {
  const keys = [spec.main, ...spec.lists].map((t) => `SELECT ${spec.key} AS key FROM ${t.table}`).join(' UNION ');
  await run(`CREATE OR REPLACE TABLE ${TOUCHED} AS SELECT DISTINCT key FROM (${keys})`);
}

/** A table's rows as (key, JSON of every column but `version`) in key order, only the touched keys when `onlyTouched`. */
function rowsSql(spec: RecordsSpec, table: string, order: string | null, onlyTouched: boolean): string {
  const where = onlyTouched ? ` WHERE ${spec.key} IN (SELECT key FROM ${TOUCHED})` : '';
  return `SELECT ${spec.key} AS key, CAST(to_json(r) AS VARCHAR) AS json FROM (SELECT * EXCLUDE (version) FROM ${table}${where}) r ORDER BY key${order ? `, r.${order}` : ''}`;
}

/**
 * Writes a dataset's record sidecar (its storage's `records`) from the staged version's final tables:
 * the main table and each list table streamed on connections of their own (`connect` opens one on
 * the staged file) and merged by key, a chunk at a time, into `path`. A list row whose key has no
 * main row is in no record (a lookup from DuckDB finds no such record either). After a delta's
 * fold (`base`: the base version's sidecar, `noteDeltaKeys` called before the fold), only the
 * keys the delta carried are built from the tables; every other record is copied from the base.
 */
export async function writeRecords(connect: () => Promise<DuckDBConnection>, spec: RecordsSpec, path: string, base: RecordFile | null = null): Promise<number> {
  const tables = [{ ...spec.main, order: null }, ...spec.lists];
  const conns = await Promise.all(tables.map(() => connect()));
  try {
    const [main, ...lists] = await Promise.all(tables.map(async (t, i) => (await conns[i]!.stream(rowsSql(spec, t.table, t.order, base !== null))).yieldRowsJs()[Symbol.asyncIterator]()));
    const cursors = lists.map((l) => new Cursor(l));
    const names = spec.lists.map((l) => JSON.stringify(l.name));
    async function* built(): AsyncGenerator<[number, string][]> {
      for (let r = await main!.next(); !r.done; r = await main!.next()) {
        const out: [number, string][] = [];
        for (const row of r.value) {
          const key = Number(row[0]);
          const parts = [`{${JSON.stringify(spec.main.name)}:${String(row[1])}`];
          for (const [i, c] of cursors.entries()) {
            const items: string[] = [];
            for (let item = await c.peek(); item && item[0] <= key; item = await c.peek()) {
              if (item[0] === key) items.push(item[1]);
              c.skip();
            }
            parts.push(`${names[i]}:[${items.join(',')}]`);
          }
          out.push([key, `${parts.join(',')}}`]);
        }
        yield out;
      }
    }
    if (!base) return await writeRecordFile(path, built());
    const keys = await connect();
    const touched = new Set((await keys.runAndReadAll(`SELECT key FROM ${TOUCHED}`)).getRows().map((r) => Number(r[0])));
    keys.closeSync();
    return await writeRecordFile(path, mergeByKey(built(), base.entries(), touched));
  } finally {
    for (const c of conns) c.closeSync();
  }
}

/** The built records and the base's records whose keys were not touched, in key order (the two never share a key). */
async function* mergeByKey(built: AsyncGenerator<[number, string][]>, base: Generator<[number, string][]>, touched: Set<number>): AsyncGenerator<[number, string][]> {
  const fresh = new Cursor(built);
  for (const chunk of base) {
    const out: [number, string][] = [];
    for (const [key, record] of chunk) {
      for (let f = await fresh.peek(); f && f[0] < key; f = await fresh.peek()) {
        out.push(f);
        fresh.skip();
      }
      if (!touched.has(key)) out.push([key, record]);
    }
    yield out;
  }
  let rest: [number, string][] = [];
  for (let f = await fresh.peek(); f; f = await fresh.peek()) {
    rest.push(f);
    fresh.skip();
    if (rest.length === 2048) {
      yield rest;
      rest = [];
    }
  }
  yield rest;
}

/**
 * Writes one range sidecar (one of its storage's `ranges`) from the staged version's final tables: DuckDB
 * writes the sorted rows as escaped text lines (`COPY`, native and parallel: streaming 7 M rows
 * through JavaScript values took 70 s, the copy 6 s) to `<path>.lines` (one file a pass, with
 * `spec.passes`), which are then cut into blocks in order and removed.
 */
export async function writeRanges(connect: () => Promise<DuckDBConnection>, spec: RangesSpec, path: string): Promise<number> {
  const conn = await connect();
  const files: string[] = [];
  try {
    for (const from of await passSql(runSqlOn(conn), spec.from, spec.passes)) {
      const lines = `${path}.lines${files.length ? files.length : ''}`;
      files.push(lines);
      const select = `SELECT ${spec.columns.map((c, i) => `${RANGE_FIELD_SQL(c)} AS c${i}`).join(', ')} FROM ${from}${spec.order ? ` ORDER BY ${spec.order}` : ''}`;
      await conn.run(`COPY (${select}) TO ${quoteString(lines)} (FORMAT csv, DELIMITER '\t', QUOTE '', ESCAPE '', HEADER false)`);
    }
    return await writeRangeFile(path, readInTurn(files), spec.blockRows, spec.deflate, spec.summary);
  } finally {
    conn.closeSync();
    await Promise.all(files.map((f) => rm(f, { force: true })));
  }
}

/** The bytes of `files`, one after the other. */
async function* readInTurn(files: string[]): AsyncGenerator<Buffer> {
  for (const f of files) yield* createReadStream(f, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>;
}
