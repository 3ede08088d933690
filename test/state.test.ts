import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../warehouse/errors.js';
import { MIGRATIONS } from '../warehouse/migrations.js';
import { SqliteStateStore, hashKey, type TenantStore } from '../warehouse/state.js';
import { TestClock } from './helpers/clock.js';

let dir: string;
let store: SqliteStateStore;
const clock = new TestClock();
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcm-state-'));
  store = new SqliteStateStore(join(dir, 'state.sqlite'), clock.now);
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function twoTenants() {
  const a = await store.admin.createTenant('tenant-a');
  const b = await store.admin.createTenant('tenant-b');
  const keyA = await store.admin.createKey({ tenant: a.id, type: 'test', scopes: ['knowledge'] });
  const keyB = await store.admin.createKey({ tenant: b.id, type: 'test', scopes: ['knowledge'] });
  return { a: store.forTenant(a.id), b: store.forTenant(b.id), keyA, keyB };
}

type Fixture = Awaited<ReturnType<typeof twoTenants>>;

/**
 * One case per repository method of TenantStore: what tenant B sees or may change of tenant
 * A's rows. Every repository added later (facilities, rosters, overrides, determinations,
 * jobs) adds its methods here; the last test fails when a method has no case.
 */
const ISOLATION: Record<string, (f: Fixture) => Promise<void>> = {
  'keys.list': async ({ a, b, keyA, keyB }) => {
    expect((await a.keys.list()).map((k) => k.id)).toEqual([keyA.record.id]);
    expect((await b.keys.list()).map((k) => k.id)).toEqual([keyB.record.id]);
  },
  'jobs.create': async ({ a, b }) => {
    const now = clock.now();
    const ja = await a.jobs.create({ id: 'a0000000-0000-4000-8000-000000000001', agent_type: 'code_research', input: { q: 'a' }, key_type: 'test', idempotency_key: 'same', request_hash: 'h1' }, now, 86_400_000);
    // The same Idempotency-Key in another tenant is another job, not A's.
    const jb = await b.jobs.create({ id: 'b0000000-0000-4000-8000-000000000001', agent_type: 'code_research', input: { q: 'b' }, key_type: 'test', idempotency_key: 'same', request_hash: 'h2' }, now, 86_400_000);
    expect(jb.created).toBe(true);
    expect(jb.job.id).not.toBe(ja.job.id);
    expect((await a.jobs.get(ja.job.id)).input).toEqual({ q: 'a' });
  },
  'jobs.get': async ({ a, b }) => {
    const { job } = await a.jobs.create({ id: 'a0000000-0000-4000-8000-000000000002', agent_type: 'code_research', input: { q: 'secret' }, key_type: 'test', request_hash: 'h' }, clock.now(), 86_400_000);
    await expect(b.jobs.get(job.id)).rejects.toBeInstanceOf(NotFoundError);
  },
  'keys.revoke': async ({ a, b, keyA }) => {
    await expect(b.keys.revoke(keyA.record.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await a.keys.list())[0]!.revoked_at).toBeNull();
    expect(await store.admin.findActiveKeyByHash(hashKey(keyA.secret), clock.now())).not.toBeNull();
  },
};

describe('tenant isolation, one case per repository method', () => {
  for (const [method, check] of Object.entries(ISOLATION)) {
    it(`${method}: tenant B can neither read nor change tenant A's rows`, async () => {
      await check(await twoTenants());
    });
  }

  it('covers every repository method of TenantStore', () => {
    const view = store.forTenant('x') as unknown as Record<string, unknown>;
    const methods: string[] = [];
    for (const [repo, v] of Object.entries(view)) {
      if (v && typeof v === 'object') for (const m of Object.keys(v)) methods.push(`${repo}.${m}`);
    }
    expect(methods.sort()).toEqual(Object.keys(ISOLATION).sort());
  });
});

