import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { X12Parser } from 'node-x12';
import { seedAll } from '../ingest/seed.js';
import { read837 } from '../server/claims/read837.js';
import { checkClaims } from '../server/claims/service.js';
import { Trace } from '../server/trace.js';
import { MountedSnapshot } from '../warehouse/snapshot.js';
import { Warehouse } from '../warehouse/store.js';
import { generated837 } from '../testing/x12.js';
import { median } from './lib.js';

const ROOT = resolve(import.meta.dirname, '..');

const seconds = async (fn: () => unknown | Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
};

/** Heap used after a full collection (MB), when the process runs with --expose-gc. */
const heapMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

/**
 * The claim check of a generated 10,000-claim 837 (50,000 lines, each claim with a bundled line),
 * beside a parse-only pass of node-x12 (the most used X12 parser for Node) over the same file in the
 * same run: reading alone, checking in this process (every check, every line priced at a locality),
 * and `rcm claim check` as a process (start, mount, check, CSV).
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const rows: Record<string, string | number>[] = [];
  const row = (measure: string, figure: string, baseline: string, ratio: string) => rows.push({ measure, figure, 'baseline (same run)': baseline, ratio });
  const claims = 10_000;
  const big = generated837(claims);
  const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-claims-'));
  try {
    const wh = new Warehouse(dir);
    await seedAll(wh, join(ROOT, 'seeds'));
    const file = join(dir, 'big.837');
    await writeFile(file, big);
    const lib = median([await seconds(() => new X12Parser(true).parse(big)), await seconds(() => new X12Parser(true).parse(big)), await seconds(() => new X12Parser(true).parse(big))]);
    const base = `node-x12 1.7.1 parse ${lib.toFixed(3)} s`;
    const readAll = () => {
      let n = 0;
      for (const c of read837(big).each()) n += c.lines.length;
      return n;
    };
    const read = median([await seconds(readAll), await seconds(readAll), await seconds(readAll)]);
    row(`read, ${claims.toLocaleString('en-US')} claims (${(big.length / 2 ** 20).toFixed(1)} MB): every claim built and let go`, `${read.toFixed(3)} s (${Math.round(claims / read)} claims/s)`, base, (read / lib).toFixed(2));
    const snapshot = await MountedSnapshot.open(wh, (await wh.current())!, { connections: 1, threads: 1 });
    try {
      const check = () => checkClaims(snapshot, big, { asOf: '2026-08-20', today: '2026-08-20', where: { locality: '1320201' }, trace: new Trace(snapshot, () => new Date()) });
      const before = heapMb();
      const first = await seconds(check);
      const after = heapMb();
      const checked = median([first, await seconds(check), await seconds(check)]);
      row('checked in this process (every check, every line priced at locality 1320201; median of 3)', `${checked.toFixed(2)} s (${Math.round(claims / checked)} claims/s)`, base, (checked / lib).toFixed(2));
      row('heap held after one check, the answer let go (with --expose-gc)', (globalThis as { gc?: unknown }).gc ? `${(after - before).toFixed(1)} MB` : 'NODE_OPTIONS=--expose-gc to measure', `${(big.length / 2 ** 20).toFixed(1)} MB file`, (globalThis as { gc?: unknown }).gc ? ((after - before) / (big.length / 2 ** 20)).toFixed(2) : '-');
    } finally {
      snapshot.close();
    }
    const cli = await new Promise<{ s: number; rssMb: number }>((res, rej) => {
      const t0 = performance.now();
      const child = spawn('/usr/bin/time', ['-f', '%M', process.execPath, resolve(ROOT, 'bin/rcm.js'), 'claim', 'check', file, '--format', 'csv', '--locality', '1320201'], { env: { ...process.env, RCM_DATA_DIR: dir }, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('error', rej);
      child.on('exit', (code) => (code === 0 ? res({ s: (performance.now() - t0) / 1000, rssMb: Math.round(Number(/(\d+)\s*$/.exec(err.trim())?.[1] ?? 0) / 1024) }) : rej(new Error(`rcm claim check exited ${code}: ${err.slice(-300)}`))));
    });
    row('checked by `rcm claim check` (start, mount, check, CSV)', `${cli.s.toFixed(2)} s, peak RSS ${cli.rssMb} MB`, base, (cli.s / lib).toFixed(2));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
