import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { main, type CliIO } from '../cli/main.js';
import { stateLocationOf } from '../warehouse/open_state.js';
import { PgStateStore } from '../warehouse/pg/state.js';
import { TestClock } from '../testing/clock.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { PG_URL, pgDatabase } from '../testing/state_stores.js';

async function rcm(env: Record<string, string>, ...argv: string[]) {
  const o = { out: '', err: '' };
  const io: CliIO = { isTTY: false, env, stdout: (s) => void (o.out += s), stderr: (s) => void (o.err += s) };
  const code = await main(argv, io);
  return { code, ...o };
}

describe('RCM_STATE_URL', () => {
  it('is SQLite in the data dir when unset, PostgreSQL for a postgres:// URL, and a clear error otherwise', async () => {
    expect(stateLocationOf('/data')).toEqual({ engine: 'sqlite', file: '/data/state.sqlite' });
    expect(stateLocationOf('/data', 'postgresql://rcm@db:5432/rcm')).toEqual({ engine: 'postgres', url: 'postgresql://rcm@db:5432/rcm' });
    expect(() => stateLocationOf('/data', 'mysql://db/rcm')).toThrow(/validation/);
    const dir = await mkdtemp(join(tmpdir(), 'rcm-state-url-'));
    try {
      const r = await rcm({ RCM_DATA_DIR: dir, RCM_STATE_URL: 'mysql://db/rcm' }, 'tenants', 'list');
      expect(r.code).not.toBe(0);
      expect(r.err).toContain('RCM_STATE_URL');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!PG_URL)('two replicas on one PostgreSQL state store', () => {
  let db: Awaited<ReturnType<typeof pgDatabase>>;
  let dataDir: string;
  let a: TestServer;
  let b: TestServer;
  // A clock that never moves: the 200 ms generation memo never lapses, so only the commit's
  // notification can make replica B see replica A's write.
  const clock = new TestClock();
  beforeAll(async () => {
    db = await pgDatabase('pg_replicas');
    dataDir = await mkdtemp(join(tmpdir(), 'rcm-pg-replicas-'));
    await cp(inject('seededDir'), dataDir, { recursive: true });
    const start = () => startTestServer({ dataDir, stateUrl: db.url, now: clock.now, rateLimitPerMin: 7 });
    [a, b] = await Promise.all([start(), start()]);
  });
  afterAll(async () => {
    await Promise.all([a?.srv.close(), b?.srv.close()]);
    await rm(dataDir, { recursive: true, force: true });
    await db.drop();
  });

  it('opens PostgreSQL for both, and a key the CLI creates there works on both', async () => {
    expect(a.srv.state).toBeInstanceOf(PgStateStore);
    const env = { RCM_DATA_DIR: dataDir, RCM_STATE_URL: db.url };
    expect((await rcm(env, 'tenants', 'create', 'cli-tenant')).code).toBe(0);
    const created = await rcm(env, 'keys', 'create', '--tenant', 'cli-tenant', '--type', 'test', '--scopes', 'knowledge');
    expect(created.code).toBe(0);
    const secret = /kp_test_[A-Za-z0-9]{32}/.exec(created.out + created.err)![0];
    for (const s of [a, b]) expect((await s.request('/v1/meta', { key: secret })).status).toBe(200);
  });

  it("reads on B a roster write made on A, past B's cached answer", async () => {
    const path = '/v1/facilities/330101/payers';
    const key = a.key; // one tenant's key, on both replicas
    expect((await b.request(path, { key })).body.payers).toEqual([]); // cached on B under the tenant's generation
    expect((await a.request(path, { key, method: 'POST', body: { payer_slug: 'aetna' } })).status).toBe(201);
    // The notification arrives within milliseconds; a few spaced reads (the key's limit is 7 a minute).
    let seen: unknown[] = [];
    for (let i = 0; i < 4 && !seen.length; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const r = await b.request(path, { key });
      expect(r.status).toBe(200);
      seen = r.body.payers as unknown[];
    }
    expect(seen).toHaveLength(1);
  });

  it('holds the per-key limit across both: N + 1 requests split over A and B get one 429', async () => {
    const key = await a.newKey('test', ['knowledge']);
    const statuses = [];
    for (let i = 0; i < 8; i++) statuses.push((await (i % 2 ? a : b).request('/v1/meta', { key })).status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    expect(statuses.at(-1)).toBe(429);
  });
});
