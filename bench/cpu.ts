import { readFileSync } from 'node:fs';
import { load } from './lib.js';
import { seededPair, spawnApi, type Child } from './procs.js';

/**
 * Server CPU per request: utime + stime of the server process (from /proc) over a fixed number
 * of requests, the API beside the bare Koa route, in one run. Throughput ratios on a 2-core box
 * also measure the load generator competing for the same cores; CPU per request measures what
 * the server itself spends. Linux only (reads /proc); each case is measured twice, the lower kept.
 */
const N = 40_000;
const TICK_US = 1e6 / 100; // USER_HZ

function cpuTicks(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(f[11]) + Number(f[12]);
}

/** The serving process: `rcm serve` re-spawns itself with a heap flag, so it is the child. */
function servingPid(c: Child): number {
  const pid = c.proc.pid!;
  const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return kids[0] ?? pid;
}

export async function run(): Promise<Record<string, string | number>[]> {
  if (process.platform !== 'linux') return [{ case: 'server CPU per request', note: 'needs /proc (Linux)' }];
  const pair = await seededPair('rcm-bench-cpu-');
  // The public limit is raised so /v1/health answers 200s, not 429s.
  const api = await spawnApi(pair.dir, { RCM_PUBLIC_RATE_LIMIT_PER_MIN: '100000000' });
  const key = pair.key;
  const cold: string[] = [];
  const pairs = [['0001U', '0029U'], ['0001U', '0030U'], ['11042', '97597'], ['36556', '36415'], ['43239', '43235'], ['45380', '45378'], ['99213', '36415']];
  for (let d = 0; cold.length < N; d++) {
    const iso = new Date(Date.UTC(2006, 0, 1) + d * 86_400_000).toISOString().slice(0, 10);
    for (const [a, b] of pairs) cold.push(`/v1/ncci/ptp/prac?column1=${a}&column2=${b}&date_of_service=${iso}`);
  }
  const keyed = { 'X-API-Key': key };
  const cases: { name: string; child: Child; paths: string[]; headers?: Record<string, string>; warm: boolean }[] = [
    { name: 'bare Koa JSON route', child: pair.bare, paths: ['/v1/x/99213'], warm: true },
    { name: 'GET /v1/health (public)', child: api, paths: ['/v1/health'], warm: true },
    { name: 'GET /v1/codes/{code}, warm', child: api, paths: ['/v1/codes/99213', '/v1/codes/11042', '/v1/codes/36415'], headers: keyed, warm: true },
    { name: 'GET /v1/ncci/ptp/prac, warm (200 pairs x dates)', child: api, paths: Array.from({ length: 200 }, (_, i) => `/v1/ncci/ptp/prac?column1=99213&column2=${36415 + (i % 20)}&date_of_service=2026-0${1 + (i % 9)}-15`), headers: keyed, warm: true },
    { name: `GET /v1/ncci/ptp/prac, every request new (${N.toLocaleString()} distinct)`, child: api, paths: cold, headers: keyed, warm: false },
  ];
  const rows: Record<string, string | number>[] = [];
  let bareUs = 0;
  try {
    for (const c of cases) {
      const pid = servingPid(c.child);
      let best = Infinity;
      for (let round = 0; round < (c.warm ? 2 : 1); round++) {
        if (c.warm) await load('warm', c.child.url, { paths: c.paths, headers: c.headers, amount: 5000, connections: 16 });
        const t0 = cpuTicks(pid);
        const r = await load(c.name, c.child.url, { paths: c.paths, headers: c.headers, amount: N, connections: 16 });
        if (r.non_2xx || r.errors) throw new Error(`${c.name}: ${r.non_2xx} non-2xx, ${r.errors} errors`);
        best = Math.min(best, ((cpuTicks(pid) - t0) * TICK_US) / N);
      }
      if (c.child === pair.bare) bareUs = best;
      rows.push({ case: c.name, 'server CPU us/request': best.toFixed(1), 'x bare': (best / bareUs).toFixed(2) });
    }
  } finally {
    await api.stop();
    await pair.stop();
  }
  return rows;
}
