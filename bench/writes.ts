import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seedAll } from '../ingest/seed.js';
import { Warehouse } from '../warehouse/store.js';
import type { SyncMode } from '../warehouse/state.js';
import { benchKeys, load, type LoadResult, median, registerBenchFacilities } from './lib.js';
import { spawnApi, spawnBare } from './procs.js';

const ROOT = resolve(import.meta.dirname, '..');
const SECONDS = 3;
const ROUNDS = 3;
/** Tenants the agent submits rotate over: at the default queue bound (100 waiting each) none is refused in a run. */
const SUBMIT_TENANTS = 2000;

interface Case {
  name: string;
  paths: string[];
  bodies?: string[];
  method?: string;
  headerSets?: Record<string, string>[];
}


/**
 * Durable writes: agent submit, roster upsert, prior-auth override and the persisted
 * prior-auth check, each at 16 connections beside the bare Koa route and a bare durable-write
 * route (a Koa handler doing one better-sqlite3 insert per request with the state store's own
 * pragmas), in 3 alternating rounds of 3 s (medians, and the worst round's p99). Each write is
 * acknowledged only after its group commit is on disk. Then the same under
 * `RCM_STATE_SYNC=normal` (no fsync per commit: durable against process death, not power loss)
 * against the bare durable route with `synchronous=NORMAL`. The server runs no job runner here
 * (`RCM_AGENT_RUNNER=0`, as beside an `rcm worker`): submits measure the write path, and the
 * `agents` area measures the runner. 429s are counted apart from other non-2xx answers.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const rows: Record<string, string | number>[] = [];
  for (const sync of ['full', 'normal'] as const) rows.push(...(await runMode(sync)));
  return rows;
}

async function runMode(sync: SyncMode): Promise<Record<string, string | number>[]> {
  const dir = await mkdtemp(join(tmpdir(), `rcm-bench-writes-${sync}-`));
  const wh = new Warehouse(dir);
  await seedAll(wh, join(ROOT, 'seeds'));
  const [key] = await benchKeys(wh.path('state.sqlite'), ['knowledge'], ['bench']);
  const tenantKeys = await benchKeys(wh.path('state.sqlite'), ['agents', 'knowledge'], Array.from({ length: SUBMIT_TENANTS }, (_, i) => `bench-${i}`));
  const api = await spawnApi(dir, { RCM_AGENT_RUNNER: '0', RCM_STATE_SYNC: sync });
  const bare = await spawnBare();
  const durable = await spawnBare(['durable', join(dir, 'bare.sqlite'), sync]);
  const headers = { 'X-API-Key': key!, 'Content-Type': 'application/json' };
  const ccns = ['050454', '330101', '010001'];
  // Overrides pile up by the thousand in a run: on facilities of their own, so the checks' tier 0 stays as set up.
  const overrideCcns = ['011300', '013300', '051300'];
  const payers = ['medicare_ffs', 'uhc', 'aetna', 'medi_cal', 'masshealth', 'cigna'];
  const codes = ['64490', '15823', '36475', '99213', '70553', '97110', '22551', '64568'];
  try {
    await registerBenchFacilities(api.url, headers, [...ccns, ...overrideCcns]);
    const roster = ccns.flatMap((ccn) => payers.map((p, i) => ({ path: `/v1/facilities/${ccn}/payers`, body: JSON.stringify({ payer_slug: p, network_status: i % 2 ? 'in_network' : 'unknown', notes: `bench ${i}` }) })));
    const overrides = overrideCcns.flatMap((ccn) => codes.map((c, i) => ({ path: `/v1/facilities/${ccn}/pa-overrides`, body: JSON.stringify({ payer_slug: payers[i % payers.length], code: c, pa_required: i % 2 === 0, reason: 'bench' }) })));
    const submits = ['99213', '99214', '64490', '15823', '71046', '36415'].map((c) => JSON.stringify({ code: c, query: `What limits apply to ${c}?` }));
    const cases: Case[] = [
      { name: 'agent submit (code-research, 202)', paths: submits.map(() => '/v1/agents/code-research'), bodies: submits, method: 'POST', headerSets: tenantKeys.map((k) => ({ 'X-API-Key': k })) },
      { name: `roster upsert (${roster.length} facility x payer)`, paths: roster.map((u) => u.path), bodies: roster.map((u) => u.body), method: 'POST' },
      { name: 'prior-auth override (a new row each)', paths: overrides.map((o) => o.path), bodies: overrides.map((o) => o.body), method: 'POST' },
      {
        name: 'persisted prior-auth check with ccn (a determination each)',
        paths: ccns.flatMap((ccn) => payers.flatMap((p) => codes.map((c) => `/v1/prior-auth/check?payer=${p}&code=${c}&date_of_service=2026-03-02&ccn=${ccn}`))),
      },
    ];
    const run1 = (c: Case, seconds: number) => load(c.name, api.url, { paths: c.paths, bodies: c.bodies, method: c.method, headers, headerSets: c.headerSets, seconds, connections: 16 });
    const bareRun = (seconds: number) => load('bare', bare.url, { paths: ['/v1/x/99213'], seconds, connections: 16 });
    const durableRun = (seconds: number) => load('durable', durable.url, { paths: ['/w'], bodies: submits, method: 'POST', headers: { 'Content-Type': 'application/json' }, seconds, connections: 16 });
    for (const c of cases) await run1(c, 1);
    await bareRun(1);
    await durableRun(1);
    const bares: LoadResult[] = [];
    const durables: LoadResult[] = [];
    const subjects: LoadResult[][] = cases.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      bares.push(await bareRun(SECONDS));
      durables.push(await durableRun(SECONDS));
      for (const [i, c] of cases.entries()) subjects[i]!.push(await run1(c, SECONDS));
    }
    const setting = sync === 'full' ? 'synchronous=FULL' : 'synchronous=NORMAL';
    const row = (name: string, xs: LoadResult[], vsBare: string, vsDurable: string) => {
      const refused = xs.reduce((a, x) => a + (x.statuses['429'] ?? 0), 0);
      const other = xs.reduce((a, x) => a + x.non_2xx + x.errors, 0) - refused;
      return {
        case: name,
        'req/s': median(xs.map((x) => x.requests_per_s)),
        'p50 ms': median(xs.map((x) => x.p50_ms)),
        'p99 ms': median(xs.map((x) => x.p99_ms)),
        'p99 ms (worst round)': Math.max(...xs.map((x) => x.p99_ms)),
        '429s': refused,
        'other non-2xx': other,
        'x bare': vsBare,
        'x bare durable': vsDurable,
      };
    };
    const ratio = (xs: LoadResult[], base: LoadResult[]) => median(xs.map((x, i) => x.requests_per_s / base[i]!.requests_per_s)).toFixed(2);
    const out = [
      row(`[${setting}] bare Koa JSON route`, bares, '1.00', ''),
      row(`[${setting}] bare durable-write route (one better-sqlite3 insert per request)`, durables, ratio(durables, bares), '1.00'),
      ...cases.map((c, i) => row(`[${setting}] ${c.name}`, subjects[i]!, ratio(subjects[i]!, bares), ratio(subjects[i]!, durables))),
    ];
    return out;
  } finally {
    await api.stop();
    await bare.stop();
    await durable.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
