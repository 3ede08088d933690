import Database from 'better-sqlite3';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { NotFoundError } from './errors.js';

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
  label: string | null;
}

/**
 * Tenant-owned, writable state. Kept behind this interface so a PostgreSQL adapter can replace
 * SQLite when replicas multiply. Every tenant-owned query takes the tenant id.
 */
export interface StateStore {
  createTenant(name: string): Tenant;
  getTenant(idOrName: string): Tenant;
  findTenants(): Tenant[];
  /** Creates a key; the secret is returned once and only its hash is stored. */
  createKey(input: { tenant: string; type: KeyType; scopes: KeyScope[]; label?: string }): { record: ApiKeyRecord; secret: string };
  /** The active (not revoked) key with this secret, or null. */
  authenticate(secret: string): ApiKeyRecord | null;
  findKeys(tenantId?: string): ApiKeyRecord[];
  revokeKey(id: string): ApiKeyRecord;
  ping(): boolean;
  close(): void;
}

/** Keys are 32 random bytes (base62-ish); SHA-256 is enough for secrets with that much entropy. */
export function hashKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function newSecret(type: KeyType): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(32);
  let s = '';
  for (const b of bytes) s += alphabet[b % alphabet.length];
  return `kp_${type}_${s}`;
}

interface KeyRow {
  id: string;
  tenant_id: string;
  type: KeyType;
  scopes: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  label: string | null;
}

const toKey = (r: KeyRow): ApiKeyRecord => ({ ...r, scopes: JSON.parse(r.scopes) as KeyScope[] });

/** SQLite in WAL mode: durable before a 2xx, and the CLI can write while the server runs. */
export class SqliteStateStore implements StateStore {
  private readonly db: Database.Database;
  private readonly stmtAuth: Database.Statement<[string], KeyRow>;
  private readonly stmtDataVersion: Database.Statement<[], { data_version: number }>;
  /** secret -> key (or null), valid until any connection commits a write (see authenticate). */
  private readonly authCache = new Map<string, ApiKeyRecord | null>();
  private dataVersion = -1;
  private checkedAt = 0;
  /** How long a data_version reading is trusted (cross-process writes are seen within this). */
  static readonly CHANGE_CHECK_MS = 200;

  constructor(
    file: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
    this.migrate();
    this.stmtDataVersion = this.db.prepare('PRAGMA data_version');
    this.stmtAuth = this.db.prepare('SELECT id, tenant_id, type, scopes, prefix, created_at, revoked_at, label FROM api_keys WHERE hash = ? AND revoked_at IS NULL');
  }

  private migrate(): void {
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS tenants (
        id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS api_keys (
        id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants(id),
        type TEXT NOT NULL CHECK (type IN ('test','live')), scopes TEXT NOT NULL,
        prefix TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, label TEXT,
        created_at TEXT NOT NULL, revoked_at TEXT);
      CREATE INDEX IF NOT EXISTS api_keys_tenant ON api_keys(tenant_id);
    `);
  }

  createTenant(name: string): Tenant {
    const t: Tenant = { id: randomUUID(), name, created_at: this.now().toISOString() };
    this.db.prepare('INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)').run(t.id, t.name, t.created_at);
    return t;
  }

  getTenant(idOrName: string): Tenant {
    const t = this.db.prepare('SELECT id, name, created_at FROM tenants WHERE id = ? OR name = ?').get(idOrName, idOrName) as Tenant | undefined;
    if (!t) throw new NotFoundError(`tenant ${idOrName} not found`);
    return t;
  }

  findTenants(): Tenant[] {
    return this.db.prepare('SELECT id, name, created_at FROM tenants ORDER BY created_at').all() as Tenant[];
  }

  createKey(input: { tenant: string; type: KeyType; scopes: KeyScope[]; label?: string }): { record: ApiKeyRecord; secret: string } {
    const tenant = this.getTenant(input.tenant);
    const secret = newSecret(input.type);
    const row: KeyRow = {
      id: `key_${randomBytes(8).toString('hex')}`,
      tenant_id: tenant.id,
      type: input.type,
      scopes: JSON.stringify([...new Set(input.scopes)]),
      prefix: secret.slice(0, 12),
      created_at: this.now().toISOString(),
      revoked_at: null,
      label: input.label ?? null,
    };
    this.db
      .prepare('INSERT INTO api_keys (id, tenant_id, type, scopes, prefix, hash, label, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(row.id, row.tenant_id, row.type, row.scopes, row.prefix, hashKey(secret), row.label, row.created_at);
    this.authCache.clear();
    return { record: toKey(row), secret };
  }

  /**
   * Looks a key up on every request, but answers from memory while the database is unchanged:
   * `PRAGMA data_version` moves whenever another connection (the CLI) commits and is read at most
   * every CHANGE_CHECK_MS; this connection's own writes clear the cache at once. So a key created
   * or revoked by `rcm keys` counts within 0.2 s, without a hash and a query per request.
   */
  authenticate(secret: string): ApiKeyRecord | null {
    const t = Date.now();
    if (t - this.checkedAt >= SqliteStateStore.CHANGE_CHECK_MS) {
      this.checkedAt = t;
      const dv = this.stmtDataVersion.get()!.data_version;
      if (dv !== this.dataVersion) {
        this.authCache.clear();
        this.dataVersion = dv;
      }
    }
    const hit = this.authCache.get(secret);
    if (hit !== undefined) return hit;
    const r = this.stmtAuth.get(hashKey(secret));
    const key = r ? toKey(r) : null;
    if (this.authCache.size >= 10_000) this.authCache.clear();
    this.authCache.set(secret, key);
    return key;
  }

  findKeys(tenantId?: string): ApiKeyRecord[] {
    const sql = 'SELECT id, tenant_id, type, scopes, prefix, created_at, revoked_at, label FROM api_keys';
    const rows = (tenantId ? this.db.prepare(`${sql} WHERE tenant_id = ? ORDER BY created_at`).all(tenantId) : this.db.prepare(`${sql} ORDER BY created_at`).all()) as KeyRow[];
    return rows.map(toKey);
  }

  revokeKey(id: string): ApiKeyRecord {
    const res = this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(this.now().toISOString(), id);
    this.authCache.clear();
    const r = this.db.prepare('SELECT id, tenant_id, type, scopes, prefix, created_at, revoked_at, label FROM api_keys WHERE id = ?').get(id) as KeyRow | undefined;
    if (!r) throw new NotFoundError(`key ${id} not found`);
    if (res.changes === 0 && !r.revoked_at) throw new NotFoundError(`key ${id} not found`);
    return toKey(r);
  }

  ping(): boolean {
    return this.db.prepare('SELECT 1 AS ok').get() !== undefined;
  }

  close(): void {
    this.db.close();
  }
}
