import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SqliteStateStore } from '../warehouse/state.js';
import { freePort, waitUntil } from './helpers/harness.js';

// Two `rcm serve` replicas over one data dir (the shared-volume deployment, README "Scale-out"):
// a snapshot published once reaches both within the poll interval, and a key made by the CLI works
// on both. Real processes, so waits are bounded in time rather than asserted as thresholds.

const ROOT = resolve(import.meta.dirname, '..');
let dir: string;
let key: string;
const replicas: { proc: ChildProcess; port: number }[] = [];

async function meta(port: number): Promise<{ status: number; snapshot_id?: string }> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/v1/meta`, { headers: { 'X-API-Key': key }, signal: AbortSignal.timeout(2000) });
    return { status: r.status, ...((await r.json()) as { snapshot_id?: string }) };
  } catch {
    return { status: 0 };
  }
}

function rcm(args: string[]): Promise<number> {
  const p = spawn(process.execPath, [join(ROOT, 'bin/rcm.js'), ...args], { env: { ...process.env, RCM_DATA_DIR: dir, RCM_LOG: 'silent' }, stdio: 'ignore' });
  return new Promise((r) => p.on('exit', (code) => r(code ?? -1)));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcm-replicas-'));
  await cp(inject('seededDir'), dir, { recursive: true });
  // A key made outside the servers (as `rcm keys create` does), in the state both share.
  const state = new SqliteStateStore(join(dir, 'state.sqlite'));
  await state.admin.createTenant('replicas');
  key = (await state.admin.createKey({ tenant: 'replicas', type: 'test', scopes: ['knowledge'] })).secret;
  await state.close();
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    const proc = spawn(process.execPath, [join(ROOT, 'bin/rcm.js'), 'serve', '--port', String(port)], {
      env: { ...process.env, RCM_DATA_DIR: dir, RCM_LOG: 'silent', RCM_AGENT_RUNNER: '0', RCM_SNAPSHOT_POLL_MS: '200' },
      stdio: 'ignore',
    });
    replicas.push({ proc, port });
  }
  for (const r of replicas) expect(await waitUntil(async () => (await meta(r.port)).status === 200, 60_000)).toBe(true);
}, 90_000);

afterAll(async () => {
  for (const r of replicas) r.proc.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('two replicas over one data dir', () => {
  it('serve the same snapshot, and both swap to a snapshot published once by the CLI', async () => {
    const before = await Promise.all(replicas.map((r) => meta(r.port)));
    const current = (await readFile(join(dir, 'CURRENT'), 'utf8')).trim();
    expect(before.map((m) => m.snapshot_id)).toEqual([current, current]);
    // A new release of one dataset, published through the CLI into the shared data dir.
    const file = join(dir, 'MRCONSO.2025AB.illustrative.RRF');
    await copyFile(join(ROOT, 'seeds/umls_concepts/MRCONSO.2025AA.illustrative.RRF'), file);
    expect(await rcm(['ingest', 'umls_concepts', file])).toBe(0);
    const next = (await readFile(join(dir, 'CURRENT'), 'utf8')).trim();
    expect(next).not.toBe(current);
    for (const r of replicas) expect(await waitUntil(async () => (await meta(r.port)).snapshot_id === next, 20_000)).toBe(true);
  }, 60_000);
});
