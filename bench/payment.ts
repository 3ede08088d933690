import { parse } from 'csv-parse/sync';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ingestFiles } from '../ingest/pipeline.js';
import { seedAll } from '../ingest/seed.js';
import { Warehouse } from '../warehouse/store.js';
import { benchKey, gpciLocalities, load, paired, ratio, rvuCodes, shuffle, type LoadResult } from './lib.js';
import { spawnApi, spawnBare } from './procs.js';

const ROOT = resolve(import.meta.dirname, '..');
const SHARED = process.env.RCM_SHARED_DATA ?? resolve(ROOT, '../shared/data');
const REAL_RVU = join(SHARED, 'mpfs-rvu/PPRRVU2025_Oct.csv');
const REAL_GPCI = join(SHARED, 'gpci/GPCI2026.csv');
const SECONDS = 7;

/** CCNs of the seeded Provider of Services file (column PRVDR_NUM). */
async function seededCcns(): Promise<string[]> {
  const text = await readFile(join(ROOT, 'test/fixtures/facilities/Hospital_and_other.DATA.Q3_2025.csv'), 'latin1');
  const records = parse(text, { columns: true, skip_empty_lines: true }) as Record<string, string>[];
  return records.map((r) => r.PRVDR_NUM!).filter((c) => /^[0-9A-Z]{6}$/.test(c));
}

const row = (label: string, r: LoadResult, bare: LoadResult) => ({
  case: label,
  'req/s': r.requests_per_s,
  'p50 ms': r.p50_ms,
  'p99 ms': r.p99_ms,
  'non-2xx': r.non_2xx + r.errors,
  'bare req/s': bare.requests_per_s,
  'bare p99 ms': bare.p99_ms,
  'ratio vs bare': ratio(r.requests_per_s, bare.requests_per_s),
});

