import { hash, randomBytes } from 'node:crypto';
import type { JobQueue, TenantJobs } from './jobs.js';
import type { KeyScope, KeyType } from './key_kinds.js';
import type { TenantPolicyDocuments } from './policy_documents.js';
import type { ReplicaRegistry } from './replicas.js';
import type { TenantWatches } from './watches.js';
import type { TenantDeterminations, TenantFacilities, TenantPaOverrides, TenantRosters } from './facilities.js';

/**
 * The state store's interfaces and what both engines (SQLite, PostgreSQL) share: key minting, the
 * local write counter, and the one write policy every repository method follows.
 */
export type { KeyScope, KeyType } from './key_kinds.js';

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
  /** Which snapshot each server replica serves (`rcm snapshots prune` keeps those). */
  readonly replicas: ReplicaRegistry;
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

/** The repositories of a tenant view (everything in `TenantStore` but its id, mode, generation and transaction). */
export type RepoName = 'keys' | 'jobs' | 'facilities' | 'rosters' | 'overrides' | 'determinations' | 'policyDocuments' | 'watches';
export type TenantRepos = Pick<TenantStore, RepoName>;

/**
 * What a repository method does to the tenant's state, decided once for both engines:
 * - `read`: reads only.
 * - `write`: changes rows a cached answer may have read, so it commits together with a bump of the
 *   tenant's generation (which drops those answers); writes of one tenant are ordered.
 * - `key_write`: a write that also changes keys, so the auth caches of this process drop at once.
 * - `append`: a durable insert that no cached answer reads (an audit record): no bump.
 * - `bounded_append`: an append checked against a count of the tenant's rows (a queue bound):
 *   ordered per tenant so the bound is exact across processes, and still no bump.
 */
export type WriteKind = 'read' | 'write' | 'key_write' | 'append' | 'bounded_append';

/**
 * The one write policy, per repository method. Both engines build their tenant views from it
 * (`repositoryView`), so an agent submit cannot be a write on one engine and an append on the
 * other; the state test checks each method's effect on the generation against this table.
 */
export const WRITE_POLICY = {
  keys: { list: 'read', revoke: 'key_write' },
  // No cached answer reads jobs (the poll is not cached): a submit is an append, bounded by the
  // tenant's queue limit (RCM_JOBS_QUEUED_PER_TENANT).
  jobs: { create: 'bounded_append', get: 'read' },
  facilities: { register: 'write', lookup: 'read', list: 'read', remove: 'write' },
  rosters: { upsert: 'write', list: 'read' },
  overrides: { create: 'write', list: 'read', remove: 'write' },
  // An audit record changes no answer: cached answers stay.
  determinations: { create: 'append', get: 'read' },
  policyDocuments: { save: 'write', get: 'read', list: 'read', remove: 'write', search: 'read' },
  watches: { create: 'write', list: 'read', get: 'read', remove: 'write' },
} as const satisfies { [R in RepoName]: { [M in keyof TenantRepos[R]]: WriteKind } };

/** A repository as an engine implements it: each method may answer at once (SQLite) or later (PostgreSQL). */
export type EngineRepos = {
  [R in RepoName]: { [M in keyof TenantRepos[R]]: TenantRepos[R][M] extends (...a: infer A) => Promise<infer O> ? (...a: A) => O | Promise<O> : never };
};

/**
 * A tenant view's repositories, generated from `WRITE_POLICY`: each method call goes through the
 * engine's `call(kind, use)`, which picks the connection and transaction for `kind` and runs
 * `use` on that connection's repositories.
 */
export function repositoryView(call: (kind: WriteKind, use: (repos: EngineRepos) => unknown) => Promise<unknown>): TenantRepos {
  const view: Record<string, Record<string, (...a: unknown[]) => Promise<unknown>>> = {};
  for (const [repo, methods] of Object.entries(WRITE_POLICY)) {
    const r: Record<string, (...a: unknown[]) => Promise<unknown>> = {};
    for (const [method, kind] of Object.entries(methods)) {
      r[method] = (...args) => call(kind, (repos) => (repos as unknown as Record<string, Record<string, (...a: unknown[]) => unknown>>)[repo]![method]!(...args));
    }
    view[repo] = r;
  }
  return view as unknown as TenantRepos;
}
