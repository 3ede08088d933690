import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ingestFiles } from '../ingest/pipeline.js';
import { seedAll } from '../ingest/seed.js';
import { sharedDataDir } from '../testing/shared.js';
import { Warehouse } from '../warehouse/store.js';
import { benchKey, gpciLocalities, heapOf, load, rssOf, rvuCodes, shuffle } from './lib.js';
import { spawnApi } from './procs.js';

const ROOT = resolve(import.meta.dirname, '..');
const SHARED = sharedDataDir();
const REAL_RVU = join(SHARED, 'mpfs-rvu/PPRRVU2025_Oct.csv');
const REAL_GPCI = join(SHARED, 'gpci/GPCI2026.csv');
const UNIQUE = 100_000;
const MB = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;

/**
 * Memory under a stream of distinct valid requests: 100,000 unique payment URLs (code x
 * locality x date of service x QPP flag) against one server. Every answer is cacheable, so
 * without byte bounds the answer cache and memos would grow with each one; the figure is the
 * server's RSS after the stream, above its RSS when idle (target: under 300 MB).
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const real = existsSync(REAL_RVU) && existsSync(REAL_GPCI);
  const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-memory-'));
  const wh = new Warehouse(dir);
  await seedAll(wh, join(ROOT, 'seeds'));
  if (real) {
    await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [REAL_RVU], replace: true });
    await ingestFiles(wh, { dataset: 'gpci', files: [REAL_GPCI], replace: true });
  }
  const key = await benchKey(wh.path('state.sqlite'));
  const adminKey = await benchKey(wh.path('state.sqlite'), ['admin']);
  const codes = shuffle(await rvuCodes(real ? REAL_RVU : join(ROOT, 'seeds/mpfs_rvu/PPRRVU2025_Oct.csv')));
  const localities = await gpciLocalities(real ? REAL_GPCI : join(ROOT, 'seeds/gpci/GPCI2026.csv'));
  const seen = new Set<string>();
  let n = 0;
  while (seen.size < UNIQUE) {
    const c = codes[n % codes.length]!;
    const l = localities[Math.floor(n / codes.length) % localities.length]!;
    const day = 1 + (Math.floor(n / (codes.length * localities.length)) % 28);
    seen.add(`/v1/codes/${c}/payment?locality=${l}&date_of_service=2026-02-${String(day).padStart(2, '0')}&qpp_flag=${n % 2}`);
    n++;
  }
  const paths = shuffle([...seen], 11);
  const api = await spawnApi(dir);
  const pid = api.proc.pid!;
  const rows: Record<string, string | number>[] = [];
  try {
    const headers = { 'X-API-Key': key };
    const started = await rssOf(pid);
    await fetch(`${api.url}/v1/codes/99213/payment?locality=${localities[0]}`, { headers });
    const idle = await rssOf(pid);
    const h0 = await heapOf(api.url, adminKey);
    const r = await load('unique', api.url, { paths, headers, connections: 16, amount: paths.length });
    const after = await rssOf(pid);
    const h1 = await heapOf(api.url, adminKey);
    const over = after - idle;
    rows.push({ measure: 'RSS at start', value: MB(started), note: '' });
    rows.push({
      measure: 'RSS idle (after the first request built the per-snapshot indexes)',
      value: MB(idle),
      note: `${real ? 'real PPRRVU2025_Oct + GPCI2026' : 'seeds only'}; heap used ${MB(h0.heapUsed)} of ${MB(h0.heapTotal)}, external ${MB(h0.external)}`,
    });
    rows.push({
      measure: `RSS after ${paths.length.toLocaleString('en-US')} unique valid payment URLs`,
      value: MB(after),
      note: `${MB(over)} above idle (target < 300 MB): ${over < 300 * 1024 * 1024 ? 'met' : 'NOT met'}; heap used ${MB(h1.heapUsed)} of ${MB(h1.heapTotal)}, external ${MB(h1.external)}; ${r.requests_per_s} req/s, ${r.non_2xx} non-2xx`,
    });
  } finally {
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
