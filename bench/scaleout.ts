import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seedAll } from '../ingest/seed.js';
import { Warehouse } from '../warehouse/store.js';
import { pgBin, startCluster, stopCluster } from '../testing/pg_cluster.js';
import { pgDatabase } from '../testing/state_stores.js';
import { benchKeys, load, type LoadResult, median, registerBenchFacilities } from './lib.js';
import { spawnApi, spawnBare, type Child } from './procs.js';

const ROOT = resolve(import.meta.dirname, '..');
const SECONDS = 3;
const ROUNDS = 3;
const CONNECTIONS = 16;
const TENANTS = 64;
/** Codes of the seeded fee schedule (`seeds/mpfs_rvu`): each GET answers 200. */
const SEEDED_CODES = ['11042', '15823', '20610', '22551', '27447', '36475', '43239', '64490', '70450', '71046'];


interface Case {
  name: string;
  paths: string[];
  bodies?: string[];
  method?: string;
  /** Each request in turn with another tenant's key (writes of different tenants never wait on each other's lock). */
  manyTenants?: boolean;
}

/** One way of serving: its processes (load is split evenly over them) and the key they know. */
interface Setup {
  name: string;
  apis: Child[];
  key: string;
  tenantKeys: string[];
}

/** The PostgreSQL server to measure on: `RCM_BENCH_PG_URL`, `RCM_TEST_PG_URL`, or a throwaway cluster (stopped afterwards). */
async function postgresServer(): Promise<{ url: string; stop(): Promise<void> } | string> {
  const given = process.env.RCM_BENCH_PG_URL ?? process.env.RCM_TEST_PG_URL;
  if (given) return { url: given, stop: async () => undefined };
  try {
    pgBin();
  } catch (e) {
    return (e as Error).message;
  }
  const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-pg-'));
  const url = await startCluster(join(dir, 'pg'));
  return {
    url,
    stop: async () => {
      stopCluster(join(dir, 'pg'));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Scale-out: the same requests with the state store in SQLite (one process, the
 * embedded default) and in PostgreSQL (`RCM_STATE_URL`: one replica, then two replicas over one
 * database and one data dir with the load split between them), beside the bare Koa route, in 3
 * alternating rounds of 3 s at 16 connections (medians; a two-replica figure is the sum of both).
 * Cases: a keyed GET (`/v1/codes/{code}`: key lookup, rate limit, cached answer), a roster upsert
 * (one write transaction bumping the tenant's generation) and the persisted prior-auth check (a
 * determination written per answer). PostgreSQL is a throwaway cluster on loopback with fsync on
 * (`RCM_BENCH_PG_URL` measures another), SQLite runs with `synchronous=FULL`: both acknowledge a
 * write only once it is on disk. On this 2-core machine two replicas share the cores with the load
 * generator and PostgreSQL, so their figure shows the overhead of sharing state, not scale.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const server = await postgresServer();
  if (typeof server === 'string') return [{ case: `skipped: ${server}; or set RCM_BENCH_PG_URL` }];
  const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-scaleout-'));
  const db = await pgDatabase('bench_scaleout', server.url);
  const started: Child[] = [];
  const spawn = async (env: Record<string, string>) => {
    const c = await spawnApi(dir, { RCM_AGENT_RUNNER: '0', ...env });
    started.push(c);
    return c;
  };
  try {
    const wh = new Warehouse(dir);
    await seedAll(wh, join(ROOT, 'seeds'));
    const tenants = ['bench', ...Array.from({ length: TENANTS }, (_, i) => `bench-${i}`)];
    const [liteKey, ...liteTenants] = await benchKeys(wh.path('state.sqlite'), ['knowledge'], tenants);
    const [pgKey, ...pgTenants] = await benchKeys(db.url, ['knowledge'], tenants);
    const lite = await spawn({});
    const pgA = await spawn({ RCM_STATE_URL: db.url });
    const pgB = await spawn({ RCM_STATE_URL: db.url });
    const bare = await spawnBare();
    started.push(bare);
    const setups: Setup[] = [
      { name: 'SQLite, one process', apis: [lite], key: liteKey!, tenantKeys: liteTenants },
      { name: 'PostgreSQL, one replica', apis: [pgA], key: pgKey!, tenantKeys: pgTenants },
      { name: 'PostgreSQL, two replicas', apis: [pgA, pgB], key: pgKey!, tenantKeys: pgTenants },
    ];
    const ccns = ['050454', '330101', '010001'];
    const payers = ['medicare_ffs', 'uhc', 'aetna', 'medi_cal', 'masshealth', 'cigna'];
    const codes = ['64490', '15823', '36475', '99213', '70553', '97110', '22551', '64568'];
    for (const s of setups.slice(0, 2)) await registerBenchFacilities(s.apis[0]!.url, { 'X-API-Key': s.key, 'Content-Type': 'application/json' }, ccns);
    const roster = ccns.flatMap((ccn) => payers.map((p, i) => ({ path: `/v1/facilities/${ccn}/payers`, body: JSON.stringify({ payer_slug: p, network_status: i % 2 ? 'in_network' : 'unknown', notes: `bench ${i}` }) })));
    const cases: Case[] = [
      { name: `keyed GET /v1/codes/{code} (${SEEDED_CODES.length} codes, cached answers)`, paths: SEEDED_CODES.map((c) => `/v1/codes/${c}`) },
      { name: `roster upsert, one tenant (${roster.length} facility x payer)`, paths: roster.map((u) => u.path), bodies: roster.map((u) => u.body), method: 'POST' },
      { name: `roster upsert, ${TENANTS} tenants`, paths: roster.map((u) => u.path), bodies: roster.map((u) => u.body), method: 'POST', manyTenants: true },
      { name: 'persisted prior-auth check with ccn (a determination each)', paths: ccns.flatMap((ccn) => payers.flatMap((p) => codes.map((c) => `/v1/prior-auth/check?payer=${p}&code=${c}&date_of_service=2026-03-02&ccn=${ccn}`))) },
    ];
    /** The case on every process of the setup at once, the connections split between them; their sum. */
    const runOn = async (s: Setup, c: Case, seconds: number): Promise<LoadResult> => {
      const headers = { 'X-API-Key': s.key, 'Content-Type': 'application/json' };
      const each = await Promise.all(
        s.apis.map((api) =>
          load(c.name, api.url, {
            paths: c.paths,
            bodies: c.bodies,
            method: c.method,
            headers,
            headerSets: c.manyTenants ? s.tenantKeys.map((k) => ({ 'X-API-Key': k })) : undefined,
            seconds,
            connections: CONNECTIONS / s.apis.length,
          }),
        ),
      );
      return {
        ...each[0]!,
        requests_per_s: each.reduce((a, r) => a + r.requests_per_s, 0),
        p50_ms: Math.max(...each.map((r) => r.p50_ms)),
        p99_ms: Math.max(...each.map((r) => r.p99_ms)),
        non_2xx: each.reduce((a, r) => a + r.non_2xx, 0),
        errors: each.reduce((a, r) => a + r.errors, 0),
      };
    };
    const bareRun = (seconds: number) => load('bare', bare.url, { paths: ['/v1/x/99213'], seconds, connections: CONNECTIONS });
    await bareRun(1);
    for (const s of setups) for (const c of cases) await runOn(s, c, 1);
    const bares: LoadResult[] = [];
    const got = setups.map(() => cases.map((): LoadResult[] => []));
    for (let r = 0; r < ROUNDS; r++) {
      bares.push(await bareRun(SECONDS));
      for (const [ci, c] of cases.entries()) for (const [si, s] of setups.entries()) got[si]![ci]!.push(await runOn(s, c, SECONDS));
    }
    const ratio = (xs: LoadResult[], base: LoadResult[]) => median(xs.map((x, i) => x.requests_per_s / base[i]!.requests_per_s)).toFixed(2);
    const rows: Record<string, string | number>[] = [
      { case: 'bare Koa JSON route', 'req/s': median(bares.map((b) => b.requests_per_s)), 'p50 ms': median(bares.map((b) => b.p50_ms)), 'p99 ms': median(bares.map((b) => b.p99_ms)), 'non-2xx': 0, 'x bare': '1.00', 'x SQLite': '' },
    ];
    for (const [ci, c] of cases.entries()) {
      for (const [si, s] of setups.entries()) {
        const xs = got[si]![ci]!;
        rows.push({
          case: `${c.name} [${s.name}]`,
          'req/s': median(xs.map((x) => x.requests_per_s)),
          'p50 ms': median(xs.map((x) => x.p50_ms)),
          'p99 ms': median(xs.map((x) => x.p99_ms)),
          'non-2xx': xs.reduce((a, x) => a + x.non_2xx + x.errors, 0),
          'x bare': ratio(xs, bares),
          'x SQLite': ratio(xs, got[0]![ci]!),
        });
      }
    }
    return rows;
  } finally {
    for (const c of started) await c.stop();
    await db.drop();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