/**
 * Payment composition under load, next to the bare Koa route in the same run: the server (its own
 * process, `rcm serve` -> startServer) over the seeds plus the real PPRRVU2025_Oct.csv and
 * GPCI2026.csv when ../shared/data has them; random real codes x seeded facilities (with ccn) or x
 * real localities (without), 50 connections, ~8 s per run. Target: with ccn >= 0.5x bare, p99 < 25 ms.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const real = existsSync(REAL_RVU) && existsSync(REAL_GPCI);
  const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-payment-'));
  const wh = new Warehouse(dir);
  await seedAll(wh, join(ROOT, 'seeds'));
  if (real) {
    await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [REAL_RVU], replace: true });
    await ingestFiles(wh, { dataset: 'gpci', files: [REAL_GPCI], replace: true });
  }
  const key = await benchKey(wh.path('state.sqlite'));

  const allCodes = shuffle(await rvuCodes(real ? REAL_RVU : join(ROOT, 'seeds/mpfs_rvu/PPRRVU2025_Oct.csv')));
  // Disjoint sets: the warmup must not put the measured paths in the snapshot cache.
  const codes = allCodes.slice(0, Math.min(2000, Math.ceil(allCodes.length / 2)));
  const warmCodes = allCodes.slice(codes.length);
  const localities = await gpciLocalities(real ? REAL_GPCI : join(ROOT, 'seeds/gpci/GPCI2026.csv'));
  const ccns = await seededCcns();
  const withCcn = shuffle(codes.map((c, i) => `/v1/codes/${c}/payment?ccn=${ccns[i % ccns.length]}`), 7);
  const withoutCcn = shuffle(codes.map((c, i) => `/v1/codes/${c}/payment?locality=${localities[i % localities.length]}`), 9);
  const headers = { 'X-API-Key': key };

  const api = await spawnApi(dir);
  const bare = await spawnBare();
  const rows: Record<string, string | number>[] = [];
  try {
    // One request loads the per-snapshot indexes (RVUs, GPCI, OPPS, code sets) and times it.
    const t0 = performance.now();
    const first = await fetch(`${api.url}/v1/codes/99213/payment?ccn=${ccns[0]}`, { headers });
    const primeMs = performance.now() - t0;
    if (first.status !== 200) throw new Error(`payment answered ${first.status}: ${await first.text()}`);
    // JIT warmup of both servers on paths that are not measured (as the foundation bench does).
    const warmPaths = warmCodes.map((c, i) => `/v1/codes/${c}/payment?ccn=${ccns[i % ccns.length]}`);
    await load('warmup', api.url, { paths: warmPaths.length ? warmPaths : withCcn, headers, seconds: 3 });
    await load('warmup bare', bare.url, { paths: withCcn, seconds: 2 });
    // Each case runs right after its own bare run: on a shared machine the load changes from one
    // run to the next, so a ratio is only meaningful against the baseline measured beside it.
    const src = real ? 'real PPRRVU2025_Oct + GPCI2026' : 'seeds only';
    // The payment-policy and cost-sharing paths against the plain path in the same run, each 5 s
    // over its own 32,000 distinct URLs (2,000 codes x 16 localities: at a few thousand computed
    // answers a second no URL comes round again, so every answer is computed, none cached),
    // beside its own bare run: the rules must not cost more than a tenth of the plain ratio.
    const grid = (extra: string, seed: number) =>
      shuffle(codes.flatMap((c, i) => Array.from({ length: 16 }, (_, j) => `/v1/codes/${c}/payment?locality=${localities[(i + j) % localities.length]}&date_of_service=2025-11-03${extra}`)), seed);
    const plainFirst = grid('', 11);
    const modifiers = grid('', 13).map((u, i) => `${u}&modifier=${['80,51', '50', '62', '51'][i % 4]}`);
    const costSharing = grid('&deductible_met=false', 17);
    const cases: [string, string[]][] = [
      [`payment, ccn, first pass (${codes.length} codes x ${ccns.length} CCNs, ${src})`, withCcn],
      [`payment, no ccn (locality, ${localities.length} localities)`, withoutCcn],
      ['payment, ccn, snapshot cache warm', withCcn],
    ];
    const firstPasses: [string, string[]][] = [
      ['plain path, every answer new (no ccn, 2025 date, 32,000 URLs)', plainFirst],
      ['payment-policy modifiers (80,51 / 50 / 62 / 51), every answer new', modifiers],
      ['cost sharing, deductible not met, every answer new', costSharing],
    ];
    rows.push({ case: 'first payment request on a fresh server (loads the per-snapshot indexes)', 'req/s': '-', 'p50 ms': Math.round(primeMs), 'p99 ms': '-', 'non-2xx': first.status === 200 ? 0 : 1, 'bare req/s': '-', 'bare p99 ms': '-', 'ratio vs bare': '-' });
    for (const [i, [label, paths]] of cases.entries()) {
      if (i === 0) {
        // The first pass can only run once (afterwards the snapshot cache holds its answers).
        const b = await load('bare', bare.url, { paths, seconds: SECONDS });
        const r = await load(label, api.url, { paths, headers, seconds: SECONDS });
        rows.push(row(label, r, b));
        continue;
      }
      const p = await paired(
        3,
        () => load('bare', bare.url, { paths, seconds: 5 }),
        () => load(label, api.url, { paths, headers, seconds: 5 }),
      );
      rows.push({ ...row(`${label} (median of 3)`, p.subject, p.base), 'ratio vs bare': p.ratio.toFixed(2) });
    }
    const ratios: number[] = [];
    for (const [label, paths] of firstPasses) {
      const b = await load('bare', bare.url, { paths, seconds: 5 });
      const r = await load(label, api.url, { paths, headers, seconds: 5 });
      ratios.push(r.requests_per_s / b.requests_per_s);
      rows.push(row(label, r, b));
    }
    for (const [i, [label]] of firstPasses.entries()) {
      if (i === 0) continue;
      rows.push({ case: `${label}: ratio vs the plain path's ratio`, 'req/s': '-', 'p50 ms': '-', 'p99 ms': '-', 'non-2xx': '-', 'bare req/s': '-', 'bare p99 ms': '-', 'ratio vs bare': (ratios[i]! / ratios[0]!).toFixed(2) });
    }
  } finally {
    await api.stop();
    await bare.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
