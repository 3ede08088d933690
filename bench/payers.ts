import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seedAll } from '../ingest/seed.js';
import { Warehouse } from '../warehouse/store.js';
import { benchKey, load, paired, shuffle, type LoadResult } from './lib.js';
import { spawnApi, spawnBare } from './procs.js';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * Payer search (typed names, typos included) and claim intelligence (payer x code) against the
 * seeded payers dataset, warm, 16 connections, each beside a bare Koa run (medians of 3
 * alternating rounds). Target: >= 0.5x bare.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-payers-'));
  const wh = new Warehouse(dir);
  await seedAll(wh, join(ROOT, 'seeds'));
  const key = await benchKey(wh.path('state.sqlite'));
  const queries = ['united helthcare', 'medicare', 'medi-cal', 'blue cross', 'aetna', 'cigan', 'masshealth', 'bcbs il', 'anthem', 'humana', 'medicaid', 'unitedhealthcare'];
  const search = shuffle(queries.flatMap((q) => [5, 20].map((n) => `/v1/payers/search?q=${encodeURIComponent(q)}&limit=${n}`)), 3);
  const payers = ['medicare_ffs', 'uhc', 'medi_cal', 'aetna', 'masshealth', 'bcbs_ma'];
  const codes = ['99213', '15823', '43644', '64490', '97110', '36415', '70551', '22551'];
  const intel = shuffle(payers.flatMap((p) => codes.map((c) => `/v1/payers/${p}/claim-intelligence?code=${c}`)), 5);
  const headers = { 'X-API-Key': key };
  const api = await spawnApi(dir);
  const bare = await spawnBare();
  const rows: Record<string, string | number>[] = [];
  const row = (label: string, r: LoadResult, b: LoadResult, ratio: number) => ({
    case: label,
    'req/s': r.requests_per_s,
    'p50 ms': r.p50_ms,
    'p99 ms': r.p99_ms,
    'non-2xx': r.non_2xx + r.errors,
    'bare req/s': b.requests_per_s,
    'ratio vs bare': ratio.toFixed(2),
  });
  try {
    for (const [label, paths] of [
      [`payer search, ${search.length} queries (median of 3)`, search],
      [`claim intelligence, ${payers.length} payers x ${codes.length} codes (median of 3)`, intel],
    ] as const) {
      await load('warmup', api.url, { paths, headers, seconds: 2, connections: 16 });
      await load('warmup bare', bare.url, { paths, seconds: 1, connections: 16 });
      const p = await paired(
        3,
        () => load('bare', bare.url, { paths, seconds: 4, connections: 16 }),
        () => load(label, api.url, { paths, headers, seconds: 4, connections: 16 }),
      );
      rows.push(row(label, p.subject, p.base, p.ratio));
    }
  } finally {
    await api.stop();
    await bare.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
