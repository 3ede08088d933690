import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { zipBytes } from '../testing/zips.js';
import { sharedDataDir } from '../testing/shared.js';
import { median } from './lib.js';

const ROOT = resolve(import.meta.dirname, '..');

/** The files of CMS's RVU25D release that ../shared/data holds, each with the dataset that reads it. */
const RVU25D: [string, string][] = [
  ['mpfs-rvu/PPRRVU2025_Oct.csv', 'mpfs_rvu'],
  ['gpci/GPCI2025.csv', 'gpci'],
  ['gpci/25LOCCO.csv', 'locality_county'],
  ['mpfs-rvu/ANES2025.csv', 'anesthesia_cf'],
  ['mpfs-rvu/OPPSCAP_Oct.csv', 'opps_cap'],
];

/** The median of `n` sequential runs of `fn` (each returns its own time, ms). */
async function medianOf(n: number, fn: () => Promise<number>): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) xs.push(await fn());
  return median(xs);
}

/** `rcm ARGS` in its own process over `dir`: wall time (ms); a failure throws with its stderr. */
async function rcm(dir: string, args: string[]): Promise<number> {
  const t0 = performance.now();
  const p = spawn(process.execPath, [join(ROOT, 'bin/rcm.js'), ...args], { env: { ...process.env, RCM_DATA_DIR: dir, RCM_LOG: 'silent' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  p.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
  const [code] = (await once(p, 'exit')) as [number];
  if (code !== 0) throw new Error(`rcm ${args.join(' ')} exited ${code}: ${err}`);
  return performance.now() - t0;
}

/**
 * A whole release in one command: RVU25D's five files (as a zip) by `rcm ingest RVU25D.zip`, against
 * the same five files by five `rcm ingest <dataset> FILE` commands and DuckDB's own `read_csv` of the
 * five (same run, medians of 3, each into an empty data dir); the dry run of every file of
 * ../shared/data as one release; `rcm verify dmepos` of DMEPOS25_APR.csv (186,083 state rows)
 * against DuckDB reading the file.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const shared = sharedDataDir();
  if (!RVU25D.every(([f]) => existsSync(join(shared, f)))) return [{ measure: 'release', figure: 'no ../shared/data: skipped', baseline: '', ratio: '' }];
  const rows: Record<string, string | number>[] = [];
  const row = (measure: string, figure: string, baseline: string, ratio: string) => rows.push({ measure, figure, 'baseline (same run)': baseline, ratio });
  const work = await mkdtemp(join(tmpdir(), 'rcm-bench-release-'));
  try {
    const zip = join(work, 'RVU25D.zip');
    await writeFile(zip, await zipBytes(await Promise.all(RVU25D.map(async ([f]) => [f.split('/').pop()!, await readFile(join(shared, f))] as [string, Buffer]))));
    let n = 0;
    const fresh = () => join(work, `d${n++}`);
    const release = await medianOf(3, () => rcm(fresh(), ['ingest', zip]));
    const separate = await medianOf(3, async () => {
      const dir = fresh();
      let ms = 0;
      for (const [f, id] of RVU25D) ms += await rcm(dir, ['ingest', id, join(shared, f), ...(id === 'opps_cap' ? ['--version', '2025D', '--effective-date', '2025-10-01'] : [])]);
      return ms;
    });
    const readCsv = await medianOf(3, async () => {
      const inst = await DuckDBInstance.create(':memory:');
      const c = await inst.connect();
      const t0 = performance.now();
      for (const [f] of RVU25D) await c.run(`CREATE OR REPLACE TABLE t AS SELECT * FROM read_csv('${join(shared, f).replace(/'/g, "''")}', header=false, all_varchar=true, null_padding=true, strict_mode=false)`);
      const ms = performance.now() - t0;
      c.closeSync();
      inst.closeSync();
      return ms;
    });
    row('`rcm ingest RVU25D.zip` (5 datasets, 35,616 rows, one snapshot) / the same files by 5 `rcm ingest` commands', `${(release / 1000).toFixed(2)} s / ${(separate / 1000).toFixed(2)} s`, `DuckDB read_csv of the 5 files ${readCsv.toFixed(0)} ms`, `${(release / separate).toFixed(2)} of separate; ${(release / readCsv).toFixed(1)} of read_csv`);
    const all = await medianOf(3, () => rcm(fresh(), ['ingest', shared, '--dry-run', '--skip-failed']));
    row('`rcm ingest ../shared/data --dry-run`: every file (31 MB, 154 files: 21 versions staged and diffed, 7 refused with their commands)', `${(all / 1000).toFixed(2)} s`, `the RVU25D release ${(release / 1000).toFixed(2)} s`, (all / release).toFixed(2));
    const dmeDir = fresh();
    const dme = join(shared, 'dmepos/DMEPOS25_APR.csv');
    await rcm(dmeDir, ['ingest', 'dmepos', dme]);
    const verify = await medianOf(3, () => rcm(dmeDir, ['verify', 'dmepos', dme, '--json']));
    const read = await medianOf(3, async () => {
      const inst = await DuckDBInstance.create(':memory:');
      const c = await inst.connect();
      const t0 = performance.now();
      await c.run(`CREATE TABLE t AS SELECT * FROM read_csv('${dme.replace(/'/g, "''")}', header=false, all_varchar=true, null_padding=true, strict_mode=false)`);
      const ms = performance.now() - t0;
      c.closeSync();
      inst.closeSync();
      return ms;
    });
    row('`rcm verify dmepos DMEPOS25_APR.csv` (186,083 state rows through the DME route lookup)', `${(verify / 1000).toFixed(2)} s`, `DuckDB read_csv of the file ${read.toFixed(0)} ms`, (verify / read).toFixed(1));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return rows;
}
