import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seedAll } from '../ingest/seed.js';
import { Warehouse } from '../warehouse/store.js';
import { benchKey, benchRow, load, paired, shuffle, warmPaired } from './lib.js';
import { spawnApi, spawnBare } from './procs.js';

const ROOT = resolve(import.meta.dirname, '..');
const MAKERS = ['abbvie', 'AstraZeneca', 'eli lilly', 'novo_nordisk', 'sanofi', 'Bristol Myers Squibb', 'amgen', 'merck'];
const TYPES = ['DSH', 'CAH', 'CH', 'RW', 'PED'];
const STATES = ['AR', 'TX', 'MO', 'WV', 'LA'];

/** Resolve targets for `days` consecutive as_of days from `start`, shuffled; `offset` shifts the entity type and state of every question. */
function targets(start: string, days: number, seed: number, offset = 0): string[] {
  const out: string[] = [];
  const t0 = Date.parse(`${start}T00:00:00Z`);
  for (let d = 0; d < days; d++) {
    const asOf = new Date(t0 + d * 86_400_000).toISOString().slice(0, 10);
    for (const [i, m] of MAKERS.entries()) {
      const type = TYPES[(d + i + offset) % TYPES.length]!;
      const state = STATES[(d * 3 + i + 2 * offset) % STATES.length]!;
      out.push(`/v1/340b/restrictions/resolve?entity_type=${type}&manufacturer=${encodeURIComponent(m)}&state=${state}&has_in_house_pharmacy=${(d + i) % 2 === 0}&as_of=${asOf}`);
    }
  }
  return shuffle(out, seed);
}

/**
 * 340B access resolution against the seeded manufacturer_340b dataset, 16 connections, beside a
 * bare Koa route in the same run (medians of 3 alternating rounds): warm (the answer cache), and
 * every request new (each round its own entity types and states over 2020-2026, so nothing repeats).
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-b340-'));
  const wh = new Warehouse(dir);
  await seedAll(wh, join(ROOT, 'seeds'));
  const key = await benchKey(wh.path('state.sqlite'));
  const headers = { 'X-API-Key': key };
  const api = await spawnApi(dir);
  const bare = await spawnBare();
  const rows: Record<string, string | number>[] = [];
  try {
    const warm = targets('2024-01-01', 40, 7);
    rows.push(await warmPaired(`resolve warm, ${warm.length} questions (median of 3)`, api.url, bare.url, warm, headers));
    // Cold: 3 rounds over the days the policies change (2020-2026) x 8 manufacturers, disjoint (each round shifts type and state).
    const rounds = [0, 1, 2].map((o) => targets('2020-01-01', 2557, 11 + o, o));
    let round = 0;
    const p = await paired(
      3,
      () => load('bare', bare.url, { paths: rounds[0]!, seconds: 4, connections: 16 }),
      () => load('resolve, every request new', api.url, { paths: rounds[round++]!, headers, seconds: 4, connections: 16 }),
    );
    rows.push(benchRow(`resolve, every request new (${rounds[0]!.length} per round, median of 3)`, p.subject, p.base, p.ratio));
  } finally {
    await api.stop();
    await bare.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
