import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PgStateStore } from '../warehouse/pg/state.js';
import { waitUntil } from '../testing/harness.js';
import { freePort } from '../testing/pg_cluster.js';
import { startReceiver } from '../testing/receiver.js';
import { PG_URL, pgDatabase } from '../testing/state_stores.js';

// Two real `rcm serve` processes on one PostgreSQL state store and one data dir (the
// end-to-end proof). Real processes: waits are bounded in time, not asserted as thresholds.

const ROOT = resolve(import.meta.dirname, '..');
const LIMIT = 99; // per key and minute: under 100, replicas reserve one token per round trip (exact)

async function call(port: number, path: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    return { status: r.status, body: await r.json() };
  } catch {
    return { status: 0, body: null };
  }
}

describe.skipIf(!PG_URL)('two rcm serve processes on one PostgreSQL state store', () => {
  let db: Awaited<ReturnType<typeof pgDatabase>>;
  let dir: string;
  let store: PgStateStore;
  const replicas: { proc: ChildProcess; port: number }[] = [];
  const env = () => ({ ...process.env, RCM_DATA_DIR: dir, RCM_STATE_URL: db.url, RCM_LOG: 'silent' });
  const newKey = async () => (await store.admin.createKey({ tenant: 'replicas', type: 'test', scopes: ['knowledge', 'agents'] })).secret;

  beforeAll(async () => {
    db = await pgDatabase('pg_replicas_process');
    dir = await mkdtemp(join(tmpdir(), 'rcm-pg-procs-'));
    await cp(inject('seededDir'), dir, { recursive: true });
    store = await PgStateStore.open(db.url, undefined, 2);
    await store.admin.createTenant('replicas');
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const proc = spawn(process.execPath, [join(ROOT, 'bin/rcm.js'), 'serve', '--port', String(port)], {
        env: { ...env(), RCM_RATE_LIMIT_PER_MIN: String(LIMIT), RCM_AGENT_LEASE_MS: '2000' },
        stdio: 'ignore',
        detached: true, // its own process group: a kill reaches the re-executed server too
      });
      replicas.push({ proc, port });
    }
    const key = await newKey();
    for (const r of replicas) expect(await waitUntil(async () => (await call(r.port, '/v1/meta', key)).status === 200, 60_000)).toBe(true);
  }, 90_000);

  afterAll(async () => {
    for (const r of replicas) {
      try {
        process.kill(-r.proc.pid!, 'SIGKILL');
      } catch {
        // already gone (the SIGKILL test)
      }
    }
    await store?.close();
    await rm(dir, { recursive: true, force: true });
    await db?.drop();
  });

  it('a key made by the CLI process works on both', async () => {
    const p = spawn(process.execPath, [join(ROOT, 'bin/rcm.js'), 'keys', 'create', '--tenant', 'replicas', '--scopes', 'knowledge'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    expect(await new Promise((r) => p.on('exit', r))).toBe(0);
    const secret = /kp_test_[A-Za-z0-9]{32}/.exec(out)![0];
    for (const r of replicas) expect((await call(r.port, '/v1/meta', secret)).status).toBe(200);
  }, 30_000);

  it("reads on B a roster write made on A, past B's cached answer", async () => {
    const key = await newKey();
    const path = '/v1/facilities/330101/payers';
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    expect((await call(b.port, path, key)).body.payers).toEqual([]); // cached on B under the tenant's generation
    expect((await call(a.port, path, key, { payer_slug: 'aetna' })).status).toBe(201);
    // The notification takes milliseconds (the README's bound is 200 ms); the wait is only bounded, not timed.
    expect(await waitUntil(async () => ((await call(b.port, path, key)).body?.payers ?? []).length === 1, 5_000)).toBe(true);
  }, 30_000);

  it('holds the per-key limit across both: N + 1 requests split over A and B get one 429', async () => {
    const key = await newKey();
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) statuses.push((await call(replicas[i % 2]!.port, '/v1/meta', key)).status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
  }, 60_000);

  it('a job submitted on A, with runners on both, keeps one result and sends one delivery', async () => {
    const rx = await startReceiver('replica-secret');
    try {
      const key = await newKey();
      const r = await call(replicas[0]!.port, '/v1/agents/code-research', key, { code: '99213', callback_url: rx.url, callback_secret: 'replica-secret' });
      expect(r.status).toBe(202);
      let job: any = null;
      expect(
        await waitUntil(async () => {
          job = (await call(replicas[1]!.port, `/v1/agents/jobs/${r.body.job_id}`, key)).body;
          return job?.callback?.state === 'delivered' || job?.callback_state === 'delivered' || rx.received.length > 0;
        }, 30_000),
      ).toBe(true);
      await new Promise((res) => setTimeout(res, 1500)); // a second delivery, if any, would come now
      expect(rx.received).toHaveLength(1);
      expect(rx.received[0]!.signatureValid).toBe(true);
      const stored = await store.forTenant((await store.admin.getTenant('replicas')).id, 'test').jobs.get(r.body.job_id);
      expect(stored).toMatchObject({ status: 'completed', runs: 1, callback_state: 'delivered' });
      expect(stored.callback_attempts).toHaveLength(1);
    } finally {
      await rx.close();
    }
  }, 60_000);

  it('SIGKILL of A during a burst of writes loses no acknowledged write', async () => {
    const key = await newKey();
    const acked: string[] = [];
    let stop = false;
    const writer = async () => {
      while (!stop) {
        const r = await call(replicas[0]!.port, '/v1/facilities/330101/pa-overrides', key, { code: '70553', pa_required: true });
        if (r.status === 201) acked.push(r.body.id as string);
        else if (r.status === 0) return; // A is gone
      }
    };
    const writers = [writer(), writer(), writer()];
    await waitUntil(async () => acked.length >= 10, 20_000);
    process.kill(-replicas[0]!.proc.pid!, 'SIGKILL');
    stop = true;
    await Promise.all(writers);
    expect(acked.length).toBeGreaterThanOrEqual(10);
    expect(acked.length).toBeLessThan(LIMIT);
    const listed = await call(replicas[1]!.port, '/v1/facilities/330101/pa-overrides', key);
    expect(listed.status).toBe(200);
    const ids = new Set((listed.body.overrides as { id: string }[]).map((o) => o.id));
    expect(acked.filter((id) => !ids.has(id))).toEqual([]);
  }, 60_000);
});
