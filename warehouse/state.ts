import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { hash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConflictError, NotFoundError } from './errors.js';
import { SqliteJobs, type JobQueue, type TenantJobs } from './jobs.js';
import { MIGRATIONS } from './migrations.js';
import { cachePreparedStatements, DEFAULT_BATCH_MAX, GroupCommit, Lock, type SyncMode } from './sqlite_commit.js';

export type { SyncMode } from './sqlite_commit.js';
import { SqlitePolicyDocuments, type TenantPolicyDocuments } from './policy_documents.js';
import { SqliteWatches, type TenantWatches } from './watches.js';
import { SqliteFacilities, type TenantDeterminations, type TenantFacilities, type TenantPaOverrides, type TenantRosters } from './facilities.js';

export type KeyType = 'test' | 'live';
export const SCOPES = ['knowledge', 'agents', 'audit', 'admin'] as const;
export type KeyScope = (typeof SCOPES)[number];

export interface Tenant {
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKeyRecord {
  id: string;
  tenant_id: string;
  type: KeyType;
  scopes: KeyScope[];
  /** First characters of the key, for recognising it in lists (never enough to use it). */
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  /** Keys minted for a session (the playground) stop working at this time. */
  expires_at: string | null;
  label: string | null;
}

export interface CreateKeyInput {
  tenant: string;
  type: KeyType;
  scopes: KeyScope[];
  label?: string;
  expiresAt?: Date;
}

/** Tenants and keys: used by the CLI (`rcm keys`, `rcm tenants`) and by authentication. */
export interface AdminStore {
  createTenant(name: string): Promise<Tenant>;
  getTenant(idOrName: string): Promise<Tenant>;
  findTenants(): Promise<Tenant[]>;
  /** Creates a key; the secret is returned once and only its hash is stored. */
  createKey(input: CreateKeyInput): Promise<{ record: ApiKeyRecord; secret: string }>;
  findKeys(tenantId?: string): Promise<ApiKeyRecord[]>;
  revokeKey(id: string): Promise<ApiKeyRecord>;
  /** Deletes a tenant's keys that expired before `before` (minted session keys); returns how many. */
  purgeExpiredKeys(tenantId: string, before: Date): Promise<number>;
  /**
   * Deletes every tenant named `prefix` or `prefix-...` holding a key labelled `prefix` and whose
   * keys all expired before `before` (a tenant made for one playground key), with everything it
   * stored; a tenant with any key that does not expire is never purged. Returns how many.
   */
  purgeSessionTenants(prefix: string, before: Date): Promise<number>;
  /** The key whose SHA-256 is `hash` when it is neither revoked nor expired at `at`, else null. */
  findActiveKeyByHash(hash: string, at: Date): Promise<ApiKeyRecord | null>;
}

/**
 * One tenant's state. Handlers receive only this, and every query it runs binds the tenant id,
 * so no handler can read or change another tenant's rows. Later areas add repositories here
 * (facilities, rosters, overrides, determinations, jobs), each under the isolation test.
 */
export interface TenantStore {
  readonly tenantId: string;
  /** Test or live: the host kind of the request. Test and live data of a tenant are separate worlds. */
  readonly mode: KeyType;
  /** Bumped in the same transaction as every write of this tenant; part of cached answers' keys. */
  generation(): Promise<number>;
  /**
   * Runs `fn` in one transaction: all its writes commit together or none do. Use only `tx` inside
   * (the outer store waits for the transaction to finish).
   */
  transaction<T>(fn: (tx: TenantStore) => Promise<T>): Promise<T>;
  keys: {
    /** This tenant's keys (never secrets). */
    list(): Promise<ApiKeyRecord[]>;
    /** Revokes one of this tenant's keys; another tenant's key id is not found. */
    revoke(id: string): Promise<ApiKeyRecord>;
  };
  /** Agent jobs submitted by this tenant. */
  jobs: TenantJobs;
  /** Facility registrations (soft and hard delete). */
  facilities: TenantFacilities;
  /** Payer rosters of the tenant's facilities (idempotent upsert on facility and payer). */
  rosters: TenantRosters;
  /** Facility prior-auth overrides (tier 0 of the prior-auth resolver). */
  overrides: TenantPaOverrides;
  /** Persisted prior-auth determinations: immutable audit records that outlive the facility. */
  determinations: TenantDeterminations;
  /** Customer policy documents (parsed PDFs), their chunks and full-text index. */
  policyDocuments: TenantPolicyDocuments;
  /** 340B watches (what `GET /v1/340b/changes?watch=` follows). */
  watches: TenantWatches;
}

/**
 * Tenant-owned, writable state behind an async interface, so a PostgreSQL adapter can replace
 * SQLite when replicas multiply: an admin part for the CLI and `forTenant` for requests.
 */
export interface StateStore {
  readonly admin: AdminStore;
  /** One tenant's data in one mode: every query binds both, so a test key never reads or changes live rows. */
  forTenant(tenantId: string, mode: KeyType): TenantStore;
  /** The agent job queue across tenants (the job runner's part). */
  readonly jobs: JobQueue;
  /** Changes whenever another process commits a write, or this one changes tenants or keys (auth caches compare it). */
  changeMarker(): Promise<string>;
  /** Calls `listener` after each commit of this process that changed tenants or keys (so auth caches drop at once); returns an unsubscribe. */
  onWrite(listener: () => void): () => void;
  /** Schema version after migrations. */
  schemaVersion(): Promise<number>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * How long a tenant's state generation is answered from memory. Writes through this process are
 * seen at once; a write by another process (`rcm keys revoke`) within this time.
 */
export const GENERATION_TTL_MS = 200;

/**
 * This process's committed writes, counted (one half of a store's change marker) and told to the
 * write listeners (auth caches), for either engine.
 */
export class LocalWrites {
  count = 0;
  private readonly listeners = new Set<() => void>();

