import { DuckDBInstance } from '@duckdb/node-api';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDirectory } from '../bench/drugs.js';
import { generate as generatePtp } from '../bench/ncci_ptp.js';
import { fdaNdc } from '../datasets/fda_ndc/dataset.js';
import { ncciPtpPrac } from '../datasets/ncci_ptp_prac/dataset.js';
import { storageOf } from '../datasets/storage.js';
import type { Dataset } from '../datasets/types.js';
import { ingestFiles } from './pipeline.js';
import { diffVersionFiles } from './diff.js';
import { checkKeys } from './stage/check.js';
import { keyRanges } from './stage/passes.js';
import type { ColumnFileSpec, RangesSpec, StorageSpec } from '../warehouse/storage.js';
import { Warehouse } from '../warehouse/store.js';
import { ptpTableSql } from '../testing/ptp.js';
import { tempDir } from '../testing/temp_dirs.js';

// A sidecar's sort and a key check run in passes over ranges of a key, so an ingest's memory does
// not grow with the file: the passes together give exactly what one pass gives.

let inst: DuckDBInstance;
let run: (sql: string) => Promise<Record<string, unknown>[]>;
beforeAll(async () => {
  inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  run = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS();
});
afterAll(() => inst.closeSync());

describe('keyRanges', () => {
  it('cuts a key into ranges in key order that take every row once, nulls in the last', async () => {
    // Text keys whose order is not their insertion order, with repeats and nulls; and integers.
    await run(`CREATE TABLE t AS SELECT CASE WHEN i % 17 = 0 THEN NULL ELSE 'k' || lpad(CAST((i * 7919) % 613 AS VARCHAR), 4, '0') END AS s, (i * 31) % 977 AS n FROM range(1000) r(i)`);
    for (const key of ['s', 'n']) {
      const ranges = await keyRanges(run, { table: 't', key, rows: 100 });
      expect(ranges.length).toBeGreaterThan(5);
      const counts = await run(`SELECT ${ranges.map((r, i) => `count(*) FILTER (WHERE ${r.test(key)}) AS in${i}, count(*) FILTER (WHERE ${r.before(key)}) AS before${i}, max(${key}) FILTER (WHERE ${r.test(key)}) AS hi${i}, min(${key}) FILTER (WHERE ${r.test(key)}) AS lo${i}`).join(', ')}, count(*) FILTER (WHERE ${ranges.map((r) => `coalesce(CAST(${r.test(key)} AS INTEGER), 0)`).join(' + ')} = 1) AS once FROM t`);
      const c = counts[0]!;
      expect(Number(c.once)).toBe(1000);
      let earlier = 0;
      for (let i = 0; i < ranges.length; i++) {
        expect(Number(c[`before${i}`])).toBe(earlier);
        earlier += Number(c[`in${i}`]);
        if (i > 0 && c[`lo${i}`] !== null) expect(String(c[`lo${i}`]) > String(c[`hi${i - 1}`]) || Number(c[`lo${i}`]) > Number(c[`hi${i - 1}`])).toBe(true);
      }
      expect(earlier).toBe(1000);
    }
    expect(Number((await run(`SELECT count(*) AS n FROM t WHERE ${(await keyRanges(run, { table: 't', key: 's', rows: 100 })).at(-1)!.test('s')} AND s IS NULL`))[0]!.n)).toBe(59);
  });

  it('is one pass over the whole when the table holds no more than a pass', async () => {
    const ranges = await keyRanges(run, { table: 't', key: 'n', rows: 1000 });
    expect(ranges.map((r) => [r.test('n'), r.before('n')])).toEqual([['TRUE', 'FALSE']]);
  });
});