describe('writes', () => {
  it('bumps the tenant generation with every write, in the same transaction', async () => {
    const { a, b, keyA } = await twoTenants();
    const g0 = await a.generation();
    await a.keys.revoke(keyA.record.id);
    expect(await a.generation()).toBe(g0 + 1);
    expect(await b.generation()).toBe(0);
  });

  it('a transaction that fails mid-way leaves nothing half-done and the generation unchanged', async () => {
    const { a } = await twoTenants();
    const k2 = await store.admin.createKey({ tenant: a.tenantId, type: 'test', scopes: ['knowledge'] });
    const [k1] = await a.keys.list();
    const g0 = await a.generation();
    await expect(
      a.transaction(async (tx) => {
        await tx.keys.revoke(k1!.id);
        await tx.keys.revoke(k2.record.id);
        throw new Error('forced failure after two writes');
      }),
    ).rejects.toThrow('forced failure');
    expect((await a.keys.list()).every((k) => k.revoked_at === null)).toBe(true);
    expect(await a.generation()).toBe(g0);
    // And a transaction that succeeds commits both writes with one bump.
    await a.transaction(async (tx) => {
      await tx.keys.revoke(k1!.id);
      await tx.keys.revoke(k2.record.id);
    });
    expect((await a.keys.list()).every((k) => k.revoked_at !== null)).toBe(true);
    expect(await a.generation()).toBe(g0 + 1);
  });

  it('other callers wait for an open transaction instead of seeing its uncommitted rows', async () => {
    const { a, keyA } = await twoTenants();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const tx = a.transaction(async (t: TenantStore) => {
      await t.keys.revoke(keyA.record.id);
      await gate;
      throw new Error('rolled back');
    });
    const outside = a.keys.list();
    release();
    await expect(tx).rejects.toThrow('rolled back');
    expect((await outside)[0]!.revoked_at).toBeNull();
  });

  it('keys expire at their time on the injected clock', async () => {
    const t = await store.admin.createTenant('p');
    const k = await store.admin.createKey({ tenant: t.id, type: 'test', scopes: ['knowledge'], expiresAt: new Date(clock.now().getTime() + 3_600_000) });
    expect(await store.admin.findActiveKeyByHash(hashKey(k.secret), clock.now())).not.toBeNull();
    expect(await store.admin.findActiveKeyByHash(hashKey(k.secret), new Date(clock.now().getTime() + 3_600_001))).toBeNull();
  });

  it('issues keys of the documented shape, each character drawn evenly', async () => {
    const t = await store.admin.createTenant('shape');
    const k = await store.admin.createKey({ tenant: t.id, type: 'live', scopes: ['knowledge'] });
    expect(k.secret).toMatch(/^kp_live_[A-Za-z0-9]{32}$/);
    expect(k.record.prefix).toBe(k.secret.slice(0, 12));
  });
});

describe('migrations', () => {
  it('records each versioned migration once', async () => {
    expect(await store.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
    await store.close();
    store = new SqliteStateStore(join(dir, 'state.sqlite'), clock.now); // reopening applies nothing twice
    const db = new Database(join(dir, 'state.sqlite'), { readonly: true });
    const rows = db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as { version: number }[];
    db.close();
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('upgrades a state file written before migrations existed, keeping its keys', async () => {
    const file = join(dir, 'old.sqlite');
    const db = new Database(file);
    db.exec(`CREATE TABLE tenants (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL);
      CREATE TABLE api_keys (id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants(id), type TEXT NOT NULL, scopes TEXT NOT NULL,
        prefix TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, label TEXT, created_at TEXT NOT NULL, revoked_at TEXT);
      INSERT INTO tenants VALUES ('t1', 'old', '2026-01-01T00:00:00Z');
      INSERT INTO api_keys VALUES ('key_1', 't1', 'test', '["knowledge"]', 'kp_test_abcd', '${hashKey('kp_test_' + 'a'.repeat(32))}', NULL, '2026-01-01T00:00:00Z', NULL);`);
    db.close();
    const old = new SqliteStateStore(file, clock.now);
    try {
      expect(await old.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
      const k = await old.admin.findActiveKeyByHash(hashKey('kp_test_' + 'a'.repeat(32)), clock.now());
      expect(k).toMatchObject({ id: 'key_1', tenant_id: 't1', expires_at: null });
      expect(await old.forTenant('t1').generation()).toBe(0);
    } finally {
      await old.close();
    }
  });
});
