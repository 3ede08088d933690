import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestFiles } from '../ingest/pipeline.js';
import { Warehouse } from '../warehouse/store.js';
import { benchKey, firstPassAndWarm, ratio, readCsvBaselineMs, rssOf } from './lib.js';
import { seededStart, spawnApi, spawnBare } from './procs.js';

/**
 * Atoms of the generated MRCONSO. A whole UMLS release holds ~16 M atoms (~2 GB), about half of
 * them English; `BENCH_UMLS_ROWS` scales the run.
 */
const ROWS = Number(process.env.BENCH_UMLS_ROWS ?? 2_000_000);

const SYL = ['ab', 'car', 'di', 'neo', 'pul', 'gas', 'tro', 'hep', 'ren', 'os', 'card', 'my', 'en', 'cep', 'ha', 'lo', 'pa', 'thy', 'ro', 'id', 'leu', 'ke', 'mi', 'a'];
const SABS = ['SNOMEDCT_US', 'MSH', 'ICD10CM', 'RXNORM', 'LNC', 'MDR', 'NCI', 'MTH'];

/** Deterministic word `i` of a vocabulary of ~50,000 words. */
const word = (i: number): string => SYL[i % 24]! + SYL[Math.floor(i / 24) % 24]! + SYL[Math.floor(i / 576) % 24]! + (i >= 13824 ? SYL[Math.floor(i / 13824) % 24]! : '');

/** Writes MRCONSO lines in NLM's layout (18 fields and a trailing bar), 80% English, 3% obsolete. */
export async function writeMrconso(path: string, n: number): Promise<void> {
  const out = createWriteStream(path);
  for (let i = 0; i < n; i++) {
    const cui = `C${String(1000000 + Math.floor(i / 3)).padStart(7, '0')}`;
    const words = 2 + (i % 4);
    const str = Array.from({ length: words }, (_, k) => word((i * 7919 + k * 104729) % 50000)).join(' ');
    const lat = i % 5 === 4 ? 'SPA' : 'ENG';
    const sab = SABS[i % SABS.length]!;
    const line = `${cui}|${lat}|P|L${1000000 + i}|PF|S${1000000 + i}|Y|A${10000000 + i}||${i}||${sab}|PT|${sab === 'ICD10CM' ? `X${i % 1000}.${i % 10}` : i}|${str}|0|${i % 33 === 0 ? 'O' : 'N'}||\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** The bench's distinct searches: a word's first four letters, or a whole word and another's first three. */
export const conceptQueries = (): string[] => [...new Set(Array.from({ length: 2000 }, (_, i) => (i % 2 ? word((i * 31) % 50000).slice(0, 4) : `${word((i * 31) % 50000)} ${word((i * 17) % 50000).slice(0, 3)}`)))];

/**
 * UMLS concept search at scale: ingest of a generated MRCONSO (streamed) beside DuckDB's own
 * `read_csv` of the same file; the server's start with the concept index built at mount (time and
 * RSS) beside the same server over the seeds; then searches uncached and warm against the bare route.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-concepts-'));
  const rows: Record<string, string | number>[] = [];
  const mb = (b: number) => `${Math.round(b / 2 ** 20)} MB`;
  try {
    await mkdir(join(dir, 'src'));
    const file = join(dir, 'src', 'MRCONSO.2025AB.RRF');
    await writeMrconso(file, ROWS);
    const wh = new Warehouse(dir);
    const t1 = Date.now();
    const summary = await ingestFiles(wh, { dataset: 'umls_concepts', files: [file] });
    const ingestMs = Date.now() - t1;
    const readCsvMs = await readCsvBaselineMs([file], `header=false, all_varchar=true, delim='|', quote='', escape=''`);
    rows.push({
      case: `ingest a generated MRCONSO.RRF: ${summary.rows.toLocaleString('en-US')} atoms, ${mb((await stat(file)).size)} (streamed line by line; the word table built); baseline duckdb read_csv into memory`,
      'req/s': `${Math.round(summary.rows / (ingestMs / 1000)).toLocaleString('en-US')} rows/s`,
      'p50 ms': ingestMs,
      'bare req/s': `${readCsvMs} ms`,
      'ratio vs bare': ratio(ingestMs, readCsvMs),
    });
    const key = await benchKey(wh.path('state.sqlite'));
    const seeded = await seededStart();
    const t2 = Date.now();
    const api = await spawnApi(dir);
    const startMs = Date.now() - t2;
    const bare = await spawnBare();
    try {
      rows.push({
        case: `server start to listening over ${summary.rows.toLocaleString('en-US')} atoms (RSS after); baseline the server over the seeds`,
        'req/s': `RSS ${mb(await rssOf(api.proc.pid!))}`,
        'p50 ms': startMs,
        'bare req/s': `${seeded.ms} ms, ${mb(seeded.rss)}`,
        'ratio vs bare': ratio(startMs, seeded.ms),
      });
      const paths = conceptQueries().map((q) => `/v1/concepts/umls/search?q=${encodeURIComponent(q)}&limit=20`);
      const headers = { 'X-API-Key': key };
      rows.push(...(await firstPassAndWarm('GET /v1/concepts/umls/search, distinct queries (a word prefix, or a word and a prefix)', api.url, bare.url, paths, headers)));
    } finally {
      await api.stop();
      await bare.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
