import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { npiProblem } from '../server/npi/provider.js';
import { SqliteStateStore } from '../warehouse/state.js';
import { freePort, waitUntil } from '../testing/harness.js';

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
      env: { ...process.env, RCM_DATA_DIR: dir, RCM_LOG: 'silent', RCM_AGENT_RUNNER: '0', RCM_SNAPSHOT_POLL_MS: '200', RCM_RATE_LIMIT_PER_MIN: '1000000' },
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

  it('only ever serve complete versions while the CLI ingests into their data dir, and a replica started mid-ingest mounts the last complete one', async () => {
    // A full NPPES file of 20,000 providers (the seed's first record under generated NPIs): its
    // ingest stages a version file under tmp/ for a few seconds before it is moved into place.
    const lines = (await readFile(join(ROOT, 'seeds/nppes/npidata_pfile_20050523-20190609.csv'), 'utf8')).split('\r\n');
    const npis: string[] = [];
    for (let i = 0; npis.length < 20_000; i++) {
      const nine = String(200_000_000 + i * 13);
      npis.push(`${nine}${[...'0123456789'].find((d) => npiProblem(`${nine}${d}`) === null)}`);
    }
    const rows = npis.map((n) => lines[1]!.replace('"1720377294"', `"${n}"`));
    const file = join(dir, 'npidata_pfile_20050523-20261108.csv');
    await writeFile(file, `${lines[0]}\r\n${rows.join('\r\n')}\r\n`);
    const before = (await readFile(join(dir, 'CURRENT'), 'utf8')).trim();
    const seen = new Set<string>();
    const statuses = new Set<number>();
    let ingesting = true;
    const ingest = rcm(['ingest', 'nppes', file]).finally(() => (ingesting = false));
    // Every replica asked in a loop while the ingest runs: each answer names a published snapshot.
    const watch = (async () => {
      while (ingesting) {
        for (const m of await Promise.all(replicas.map((r) => meta(r.port)))) {
          statuses.add(m.status);
          if (m.snapshot_id) seen.add(m.snapshot_id);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    // A third replica started while the version is being staged.
    const port = await freePort();
    const late = spawn(process.execPath, [join(ROOT, 'bin/rcm.js'), 'serve', '--port', String(port)], {
      env: { ...process.env, RCM_DATA_DIR: dir, RCM_LOG: 'silent', RCM_AGENT_RUNNER: '0', RCM_SNAPSHOT_POLL_MS: '200', RCM_RATE_LIMIT_PER_MIN: '1000000' },
      stdio: 'ignore',
    });
    expect(ingesting).toBe(true);
    try {
      expect(await waitUntil(async () => (await meta(port)).status === 200, 60_000)).toBe(true);
      const lateFirst = (await meta(port)).snapshot_id;
      expect(await ingest).toBe(0);
      await watch;
      const after = (await readFile(join(dir, 'CURRENT'), 'utf8')).trim();
      expect(after).not.toBe(before);
      expect([before, after]).toContain(lateFirst);
      expect([...statuses]).toEqual([200]);
      expect([...seen].every((id) => id === before || id === after)).toBe(true);
      // Once a replica serves the new snapshot, the version is whole: its last provider answers.
      for (const p of [...replicas.map((r) => r.port), port]) {
        expect(await waitUntil(async () => (await meta(p)).snapshot_id === after, 20_000)).toBe(true);
        const r = await fetch(`http://127.0.0.1:${p}/v1/npi/${npis.at(-1)}`, { headers: { 'X-API-Key': key } });
        expect(((await r.json()) as { found: boolean; source: string }).source).toBe('nppes_local');
      }
    } finally {
      late.kill('SIGKILL');
    }
  }, 120_000);
});
