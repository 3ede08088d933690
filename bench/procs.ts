import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seedAll } from '../ingest/seed.js';
import { Warehouse } from '../warehouse/store.js';
import { benchKey, rssOf } from './lib.js';
import type { KeyScope } from '../warehouse/tenant_state.js';

const ROOT = resolve(import.meta.dirname, '..');

export interface Child {
  url: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

function waitFor(proc: ChildProcess, re: RegExp, stream: 'stdout' | 'stderr'): Promise<string> {
  return new Promise((res, rej) => {
    let buf = '';
    const on = (c: Buffer) => {
      buf += c.toString();
      const m = re.exec(buf);
      if (m) {
        proc[stream]!.off('data', on);
        res(m[1]!);
      }
    };
    proc[stream]!.on('data', on);
    proc.once('exit', (code) => rej(new Error(`child exited ${code}: ${buf.slice(-500)}`)));
  });
}

/** Ends a child (once: stopping one that already exited resolves at once). */
const stop = (proc: ChildProcess) => () =>
  new Promise<void>((r) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return r();
    proc.once('exit', () => r());
    proc.kill('SIGTERM');
  });

/** The API server in its own process (the load generator must not share its event loop). */
export async function spawnApi(dataDir: string, env: Record<string, string> = {}): Promise<Child> {
  const proc = spawn(process.execPath, [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), resolve(ROOT, 'bin/rcm.js'), 'serve', '--port', '0'], {
    env: { ...process.env, RCM_DATA_DIR: dataDir, RCM_LOG: 'silent', RCM_RATE_LIMIT_PER_MIN: '100000000', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await waitFor(proc, /on http:\/\/localhost:(\d+)\/v1/, 'stderr');
  return { url: `http://127.0.0.1:${port}`, proc, stop: stop(proc) };
}

/** A baseline server in its own process (`bench/bare.ts`; `args` picks the durable-write or canned-answer route). */
export async function spawnBare(args: string[] = []): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'bench/bare.ts'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await waitFor(proc, /(http:\/\/[\d.]+:\d+)/, 'stdout');
  return { url, proc, stop: stop(proc) };
}

/**
 * The baseline of a start measurement: the API server over the seeds alone, its time to
 * listening and RSS there (what a large dataset's mount-time work is compared with).
 */
export async function seededStart(): Promise<{ ms: number; rss: number }> {
  const seeded = await mkdtemp(join(tmpdir(), 'rcm-bench-seeded-start-'));
  try {
    await seedAll(new Warehouse(seeded), join(ROOT, 'seeds'));
    const t = Date.now();
    const small = await spawnApi(seeded);
    const ms = Date.now() - t;
    const rss = await rssOf(small.proc.pid!);
    await small.stop();
    return { ms, rss };
  } finally {
    await rm(seeded, { recursive: true, force: true });
  }
}

/**
 * A seeded data dir with a bench key, the API server over it and a bare Koa server: what most
 * area benches start from. `stop` ends both and removes the dir.
 */
export async function seededPair(prefix: string, scopes: KeyScope[] = ['knowledge'], env: Record<string, string> = {}): Promise<{ dir: string; key: string; api: Child; bare: Child; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const wh = new Warehouse(dir);
  await seedAll(wh, join(ROOT, 'seeds'));
  const key = await benchKey(wh.path('state.sqlite'), scopes);
  const api = await spawnApi(dir, env);
  const bare = await spawnBare();
  return {
    dir,
    key,
    api,
    bare,
    async stop() {
      await api.stop();
      await bare.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
