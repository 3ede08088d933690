import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchKey, firstPassAndWarmCases, ratio, readCsvBaselineMs, rssOf, shuffle } from './lib.js';
import { writeMrconso } from './concepts.js';
import { writeDirectory } from './drugs.js';
import { generate as generatePtp } from './ncci_ptp.js';
import { writeDataFile } from './nppes.js';
import { seededStart, spawnApi, spawnBare } from './procs.js';
import { ingestProcess } from './fullsize.js';

const ROOT = resolve(import.meta.dirname, '..');
/** Providers of the large generated NPPES file (the real monthly file holds about 9 M); the small one is a quarter. */
const ROWS = Number(process.env.BENCH_SCALE_ROWS ?? 1_000_000);
const mb = (b: number) => `${Math.round(b / 2 ** 20).toLocaleString('en-US')} MB`;

/** Ingests a weekly NPPES delta into `wh` in its own process, then waits for the server at `url` to serve the snapshot it published. */
async function swapAfterWeekly(dir: string, wh: string, n: number, header: string, url: string, key: string): Promise<{ ingestMs: number; swapMs: number }> {
  const week = join(dir, 'week');
  await mkdir(week);
  const weekRows = Math.floor(n / 100);
  await writeDataFile(join(week, 'npidata_pfile_20261109-20261115.csv'), header, weekRows + 1000, (j) => (j < weekRows ? j * 100 : n + j), '11/12/2026');
  for (const kind of ['pl', 'othername']) {
    const h = (await readFile(join(ROOT, `seeds/nppes/${kind}_pfile_20050523-20190609.csv`), 'utf8')).split('\r\n')[0]!;
    await writeFile(join(week, `${kind}_pfile_20261109-20261115.csv`), `${h}\r\n`);
  }
  const { ms: ingestMs } = await ingestProcess(wh, 'nppes', ['npidata', 'pl', 'othername'].map((k) => join(week, `${k}_pfile_20261109-20261115.csv`)));
  const current = (await readFile(join(wh, 'CURRENT'), 'utf8')).trim();
  const t = Date.now();
  for (;;) {
    const meta = (await (await fetch(`${url}/v1/meta`, { headers: { 'X-API-Key': key } })).json()) as { snapshot_id?: string };
    if (meta.snapshot_id === current) return { ingestMs, swapMs: Date.now() - t };
    if (Date.now() - t > 120_000) throw new Error('the server did not swap to the new snapshot within 120 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A dataset ingested at two sizes: how to write its files, and DuckDB's reader options for the baseline. */
interface Sized {
  dataset: string;
  /** What one unit of `sizes` is (atoms, rows, products). */
  unit: string;
  sizes: [number, number];
  /** Writes the source files of `n` units into `dir`; returns their paths. */
  write(dir: string, n: number): Promise<string[]>;
  version?: string;
  readCsv: string;
}

const OTHERS: Sized[] = [
  {
    dataset: 'umls_concepts',
    unit: 'MRCONSO atoms',
    sizes: [500_000, 2_000_000],
    write: async (dir, n) => {
      const f = join(dir, 'MRCONSO.2025AB.RRF');
      await writeMrconso(f, n);
      return [f];
    },
    readCsv: `header=false, all_varchar=true, delim='|', quote='', escape=''`,
  },
  {
    dataset: 'ncci_ptp_prac',
    unit: 'PTP edits in 4 parts',
    sizes: [1_000_000, 4_000_000],
    write: (dir, n) => generatePtp(dir, n),
    readCsv: `header=false, skip=6, all_varchar=true, delim='\t', quote='', escape='', null_padding=true`,
  },
  {
    dataset: 'fda_ndc',
    unit: 'FDA products',
    sizes: [28_000, 111_502],
    write: async (dir, n) => {
      await writeDirectory(dir, n);
      return [join(dir, 'product.txt'), join(dir, 'package.txt')];
    },
    version: '2026-11-24',
    readCsv: `header=true, all_varchar=true, delim='\t', quote='', escape='', encoding='latin-1'`,
  },
];

/**
 * Ingests `s` at both sizes, each in its own process: time beside `read_csv`, and the peak RSS
 * ratio. The large size goes into `into` (the large NPPES warehouse, so one server serves them all).
 */
async function ingestTwoSizes(dir: string, s: Sized, into: string): Promise<Record<string, string | number>[]> {
  const out: Record<string, string | number>[] = [];
  const peaks: number[] = [];
  for (const n of s.sizes) {
    const src = join(dir, `${s.dataset}-src-${n}`);
    await mkdir(src);
    const files = await s.write(src, n);
    const wh = n === s.sizes[1] ? into : join(dir, `${s.dataset}-wh-${n}`);
    const { ms, peak } = await ingestProcess(wh, s.dataset, files, s.version);
    const readCsvMs = await readCsvBaselineMs(files, s.readCsv);
    peaks.push(peak);
    out.push({ case: `ingest ${s.dataset}: ${n.toLocaleString('en-US')} ${s.unit}, in its own process`, value: `${ms.toLocaleString('en-US')} ms, peak RSS ${mb(peak)}`, baseline: `duckdb read_csv into memory ${readCsvMs.toLocaleString('en-US')} ms`, ratio: ratio(ms, readCsvMs) });
    await rm(src, { recursive: true, force: true });
    if (wh !== into) await rm(wh, { recursive: true, force: true });
  }
  out.push({ case: `ingest ${s.dataset} peak RSS at ${s.sizes[1].toLocaleString('en-US')} beside ${s.sizes[0].toLocaleString('en-US')} ${s.unit}`, value: mb(peaks[1]!), baseline: mb(peaks[0]!), ratio: ratio(peaks[1]!, peaks[0]!) });
  return out;
}

/**
 * Production size: the NPPES ingest at two sizes in its own process (peak RSS must not grow with
 * the file: the large run within 1.3x of the small one), each beside DuckDB's own `read_csv` of the
 * same file, and the same for UMLS MRCONSO, the NCCI PTP files and the FDA directory; a server's
 * start over all the large versions (to its first NPI answer) beside a start over the seeds; first-pass
 * NPI lookups against the bare Koa route asked the same paths; then a snapshot swap under the
 * running server (a weekly file folded in by the CLI) beside the start.
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
      const { ms, peak } = await ingestProcess(wh, 'nppes', [file]);
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
    for (const other of OTHERS) rows.push(...(await ingestTwoSizes(dir, other, large.wh)));
    // A server's start over every large version at once (NPPES, UMLS, PTP, FDA): to listening,
    // then to its first NPI answer.
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
        case: `start over every large version (${large.n.toLocaleString('en-US')} providers, ${OTHERS.map((o) => `${o.sizes[1].toLocaleString('en-US')} ${o.unit}`).join(', ')}) to the first NPI answer`,
        value: `${firstMs.toLocaleString('en-US')} ms, RSS ${mb(await rssOf(api.proc.pid!))}`,
        baseline: `start over the seeds ${seeded.ms.toLocaleString('en-US')} ms, RSS ${mb(seeded.rss)}`,
        ratio: ratio(firstMs, seeded.ms),
      });
      const paths = shuffle(large.npis.slice(1).map((n) => `/v1/npi/${n}`), 5);
      rows.push(...(await firstPassAndWarmCases(`GET /v1/npi/{npi} over ${large.n.toLocaleString('en-US')} providers`, api.url, bare.url, paths, { 'X-API-Key': key })));
      rows.push({ case: 'server RSS after the lookups', value: mb(await rssOf(api.proc.pid!)), baseline: mb(seeded.rss), ratio: '' });
      // A snapshot swap under the running server: a weekly file (1% of the NPIs updated, 1,000 new)
      // folded into a new version by the CLI, then the time until the server answers from it.
      const swap = await swapAfterWeekly(dir, large.wh, large.n, header, api.url, key);
      rows.push({
        case: `snapshot swap: a weekly NPPES file folded into a new ${large.n.toLocaleString('en-US')}-provider version by the CLI (${swap.ingestMs.toLocaleString('en-US')} ms), then served`,
        value: `${swap.swapMs.toLocaleString('en-US')} ms from CURRENT to the first answer naming it, RSS ${mb(await rssOf(api.proc.pid!))}`,
        baseline: `start over the same providers ${firstMs.toLocaleString('en-US')} ms`,
        ratio: ratio(swap.swapMs, firstMs),
      });
    } finally {
      await Promise.all([api.stop(), bare.stop()]);
    }
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
