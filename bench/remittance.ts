import { spawn, spawnSync } from 'node:child_process';
import { stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { X12Parser } from 'node-x12';
import { freshDist } from '../cli/build.mjs';
import { REMIT_DATASETS } from '../server/remittances/datasets.js';
import { explainFile } from '../server/remittances/service.js';
import { readX12 } from '../server/remittances/x12.js';
import { Trace } from '../server/trace.js';
import { MountedSnapshot } from '../warehouse/snapshot.js';
import { Warehouse } from '../warehouse/store.js';
import { generated835 } from '../testing/x12.js';
import { load, median, paired, rssOf } from './lib.js';
import { seededPair } from './procs.js';

const ROOT = resolve(import.meta.dirname, '..');

const seconds = async (fn: () => unknown | Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
};

/** Wall time (ms) of a whole process, `args` run by this Node; throws when it fails. */
function processMs(args: string[], env: Record<string, string>): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_OPTIONS: '', ...env } });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return performance.now() - t;
}

/**
 * A small file through the CLI, the time a person waits: `rcm remit explain` on the README's
 * sample 835, 1.7 KB (process start, snapshot mount, explanation, text), beside `node -e ''` in
 * the same run (runs alternated, medians of 7); then the mount alone, the datasets an explanation
 * reads (`REMIT_DATASETS`) against the whole snapshot, in this process.
 */
async function smallFileRows(dir: string, row: (measure: string, figure: string, baseline: string, ratio: string) => void): Promise<void> {
  const file = join(ROOT, 'samples/remittance/medicare.835');
  const kb = (await stat(file)).size / 1024;
  const cli = [resolve(ROOT, 'bin/rcm.js'), 'remit', 'explain', file, '--as-of', '2026-08-10', '--locality', '1320201'];
  const compiled = freshDist(ROOT) !== null;
  const explain: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < 7; i++) {
    explain.push(processMs(cli, { RCM_DATA_DIR: dir }));
    bare.push(processMs(['-e', ''], {}));
  }
  const [e, b] = [median(explain), median(bare)];
  const ran = compiled === (freshDist(ROOT) !== null) ? (compiled ? 'dist/ (compiled)' : 'tsx: dist/ is stale or missing (npm run build)') : 'dist/ or tsx: the sources changed during the run';
  row(`a ${kb.toFixed(1)} KB remittance (samples/remittance/medicare.835) by \`rcm remit explain\` (process start included; median of 7, ${ran})`, `${Math.round(e)} ms`, `\`node -e ''\` ${Math.round(b)} ms`, (e / b).toFixed(1));
  const wh = new Warehouse(dir);
  const manifest = (await wh.current())!;
  const mount = async (datasets?: readonly string[]) => {
    const t = performance.now();
    (await MountedSnapshot.open(wh, manifest, { connections: 1, threads: 1, datasets })).close();
    return performance.now() - t;
  };
  const subset: number[] = [];
  const whole: number[] = [];
  for (let i = 0; i < 5; i++) {
    subset.push(await mount(REMIT_DATASETS));
    whole.push(await mount());
  }
  row(`the snapshot mount of \`rcm remit explain\`: the ${REMIT_DATASETS.length} datasets an explanation reads (median of 5)`, `${Math.round(median(subset))} ms`, `all ${Object.keys(manifest.datasets).length} datasets ${Math.round(median(whole))} ms`, (median(subset) / median(whole)).toFixed(2));
}

