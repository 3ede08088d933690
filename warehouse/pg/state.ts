import { sqlReplicas, type ReplicaRegistry } from '../replicas.js';
import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { ConflictError, DomainError, NotFoundError } from '../errors.js';
import type { JobQueue } from '../jobs.js';
import { Fts5Terms } from '../policy_terms.js';
import {
  GENERATION_TTL_MS,
  KEY_COLS,
  LocalWrites,
  INSERT_KEY_SQL,
  newKeyRow,
  tenantExists,
  toKey,
  type AdminStore,
  type ApiKeyRecord,
  type KeyRow,
  type KeyType,
  type StateStore,
  type Tenant,
  type TenantStore,
  repositoryView,
  type EngineRepos,
} from '../tenant_state.js';
import { pgDeterminations, pgFacilities, pgOverrides, pgRosters } from './facilities.js';
import { pgJobQueue, pgTenantJobs } from './jobs.js';
import { pgPolicyDocuments } from './policy_documents.js';
import { migrate } from './schema.js';
import { newPool, pgFailure, sqlOf, throwPgFailure, type Sql } from './sql.js';
import { pgWatches } from './watches.js';

/** The channel every write transaction notifies (at its commit) and every store listens on. */
const CHANNEL = 'rcm_state';
const MODES = ['test', 'live'] as const;

const { escapeLiteral } = pg;
const generationKey = (tenantId: string, mode: KeyType) => `${mode}:${tenantId}`;

/** The statement bumping a tenant's generation, its values inlined as literals (it travels with BEGIN). */
const bumpSql = (tenantId: string, mode: KeyType) =>
  `INSERT INTO tenant_state (tenant_id, mode, generation) VALUES (${escapeLiteral(tenantId)}, ${escapeLiteral(mode)}, 1) ON CONFLICT (tenant_id, mode) DO UPDATE SET generation = tenant_state.generation + 1`;

/** Runs functions one at a time per key, in call order (a tenant's writes from this process). */
class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}

/** What a write transaction changed: generation keys (`mode:tenant`) bumped, or only "something". */
interface Changes {
  keys: string[];
  any: boolean;
}

/**
 * The state store on PostgreSQL, for several replicas sharing one database (`RCM_STATE_URL`).
 * Same interface, tables and row shapes as `SqliteStateStore`; what SQLite gets from its one
 * writer this gets from transactions and row locks:
 *
 * - Every tenant write is one transaction on one pooled client whose first statement bumps the
 *   tenant's generation row (`tenant_state`). That row lock serialises a tenant's writes in one
 *   mode across replicas, so read-then-write steps (Idempotency-Key, queue bound, roster upsert)
 *   see every earlier commit; within a process they also run in call order.
 * - Each write transaction sends `NOTIFY rcm_state` with the generation keys it bumped. PostgreSQL
 *   delivers a notification only when (and if) its transaction commits, so every replica's
 *   listener counts committed writes only: that count is the change marker (no query per auth
 *   check), and a notified key drops that replica's memoised generation at once. If the listening
 *   connection drops, the marker changes on every read until it is back (caches then hold nothing
 *   longer than their check interval) and generations fall back to the GENERATION_TTL_MS memo.
 * - Job claims lock with `FOR UPDATE SKIP LOCKED` (see `pg/jobs.ts`).
 */
export class PgStateStore implements StateStore {
  readonly admin: AdminStore;
  readonly jobs: JobQueue;
  readonly replicas: ReplicaRegistry;
  private readonly local = new LocalWrites();
  private remoteWrites = 0;
  private listening = false;
  private reconnecting: Promise<void> | null = null;
  private downReads = 0;
  private listener: pg.Client | null = null;
  private closed = false;
  private readonly locks = new KeyedLock();
  private readonly generations = new LRUCache<string, { value: number; at: number }>({ max: 10_000 });
  private readonly views = new LRUCache<string, TenantStore>({ max: 10_000 });
  private readonly db: Sql;
  /** FTS5's tokenizer on a private in-memory SQLite database: the same terms as the SQLite store makes. */
  private readonly fts5 = new Fts5Terms(new Database(':memory:'));

  private constructor(
    readonly pool: pg.Pool,
    private readonly url: string,
    private readonly now: () => Date,
  ) {
    this.db = sqlOf(pool);
    this.admin = this.makeAdmin();
    this.jobs = pgJobQueue(this.db, (fn) => this.tx(async (db) => fn(db)));
    this.replicas = sqlReplicas(this.db);
  }

