import autocannon, { type Result as AutocannonResult } from 'autocannon';
import Koa from 'koa';
import { readFile } from 'node:fs/promises';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteString } from '../warehouse/sql_quote.js';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { isStateUrl, openStateStore } from '../warehouse/open_state.js';
import { openSqlite, type SyncMode } from '../warehouse/state.js';
import { type KeyScope } from '../warehouse/tenant_state.js';

/**
 * Shared benchmark tools: a load run against a local server (autocannon, in-process, loopback
 * only, bounded duration) and the bare Koa JSON route every API figure is compared with.
 */
export interface LoadResult {
  name: string;
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  non_2xx: number;
  errors: number;
  /** Answers by status (a write bench counts 429s apart from its 2xx). */
  statuses: Record<string, number>;
  /** Bytes of answers received per second. */
  bytes_per_s: number;
}

export async function load(
  name: string,
  url: string,
  opts: {
    paths: string[];
    headers?: Record<string, string>;
    /** Headers per request in turn (several tenants' keys), over `headers`. */
    headerSets?: Record<string, string>[];
    connections?: number;
    seconds?: number;
    amount?: number;
    method?: string;
    bodies?: string[];
  },
): Promise<LoadResult> {
  const paths = opts.paths;
  const bodies = opts.bodies;
  let i = 0;
  const t0 = performance.now();
  const r = await autocannon({
    url,
    connections: opts.connections ?? 50,
    ...(opts.amount ? { amount: opts.amount } : { duration: opts.seconds ?? 10 }),
    headers: opts.headers,
    requests: [
      {
        setupRequest: (req: Record<string, unknown>) => {
          const n = i++;
          req.path = paths[n % paths.length];
          if (opts.method) req.method = opts.method;
          if (bodies) req.body = bodies[n % bodies.length];
          if (opts.headerSets) req.headers = { ...(req.headers as Record<string, string>), ...opts.headerSets[n % opts.headerSets.length] };
          return req;
        },
      },
    ],
  });
  return toLoadResult(name, r, opts.amount ? (performance.now() - t0) / 1000 : undefined);
}

/**
 * A load result from autocannon's. A run of a fixed `amount` is rated as requests over the
 * `seconds` it took (timed by the caller), not by autocannon's average over whole-second samples
 * (1,500 requests done in 1.2 s read as 750 req/s). Even so it is a lower bound: autocannon ends
 * such a run on its one-second tick, so benches that rate throughput run for a duration, and
 * fixed amounts serve CPU per request (`cpu`).
 */
export function toLoadResult(name: string, r: AutocannonResult, seconds?: number): LoadResult {
  return {
    name,
    requests_per_s: Math.round(seconds ? r.requests.total / seconds : r.requests.average),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    non_2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    statuses: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, v.count])),
    bytes_per_s: Math.round(r.throughput.average),
  };
}

/** The baseline: Koa answering a small JSON body with no middleware. */
export async function startBareKoa(): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { code: ctx.path.slice(-5), ok: true };
  });
  return listen(app);
}

/** The request body as bytes (no body-parser: what any JSON route must do at least). */
async function bodyOf(req: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The write baseline: a bare Koa handler doing one better-sqlite3 insert per request (its JSON
 * body and a timestamp, autocommitted) into a file opened with the state store's own pragmas
 * (`openSqlite`: WAL, `synchronous` as given), answering 201 with a small JSON body.
 */
export async function startBareDurable(file: string, sync: SyncMode = 'full'): Promise<{ url: string; close(): Promise<void> }> {
  const db = openSqlite(file, sync);
  db.exec('CREATE TABLE IF NOT EXISTS bare_writes (id TEXT PRIMARY KEY, body TEXT NOT NULL, created_at TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO bare_writes (id, body, created_at) VALUES (?, ?, ?)');
  const app = new Koa();
  app.use(async (ctx) => {
    const body = JSON.parse((await bodyOf(ctx.req)).toString('utf8') || '{}') as unknown;
    const id = randomUUID();
    insert.run(id, JSON.stringify(body), new Date().toISOString());
    ctx.status = 201;
    ctx.body = { id, ok: true };
  });
  return listen(app, () => db.close());
}

/**
 * The answer baseline: a bare Koa handler that reads and parses the JSON body and answers a
 * precomputed body (a real answer of the route under test, so both write the same bytes).
 */
export async function startBareAnswer(answer: Buffer): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Koa();
  app.use(async (ctx) => {
    JSON.parse((await bodyOf(ctx.req)).toString('utf8') || '{}');
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = answer;
  });
  return listen(app);
}

