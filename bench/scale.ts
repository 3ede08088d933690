import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchKey, firstPassAndWarmCases, ratio, readCsvBaselineMs, rssOf, shuffle } from './lib.js';
import { writeDataFile } from './nppes.js';
import { seededStart, spawnApi, spawnBare } from './procs.js';

const ROOT = resolve(import.meta.dirname, '..');
/** Providers of the large generated NPPES file (the real monthly file holds about 9 M); the small one is a quarter. */
const ROWS = Number(process.env.BENCH_SCALE_ROWS ?? 1_000_000);
const mb = (b: number) => `${Math.round(b / 2 ** 20).toLocaleString('en-US')} MB`;

/** `rcm ingest nppes FILE` in its own process: wall time and the process's peak RSS (VmHWM, polled until it exits). */
async function ingestProcess(dir: string, file: string): Promise<{ ms: number; peak: number }> {
  const t = Date.now();
  const proc = spawn(process.execPath, [join(ROOT, 'bin/rcm.js'), 'ingest', 'nppes', file], { env: { ...process.env, RCM_DATA_DIR: dir, RCM_LOG: 'silent' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()).slice(-2000));
  let peak = 0;
  const timer = setInterval(() => void rssOf(proc.pid!, 'VmHWM').then((b) => (peak = Math.max(peak, b || 0)), () => undefined), 100);
  const [code] = (await once(proc, 'exit')) as [number];
  clearInterval(timer);
  if (code !== 0) throw new Error(`rcm ingest nppes exited ${code}: ${err}`);
  return { ms: Date.now() - t, peak };
}

/**
 * Production size: the NPPES ingest at two sizes in its own process (peak RSS must not grow with
 * the file: the large run within 1.3x of the small one), each beside DuckDB's own `read_csv` of the
 * same file; a server's start over the large version (to its first NPI answer) beside a start over
 * the seeds; then first-pass NPI lookups against the bare Koa route asked the same paths.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-scale-'));
  const rows: Record<string, string | number>[] = [];
  try {
    const header = (await readFile(join(ROOT, 'seeds/nppes/npidata_pfile_20050523-20190609.csv'), 'utf8')).split('\r\n')[0]!;
    const runs: { n: number; ms: number; peak: number; readCsvMs: number; npis: string[]; wh: string }[] = [];
    for (const n of [Math.floor(ROWS / 4), ROWS]) {
      await mkdir(join(dir, `src-${n}`));
      const file = join(dir, `src-${n}`, 'npidata_pfile_20050523-20261108.csv');
      const npis = await writeDataFile(file, header, n);
      const size = (await stat(file)).size;
      const wh = join(dir, `wh-${n}`);
      const { ms, peak } = await ingestProcess(wh, file);
      const readCsvMs = await readCsvBaselineMs([file], `header=true, all_varchar=true, quote='"', escape='"', delim=','`);
      const versionFile = (await readdir(join(wh, 'datasets/nppes')))[0]!;
      const stored = (await stat(join(wh, 'datasets/nppes', versionFile))).size;
      runs.push({ n, ms, peak, readCsvMs, npis, wh });
      rows.push({
        case: `ingest NPPES ${n.toLocaleString('en-US')} providers (${mb(size)} CSV) in its own process`,
        value: `${ms.toLocaleString('en-US')} ms, peak RSS ${mb(peak)}, version file ${mb(stored)} with its indexes`,
        baseline: `duckdb read_csv into memory ${readCsvMs.toLocaleString('en-US')} ms`,
        ratio: ratio(ms, readCsvMs),
      });
      await rm(join(dir, `src-${n}`), { recursive: true, force: true });
    }
    const [small, large] = runs as [(typeof runs)[0], (typeof runs)[0]];
    rows.push({
      case: `ingest peak RSS at ${large.n.toLocaleString('en-US')} beside ${small.n.toLocaleString('en-US')} providers (bound: 1.3x, under 1,536 MB)`,
      value: mb(large.peak),
      baseline: mb(small.peak),
      ratio: ratio(large.peak, small.peak),
    });
    // A server's start over the large version: to listening, then to its first NPI answer.
    const seeded = await seededStart();
    const key = await benchKey(join(large.wh, 'state.sqlite'));
    const t0 = Date.now();
    const api = await spawnApi(large.wh, { RCM_NPPES_LIVE: '0' });
    const res = await fetch(`${api.url}/v1/npi/${large.npis[0]}`, { headers: { 'X-API-Key': key } });
    const firstMs = Date.now() - t0;
    if (res.status !== 200) throw new Error(`first NPI answer: ${res.status}`);
    const bare = await spawnBare();
    try {
      rows.push({
        case: `start over ${large.n.toLocaleString('en-US')} providers to the first NPI answer`,
        value: `${firstMs.toLocaleString('en-US')} ms, RSS ${mb(await rssOf(api.proc.pid!))}`,
        baseline: `start over the seeds ${seeded.ms.toLocaleString('en-US')} ms, RSS ${mb(seeded.rss)}`,
        ratio: ratio(firstMs, seeded.ms),
      });
      const paths = shuffle(large.npis.slice(1).map((n) => `/v1/npi/${n}`), 5);
      rows.push(...(await firstPassAndWarmCases(`GET /v1/npi/{npi} over ${large.n.toLocaleString('en-US')} providers`, api.url, bare.url, paths, { 'X-API-Key': key })));
      rows.push({ case: 'server RSS after the lookups', value: mb(await rssOf(api.proc.pid!)), baseline: mb(seeded.rss), ratio: '' });
    } finally {
      await Promise.all([api.stop(), bare.stop()]);
    }
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