  /** Connects, applies pending migrations and starts listening for other replicas' writes. */
  static async open(url: string, now: () => Date = () => new Date(), poolSize = 10): Promise<PgStateStore> {
    const pool = newPool(url, poolSize);
    try {
      const client = await pool.connect();
      try {
        await migrate(client, now());
      } finally {
        client.release();
      }
    } catch (e) {
      await pool.end();
      const failure = pgFailure(e);
      if (!(failure instanceof DomainError)) throw e;
      // At start (rcm serve, rcm worker, the CLI): say where, never the password.
      const where = new URL(url);
      where.password = '';
      throw new DomainError('state_unavailable', `cannot reach the state store at ${where.toString()} (${(e as Error).message}): is PostgreSQL running, and RCM_STATE_URL right?`);
    }
    const store = new PgStateStore(pool, url, now);
    await store.listen();
    return store;
  }

  private async listen(): Promise<void> {
    const c = new pg.Client({ connectionString: this.url });
    const down = () => {
      this.listening = false;
      if (this.listener === c) this.listener = null;
    };
    c.on('error', down);
    c.on('end', down);
    c.on('notification', (n) => {
      this.remoteWrites++;
      for (const k of (n.payload ?? '').split(' ')) if (k) this.generations.delete(k);
    });
    await c.connect();
    await c.query(`LISTEN ${CHANNEL}`);
    if (this.closed) {
      await c.end();
      return;
    }
    this.listener = c;
    this.listening = true;
    // Writes committed while no one listened are unknown: the marker moves once more.
    this.remoteWrites++;
    this.generations.clear();
  }

  /**
   * Runs `fn` in one transaction on one client. `changed` marks what it wrote: after the commit
   * this process's memoised generations of those keys drop and the write listeners run, and the
   * NOTIFY sent inside tells the other replicas the same.
   */
  private async tx<T>(fn: (db: Sql, changed: (keys?: string[]) => void) => Promise<T>, bumping?: { tenantId: string; mode: KeyType }): Promise<T> {
    const client = await this.pool.connect().catch(throwPgFailure);
    const changes: Changes = { keys: [], any: false };
    const changed = (keys: string[] = []) => {
      changes.any = true;
      changes.keys.push(...keys);
    };
    let broken: Error | undefined;
    try {
      // Round trips are most of a write's time (each one also costs this process CPU), so the
      // first and last statements ride with BEGIN and COMMIT in one simple-protocol message each,
      // their values as escaped literals.
      if (bumping) {
        await client.query(`BEGIN; ${bumpSql(bumping.tenantId, bumping.mode)}`);
        changed([generationKey(bumping.tenantId, bumping.mode)]);
      } else {
        await client.query('BEGIN');
      }
      const out = await fn(sqlOf(client), changed);
      await client.query(changes.any ? `SELECT pg_notify('${CHANNEL}', ${escapeLiteral([...new Set(changes.keys)].join(' '))}); COMMIT` : 'COMMIT');
      for (const k of changes.keys) this.generations.delete(k);
      if (changes.any) this.local.wrote();
      return out;
    } catch (e) {
      await client.query('ROLLBACK').catch((r: Error) => (broken = r));
      throw pgFailure(e);
    } finally {
      client.release(broken);
    }
  }

  /** Bumps a tenant's generation in the caller's transaction (taking its row lock until commit). */
  private async bump(db: Sql, changed: (keys: string[]) => void, tenantId: string, mode: KeyType): Promise<void> {
    await db.run(bumpSql(tenantId, mode));
    changed([generationKey(tenantId, mode)]);
  }

  private async getTenant(db: Sql, idOrName: string): Promise<Tenant> {
    const t = await db.get<Tenant>('SELECT id, name, created_at FROM tenants WHERE id = ? OR name = ?', [idOrName, idOrName]);
    if (!t) throw new NotFoundError(`tenant ${idOrName} not found`);
    return t;
  }

  /** Revokes key `id` (of `tenantId` and `mode` when given); a key of another tenant is not found. */
  private async revokeKeyWhere(db: Sql, id: string, owner?: { tenantId: string; mode: KeyType }): Promise<ApiKeyRecord> {
    const where = owner ? 'id = ? AND tenant_id = ? AND type = ?' : 'id = ?';
    const args = owner ? [id, owner.tenantId, owner.mode] : [id];
    const r = await db.get<KeyRow>(`SELECT ${KEY_COLS} FROM api_keys WHERE ${where} FOR UPDATE`, args);
    if (!r) throw new NotFoundError(`key ${id} not found`);
    if (!r.revoked_at) {
      r.revoked_at = this.now().toISOString();
      await db.run(`UPDATE api_keys SET revoked_at = ? WHERE ${where}`, [r.revoked_at, ...args]);
    }
    return toKey(r);
  }

