/**
 * NCCI PTP at full size: `npx tsx bench/ncci_ptp.ts [--rows 4100000] [--duration 8]`.
 *
 * 1. Writes a practitioner release in the real layout (2 title lines, 4-line wrapped header,
 *    CRLF, tab-separated, sorted by column 1) as 4 parts into a temp dir.
 * 2. Times DuckDB's own `read_csv` into a table on those files, the native loader alone, and the
 *    whole `ingestFiles` pipeline (sha256, load, key check, diff, publish), with peak RSS.
 * 3. Loads the same parts again as the next quarter (32.3), starts the server over both
 *    versions in a child process: a first pass over 1,000 column-1 codes (cold: each loads its
 *    edits from DuckDB), then random pairs of those codes over both quarters (10% reversed, 10%
 *    without an edit) with autocannon, next to a bare Koa JSON route.
 * Everything lives in a temp dir that is removed at the end; bounded to well under 3 minutes.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { once } from 'node:events';
import { DuckDBInstance } from '@duckdb/node-api';
import { sampleFile, toSourceFile } from '../datasets/_shared/source.js';
import { ncciPtpPrac } from '../datasets/ncci_ptp_prac/dataset.js';
import { ingestFiles } from '../ingest/pipeline.js';
import { Warehouse } from '../warehouse/store.js';
import { PTP_HEAD, ptpTableSql } from '../testing/ptp.js';

const RATIONALES = [
  'Misuse of Column Two code with Column One code',
  'CPT Manual or CMS manual coding instruction',
  'Mutually exclusive procedures',
  'Standards of medical/surgical practice',
  'More extensive procedure',
  'HCPCS/CPT procedure code definition',
];
const COL1_CODES = 10_000;
const STRIDE = 170;

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

/** Deterministic PRNG so runs are comparable. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const col2Of = (i: number, k: number) => String(20000 + k * STRIDE + (i % STRIDE));

/** Writes `rows` edits as 4 sorted parts; returns their paths. */
export async function generate(dir: string, rows: number): Promise<string[]> {
  const perCode = Math.ceil(rows / COL1_CODES);
  const rand = rng(42);
  const paths: string[] = [];
  const perPart = COL1_CODES / 4;
  for (let part = 0; part < 4; part++) {
    const p = join(dir, `ccipra-v322r0-f${part + 1}.txt`);
    paths.push(p);
    const out = createWriteStream(p);
    out.write(PTP_HEAD.join('\r\n') + '\r\n');
    for (let i = part * perPart; i < (part + 1) * perPart; i++) {
      const c1 = String(10000 + i);
      const lines: string[] = [];
      for (let k = 0; k < perCode; k++) {
        const r = rand();
        const eff = r < 0.3 ? '19960101' : r < 0.6 ? '20120101' : r < 0.9 ? '20180701' : '20250101';
        const del = r > 0.8 ? (r > 0.97 ? eff : '20231231') : '*';
        const mod = del === eff ? '9' : r < 0.45 ? '0' : '1';
        lines.push(`${c1}\t${col2Of(i, k)}\t${eff === '19960101' ? '*' : ''}\t${eff}\t${del}\t${mod}\t${RATIONALES[Math.floor(r * 97) % RATIONALES.length]}`);
      }
      if (!out.write(lines.join('\r\n') + '\r\n')) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
  }
  return paths;
}

/** Samples process RSS (includes DuckDB's native memory: it runs in this process). */
function rssSampler() {
  let peak = process.memoryUsage.rss();
  const t = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  return {
    stop: () => {
      clearInterval(t);
      return Math.max(peak, process.memoryUsage.rss());
    },
  };
}

const mb = (b: number) => `${Math.round(b / 1048576)} MB`;
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function timeReadCsv(dir: string, paths: string[]): Promise<number> {
  const inst = await DuckDBInstance.create(join(dir, 'baseline.duckdb'));
  const conn = await inst.connect();
  const t0 = performance.now();
  await conn.run(
    `CREATE TABLE t AS SELECT * FROM read_csv([${paths.map((p) => `'${p}'`).join(', ')}], delim='\t', header=false, skip=6, quote='', escape='', ` +
      `auto_detect=false, columns={'c0':'VARCHAR','c1':'VARCHAR','c2':'VARCHAR','c3':'VARCHAR','c4':'VARCHAR','c5':'VARCHAR','c6':'VARCHAR'})`,
  );
  await conn.run('CHECKPOINT');
  const ms = performance.now() - t0;
  conn.closeSync();
  inst.closeSync();
  await rm(join(dir, 'baseline.duckdb'), { force: true });
  return ms;
}

async function timeNativeOnly(dir: string, paths: string[]): Promise<{ ms: number; rows: number }> {
  const inst = await DuckDBInstance.create(join(dir, 'native.duckdb'));
  const conn = await inst.connect();
  await conn.run(ptpTableSql('t'));
  const files = await Promise.all(paths.map(toSourceFile));
  const samples = await Promise.all(files.map((f) => sampleFile(f)));
  const t0 = performance.now();
  const res = (await ncciPtpPrac.loadNative!(files, samples, async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS(), 't', '32.2'))!;
  await conn.run('CHECKPOINT');
  const ms = performance.now() - t0;
  conn.closeSync();
  inst.closeSync();
  await rm(join(dir, 'native.duckdb'), { force: true });
  return { ms, rows: res.rows };
}

/** Child mode: serve the warehouse and a bare Koa route, print ports and a key. */
async function serve(dataDir: string) {
  const started = performance.now();
  const { startServer } = await import('../server/server.js');
  const { silentLogger } = await import('../server/logger.js');
  const Koa = (await import('koa')).default;
  const srv = await startServer({
    dataDir,
    port: 0,
    host: '127.0.0.1',
    hosts: { liveHosts: [], testHosts: [] },
    rateLimitPerMin: 100_000_000,
    publicRateLimitPerMin: 100_000_000,
    adminSecret: null,
    serviceVersion: 'bench',
    logger: silentLogger,
  });
  const tenant = await srv.state.admin.createTenant('bench');
  const key = (await srv.state.admin.createKey({ tenant: tenant.name, type: 'test', scopes: ['knowledge'] })).secret;
  // A real PTP answer, served canned by the bare route at /same (same payload size).
  const sample = await fetch(`http://127.0.0.1:${srv.port}/v1/ncci/ptp/prac?column1=10000&column2=20000&date_of_service=2026-08-15`, { headers: { 'x-api-key': key } });
  const canned = await sample.json();
  // Start to first PTP answer: the mount, the index build it waits for, and the answer.
  const firstAnswerMs = performance.now() - started;
  const rss = process.memoryUsage.rss();
  const bare = new Koa();
  bare.use((ctx) => {
    ctx.body = ctx.path === '/same' ? canned : { col1_proc_cd: '93000', col2_proc_cd: '93010', modifier: '0', status: 'active' };
  });
  const bareServer = bare.listen(0, '127.0.0.1');
  await once(bareServer, 'listening');
  const addr = bareServer.address();
  process.stdout.write(`${JSON.stringify({ port: srv.port, barePort: typeof addr === 'object' && addr ? addr.port : 0, key, firstAnswerMs, rss })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(url: string, key: string | null, paths: string[] | null, duration: number): Promise<LoadResult> {
  const autocannon = (await import('autocannon' as string)).default as (o: Record<string, unknown>) => Promise<any>;
  let n = 0;
  const r = await autocannon({
    url,
    connections: 16,
    duration,
    headers: key ? { 'x-api-key': key } : {},
    requests: paths ? [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, path: paths[n++ % paths.length] }) }] : undefined,
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

/** Column-1 codes the lookups use (a scrubber's working set); each is fetched once cold first. */
const HOT_CODES = 1000;

function hotCodes(): number[] {
  const rand = rng(7);
  return Array.from({ length: HOT_CODES }, () => Math.floor(rand() * COL1_CODES));
}

function lookupPaths(rows: number): string[] {
  const rand = rng(11);
  const perCode = Math.ceil(rows / COL1_CODES);
  const codes = hotCodes();
  const out: string[] = [];
  for (let j = 0; j < 20_000; j++) {
    const i = codes[Math.floor(rand() * codes.length)]!;
    const k = Math.floor(rand() * perCode);
    const r = rand();
    const c1 = String(10000 + i);
    const c2 = r < 0.1 ? String(Number(col2Of(i, k)) + 1) : col2Of(i, k);
    const [a, b] = r > 0.9 ? [c2, c1] : [c1, c2];
    const dos = j % 2 ? '2026-05-15' : '2026-08-15';
    out.push(`/v1/ncci/ptp/prac?column1=${a}&column2=${b}&date_of_service=${dos}`);
  }
  return out;
}

async function main(): Promise<[string, string][]> {
  const rows = arg('rows', 4_100_000);
  const duration = arg('duration', 6);
  const benchStart = performance.now();
  const dir = await mkdtemp(join(tmpdir(), 'ptp-bench-'));
  const results: [string, string][] = [];
  let child: ReturnType<typeof spawn> | null = null;
  try {
    let t0 = performance.now();
    const parts = await generate(dir, rows);
    const bytes = (await Promise.all(parts.map(toSourceFile))).reduce((a, f) => a + f.size, 0);
    console.log(`generated ${rows.toLocaleString()} rows, 4 parts, ${mb(bytes)} in ${secs(performance.now() - t0)}`);

    const base = await timeReadCsv(dir, parts);
    console.log(`duckdb read_csv -> table: ${secs(base)}`);
    const native = await timeNativeOnly(dir, parts);
    console.log(`loadNative alone: ${secs(native.ms)} (${native.rows.toLocaleString()} rows)`);

    const wh = new Warehouse(join(dir, 'data'));
    const rss = rssSampler();
    t0 = performance.now();
    const s1 = await ingestFiles(wh, { dataset: 'ncci_ptp_prac', files: parts });
    const ingestMs = performance.now() - t0;
    const peak = Math.max(rss.stop(), process.resourceUsage().maxRSS * 1024);
    console.log(`ingestFiles 32.2: ${secs(ingestMs)}, ${s1.rows.toLocaleString()} rows, ${s1.rejects} rejects, peak RSS ${mb(peak)}`);

    // The next quarter: the same content under 32.3 names (symlinks), loaded after 32.2 and diffed against it (an older quarter would be a backfill with no predecessor).
    const prevDir = join(dir, 'prev');
    await rm(prevDir, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(prevDir));
    const prev = await Promise.all(parts.map(async (p, i) => {
      const q = join(prevDir, `ccipra-v323r0-f${i + 1}.txt`);
      await symlink(p, q);
      return q;
    }));
    t0 = performance.now();
    const s2 = await ingestFiles(wh, { dataset: 'ncci_ptp_prac', files: prev });
    const ingest2Ms = performance.now() - t0;
    console.log(`ingestFiles 32.3 (with diff against 32.2): ${secs(ingest2Ms)}, ${s2.change.summary}`);

    const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
    child = spawn(process.execPath, [...prof, ...process.execArgv, fileURLToPath(import.meta.url), '--serve', wh.dir], { stdio: ['pipe', 'pipe', 'inherit'] });
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const { port, barePort, key, firstAnswerMs, rss: serverRss } = JSON.parse(line.toString().split('\n')[0]!) as { port: number; barePort: number; key: string; firstAnswerMs: number; rss: number };
    // Cold: random pairs over every column-1 code on the freshly started server (each code's
    // first lookup), 16 connections, beside a bare run.
    const randCold = rng(23);
    const coldPaths = Array.from({ length: 40_000 }, () => {
      const i = Math.floor(randCold() * COL1_CODES);
      return `/v1/ncci/ptp/prac?column1=${10000 + i}&column2=${col2Of(i, Math.floor(randCold() * 50))}&date_of_service=${randCold() < 0.5 ? '2026-05-15' : '2026-08-15'}`;
    });
    const coldAll = await load(`http://127.0.0.1:${port}`, key, coldPaths, 4);
    const coldBare = await load(`http://127.0.0.1:${barePort}/same`, null, null, 4);
    const paths = lookupPaths(rows);
    // First pass: one lookup per hot code (each loads that code's edits from DuckDB), 8 at a time.
    const firstPass = hotCodes().map((i) => `/v1/ncci/ptp/prac?column1=${10000 + i}&column2=${col2Of(i, 0)}&date_of_service=2026-08-15`);
    t0 = performance.now();
    const coldLat: number[] = [];
    let bad = 0;
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (let j = w; j < firstPass.length; j += 8) {
          const s0 = performance.now();
          const r = await fetch(`http://127.0.0.1:${port}${firstPass[j]}`, { headers: { 'x-api-key': key } });
          await r.arrayBuffer();
          if (r.status !== 200) bad++;
          coldLat.push(performance.now() - s0);
        }
      }),
    );
    const coldMs = performance.now() - t0;
    coldLat.sort((a, b) => a - b);
    const cold = { rps: firstPass.length / (coldMs / 1000), p50: Math.round(coldLat[coldLat.length >> 1]!), p99: Math.round(coldLat[Math.floor(coldLat.length * 0.99)]!), non2xx: bad };
    // Alternate the baselines and the subject (3 rounds, medians) so load swings on a shared
    // 2-core machine hit both sides of each ratio alike.
    const rounds: { bare: LoadResult; bareSame: LoadResult; warm: LoadResult }[] = [];
    for (let i = 0; i < 3; i++) {
      rounds.push({
        bare: await load(`http://127.0.0.1:${barePort}/`, null, null, duration),
        bareSame: await load(`http://127.0.0.1:${barePort}/same`, null, null, duration),
        warm: await load(`http://127.0.0.1:${port}`, key, paths, duration),
      });
    }
    const median = <K extends 'bare' | 'bareSame' | 'warm'>(k: K) => [...rounds].sort((a, b) => a[k].rps - b[k].rps)[1]![k];
    const bare = median('bare');
    const bareSame = median('bareSame');
    const warm = median('warm');
    const ratioMedian = (k: 'bare' | 'bareSame') => rounds.map((r) => r.warm.rps / r[k].rps).sort((a, b) => a - b)[1]!;
    // The app's own floor: the same server's health route (no key, no data, tiny body).
    const health = await load(`http://127.0.0.1:${port}/v1/health`, null, null, duration);

    results.push(
      ['rows (4 parts)', `${s1.rows.toLocaleString()} (${mb(bytes)})`],
      ['DuckDB read_csv -> table', secs(base)],
      ['loadNative (read_csv + SQL validation)', `${secs(native.ms)} (${(native.ms / base).toFixed(2)}x read_csv)`],
      ['ingestFiles (whole pipeline)', `${secs(ingestMs)} (${(ingestMs / base).toFixed(2)}x read_csv)`],
      ['ingest peak RSS', mb(peak)],
      ['bare Koa JSON route (small body)', `${Math.round(bare.rps)} req/s, p50 ${bare.p50} ms, p99 ${bare.p99} ms`],
      ['bare Koa JSON route (a canned PTP answer, same size)', `${Math.round(bareSame.rps)} req/s, p50 ${bareSame.p50} ms, p99 ${bareSame.p99} ms`],
      ['server start to first PTP answer (mount + in-memory index of both quarters)', `${secs(firstAnswerMs)}, RSS ${mb(serverRss)}`],
      ['PTP lookup, cold: random pairs over all 10,000 column-1 codes, 16 conns, right after start', `${Math.round(coldAll.rps)} req/s, p50 ${coldAll.p50} ms, p99 ${coldAll.p99} ms, non-2xx ${coldAll.non2xx} (${(coldAll.rps / coldBare.rps).toFixed(2)}x bare same-size ${Math.round(coldBare.rps)} req/s)`],
      [`PTP lookup, first pass (${HOT_CODES} codes, 8 at a time)`, `${Math.round(cold.rps)} req/s, p50 ${cold.p50} ms, p99 ${cold.p99} ms, non-2xx ${cold.non2xx}`],
      ['app floor: GET /v1/health on the same server', `${Math.round(health.rps)} req/s, p50 ${health.p50} ms, p99 ${health.p99} ms (${(health.rps / bare.rps).toFixed(2)}x bare)`],
      ['PTP lookup, warm (random pairs of the hot codes, 2 quarters, 16 conns)', `${Math.round(warm.rps)} req/s, p50 ${warm.p50} ms, p99 ${warm.p99} ms, non-2xx ${warm.non2xx} (${ratioMedian('bare').toFixed(2)}x bare small, ${ratioMedian('bareSame').toFixed(2)}x bare same-size; medians of 3 alternating rounds)`],
    );
    console.log('\n| measure | result |\n|---|---|');
    for (const [k, v] of results) console.log(`| ${k} | ${v} |`);
    console.log(`\nbench total ${secs(performance.now() - benchStart)}`);
    return results;
  } finally {
    if (child) {
      const c = child;
      const exited = once(c, 'exit');
      c.stdin?.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000).unref())]);
      if (c.exitCode === null) c.kill();
    }
    await rm(dir, { recursive: true, force: true });
  }
}

/** For `npm run bench`: the same measurements as rows of the shared table. */
export async function run(): Promise<Record<string, string>[]> {
  return (await main()).map(([measure, result]) => ({ measure, result }));
}

if (process.argv.includes('--serve')) {
  await serve(process.argv[process.argv.indexOf('--serve') + 1]!);
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
