import { join } from 'node:path';
import { ValidationError } from './errors.js';
import type { SqliteOptions } from './state.js';
import { type StateStore } from './tenant_state.js';

/** How the state store commits (`RCM_STATE_SYNC`, `RCM_STATE_BATCH_MAX`: SQLite) and connects (`RCM_STATE_POOL`: PostgreSQL). */
export type StateOptions = SqliteOptions & { poolSize?: number };

/** Where the state lives: `RCM_STATE_URL` unset is SQLite in the data dir; `postgres://...` is PostgreSQL. */
export type StateLocation = { engine: 'sqlite'; file: string } | { engine: 'postgres'; url: string };

const PG_URL_RE = /^postgres(ql)?:\/\/[^\s]+$/;

/** Whether `url` is an `RCM_STATE_URL` this service opens (the config check and the factory agree). */
export const isStateUrl = (url: string): boolean => PG_URL_RE.test(url);

/** The state location of a data dir and an optional `RCM_STATE_URL`. */
export function stateLocationOf(dataDir: string, url?: string): StateLocation {
  if (url === undefined || url === '') return { engine: 'sqlite', file: join(dataDir, 'state.sqlite') };
  if (!isStateUrl(url)) {
    throw new ValidationError([{ loc: ['env', 'RCM_STATE_URL'], msg: 'expected postgres://user@host:port/database (unset: SQLite in RCM_DATA_DIR)', type: 'url' }]);
  }
  return { engine: 'postgres', url };
}

/**
 * Opens the state store at `loc`: the one place that picks the adapter, used by `rcm serve`,
 * `rcm worker` and the CLI's admin commands alike. PostgreSQL runs its pending migrations first;
 * `sync` and `batchMax` apply to the embedded engine only, `poolSize` to PostgreSQL only.
 */
export async function openStateStore(loc: StateLocation, now: () => Date = () => new Date(), o: StateOptions = {}): Promise<StateStore> {
  // Each engine's driver is loaded only when its store opens (the CLI's config reads this module).
  if (loc.engine === 'sqlite') return new (await import('./state.js')).SqliteStateStore(loc.file, now, o);
  return (await import('./pg/state.js')).PgStateStore.open(loc.url, now, o.poolSize);
}