  wrote(): void {
    this.count++;
    for (const l of this.listeners) l();
  }

  onWrite(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** A tenant name is unique: creating it again is a conflict on either engine, said the same way. */
export const tenantExists = (name: string): string => `tenant ${name} exists; its keys: rcm keys create --tenant ${name}`;

/** Keys are 32 random characters after the prefix; SHA-256 is enough for secrets with that much entropy. */
export function hashKey(secret: string): string {
  // One-shot `crypto.hash` (Node 20.12+): no Hash object per request on the auth path.
  return hash('sha256', secret, 'hex');
}

/** The shape of every key this service issues; anything else is refused without a lookup. */
export const KEY_RE = /^kp_(test|live)_[A-Za-z0-9]{32}$/;

/** A new key secret of `type` (`kp_<type>_` and 32 characters drawn evenly from [A-Za-z0-9]). */
export function newSecret(type: KeyType): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  // Rejection sampling keeps every character equally likely (256 is not a multiple of 62).
  let s = '';
  while (s.length < 32) {
    for (const b of randomBytes(48)) {
      if (b < 248 && s.length < 32) s += alphabet[b % 62];
    }
  }
  return `kp_${type}_${s}`;
}

export interface KeyRow {
  id: string;
  tenant_id: string;
  type: KeyType;
  scopes: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
  label: string | null;
}

export const KEY_COLS = 'id, tenant_id, type, scopes, prefix, created_at, revoked_at, expires_at, label';
export const toKey = (r: KeyRow): ApiKeyRecord => ({ ...r, scopes: JSON.parse(r.scopes) as KeyScope[] });

/**
 * A new key for `tenantId` as both stores insert it: its row (without the hash), the secret shown
 * once, and the statement's parameters (the row's columns in `KEY_COLS` order, then the hash).
 */
export function newKeyRow(input: CreateKeyInput, tenantId: string, now: Date): { row: KeyRow; secret: string; params: (string | null)[] } {
  const secret = newSecret(input.type);
  const row: KeyRow = {
    id: `key_${randomBytes(8).toString('hex')}`,
    tenant_id: tenantId,
    type: input.type,
    scopes: JSON.stringify([...new Set(input.scopes)]),
    prefix: secret.slice(0, 12),
    created_at: now.toISOString(),
    revoked_at: null,
    expires_at: input.expiresAt ? input.expiresAt.toISOString() : null,
    label: input.label ?? null,
  };
  return { row, secret, params: [row.id, row.tenant_id, row.type, row.scopes, row.prefix, row.created_at, row.revoked_at, row.expires_at, row.label, hashKey(secret)] };
}

/** The statement that inserts a key row (`newKeyRow`'s parameters), on either engine. */
export const INSERT_KEY_SQL = `INSERT INTO api_keys (${KEY_COLS}, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

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
      claimCallback: (now, leaseMs) => tx(() => t.claimCallback(now, leaseMs)),
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
      keys: {
        // A mode's keys only: a test key neither lists nor revokes the tenant's live keys.
        list: () => run(() => (this.db.prepare(`SELECT ${KEY_COLS} FROM api_keys WHERE tenant_id = ? AND type = ? ORDER BY created_at`).all(tenantId, mode) as KeyRow[]).map(toKey)),
        revoke: (id) => write(() => this.revokeKeyWhere(id, tenantId, mode), true),
      },
      jobs: {
        // No cached answer reads jobs (the poll is not cached; the runner's own job writes never
        // bumped), so a submit is an append: durable, no generation bump.
        create: (job, now, windowMs) => append(() => this.jobTables.forTenant(tenantId, mode).create(job, now, windowMs)),
        get: (id) => run(() => this.jobTables.forTenant(tenantId, mode).get(id)),
      },
      facilities: {
        register: (ccn, fields, now) => write(() => fac.facilities(tenantId, mode).register(ccn, fields, now)),
        lookup: (ccn) => run(() => fac.facilities(tenantId, mode).lookup(ccn)),
        list: () => run(() => fac.facilities(tenantId, mode).list()),
        remove: (ccn, hard, now) => write(() => fac.facilities(tenantId, mode).remove(ccn, hard, now)),
      },
      rosters: {
        upsert: (ccn, fields, now) => write(() => fac.rosters(tenantId, mode).upsert(ccn, fields, now)),
        list: (ccn) => run(() => fac.rosters(tenantId, mode).list(ccn)),
      },
      overrides: {
        create: (ccn, fields, now) => write(() => fac.overrides(tenantId, mode).create(ccn, fields, now)),
        list: (ccn) => run(() => fac.overrides(tenantId, mode).list(ccn)),
        remove: (ccn, id) => write(() => fac.overrides(tenantId, mode).remove(ccn, id)),
      },
      determinations: {
        // An audit record changes no answer, so it does not bump the generation (cached answers stay).
        create: (d) => append(() => fac.determinations(tenantId, mode).create(d)),
        get: (id) => run(() => fac.determinations(tenantId, mode).get(id)),
      },
      policyDocuments: {
        save: (doc, chunks) => write(() => this.policyTables.forTenant(tenantId, mode).save(doc, chunks)),
        get: (id) => run(() => this.policyTables.forTenant(tenantId, mode).get(id)),
        list: () => run(() => this.policyTables.forTenant(tenantId, mode).list()),
        remove: (id) => write(() => this.policyTables.forTenant(tenantId, mode).remove(id)),
        search: (q) => run(() => this.policyTables.forTenant(tenantId, mode).search(q)),
      },
      watches: {
        create: (fields, now) => write(() => this.watchTables.forTenant(tenantId, mode).create(fields, now)),
        list: () => run(() => this.watchTables.forTenant(tenantId, mode).list()),
        get: (id) => run(() => this.watchTables.forTenant(tenantId, mode).get(id)),
        remove: (id) => write(() => this.watchTables.forTenant(tenantId, mode).remove(id)),
      },
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