  private makeAdmin(): AdminStore {
    return {
      createTenant: (name) =>
        this.tx(async (db, changed) => {
          const t: Tenant = { id: randomUUID(), name, created_at: this.now().toISOString() };
          const added = await db.run('INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING', [t.id, t.name, t.created_at]);
          if (added === 0) throw new ConflictError(tenantExists(name));
          changed();
          return t;
        }),
      getTenant: (idOrName) => this.getTenant(this.db, idOrName),
      findTenants: () => this.db.all<Tenant>('SELECT id, name, created_at FROM tenants ORDER BY created_at, name'),
      createKey: (input) =>
        this.tx(async (db, changed) => {
          const { row, secret, params } = newKeyRow(input, (await this.getTenant(db, input.tenant)).id, this.now());
          await db.run(INSERT_KEY_SQL, params);
          changed();
          return { record: toKey(row), secret };
        }),
      findKeys: async (tenantId) => {
        const sql = `SELECT ${KEY_COLS} FROM api_keys`;
        const rows = tenantId ? await this.db.all<KeyRow>(`${sql} WHERE tenant_id = ? ORDER BY created_at`, [tenantId]) : await this.db.all<KeyRow>(`${sql} ORDER BY created_at`);
        return rows.map(toKey);
      },
      revokeKey: (id) =>
        this.tx(async (db, changed) => {
          const owner = await db.get<{ tenant_id: string }>('SELECT tenant_id FROM api_keys WHERE id = ?', [id]);
          if (!owner) throw new NotFoundError(`key ${id} not found`);
          // The tenant's cached answers that list keys are stale now, in both modes. Generation rows
          // are locked before the key's row, the order a tenant view's revoke takes, so the two
          // never wait on each other.
          for (const m of MODES) await this.bump(db, changed, owner.tenant_id, m);
          return this.revokeKeyWhere(db, id);
        }),
      purgeExpiredKeys: (tenantId, before) =>
        this.tx(async (db, changed) => {
          const n = await db.run('DELETE FROM api_keys WHERE tenant_id = ? AND expires_at IS NOT NULL AND expires_at < ?', [tenantId, before.toISOString()]);
          if (n) changed();
          return n;
        }),
      purgeSessionTenants: (prefix, before) => this.tx((db, changed) => this.purgeSessionTenants(db, changed, prefix, before)),
      findActiveKeyByHash: async (hash, at) => {
        const r = await this.db.get<KeyRow>(`SELECT ${KEY_COLS} FROM api_keys WHERE hash = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)`, [hash, at.toISOString()]);
        return r ? toKey(r) : null;
      },
    };
  }

  private async purgeSessionTenants(db: Sql, changed: (keys: string[]) => void, prefix: string, before: Date): Promise<number> {
    const ids = (
      await db.all<{ id: string }>(
        `SELECT t.id FROM tenants t WHERE (t.name = ? OR t.name LIKE ? ESCAPE '\\')
           AND EXISTS (SELECT 1 FROM api_keys k WHERE k.tenant_id = t.id AND k.label = ?)
           AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.tenant_id = t.id AND (k.expires_at IS NULL OR k.expires_at >= ?))
         FOR UPDATE`,
        [prefix, `${prefix.replace(/[\\%_]/g, '\\$&')}-%`, prefix, before.toISOString()],
      )
    ).map((r) => r.id);
    if (ids.length === 0) return 0;
    // Every table holding a tenant's rows, found from the schema so a table added later is purged
    // too; rows of tables without a tenant column (attempts, chunk codes, postings) cascade.
    const tables = (
      await db.all<{ table_name: string }>(
        `SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'tenant_id' AND table_name <> 'tenants' ORDER BY table_name`,
      )
    ).map((r) => r.table_name);
    for (const t of tables) await db.run(`DELETE FROM "${t}" WHERE tenant_id = ANY(?)`, [ids]);
    await db.run('DELETE FROM tenants WHERE id = ANY(?)', [ids]);
    changed(ids.flatMap((id) => MODES.map((m) => `${m}:${id}`)));
    return ids.length;
  }

  forTenant(tenantId: string, mode: KeyType): TenantStore {
    const k = generationKey(tenantId, mode);
    let v = this.views.get(k);
    if (!v) {
      v = this.tenantView(tenantId, mode, null);
      this.views.set(k, v);
    }
    return v;
  }