async function listen(app: Koa, onClose: () => void = () => undefined): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((r) =>
        server.close(() => {
          onClose();
          r();
        }),
      ),
  };
}

/** The middle value (of an odd count; the upper middle of an even one). */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The rows as aligned text: every column any row has, in the order they first appear (a cell a row lacks is blank). */
export function table(rows: Record<string, string | number>[]): string {
  if (!rows.length) return '';
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (r: Record<string, string | number>, c: string) => String(r[c] ?? '');
  const w = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r, c).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(w[i]!)).join('  ');
  return [line(cols), line(w.map((n) => '-'.repeat(n))), ...rows.map((r) => line(cols.map((c) => cell(r, c))))].join('\n');
}

export function ratio(a: number, b: number): string {
  return b === 0 ? 'n/a' : (a / b).toFixed(2);
}

export function shuffle<T>(xs: T[], seed = 42): T[] {
  const a = [...xs];
  let s = seed;
  for (let i = a.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const j = s % (i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/**
 * Alternates baseline and subject runs (`rounds` each) and reports medians, so a load swing on a
 * shared 2-core machine hits both sides of the ratio alike.
 */
export async function paired(
  rounds: number,
  base: () => Promise<LoadResult>,
  subject: () => Promise<LoadResult>,
): Promise<{ base: LoadResult; subject: LoadResult; ratio: number }> {
  const bs: LoadResult[] = [];
  const ss: LoadResult[] = [];
  for (let i = 0; i < rounds; i++) {
    bs.push(await base());
    ss.push(await subject());
  }
  const med = (xs: LoadResult[]): LoadResult => [...xs].sort((a, b) => a.requests_per_s - b.requests_per_s)[Math.floor(xs.length / 2)]!;
  const ratios = bs.map((b, i) => ss[i]!.requests_per_s / b.requests_per_s).sort((a, b) => a - b);
  return { base: med(bs), subject: med(ss), ratio: ratios[Math.floor(ratios.length / 2)]! };
}

/** Creates tenant `bench` (if needed) and a knowledge test key in a data dir; returns the secret. */
export async function benchKey(stateFile: string, scopes: KeyScope[] = ['knowledge'], tenant = 'bench'): Promise<string> {
  return (await benchKeys(stateFile, scopes, [tenant]))[0]!;
}

/** A test key for each of `tenants` (each created if needed), in order, in a SQLite file or a PostgreSQL URL's store. */
export async function benchKeys(stateFile: string, scopes: KeyScope[], tenants: string[]): Promise<string[]> {
  const st = await openStateStore(isStateUrl(stateFile) ? { engine: 'postgres', url: stateFile } : { engine: 'sqlite', file: stateFile });
  try {
    const have = new Set((await st.admin.findTenants()).map((t) => t.name));
    await Promise.all(tenants.filter((t) => !have.has(t)).map((t) => st.admin.createTenant(t)));
    return await Promise.all(tenants.map(async (tenant) => (await st.admin.createKey({ tenant, type: 'test', scopes })).secret));
  } finally {
    await st.close();
  }
}

/** Codes of a PPRRVU file (unmodified rows), in file order. */
export async function rvuCodes(file: string): Promise<string[]> {
  const text = await readFile(file, 'latin1');
  return [...new Set(text.split(/\r?\n/).slice(10).map((l) => l.split(',')).filter((f) => /^[A-Z0-9]{5}$/.test(f[0] ?? '') && f[1] === '').map((f) => f[0]!))];
}

/** 7-digit localities of a GPCI file (MAC + locality number). */
export async function gpciLocalities(file: string): Promise<string[]> {
  const text = await readFile(file, 'latin1');
  return [...new Set([...text.matchAll(/^(\d{5}),[A-Z]{2},(\d{2}),/gm)].map((m) => `${m[1]}${m[2]}`))];
}

/**
 * Resident set size in bytes (Linux /proc) of the server behind `pid`, now (VmRSS) or at its peak
 * (VmHWM): `rcm serve` re-executes itself with a heap ceiling, so the process that listens is the
 * launcher's only child.
 */
export async function rssOf(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): Promise<number> {
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')).trim().split(/\s+/).filter(Boolean);
  if (children.length === 1) pid = Number(children[0]);
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return kb * 1024;
}

/** Process figures of a running server from its Prometheus metrics (admin key), in bytes. */
export async function heapOf(url: string, adminKey: string): Promise<{ heapUsed: number; heapTotal: number; external: number }> {
  const text = await (await fetch(`${url}/v1/metrics`, { headers: { 'X-API-Key': adminKey } })).text();
  const sum = (name: string) => [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'gm'))].reduce((a, m) => a + Number(m[1]), 0);
  return { heapUsed: sum('rcm_nodejs_heap_size_used_bytes'), heapTotal: sum('rcm_nodejs_heap_size_total_bytes'), external: sum('rcm_nodejs_external_memory_bytes') };
}

/** One printed row: a load result beside its bare-Koa baseline (none for write benches). */
export function benchRow(label: string, r: LoadResult, bare: LoadResult | null = null, ratio: number | null = null): Record<string, string | number> {
  return {
    case: label,
    'req/s': r.requests_per_s,
    'p50 ms': r.p50_ms,
    'p99 ms': r.p99_ms,
    'non-2xx': r.non_2xx + r.errors,
    'bare req/s': bare?.requests_per_s ?? '',
    'ratio vs bare': ratio === null ? '' : ratio.toFixed(2),
  };
}

/**
 * A route's first pass (each path once on one connection, so every answer is computed: no cache
 * hit) beside the bare route asked the same paths once, then the same paths warm (answer cache).
 */
export async function firstPassAndWarm(label: string, apiUrl: string, bareUrl: string, paths: string[], headers: Record<string, string>): Promise<Record<string, string | number>[]> {
  const first = await load('first pass', apiUrl, { paths, headers, connections: 1, amount: paths.length });
  const bare = await load('bare, same paths once', bareUrl, { paths, connections: 1, amount: paths.length });
  return [
    benchRow(`${label}: first pass, ${paths.length} paths once each, 1 conn (each answer computed)`, first, bare, first.requests_per_s / bare.requests_per_s),
    await warmPaired(`${label}: the same paths again (answer cache), warm`, apiUrl, bareUrl, paths, headers),
  ];
}

/** `firstPassAndWarm`'s rows in the case/value/baseline/ratio columns of an area that mixes them with ingest figures. */
export async function firstPassAndWarmCases(label: string, apiUrl: string, bareUrl: string, paths: string[], headers: Record<string, string>): Promise<Record<string, string | number>[]> {
  return (await firstPassAndWarm(label, apiUrl, bareUrl, paths, headers)).map((r) => ({
    case: String(r.case),
    value: `${r['req/s']} req/s, p50 ${r['p50 ms']} ms, p99 ${r['p99 ms']} ms, non-2xx ${r['non-2xx']}`,
    baseline: `bare ${r['bare req/s']}`,
    ratio: String(r['ratio vs bare']),
  }));
}

/** Warms both servers, then runs `paired` rounds of 4 s at 16 connections: the usual read-route comparison. */
export async function warmPaired(label: string, apiUrl: string, bareUrl: string, paths: string[], headers: Record<string, string>): Promise<Record<string, string | number>> {
  await load('warmup', apiUrl, { paths, headers, seconds: 2, connections: 16 });
  await load('warmup bare', bareUrl, { paths, seconds: 1, connections: 16 });
  const p = await paired(
    3,
    () => load('bare', bareUrl, { paths, seconds: 4, connections: 16 }),
    () => load(label, apiUrl, { paths, headers, seconds: 4, connections: 16 }),
  );
  return benchRow(label, p.subject, p.base, p.ratio);
}

/**
 * The ingest baseline: DuckDB's own `read_csv` of the same files (every column VARCHAR) into an
 * in-memory table, in ms. `options` is read_csv's option list for the files' dialect.
 */
export async function readCsvBaselineMs(files: string[], options: string): Promise<number> {
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  try {
    const t0 = Date.now();
    for (const [i, f] of files.entries()) await c.run(`CREATE TABLE t${i} AS SELECT * FROM read_csv(${quoteString(f)}, ${options})`);
    return Date.now() - t0;
  } finally {
    c.closeSync();
    inst.closeSync();
  }
}

/** Registers each CCN with a roster entry and an override (uhc, 70553), so checks with ccn walk tier 0 for real. */
export async function registerBenchFacilities(apiUrl: string, headers: Record<string, string>, ccns: string[]): Promise<void> {
  const send = (path: string, body: unknown, method = 'POST') => fetch(`${apiUrl}${path}`, { method, headers, body: JSON.stringify(body) });
  for (const ccn of ccns) {
    await send(`/v1/facilities/${ccn}`, {}, 'PUT');
    await send(`/v1/facilities/${ccn}/payers`, { payer_slug: 'uhc', network_status: 'in_network' });
    await send(`/v1/facilities/${ccn}/pa-overrides`, { payer_slug: 'uhc', code: '70553', pa_required: true });
  }
}
