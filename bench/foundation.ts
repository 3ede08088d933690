import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ingestFiles } from '../ingest/pipeline.js';
import { seedAll } from '../ingest/seed.js';
import { sharedDataDir } from '../testing/shared.js';
import { Warehouse } from '../warehouse/store.js';
import { load, paired, ratio, shuffle, benchKey } from './lib.js';
import { spawnApi, spawnBare } from './procs.js';

const ROOT = resolve(import.meta.dirname, '..');
const SHARED = sharedDataDir();
const REAL_RVU = join(SHARED, 'mpfs-rvu/PPRRVU2025_Oct.csv');

async function median(n: number, fn: () => Promise<number>): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) xs.push(await fn());
  return xs.sort((a, b) => a - b)[Math.floor(n / 2)]!;
}

/** Foundation figures: code lookup vs bare Koa, and RVU ingest vs DuckDB's own read_csv. */
export async function run(): Promise<Record<string, string | number>[]> {
  const rvuFile = existsSync(REAL_RVU) ? REAL_RVU : join(ROOT, 'seeds/mpfs_rvu/PPRRVU2025_Oct.csv');
  const rows: Record<string, string | number>[] = [];

  // Ingest: full-size PPRRVU (19,090 rows) through the whole pipeline vs DuckDB read_csv into a table.
  const ingestMs = await median(3, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-ingest-'));
    const t0 = performance.now();
    await ingestFiles(new Warehouse(dir), { dataset: 'mpfs_rvu', files: [rvuFile] });
    const ms = performance.now() - t0;
    await rm(dir, { recursive: true, force: true });
    return ms;
  });
  const readCsvMs = await median(3, async () => {
    const inst = await DuckDBInstance.create(':memory:');
    const c = await inst.connect();
    const t0 = performance.now();
    await c.run(`CREATE TABLE t AS SELECT * FROM read_csv('${rvuFile.replace(/'/g, "''")}', skip=9, header=true, all_varchar=true, quote='"', escape='"', delim=',')`);
    const ms = performance.now() - t0;
    c.closeSync();
    inst.closeSync();
    return ms;
  });
  // The like-for-like baseline: DuckDB's own read_csv into a database file, checkpointed and
  // closed (what an ingest must produce: a durable, compressed version file).
  const readCsvFileMs = await median(3, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-readcsv-'));
    const t0 = performance.now();
    const inst = await DuckDBInstance.create(join(dir, 'baseline.duckdb'));
    const c = await inst.connect();
    await c.run(`CREATE TABLE t AS SELECT * FROM read_csv('${rvuFile.replace(/'/g, "''")}', skip=9, header=true, all_varchar=true, quote='"', escape='"', delim=',')`);
    await c.run('CHECKPOINT');
    c.closeSync();
    inst.closeSync();
    const ms = performance.now() - t0;
    await rm(dir, { recursive: true, force: true });
    return ms;
  });
  rows.push({ case: 'ingest mpfs_rvu (PPRRVU2025_Oct.csv, 19,090 rows)', value: `${ingestMs.toFixed(0)} ms`, baseline: `duckdb read_csv into memory ${readCsvMs.toFixed(0)} ms`, ratio: ratio(ingestMs, readCsvMs) });
  rows.push({ case: 'ingest mpfs_rvu, like for like', value: `${ingestMs.toFixed(0)} ms`, baseline: `duckdb read_csv into a checkpointed file ${readCsvFileMs.toFixed(0)} ms`, ratio: ratio(ingestMs, readCsvFileMs) });

  // Lookup: GET /v1/codes/{code} over random real codes, 50 connections.
  const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-api-'));
  const wh = new Warehouse(dir);
  await seedAll(wh, join(ROOT, 'seeds'));
  if (rvuFile === REAL_RVU) await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [REAL_RVU], replace: true });
  const key = await benchKey(wh.path('state.sqlite'));
  const text = await readFile(rvuFile, 'latin1');
  const codes = [...new Set(text.split(/\r?\n/).slice(10).map((l) => l.split(',')[0]).filter((c): c is string => /^[A-Z0-9]{5}$/.test(c ?? '')))];
  const paths = shuffle(codes).slice(0, 5000).map((c) => `/v1/codes/${c}`);
  const api = await spawnApi(dir);
  const bare = await spawnBare();
  try {
    await load('warmup', api.url, { paths, headers: { 'X-API-Key': key }, seconds: 3 });
    const r = await paired(
      3,
      () => load('bare', bare.url, { paths, seconds: 5 }),
      () => load('codes', api.url, { paths, headers: { 'X-API-Key': key }, seconds: 5 }),
    );
    rows.push({ case: 'bare Koa JSON route (baseline, median of 3)', value: `${r.base.requests_per_s} req/s`, baseline: `p50 ${r.base.p50_ms} ms, p99 ${r.base.p99_ms} ms`, ratio: '1.00' });
    rows.push({
      case: `GET /v1/codes/{code} (${codes.length} real codes, 50 conns, median of 3)`,
      value: `${r.subject.requests_per_s} req/s`,
      baseline: `p50 ${r.subject.p50_ms} ms, p99 ${r.subject.p99_ms} ms, non-2xx ${r.subject.non_2xx}`,
      ratio: r.ratio.toFixed(2),
    });
  } finally {
    await api.stop();
    await bare.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
