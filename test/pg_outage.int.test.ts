import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RosterFields } from '../warehouse/facilities.js';
import { pgFailure } from '../warehouse/pg/sql.js';
import { PgStateStore } from '../warehouse/pg/state.js';
import { freePort, startTestServer, waitUntil, type TestServer } from '../testing/harness.js';
import { PG_URL, pgDatabase } from '../testing/state_stores.js';

describe('PostgreSQL failures the service reads as unavailable', () => {
  it('maps a server that is down, restarting or out of connections to 503 state_unavailable, and nothing else', () => {
    const unavailable = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
    ];
    for (const e of unavailable) expect(pgFailure(e), e.message).toMatchObject({ code: 'state_unavailable', headers: { 'retry-after': '5' } });
    const others = [Object.assign(new Error('duplicate key value'), { code: '23505' }), Object.assign(new Error('syntax error'), { code: '42601' }), new Error('something else')];
    for (const e of others) expect(pgFailure(e)).toBe(e);
  });
});

describe('a state store that cannot be reached at start', () => {
  it('is refused naming where it looked (never the password) and what to check', async () => {
    const port = await freePort(); // nothing listens there
    const err = await PgStateStore.open(`postgres://rcm:s3cret@127.0.0.1:${port}/rcm`).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'state_unavailable' });
    expect((err as Error).message).toContain(`postgres://rcm@127.0.0.1:${port}/rcm`);
    expect((err as Error).message).toMatch(/ECONNREFUSED.*RCM_STATE_URL/);
    expect((err as Error).message).not.toContain('s3cret');
  });
});

/** A TCP relay to PostgreSQL that the test can cut (every connection dropped, new ones refused) and restore. */
async function relay(target: URL): Promise<{ url: string; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  const open = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('error', () => undefined);
          s.on('close', () => {
            sockets.delete(s);
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server!.close(() => resolve());
    });
  await open();
  const url = new URL(target.toString());
  url.port = String(port);
  return { url: url.toString(), cut, restore: open, close: cut };
}

describe.skipIf(!PG_URL)('a PostgreSQL outage', () => {
  let db: Awaited<ReturnType<typeof pgDatabase>>;
  let dataDir: string;
  let link: Awaited<ReturnType<typeof relay>>;
  let s: TestServer;
  beforeAll(async () => {
    db = await pgDatabase('pg_outage');
    dataDir = await mkdtemp(join(tmpdir(), 'rcm-pg-outage-'));
    await cp(inject('seededDir'), dataDir, { recursive: true });
    link = await relay(new URL(db.url));
    s = await startTestServer({ dataDir, stateUrl: link.url });
  });
  afterAll(async () => {
    await s?.srv.close();
    await link?.close();
    await rm(dataDir, { recursive: true, force: true });
    await db?.drop();
  });

  it('answers 503 state_unavailable with Retry-After while PostgreSQL is out of reach (never a 500), and serves again once it is back', async () => {
    expect((await s.request('/v1/codes/99213')).status).toBe(200);
    await link.cut();
    const seen: number[] = [];
    const read = async () => {
      const r = await s.request('/v1/codes/99214');
      seen.push(r.status);
      return r;
    };
    // Bounded wait: the first call may still find a pooled connection the cut has not yet closed.
    expect(await waitUntil(async () => (await read()).body?.code === 'state_unavailable', 10_000)).toBe(true);
    const r = await read();
    expect(r).toMatchObject({ status: 503, body: { code: 'state_unavailable' } });
    expect(r.headers['retry-after']).toBe('5');
    const write = await s.request('/v1/facilities/330101/payers', { method: 'POST', body: { payer_slug: 'aetna' } });
    expect(write).toMatchObject({ status: 503, body: { code: 'state_unavailable' } });
    await s.srv.readiness.refresh();
    expect((await s.request('/v1/health/ready', { key: null })).status).toBe(503);
    expect(seen.filter((x) => x === 500)).toEqual([]);
    await link.restore();
    expect(await waitUntil(async () => (await s.request('/v1/codes/99214')).status === 200, 15_000)).toBe(true);
    expect((await s.request('/v1/facilities/330101/payers', { method: 'POST', body: { payer_slug: 'aetna' } })).status).toBe(201);
  }, 40_000);
});

/** A roster entry's fields (what a POST /v1/facilities/{ccn}/payers stores). */
const roster = (slug: string): RosterFields => ({ payer_slug: slug, payer_name: slug, network_status: 'unknown', effective_date: null, expiration_date: null, notes: null, plan_types: [], is_active: true });

