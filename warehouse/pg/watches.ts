import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../errors.js';
import type { KeyType } from '../key_kinds.js';
import { LISTS, MAX_WATCHES_PER_TENANT, WATCH_COLS, tooManyWatches, toWatch, type Watch, type WatchFields, type WatchRow } from '../watches.js';
import type { Sql } from './sql.js';

/** PostgreSQL implementation of one tenant's 340B watches in one mode (`warehouse/watches.ts` for SQLite). */
export function pgWatches(db: Sql, tenantId: string, mode: KeyType) {
  const one = async (id: string): Promise<Watch> => {
    const r = await db.get<WatchRow>(`SELECT ${WATCH_COLS} FROM watches_340b WHERE tenant_id = ? AND mode = ? AND id = ?`, [tenantId, mode, id]);
    if (!r) throw new NotFoundError(`watch ${id} not found`);
    return toWatch(r);
  };
  return {
    create: async (f: WatchFields, now: Date): Promise<Watch> => {
      // In the write's transaction, after the generation bump took the tenant's row lock: the
      // writes of one tenant are ordered, so the count is exact across replicas.
      const r = await db.get<{ n: number }>('SELECT count(*) AS n FROM watches_340b WHERE tenant_id = ? AND mode = ?', [tenantId, mode]);
      if ((r?.n ?? 0) >= MAX_WATCHES_PER_TENANT) throw tooManyWatches();
      const w: Watch = { id: randomUUID(), ...f, created_at: now.toISOString() };
      await db.run(`INSERT INTO watches_340b (tenant_id, mode, ${WATCH_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [tenantId, mode, w.id, ...LISTS.map((k) => JSON.stringify(w[k])), w.created_at]);
      return w;
    },
    list: async (): Promise<Watch[]> =>
      (await db.all<WatchRow>(`SELECT ${WATCH_COLS} FROM watches_340b WHERE tenant_id = ? AND mode = ? ORDER BY created_at, id`, [tenantId, mode])).map(toWatch),
    get: one,
    remove: async (id: string): Promise<Watch> => {
      const w = await one(id);
      await db.run('DELETE FROM watches_340b WHERE tenant_id = ? AND mode = ? AND id = ?', [tenantId, mode, id]);
      return w;
    },
  };
}