  /**
   * A tenant view. Outside a transaction (`txDb` null) reads use the pool and each write is its
   * own transaction; inside one every call runs on the transaction's client.
   */
  private tenantView(tenantId: string, mode: KeyType, txDb: Sql | null): TenantStore {
    const gk = generationKey(tenantId, mode);
    const read = <T>(fn: (db: Sql) => Promise<T>): Promise<T> => fn(txDb ?? this.db);
    // The bump comes first: its row lock orders this tenant's writes.
    const inWrite = <T>(fn: (db: Sql, changed: (keys?: string[]) => void) => Promise<T>): Promise<T> => this.locks.run(gk, () => this.tx(fn, { tenantId, mode }));
    const write = <T>(fn: (db: Sql) => Promise<T>): Promise<T> => (txDb ? fn(txDb) : inWrite((db) => fn(db)));
    /** A durable insert that changes no cached answer: one autocommit statement, no bump, no listeners. */
    const append = <T>(fn: (db: Sql) => Promise<T>): Promise<T> => fn(txDb ?? this.db);
    const view: TenantStore = {
      tenantId,
      mode,
      generation: async () => {
        const c = this.generations.get(gk);
        if (!txDb && c && this.now().getTime() - c.at < GENERATION_TTL_MS) return c.value;
        const at = this.now().getTime();
        const value = (await read((db) => db.get<{ generation: number }>('SELECT generation FROM tenant_state WHERE tenant_id = ? AND mode = ?', [tenantId, mode])))?.generation ?? 0;
        if (!txDb) this.generations.set(gk, { value, at });
        return value;
      },
      transaction: <T>(fn: (tx: TenantStore) => Promise<T>): Promise<T> => (txDb ? fn(view) : inWrite((db) => fn(this.tenantView(tenantId, mode, db)))),
      ...repositoryView((kind, use) => {
        switch (kind) {
          case 'read':
            return read((db) => Promise.resolve(use(this.repos(db, tenantId, mode))));
          case 'write':
          case 'key_write':
            return write((db) => Promise.resolve(use(this.repos(db, tenantId, mode))));
          case 'append':
            return append((db) => Promise.resolve(use(this.repos(db, tenantId, mode))));
          case 'bounded_append':
            // Ordered per tenant without a bump: a transaction-scoped advisory lock on the tenant's
            // generation key, so a bound checked inside is exact across replicas.
            if (txDb) return Promise.resolve(use(this.repos(txDb, tenantId, mode)));
            return this.locks.run(gk, () =>
              this.tx(async (db) => {
                await db.run('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [gk]);
                return use(this.repos(db, tenantId, mode));
              }),
            );
        }
      }),
    };
    return view;
  }

  /** One tenant's repositories on a connection (the pool, or a transaction's client). */
  private repos(db: Sql, tenantId: string, mode: KeyType): EngineRepos {
    return {
      keys: {
        list: async () => (await db.all<KeyRow>(`SELECT ${KEY_COLS} FROM api_keys WHERE tenant_id = ? AND type = ? ORDER BY created_at`, [tenantId, mode])).map(toKey),
        revoke: (id) => this.revokeKeyWhere(db, id, { tenantId, mode }),
      },
      jobs: pgTenantJobs(db, tenantId, mode),
      facilities: pgFacilities(db, tenantId, mode),
      rosters: pgRosters(db, tenantId, mode),
      overrides: pgOverrides(db, tenantId, mode),
      determinations: pgDeterminations(db, tenantId, mode),
      policyDocuments: pgPolicyDocuments(db, tenantId, mode, this.fts5),
      watches: pgWatches(db, tenantId, mode),
    };
  }

  onWrite(listener: () => void): () => void {
    return this.local.onWrite(listener);
  }

  /**
   * Committed writes of every replica as this one's listener counted them, plus this process's
   * own (counted at commit, before their notification comes back). While the listener is down the
   * marker is new on every read, and a reconnect is started.
   */
  async changeMarker(): Promise<string> {
    if (!this.listening) {
      if (!this.reconnecting && !this.closed) {
        this.reconnecting = this.listen()
          .catch(() => undefined)
          .finally(() => (this.reconnecting = null));
      }
      return `down:${++this.downReads}`;
    }
    return `${this.remoteWrites}:${this.local.count}`;
  }

  async schemaVersion(): Promise<number> {
    return (await this.db.get<{ v: number }>('SELECT max(version) AS v FROM schema_migrations'))!.v;
  }

  async ping(): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS ok')) !== undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.reconnecting;
    const l = this.listener;
    this.listener = null;
    this.listening = false;
    await l?.end().catch(() => undefined);
    await this.pool.end();
  }
}