describe.skipIf(!PG_URL)('a PostgreSQL connection cut inside a transaction', () => {
  let db: Awaited<ReturnType<typeof pgDatabase>>;
  let link: Awaited<ReturnType<typeof relay>>;
  let store: PgStateStore;
  const uncaught: unknown[] = [];
  const onUncaught = (e: unknown) => void uncaught.push(e);
  beforeAll(async () => {
    db = await pgDatabase('pg_cut_tx');
    link = await relay(new URL(db.url));
    store = await PgStateStore.open(link.url);
    process.on('uncaughtException', onUncaught);
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    await store?.close();
    await link?.close();
    await db?.drop();
  });

  it('fails the statement with state_unavailable and leaves the process up (a checked-out client\'s error is heard)', async () => {
    const client = await store.pool.connect();
    await client.query('BEGIN');
    await link.cut();
    const err = await client.query('SELECT 1').catch((e: unknown) => e);
    client.release(err as Error);
    expect(pgFailure(err)).toMatchObject({ code: 'state_unavailable' });
    // The socket's close reaches the client as an 'error' event after the query failed: give it a turn.
    await new Promise((r) => setTimeout(r, 50));
    expect(uncaught).toEqual([]);
    await link.restore();
  });

  it('answers every write in flight when the link is cut mid-group (committed or state_unavailable), then writes again', async () => {
    // The previous test's cut may leave a pooled connection to drop first.
    let tenant: Awaited<ReturnType<typeof store.admin.createTenant>> | undefined;
    expect(await waitUntil(async () => (tenant = await store.admin.createTenant(`cut-mid-tx-${Date.now()}`).catch(() => undefined)) !== undefined, 15_000)).toBe(true);
    const view = store.forTenant(tenant!.id, 'test');
    const writes = Array.from({ length: 40 }, (_, i) => view.rosters.upsert('330101', roster(`payer_${i}`), new Date()));
    setTimeout(() => void link.cut(), 5);
    const settled = await Promise.allSettled(writes);
    for (const r of settled) if (r.status === 'rejected') expect(pgFailure(r.reason), String(r.reason)).toMatchObject({ code: 'state_unavailable' });
    await new Promise((r) => setTimeout(r, 50));
    expect(uncaught).toEqual([]);
    await link.restore();
    expect(await waitUntil(async () => view.rosters.upsert('330101', roster('after'), new Date()).then(() => true, () => false), 15_000)).toBe(true);
  }, 30_000);
});


describe.skipIf(!PG_URL)('the in-process job runner while PostgreSQL ends its connections', () => {
  let db: Awaited<ReturnType<typeof pgDatabase>>;
  let dataDir: string;
  let s: TestServer;
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => void unhandled.push(e);
  beforeAll(async () => {
    db = await pgDatabase('pg_runner_kill');
    dataDir = await mkdtemp(join(tmpdir(), 'rcm-pg-runner-kill-'));
    await cp(inject('seededDir'), dataDir, { recursive: true });
    // The runner `rcm serve` runs by default; a short lease so a job whose completion died with its
    // connection is claimed again within the test.
    s = await startTestServer({ dataDir, stateUrl: db.url, agents: { runner: true, pollMs: 20, leaseMs: 1_000 } });
    process.on('unhandledRejection', onUnhandled);
    process.on('uncaughtException', onUnhandled);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    process.off('uncaughtException', onUnhandled);
    await s?.srv.close();
    await rm(dataDir, { recursive: true, force: true });
    await db?.drop();
  });

  it('survives ten pg_terminate_backend kills of its connections while jobs run (no unhandled rejection), then completes every job and serves', async () => {
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const submit = async (ids: string[]) => {
      const r = await s.request('/v1/agents/code-research', { method: 'POST', body: { code: '99213', query: 'units per day?' } });
      // Right after a kill a submit may meet a dead pooled connection: 503, never a 500.
      if (r.status === 202) ids.push(r.body.job_id);
      else expect(r.body, JSON.stringify(r.body)).toMatchObject({ code: 'state_unavailable' });
    };
    const ids: string[] = [];
    let killed = 0;
    try {
      for (let round = 0; round < 10; round++) {
        for (let i = 0; i < 4; i++) await submit(ids);
        // Every session of the service's database but this one: the pool's, the listener's, a claim's.
        const r = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
        killed += r.rowCount ?? 0;
        await new Promise((res) => setTimeout(res, 25));
      }
    } finally {
      await admin.end();
    }
    expect(killed).toBeGreaterThanOrEqual(10);
    // Serves again, and takes new jobs.
    expect(await waitUntil(async () => (await s.request('/v1/codes/99213')).status === 200, 15_000)).toBe(true);
    const after: string[] = [];
    expect(await waitUntil(async () => (await submit(after), after.length > 0), 15_000)).toBe(true);
    const all = [...ids, ...after];
    expect(ids.length).toBeGreaterThan(0);
    const done = async () => {
      for (const id of all) {
        const r = await s.request(`/v1/agents/jobs/${id}`);
        if (r.status !== 200 || r.body.status !== 'completed') return false;
      }
      return true;
    };
    // Bounded: a job whose completion was cut is claimed again once its 1 s lease lapses.
    expect(await waitUntil(done, 30_000)).toBe(true);
    expect(unhandled).toEqual([]);
  }, 60_000);
});
