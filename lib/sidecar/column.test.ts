import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SidecarVersionError } from './block.js';
import { COLUMN_FORMAT_VERSION, columnsPath, openColumnFile, readColumnFileSql, writeColumnFile } from './column.js';

let dir: string;
let inst: DuckDBInstance;
let conn: DuckDBConnection;
const all = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcm-columns-'));
  inst = await DuckDBInstance.create(':memory:');
  conn = await inst.connect();
});
afterAll(async () => {
  conn.closeSync();
  inst.closeSync();
  await rm(dir, { recursive: true, force: true });
});

describe('column sidecar files', () => {
  it(`writes one statement's rows or several in order, at format version ${COLUMN_FORMAT_VERSION}, and opens them`, async () => {
    const one = columnsPath(join(dir, 'v.duckdb'), 'one');
    expect(one).toBe(join(dir, 'v.duckdb.one.parquet'));
    await writeColumnFile(conn, ['SELECT range::INTEGER AS n FROM range(5)'], one);
    const many = columnsPath(join(dir, 'v.duckdb'), 'many');
    await writeColumnFile(conn, ['SELECT 3::INTEGER AS n', 'SELECT 1::INTEGER AS n', 'SELECT 2::INTEGER AS n'], many);
    for (const [path, ns] of [[one, [0, 1, 2, 3, 4]], [many, [3, 1, 2]]] as const) {
      expect(await openColumnFile(path, all)).toBe(path);
      expect((await all(readColumnFileSql(path, ['n']))).map((r) => r.n)).toEqual(ns);
      expect(await all(`SELECT CAST(value AS VARCHAR) AS v FROM parquet_kv_metadata('${path}') WHERE CAST(key AS VARCHAR) = 'rcm_column_file_version'`)).toEqual([{ v: '1' }]);
    }
  });

  it('reads a file written before format versions (version 0: no version in its metadata), and none that is missing', async () => {
    const path = join(dir, 'v0.parquet');
    await conn.run(`COPY (SELECT 7::INTEGER AS n) TO '${path}' (FORMAT parquet)`);
    expect(await openColumnFile(path, all)).toBe(path);
    expect(await openColumnFile(join(dir, 'missing.parquet'), all)).toBeNull();
  });

  it('refuses a file of a version it does not read, naming the file and both versions', async () => {
    for (const v of ['2', 'beta']) {
      const path = join(dir, `v-${v}.parquet`);
      await conn.run(`COPY (SELECT 7::INTEGER AS n) TO '${path}' (FORMAT parquet, KV_METADATA {rcm_column_file_version: '${v}'})`);
      const refused = openColumnFile(path, all);
      await expect(refused).rejects.toThrow(SidecarVersionError);
      await expect(refused).rejects.toThrow(`${path}: column file format version ${v}, this build reads versions 0 to 1`);
    }
  });

  it('hands back a file whose metadata does not read: reading its columns fails too, and the reader computes them', async () => {
    const path = join(dir, 'cut.parquet');
    await writeColumnFile(conn, ['SELECT range::INTEGER AS n FROM range(1000)'], path);
    const bytes = await readFile(path);
    await writeFile(path, bytes.subarray(0, bytes.length >> 1));
    expect(await openColumnFile(path, all)).toBe(path);
    await expect(all(readColumnFileSql(path, ['n']))).rejects.toThrow();
  });
});
