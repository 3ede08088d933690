import autocannon from 'autocannon';
import Koa from 'koa';
import type { Server } from 'node:http';
import { SqliteStateStore } from '../warehouse/state.js';

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
}

export async function load(
  name: string,
  url: string,
  opts: { paths: string[]; headers?: Record<string, string>; connections?: number; seconds?: number },
): Promise<LoadResult> {
  const paths = opts.paths;
  let i = 0;
  const r = await autocannon({
    url,
    connections: opts.connections ?? 50,
    duration: opts.seconds ?? 10,
    headers: opts.headers,
    requests: [
      {
        setupRequest: (req: Record<string, unknown>) => {
          req.path = paths[i++ % paths.length];
          return req;
        },
      },
    ],
  });
  return {
    name,
    requests_per_s: Math.round(r.requests.average),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    non_2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

/** The baseline: Koa answering a small JSON body with no middleware. */
export async function startBareKoa(): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { code: ctx.path.slice(-5), ok: true };
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

export function table(rows: Record<string, string | number>[]): string {
  if (!rows.length) return '';
  const cols = Object.keys(rows[0]!);
  const w = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(w[i]!)).join('  ');
  return [line(cols), line(w.map((n) => '-'.repeat(n))), ...rows.map((r) => line(cols.map((c) => String(r[c]))))].join('\n');
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
export async function benchKey(stateFile: string): Promise<string> {
  const st = new SqliteStateStore(stateFile);
  try {
    if (!(await st.admin.findTenants()).some((t) => t.name === 'bench')) await st.admin.createTenant('bench');
    return (await st.admin.createKey({ tenant: 'bench', type: 'test', scopes: ['knowledge'] })).secret;
  } finally {
    await st.close();
  }
}
