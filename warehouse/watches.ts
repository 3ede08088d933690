import type Database from 'better-sqlite3';
import { uuidv7 } from './ids.js';
import { z } from 'zod';
import { DomainError, NotFoundError } from './errors.js';
import type { KeyType } from './key_kinds.js';

/** A tenant's 340B watch, as stored: which manufacturers, NDCs, states and entity types it follows (empty: all). */
export const StoredWatchSchema = z.object({
  id: z.uuid(),
  manufacturers: z.array(z.string()).describe('manufacturer ids of the 340B dataset'),
  ndcs: z.array(z.string()),
  states: z.array(z.string()),
  entity_types: z.array(z.string()),
  created_at: z.string().describe('ISO 8601 date-time; the watch returns changes dated on or after its day'),
});
export type Watch = z.output<typeof StoredWatchSchema>;
export type WatchFields = Omit<Watch, 'id' | 'created_at'>;

/** Watches one tenant may hold in one mode: a watch is a standing query, not a store. */
export const MAX_WATCHES_PER_TENANT = 100;

/** The refusal of a watch past the bound (409: delete one first). */
export const tooManyWatches = (): DomainError =>
  new DomainError('conflict', `a tenant holds at most ${MAX_WATCHES_PER_TENANT} 340B watches; delete one (DELETE /v1/340b/watches/{id}) before adding another`);

/** One tenant's watches in one mode (live: `POST /v1/340b/watches` takes live keys only). */
export interface TenantWatches {
  create(fields: WatchFields, now: Date): Promise<Watch>;
  list(): Promise<Watch[]>;
  /** @throws NotFoundError for an id of another tenant or mode (or none). */
  get(id: string): Promise<Watch>;
  /** @throws NotFoundError for an id of another tenant or mode (or none). */
  remove(id: string): Promise<Watch>;
}

export const WATCHES_DDL = `
  CREATE TABLE watches_340b (
    id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants(id), mode TEXT NOT NULL CHECK (mode IN ('test','live')),
    manufacturers TEXT NOT NULL, ndcs TEXT NOT NULL, states TEXT NOT NULL, entity_types TEXT NOT NULL, created_at TEXT NOT NULL);
  CREATE INDEX watches_340b_tenant ON watches_340b(tenant_id, mode, created_at);`;

export interface WatchRow {
  id: string;
  manufacturers: string;
  ndcs: string;
  states: string;
  entity_types: string;
  created_at: string;
}
export const WATCH_COLS = 'id, manufacturers, ndcs, states, entity_types, created_at';
export const LISTS = ['manufacturers', 'ndcs', 'states', 'entity_types'] as const;
const list = (s: string) => JSON.parse(s) as string[];
export const toWatch = (r: WatchRow): Watch => ({
  id: r.id,
  manufacturers: list(r.manufacturers),
  ndcs: list(r.ndcs),
  states: list(r.states),
  entity_types: list(r.entity_types),
  created_at: r.created_at,
});

/** SQLite implementation; the state store runs each method under its lock (writes in a transaction). */
export class SqliteWatches {
  constructor(private readonly db: Database.Database) {}

  forTenant(tenantId: string, mode: KeyType) {
    const one = (id: string) => {
      const r = this.db.prepare(`SELECT ${WATCH_COLS} FROM watches_340b WHERE tenant_id = ? AND mode = ? AND id = ?`).get(tenantId, mode, id) as WatchRow | undefined;
      if (!r) throw new NotFoundError(`watch ${id} not found`);
      return toWatch(r);
    };
    return {
      create: (f: WatchFields, now: Date): Watch => {
        // Under the state store's write lock (a write of this tenant), so the count is exact.
        const { n } = this.db.prepare('SELECT count(*) AS n FROM watches_340b WHERE tenant_id = ? AND mode = ?').get(tenantId, mode) as { n: number };
        if (n >= MAX_WATCHES_PER_TENANT) throw tooManyWatches();
        const w: Watch = { id: uuidv7(now.getTime()), ...f, created_at: now.toISOString() };
        this.db
          .prepare(`INSERT INTO watches_340b (tenant_id, mode, ${WATCH_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
          .run(tenantId, mode, w.id, ...LISTS.map((k) => JSON.stringify(w[k])), w.created_at);
        return w;
      },
      list: (): Watch[] =>
        (this.db.prepare(`SELECT ${WATCH_COLS} FROM watches_340b WHERE tenant_id = ? AND mode = ? ORDER BY created_at, id`).all(tenantId, mode) as WatchRow[]).map(toWatch),
      get: one,
      remove: (id: string): Watch => {
        const w = one(id);
        this.db.prepare('DELETE FROM watches_340b WHERE tenant_id = ? AND mode = ? AND id = ?').run(tenantId, mode, id);
        return w;
      },
    };
  }
}
