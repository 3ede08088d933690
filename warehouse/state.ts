import { sqliteReplicas, type ReplicaRegistry } from './replicas.js';
import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConflictError, NotFoundError } from './errors.js';
import { SqliteJobs, type JobQueue } from './jobs.js';
import { MIGRATIONS } from './migrations.js';
import { cachePreparedStatements, DEFAULT_BATCH_MAX, GroupCommit, Lock, type SyncMode } from './sqlite_commit.js';

export type { SyncMode } from './sqlite_commit.js';
import { SqlitePolicyDocuments } from './policy_documents.js';
import { SqliteWatches } from './watches.js';
import { SqliteFacilities } from './facilities.js';
import { type AdminStore, type ApiKeyRecord, type EngineRepos, GENERATION_TTL_MS, INSERT_KEY_SQL, KEY_COLS, type KeyRow, type KeyType, LocalWrites, type StateStore, type Tenant, type TenantStore, newKeyRow, repositoryView, tenantExists, toKey } from './tenant_state.js';


/**
 * A SQLite connection with the state store's settings: WAL (the CLI writes while the server
 * runs), `synchronous` per `sync`, a busy timeout and foreign keys. The bench's bare durable-write
 * route opens its file with this too, so the comparison uses the same pragmas.
 */
export function openSqlite(file: string, sync: SyncMode): Database.Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${sync === 'normal' ? 'NORMAL' : 'FULL'}`);
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  return db;
}

/** How the SQLite adapter commits (`RCM_STATE_SYNC`, `RCM_STATE_BATCH_MAX`). */
export interface SqliteOptions {
  /** `full` (default): durable against power loss before a write is acknowledged; `normal`: against process death only. */
  sync?: SyncMode;
  /** Writes one group commit takes at most (default 256). */
  batchMax?: number;
}

/**
 * SQLite in WAL mode: durable before a 2xx (`synchronous=FULL` by default), and the CLI can write
 * while the server runs. Writes are group-committed (`GroupCommit`): concurrent requests' writes
 * share one transaction and one fsync, each answered once its batch is on disk.
 */
export class SqliteStateStore implements StateStore {
  readonly db: Database.Database;
  private readonly lock = new Lock();
  /** The write path: every write of this store goes through it (outside an open `transaction`). */
  readonly commits: GroupCommit;
  private readonly stmtDataVersion: Database.Statement<[], { data_version: number }>;
  private readonly stmtGeneration: Database.Statement<[string, KeyType], { generation: number }>;
  private readonly stmtBump: Database.Statement<[string, KeyType]>;
  private readonly local = new LocalWrites();
  private readonly jobTables: SqliteJobs;
  private readonly facilityTables: SqliteFacilities;
  private readonly policyTables: SqlitePolicyDocuments;
  private readonly watchTables: SqliteWatches;
  readonly admin: AdminStore;
  readonly jobs: JobQueue;
  readonly replicas: ReplicaRegistry;

  constructor(
    file: string,
    private readonly now: () => Date = () => new Date(),
    opts: SqliteOptions = {},
  ) {
    this.db = openSqlite(file, opts.sync ?? 'full');
    cachePreparedStatements(this.db);
    this.migrate();
    this.commits = new GroupCommit(this.db, this.lock, { maxBatch: opts.batchMax ?? DEFAULT_BATCH_MAX, onCommit: () => this.local.wrote() });
    this.stmtDataVersion = this.db.prepare('PRAGMA data_version');
    this.stmtGeneration = this.db.prepare('SELECT generation FROM tenant_state WHERE tenant_id = ? AND mode = ?');
    this.stmtBump = this.db.prepare(
      'INSERT INTO tenant_state (tenant_id, mode, generation) VALUES (?, ?, 1) ON CONFLICT (tenant_id, mode) DO UPDATE SET generation = generation + 1',
    );
    this.admin = this.makeAdmin();
    this.jobTables = new SqliteJobs(this.db);
    this.facilityTables = new SqliteFacilities(this.db);
    this.policyTables = new SqlitePolicyDocuments(this.db);
    this.watchTables = new SqliteWatches(this.db);
    this.jobs = this.makeQueue();
    this.replicas = sqliteReplicas(this.db, (fn) => this.lock.run(fn));
  }

  /** The runner's queue: each operation that writes is one group-committed write; counts are locked reads. */
  private makeQueue(): JobQueue {
    const t = this.jobTables;
    // The runner claims ahead and batches by itself: its writes do not wait for company.
    const tx = <T>(fn: () => T) => this.commits.write(fn, false, true);
    return {
      claim: (owner, now, leaseMs) => tx(() => t.claim(owner, now, leaseMs)),
      renew: (id, fence, until) => tx(() => t.renew(id, fence, until)),
      finish: (id, fence, outcome, now, body) => tx(() => t.finish(id, fence, outcome, now, body)),
      claimCallback: (now, leaseMs, busy) => tx(() => t.claimCallback(now, leaseMs, busy)),
      recordAttempt: (jobId, a, next) => tx(() => t.recordAttempt(jobId, a, next)),
      purge: (before, now) => tx(() => t.purge(before, now)),
      countByStatus: () => this.lock.run(() => t.countByStatus()),
    };
  }

  /** Applies every migration newer than the recorded schema version, each in its own transaction. */
  private migrate(): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    const done = new Set((this.db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version));
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      this.db.transaction(() => {
        m.up(this.db);
        this.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, this.now().toISOString());
      }).immediate();
    }
  }

  async schemaVersion(): Promise<number> {
    return this.lock.run(() => (this.db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number }).v);
  }

  private makeAdmin(): AdminStore {
    const db = this.db;
    const run = <T>(fn: () => T) => this.lock.run(fn);
    /** A write of tenants or keys: committed with the others, then the auth caches drop. */
    const write = <T>(fn: () => T) => this.commits.write(fn, true);
    const getTenant = (idOrName: string): Tenant => {
      const t = db.prepare('SELECT id, name, created_at FROM tenants WHERE id = ? OR name = ?').get(idOrName, idOrName) as Tenant | undefined;
      if (!t) throw new NotFoundError(`tenant ${idOrName} not found`);
      return t;
    };
    return {
      createTenant: (name) =>
        write(() => {
          const t: Tenant = { id: randomUUID(), name, created_at: this.now().toISOString() };
          const added = db.prepare('INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING').run(t.id, t.name, t.created_at).changes;
          if (added === 0) throw new ConflictError(tenantExists(name));
          return t;
        }),
      getTenant: (idOrName) => run(() => getTenant(idOrName)),
      findTenants: () => run(() => db.prepare('SELECT id, name, created_at FROM tenants ORDER BY created_at, name').all() as Tenant[]),
      createKey: (input) =>
        write(() => {
          const { row, secret, params } = newKeyRow(input, getTenant(input.tenant).id, this.now());
          db.prepare(INSERT_KEY_SQL).run(...params);
          return { record: toKey(row), secret };
        }),
      findKeys: (tenantId) =>
        run(() => {
          const sql = `SELECT ${KEY_COLS} FROM api_keys`;
          const rows = (tenantId ? db.prepare(`${sql} WHERE tenant_id = ? ORDER BY created_at`).all(tenantId) : db.prepare(`${sql} ORDER BY created_at`).all()) as KeyRow[];
          return rows.map(toKey);
        }),
      purgeExpiredKeys: (tenantId, before) =>
        write(() => db.prepare('DELETE FROM api_keys WHERE tenant_id = ? AND expires_at IS NOT NULL AND expires_at < ?').run(tenantId, before.toISOString()).changes),
      purgeSessionTenants: (prefix, before) => write(() => this.purgeSessionTenants(prefix, before)),
      revokeKey: (id) =>
        write(() => {
          const rec = this.revokeKeyWhere(id, null);
          this.bump(rec.tenant_id); // the tenant's cached answers that list keys are stale now
          return rec;
        }),
      findActiveKeyByHash: (hash, at) =>
        run(() => {
          const r = db
            .prepare(`SELECT ${KEY_COLS} FROM api_keys WHERE hash = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)`)
            .get(hash, at.toISOString()) as KeyRow | undefined;
          return r ? toKey(r) : null;
        }),
    };
  }

  /** Revokes key `id` (of `tenantId` when given); a key of another tenant is not found. */
  private revokeKeyWhere(id: string, tenantId: string | null, mode?: KeyType): ApiKeyRecord {
    const owner = tenantId === null ? '' : ' AND tenant_id = ? AND type = ?';
    const args = tenantId === null ? [id] : [id, tenantId, mode];
    const r = this.db.prepare(`SELECT ${KEY_COLS} FROM api_keys WHERE id = ?${owner}`).get(...args) as KeyRow | undefined;
    if (!r) throw new NotFoundError(`key ${id} not found`);
    if (!r.revoked_at) {
      r.revoked_at = this.now().toISOString();
      this.db.prepare(`UPDATE api_keys SET revoked_at = ? WHERE id = ?${owner}`).run(r.revoked_at, ...args);
    }
    return toKey(r);
  }

  private readonly generations = new LRUCache<string, { value: number; at: number }>({ max: 10_000 });

  /** Views are stateless beyond their tenant id and mode: one per (tenant, mode), reused (building one is ~40 closures). */
  private readonly views = new LRUCache<string, TenantStore>({ max: 10_000 });

  forTenant(tenantId: string, mode: KeyType): TenantStore {
    const k = `${mode}:${tenantId}`;
    let v = this.views.get(k);
    if (!v) {
      v = this.tenantView(tenantId, mode, false);
      this.views.set(k, v);
    }
    return v;
  }

  /**
   * A tenant view. Outside a transaction every call takes the lock; inside one (`inTx`) calls run
   * directly, since the transaction already holds it.
   */
  private tenantView(tenantId: string, mode: KeyType, inTx: boolean): TenantStore {
    const gk = `${mode}:${tenantId}`;
    const run = <T>(fn: () => T): Promise<T> => (inTx ? Promise.resolve().then(fn) : this.lock.run(fn));
    // Inside a transaction a write runs at once (the transaction bumps once at its commit);
    // outside, it joins the next group commit with its generation bump. Only a write that
    // changes keys (`keysChanged`) tells the auth caches: a roster write leaves them warm.
    const write = <T>(fn: () => T, keysChanged = false): Promise<T> =>
      inTx
        ? run(fn)
        : this.commits.write(() => {
            const o = fn();
            this.bump(tenantId, mode);
            return o;
          }, keysChanged);
    /**
     * A durable insert that changes no cached answer and no key: committed before it returns, but
     * neither the generation nor the write listeners (auth caches) move.
     */
    const append = <T>(fn: () => T): Promise<T> => (inTx ? run(fn) : this.commits.write(fn, false));
    const fac = this.facilityTables;
    const repos: EngineRepos = {
      keys: {
        // A mode's keys only: a test key neither lists nor revokes the tenant's live keys.
        list: () => (this.db.prepare(`SELECT ${KEY_COLS} FROM api_keys WHERE tenant_id = ? AND type = ? ORDER BY created_at`).all(tenantId, mode) as KeyRow[]).map(toKey),
        revoke: (id) => this.revokeKeyWhere(id, tenantId, mode),
      },
      jobs: this.jobTables.forTenant(tenantId, mode),
      facilities: fac.facilities(tenantId, mode),
      rosters: fac.rosters(tenantId, mode),
      overrides: fac.overrides(tenantId, mode),
      determinations: fac.determinations(tenantId, mode),
      policyDocuments: this.policyTables.forTenant(tenantId, mode),
      watches: this.watchTables.forTenant(tenantId, mode),
    };
    const view: TenantStore = {
      tenantId,
      mode,
      generation: () => {
        // Read on every cached request: answered from memory for GENERATION_TTL_MS. This process's
        // writes drop the entry at once; another process's (the CLI) are seen within the TTL.
        const c = this.generations.get(gk);
        if (c && this.now().getTime() - c.at < GENERATION_TTL_MS && !inTx) return Promise.resolve(c.value);
        return run(() => {
          const value = this.stmtGeneration.get(tenantId, mode)?.generation ?? 0;
          if (!inTx) this.generations.set(gk, { value, at: this.now().getTime() });
          return value;
        });
      },
      transaction: <T>(fn: (tx: TenantStore) => Promise<T>): Promise<T> => {
        if (inTx) return fn(view); // nested: part of the outer transaction
        return this.lock.run(async () => {
          this.db.exec('BEGIN IMMEDIATE');
          try {
            const out = await fn(this.tenantView(tenantId, mode, true));
            this.bump(tenantId, mode);
            this.db.exec('COMMIT');
            this.local.wrote();
            return out;
          } catch (e) {
            if (this.db.inTransaction) this.db.exec('ROLLBACK');
            throw e;
          }
        });
      },
      ...repositoryView((kind, use) => {
        switch (kind) {
          case 'read':
            return run(() => use(repos));
          case 'write':
            return write(() => use(repos));
          case 'key_write':
            return write(() => use(repos), true);
          case 'append':
          case 'bounded_append':
            // One writer: an append is already ordered with every other write of the tenant.
            return append(() => use(repos));
        }
      }),
    };
    return view;
  }

  private purgeSessionTenants(prefix: string, before: Date): number {
    const ids = (
      this.db
        .prepare(
          `SELECT t.id FROM tenants t WHERE (t.name = ? OR t.name LIKE ? ESCAPE '\\')
             AND EXISTS (SELECT 1 FROM api_keys k WHERE k.tenant_id = t.id AND k.label = ?)
             AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.tenant_id = t.id AND (k.expires_at IS NULL OR k.expires_at >= ?))`,
        )
        .all(prefix, `${prefix.replace(/[\\%_]/g, '\\$&')}-%`, prefix, before.toISOString()) as { id: string }[]
    ).map((r) => r.id);
    if (ids.length === 0) return 0;
    // Every table holding a tenant's rows, found from the schema so a table added later is purged too.
    const tables = (this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'tenants'").all() as { name: string }[])
      .map((r) => r.name)
      .filter((t) => (this.db.prepare(`SELECT 1 FROM pragma_table_info(?) WHERE name = 'tenant_id'`).get(t) ?? null) !== null);
    // Inside the group commit's transaction: the deletes commit together or not at all. Foreign
    // keys are checked at the end of this write only (the tables are deleted in schema order), so
    // the other writes of the batch keep their immediate checks.
    this.db.pragma('defer_foreign_keys = ON');
    try {
      for (const id of ids) {
        for (const t of tables) this.db.prepare(`DELETE FROM "${t}" WHERE tenant_id = ?`).run(id);
        this.db.prepare('DELETE FROM tenants WHERE id = ?').run(id);
        for (const m of ['test', 'live']) this.generations.delete(`${m}:${id}`);
      }
    } finally {
      this.db.pragma('defer_foreign_keys = OFF');
    }
    return ids.length;
  }

  /** Bumps a tenant's generation (inside the caller's transaction) and forgets its cached value. */
  /** `mode` absent: both modes (a change to the tenant's keys, listed in each). */
  private bump(tenantId: string, mode?: KeyType): void {
    for (const m of mode ? [mode] : (['test', 'live'] as const)) {
      this.stmtBump.run(tenantId, m);
      this.generations.delete(`${m}:${tenantId}`);
    }
  }

  onWrite(listener: () => void): () => void {
    return this.local.onWrite(listener);
  }

  /**
   * `PRAGMA data_version` moves when another connection (the CLI) commits; own writes are
   * counted here. Together they tell an auth cache that keys may have changed.
   */
  async changeMarker(): Promise<string> {
    return this.lock.run(() => `${this.stmtDataVersion.get()!.data_version}:${this.local.count}`);
  }

  async ping(): Promise<boolean> {
    return this.lock.run(() => this.db.prepare('SELECT 1 AS ok').get() !== undefined);
  }

  async close(): Promise<void> {
    await this.lock.run(() => {
      this.commits.drain();
      this.db.close();
    });
  }
}