/**
 * Remittances: the 1.7 KB sample through `rcm remit explain` beside a bare Node start; a
 * 10,000-claim 835 (50,000 lines) explained through `rcm remit explain` and over HTTP, claims per
 * second, beside parse-only with the reader the service uses and with node-x12 (the most used X12
 * library on npm) in the same run; the CLI's peak RSS; a 20-claim remittance
 * over HTTP at 16 connections beside the bare Koa route.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const rows: Record<string, string | number>[] = [];
  const big = generated835(10_000);
  const claims = 10_000;
  const p = await seededPair('rcm-bench-remit-');
  try {
    const file = join(p.dir, 'big.835');
    await writeFile(file, big);
    // Parse only, medians of 3: the service's reader, and node-x12's parser.
    // The service's reader: the envelope pass, then every segment of every transaction split into its elements.
    const parseAll = () => {
      let n = 0;
      for (const t of readX12(big).transactions) for (const seg of t.each()) n += seg.el.length;
      return n;
    };
    const own = median([await seconds(parseAll), await seconds(parseAll), await seconds(parseAll)]);
    const lib = median([await seconds(() => new X12Parser(true).parse(big)), await seconds(() => new X12Parser(true).parse(big)), await seconds(() => new X12Parser(true).parse(big))]);
    const row = (measure: string, figure: string, baseline: string, ratio: string) => rows.push({ measure, figure, 'baseline (same run)': baseline, ratio });
    row('parse only, 10,000 claims (50,000 lines): the service reader, every segment read and let go', `${own.toFixed(3)} s (${Math.round(claims / own)} claims/s)`, `node-x12 1.7.1 ${lib.toFixed(3)} s (${Math.round(claims / lib)} claims/s)`, (own / lib).toFixed(2));
    // The same reader holding every segment, as a parser that hands back a tree (node-x12) does.
    const holdAll = () => readX12(big).transactions.map((t) => t.segments);
    const held = median([await seconds(holdAll), await seconds(holdAll), await seconds(holdAll)]);
    row('parse only, every segment held (a tree, as node-x12 gives)', `${held.toFixed(3)} s`, `node-x12 1.7.1 ${lib.toFixed(3)} s`, (held / lib).toFixed(2));

    // Explained through the CLI (a process of its own: its start and snapshot mount included), peak RSS from /usr/bin/time.
    const cli = await new Promise<{ s: number; rssMb: number }>((res, rej) => {
      const t0 = performance.now();
      const child = spawn('/usr/bin/time', ['-f', '%M', process.execPath, resolve(ROOT, 'bin/rcm.js'), 'remit', 'explain', file, '--format', 'csv'], { env: { ...process.env, RCM_DATA_DIR: p.dir }, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('error', rej);
      child.on('exit', (code) => (code === 0 ? res({ s: (performance.now() - t0) / 1000, rssMb: Math.round(Number(/(\d+)\s*$/.exec(err.trim())?.[1] ?? 0) / 1024) }) : rej(new Error(`rcm remit explain exited ${code}: ${err.slice(-300)}`))));
    });
    await smallFileRows(p.dir, row);
    row('explained by `rcm remit explain` (start, mount, explain, CSV)', `${cli.s.toFixed(2)} s (${Math.round(claims / cli.s)} claims/s), peak RSS ${cli.rssMb} MB`, `parse-only ${own.toFixed(3)} s`, (cli.s / own).toFixed(1));

    // In this process: read, explain and link, without a process start, a mount or the JSON text.
    const snapshot = await MountedSnapshot.open(new Warehouse(p.dir), (await new Warehouse(p.dir).current())!, { connections: 1, threads: 1 });
    try {
      const inProcess = median([
        await seconds(() => explainFile(snapshot, big, '2026-01-10', new Trace(snapshot, () => new Date()))),
        await seconds(() => explainFile(snapshot, big, '2026-01-10', new Trace(snapshot, () => new Date()))),
        await seconds(() => explainFile(snapshot, big, '2026-01-10', new Trace(snapshot, () => new Date()))),
      ]);
      // Every line priced: the payee's locality given, so each HCPCS line goes through the payment composition.
      const priced = median([
        await seconds(() => explainFile(snapshot, big, '2026-01-10', new Trace(snapshot, () => new Date()), { locality: '1320201' })),
        await seconds(() => explainFile(snapshot, big, '2026-01-10', new Trace(snapshot, () => new Date()), { locality: '1320201' })),
        await seconds(() => explainFile(snapshot, big, '2026-01-10', new Trace(snapshot, () => new Date()), { locality: '1320201' })),
      ]);
      row('explained in this process, every line priced (locality 1320201; median of 3)', `${priced.toFixed(2)} s (${Math.round(claims / priced)} claims/s)`, `node-x12 1.7.1 parse ${lib.toFixed(3)} s`, (priced / lib).toFixed(2));
      row('explained in this process (read, explain, link; median of 3)', `${inProcess.toFixed(2)} s (${Math.round(claims / inProcess)} claims/s)`, `parse-only ${own.toFixed(3)} s`, (inProcess / own).toFixed(1));
    } finally {
      snapshot.close();
    }

    const http = await seconds(async () => {
      const r = await fetch(`${p.api.url}/v1/remittances/explain`, { method: 'POST', headers: { 'X-API-Key': p.key, 'Content-Type': 'application/edi-x12' }, body: big });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`explain answered ${r.status}`);
    });
    row('explained over HTTP (one request, 10,000 claims)', `${http.toFixed(2)} s (${Math.round(claims / http)} claims/s)`, `parse-only ${own.toFixed(3)} s`, (http / own).toFixed(1));

    // The largest file the route takes (RCM_REMIT_MAX_MB 25): 65,000 claims in 24.8 MB, its answer and the server's peak RSS.
    const largest = generated835(65_000);
    let answerBytes = 0;
    const whole = await seconds(async () => {
      const r = await fetch(`${p.api.url}/v1/remittances/explain`, { method: 'POST', headers: { 'X-API-Key': p.key, 'Content-Type': 'application/edi-x12' }, body: largest });
      answerBytes = (await r.arrayBuffer()).byteLength;
      if (r.status !== 200) throw new Error(`explain answered ${r.status}`);
    });
    const peak = await rssOf(p.api.proc.pid!, 'VmHWM');
    row(
      'the largest 835 taken over HTTP (24.8 MB, 65,000 claims)',
      `${whole.toFixed(1)} s, answer ${Math.round(answerBytes / 1e6)} MB, server peak RSS ${Math.round(peak / 2 ** 20)} MB`,
      `the 10,000-claim file ${http.toFixed(2)} s`,
      (whole / http).toFixed(1),
    );

    // A 20-claim remittance at 16 connections, beside the bare Koa route.
    const small = generated835(20);
    const post = (headers: Record<string, string>) => ({ paths: ['/v1/remittances/explain'], method: 'POST', bodies: [small], connections: 16, seconds: 5, headers: { 'Content-Type': 'application/edi-x12', ...headers } });
    const r = await paired(
      3,
      () => load('bare', p.bare.url, post({})),
      () => load('explain', p.api.url, post({ 'X-API-Key': p.key })),
    );
    // A 503 answers fast: a run that was refused is reported as such, never as throughput.
    const refused = r.subject.non_2xx + r.subject.errors;
    row('POST /v1/remittances/explain, 20 claims, 16 conns (median of 3)', `${r.subject.requests_per_s} req/s, p99 ${r.subject.p99_ms} ms${refused ? `, ${refused} refused or failed` : ''}`, `bare ${r.base.requests_per_s} req/s`, r.ratio.toFixed(2));
  } finally {
    await p.stop();
  }
  return rows;
}
