import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seedAll } from '../ingest/seed.js';
import { Warehouse } from '../warehouse/store.js';
import { benchKey, shuffle, warmPaired } from './lib.js';
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
  try {
    for (const [label, paths] of [
      [`payer search, ${search.length} queries (median of 3)`, search],
      [`claim intelligence, ${payers.length} payers x ${codes.length} codes (median of 3)`, intel],
    ] as const) {
      rows.push(await warmPaired(label, api.url, bare.url, paths, headers));
    }
  } finally {
    await api.stop();
    await bare.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
