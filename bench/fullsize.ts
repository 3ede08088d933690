import { DuckDBInstance } from '@duckdb/node-api';
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchKey, firstPassAndWarmCases, ratio, readCsvBaselineMs, rssOf, shuffle } from './lib.js';
import { conceptQueries, writeMrconso } from './concepts.js';
import { writeDirectory } from './drugs.js';
import { generate as generatePtp } from './ncci_ptp.js';
import { writeDataFile } from './nppes.js';
import { seededStart, spawnApi, spawnBare } from './procs.js';
import { quoteString } from '../warehouse/sql_quote.js';

const ROOT = resolve(import.meta.dirname, '..');
const mb = (b: number) => `${Math.round(b / 2 ** 20).toLocaleString('en-US')} MB`;

/** `rcm ingest DATASET FILE...` in its own process: wall time and the process's peak RSS (VmHWM, polled until it exits). */
export async function ingestProcess(dir: string, dataset: string, files: string[], version?: string): Promise<{ ms: number; peak: number }> {
  const t = Date.now();
  const proc = spawn(process.execPath, [join(ROOT, 'bin/rcm.js'), 'ingest', dataset, ...files, ...(version ? ['--version', version, '--effective-date', version] : [])], { env: { ...process.env, RCM_DATA_DIR: dir, RCM_LOG: 'silent' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()).slice(-2000));
  let peak = 0;
  const timer = setInterval(() => void rssOf(proc.pid!, 'VmHWM').then((b) => (peak = Math.max(peak, b || 0)), () => undefined), 100);
  const [code] = (await once(proc, 'exit')) as [number];
  clearInterval(timer);
  if (code !== 0) throw new Error(`rcm ingest ${dataset} exited ${code}: ${err}`);
  return { ms: Date.now() - t, peak };
}

/** The publishers' sizes (`docs/performance.md`): UMLS 2025AB's ~16 M atoms, an openFDA export's ~130 k products, a PTP quarter's ~4.1 M edits, MCD's 431 k covered-diagnosis rows. */
/** `BENCH_FULL_SCALE`: a fraction of every size (a quick try of the run; the figures are the full one's). */
const SCALE = Number(process.env.BENCH_FULL_SCALE ?? 1);
const sized = (n: number) => Math.round(n * SCALE);
const UMLS_ATOMS = sized(16_000_000);
const FDA_PRODUCTS = sized(130_000);
const PTP_EDITS = sized(4_100_000);
/** Quarters of PTP edits held at once (the current one and the three before, as a claim's date of service may need). */
const PTP_QUARTERS = [320, 321, 322, 323];
const MCD_COVERED = sized(431_000);
const MCD_ARTICLES = Math.max(1, sized(2_002));

/** Streams `lines(i)` for i < n to `path`. */
async function writeLines(path: string, head: string, n: number, line: (i: number) => string): Promise<void> {
  const out = createWriteStream(path);
  out.write(head);
  for (let i = 0; i < n; i++) if (!out.write(line(i))) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

/**
 * An MCD download (`current_article_csv`'s layout, from the seeds' headers): the seeds' files, the
 * article list grown to `MCD_ARTICLES` and `covered` rows of `article_x_icd10_covered`, each
 * article's codes over a few groups.
 */
async function writeMcd(dir: string, covered: number): Promise<string[]> {
  const seeds = join(ROOT, 'seeds/mcd_coverage');
  const names = (await readdir(seeds)).filter((n) => n.endsWith('.csv'));
  for (const n of names) await copyFile(join(seeds, n), join(dir, n));
  const article = (await readFile(join(seeds, 'article.csv'), 'utf8')).split(/\r?\n/).filter(Boolean);
  const template = article[1]!.split(',');
  await writeLines(join(dir, 'article.csv'), `${article.join('\n')}\n`, MCD_ARTICLES, (a) => [String(50000 + a), '1', ...template.slice(2)].join(',') + '\n');
  const coveredHead = (await readFile(join(seeds, 'article_x_icd10_covered.csv'), 'utf8')).split(/\r?\n/)[0]!;
  const perArticle = Math.ceil(covered / MCD_ARTICLES);
  await writeLines(join(dir, 'article_x_icd10_covered.csv'), `${coveredHead}\n`, covered, (i) => {
    const a = Math.floor(i / perArticle);
    const k = i % perArticle;
    const code = `${String.fromCharCode(65 + (k % 26))}${String(10 + ((k * 7 + a) % 90))}.${(k * 13 + a) % 10}${k % 3}`;
    return `${50000 + a},1,${code},,${1 + (k % 4)},,2025-10-01,${k + 1},"Generated covered diagnosis ${k} of article ${a}",\n`;
  });
  return names.map((n) => join(dir, n));
}

/** A dataset ingested at its publisher's size into the full-size directory. */
interface FullSized {
  dataset: string;
  what: string;
  /** Writes the source files into `dir`; returns their paths, each ingest's (files, version), and the files `read_csv` reads for the baseline. */
  write(dir: string): Promise<{ ingests: { files: string[]; version?: string }[]; baseline: string[] }>;
  readCsv: string;
}

const FULL_OTHERS: FullSized[] = [
  {
    dataset: 'umls_concepts',
    what: `${UMLS_ATOMS.toLocaleString('en-US')} MRCONSO atoms`,
    write: async (dir) => {
      const f = join(dir, 'MRCONSO.2025AB.RRF');
      await writeMrconso(f, UMLS_ATOMS);
      return { ingests: [{ files: [f] }], baseline: [f] };
    },
    readCsv: `header=false, all_varchar=true, delim='|', quote='', escape=''`,
  },
  {
    dataset: 'ncci_ptp_prac',
    what: `${PTP_QUARTERS.length} quarters of ${PTP_EDITS.toLocaleString('en-US')} PTP edits (4 parts each)`,
    write: async (dir) => {
      // One quarter's files written once, then named for each quarter (CMS's v<major><minor>r0).
      const parts = await generatePtp(dir, PTP_EDITS);
      const ingests: { files: string[] }[] = [];
      for (const q of PTP_QUARTERS) {
        const qdir = join(dir, `v${q}`);
        await mkdir(qdir);
        const files = parts.map((_, k) => join(qdir, `ccipra-v${q}r0-f${k + 1}.txt`));
        for (const [k, part] of parts.entries()) await copyFile(part, files[k]!);
        ingests.push({ files });
      }
      return { ingests, baseline: parts };
    },
    readCsv: `header=false, skip=6, all_varchar=true, delim='\t', quote='', escape='', null_padding=true`,
  },
  {
    dataset: 'fda_ndc',
    what: `${FDA_PRODUCTS.toLocaleString('en-US')} FDA products`,
    write: async (dir) => {
      await writeDirectory(dir, FDA_PRODUCTS);
      const files = [join(dir, 'product.txt'), join(dir, 'package.txt')];
      return { ingests: [{ files, version: '2026-11-24' }], baseline: files };
    },
    readCsv: `header=true, all_varchar=true, delim='\t', quote='', escape='', encoding='latin-1'`,
  },
  {
    dataset: 'mcd_coverage',
    what: `an MCD download with ${MCD_COVERED.toLocaleString('en-US')} covered-diagnosis rows over ${MCD_ARTICLES.toLocaleString('en-US')} articles`,
    write: async (dir) => {
      const files = await writeMcd(dir, MCD_COVERED);
      return { ingests: [{ files, version: '2026-11-27' }], baseline: [join(dir, 'article_x_icd10_covered.csv')] };
    },
    readCsv: `header=true, all_varchar=true, delim=',', quote='"', escape='"'`,
  },
];

/** Providers of the full-size NPPES monthly file (`BENCH_FULL_PROVIDERS`; the real one holds about 9 M). */
const PROVIDERS = sized(Number(process.env.BENCH_FULL_PROVIDERS ?? 9_000_000));

/**
 * `npm run bench -- fullsize` (asked by name only, not in a whole run): every dataset at its
 * publisher's size in one data directory: a
 * full-size NPPES monthly file (9.6 GB in the real layout; its baseline counts the rows through
 * DuckDB's `read_csv`, a table of 9 M x 330 text cells would not fit in memory), UMLS, four PTP
 * quarters, the FDA directory and the MCD covered-diagnosis table, each ingested in its own
 * process (time and peak RSS); then a server's start over all of them to its first NPI answer
 * (and its RSS) beside a start over the seeds, first-pass NPI lookups and concept searches
 * against the bare route. About 30 minutes and 20 GB of disk.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-fullsize-'));
  try {
    const header = (await readFile(join(ROOT, 'seeds/nppes/npidata_pfile_20050523-20190609.csv'), 'utf8')).split('\r\n')[0]!;
    return await fullSize(dir, header, PROVIDERS);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function fullSize(dir: string, header: string, providers: number): Promise<Record<string, string | number>[]> {
  const rows: Record<string, string | number>[] = [];
  const wh = join(dir, 'wh-full');
  const src = join(dir, 'src-full');
  await mkdir(src);
  const file = join(src, 'npidata_pfile_20050523-20261108.csv');
  const npis = await writeDataFile(file, header, providers);
  const size = (await stat(file)).size;
  const { ms, peak } = await ingestProcess(wh, 'nppes', [file]);
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  const t = Date.now();
  await c.run(`SELECT count(*) FROM read_csv(${quoteString(file)}, header=true, all_varchar=true, quote='"', escape='"', delim=',')`);
  const countMs = Date.now() - t;
  c.closeSync();
  inst.closeSync();
  await rm(src, { recursive: true, force: true });
  rows.push({ case: `ingest a full-size NPPES file: ${providers.toLocaleString('en-US')} providers (${mb(size)} CSV), in its own process`, value: `${ms.toLocaleString('en-US')} ms, peak RSS ${mb(peak)}`, baseline: `duckdb read_csv counting its rows ${countMs.toLocaleString('en-US')} ms`, ratio: ratio(ms, countMs) });
  for (const s of FULL_OTHERS) {
    const sdir = join(dir, `full-${s.dataset}`);
    await mkdir(sdir);
    const { ingests, baseline } = await s.write(sdir);
    let total = 0;
    let top = 0;
    for (const i of ingests) {
      const r = await ingestProcess(wh, s.dataset, i.files, i.version);
      total += r.ms;
      top = Math.max(top, r.peak);
    }
    const readCsvMs = await readCsvBaselineMs(baseline, s.readCsv);
    rows.push({ case: `ingest ${s.what}, in its own process${ingests.length > 1 ? ' each' : ''}`, value: `${total.toLocaleString('en-US')} ms, peak RSS ${mb(top)}`, baseline: `duckdb read_csv into memory ${readCsvMs.toLocaleString('en-US')} ms${ingests.length > 1 ? ' (one quarter)' : ''}`, ratio: ratio(total / ingests.length, readCsvMs) });
    await rm(sdir, { recursive: true, force: true });
  }
  const seeded = await seededStart();
  const key = await benchKey(join(wh, 'state.sqlite'));
  const t0 = Date.now();
  const api = await spawnApi(wh, { RCM_NPPES_LIVE: '0' });
  const res = await fetch(`${api.url}/v1/npi/${npis[0]}`, { headers: { 'X-API-Key': key } });
  const firstMs = Date.now() - t0;
  if (res.status !== 200) throw new Error(`first NPI answer: ${res.status}`);
  const bare = await spawnBare();
  try {
    rows.push({
      case: `start over every dataset at full size (${providers.toLocaleString('en-US')} providers, ${FULL_OTHERS.map((o) => o.what).join(', ')}) to the first NPI answer`,
      value: `${firstMs.toLocaleString('en-US')} ms, RSS ${mb(await rssOf(api.proc.pid!))}`,
      baseline: `start over the seeds ${seeded.ms.toLocaleString('en-US')} ms, RSS ${mb(seeded.rss)}`,
      ratio: ratio(firstMs, seeded.ms),
    });
    const headers = { 'X-API-Key': key };
    rows.push(...(await firstPassAndWarmCases(`GET /v1/npi/{npi} over ${providers.toLocaleString('en-US')} providers`, api.url, bare.url, shuffle(npis.slice(1).map((n) => `/v1/npi/${n}`), 5), headers)));
    const concepts = conceptQueries().map((q) => `/v1/concepts/umls/search?q=${encodeURIComponent(q)}&limit=20`);
    rows.push(...(await firstPassAndWarmCases(`GET /v1/concepts/umls/search over ${UMLS_ATOMS.toLocaleString('en-US')} atoms`, api.url, bare.url, concepts, headers)));
    rows.push({ case: 'server RSS after the lookups and searches', value: mb(await rssOf(api.proc.pid!)), baseline: mb(seeded.rss), ratio: '' });
  } finally {
    await Promise.all([api.stop(), bare.stop()]);
    await rm(wh, { recursive: true, force: true });
  }
  return rows;
}