describe('checkKeys in passes', () => {
  it('finds a key named twice whichever pass holds it, and passes distinct keys', async () => {
    await run(ptpTableSql('ncci_ptp_prac'));
    await run(`INSERT INTO ncci_ptp_prac SELECT lpad(CAST(10000 + i AS VARCHAR), 5, '0'), '99213', false, DATE '2020-01-01', NULL, '1', 'r', 'v' FROM range(200) r(i)`);
    await checkKeys(ncciPtpPrac, run, 'f1.txt', 7);
    await run(`INSERT INTO ncci_ptp_prac VALUES ('10123', '99213', false, DATE '2020-01-01', NULL, '0', 'r', 'v')`);
    await expect(checkKeys(ncciPtpPrac, run, 'f1.txt', 7)).rejects.toThrow(/duplicate key \{"column1":"10123","column2":"99213","effective_date":.*appears 2 times/);
    await expect(checkKeys(ncciPtpPrac, run, 'f1.txt')).rejects.toThrow(/duplicate key/);
  });
});

describe('a diff joined in passes', () => {
  it('gives the counts, samples, changed columns and keys file of one join', async () => {
    const dir = await tempDir('rcm-passes-diff-');
    const [a, b] = [join(dir, 'a.duckdb'), join(dir, 'b.duckdb')];
    // 600 edits; the next version drops every 11th, changes the modifier of every 7th and adds 20.
    for (const [file, next] of [[a, false], [b, true]] as const) {
      const v = await DuckDBInstance.create(file);
      const c = await v.connect();
      await c.run(ptpTableSql('ncci_ptp_prac'));
      const mod = next ? `CASE WHEN i % 7 = 0 THEN '0' ELSE '1' END` : `'1'`;
      await c.run(`INSERT INTO ncci_ptp_prac SELECT lpad(CAST(10000 + i AS VARCHAR), 5, '0'), '99213', false, DATE '2020-01-01', NULL, ${mod}, 'r', 'v' FROM range(${next ? 620 : 600}) r(i)${next ? ' WHERE i % 11 <> 0' : ''}`);
      v.closeSync();
    }
    const one = await diffVersionFiles(ncciPtpPrac, a, b, 5, [], join(dir, 'one.json'));
    const many = await diffVersionFiles(ncciPtpPrac, a, b, 5, [], join(dir, 'many.json'), undefined, 50);
    expect(one.counts).toEqual({ added: 18, removed: 55, changed: 78, unchanged: 467 });
    expect(many).toEqual(one);
    expect(await readFile(join(dir, 'many.json'), 'utf8')).toBe(await readFile(join(dir, 'one.json'), 'utf8'));
  });
});

/** `d`'s storage with every sidecar pass holding `rows` rows. */
function withPassRows(d: Dataset<any>, rows: number): StorageSpec {
  const s = storageOf(d.id);
  const pass = <T extends RangesSpec | ColumnFileSpec>(x: T): T => (x.passes ? { ...x, passes: { ...x.passes, rows } } : x);
  return { ...s, ranges: s.ranges?.map(pass), columnFiles: s.columnFiles?.map(pass) };
}

/** Ingests `files` as `dataset` into a new warehouse, stored as `storage` says (default: its own); returns the version file's path. */
async function ingestInto(dataset: Dataset<any>, files: string[], version?: string, storage?: StorageSpec): Promise<string> {
  const wh = new Warehouse(await tempDir('rcm-passes-'));
  await ingestFiles(wh, { dataset, files, version, effectiveDate: version ? '2026-11-24' : undefined, storage });
  const dir = wh.path('datasets', dataset.id);
  return join(dir, (await readdir(dir)).find((f) => f.endsWith('.duckdb'))!);
}

describe('sidecars written in passes', () => {
  it("an FDA directory's products and packages files are the same bytes in many passes as in one", async () => {
    const src = await tempDir('rcm-passes-fda-');
    // More products than an appender holds before it flushes (8,192): none is lost at the flush.
    const { packageCount } = await writeDirectory(src, 9000);
    const files = [join(src, 'product.txt'), join(src, 'package.txt')];
    const one = await ingestInto(fdaNdc, files, '2026-11-24');
    const many = await ingestInto(fdaNdc, files, '2026-11-24', withPassRows(fdaNdc, 1500));
    await run(`ATTACH '${one}' AS one (READ_ONLY)`);
    expect(await run('SELECT (SELECT count(*) FROM one.product)::INTEGER AS products, (SELECT count(*) FROM one.package)::INTEGER AS packages')).toEqual([{ products: 9000, packages: packageCount }]);
    await run('DETACH one');
    for (const name of ['products', 'packages']) {
      const spec = storageOf(fdaNdc.id).ranges!.find((r) => r.name === name)!;
      const v = await DuckDBInstance.create(':memory:');
      const c = await v.connect();
      await c.run(`ATTACH '${many}' AS m (READ_ONLY)`);
      await c.run('USE m');
      const passes = await keyRanges(async (sql) => (await c.runAndReadAll(sql)).getRowObjectsJS(), { ...spec.passes!, rows: 1500 });
      v.closeSync();
      expect(passes.length).toBeGreaterThan(5);
      expect((await readFile(`${many}.${name}.ranges`)).equals(await readFile(`${one}.${name}.ranges`))).toBe(true);
    }
  });

  it("a PTP quarter's pair index holds the same rows in the same order in many passes as in one", async () => {
    const src = await tempDir('rcm-passes-ptp-');
    const files = await generatePtp(src, 5000);
    const one = await ingestInto(ncciPtpPrac, files);
    const many = await ingestInto(ncciPtpPrac, files, undefined, withPassRows(ncciPtpPrac, 400));
    const rows = async (f: string) => (await run(`SELECT * FROM read_parquet('${f}.pairs.parquet')`)).map((r) => Object.values(r).join(' '));
    const [a, b] = [await rows(one), await rows(many)];
    expect(a.length).toBeGreaterThan(4000);
    expect(b).toEqual(a);
  });
});
