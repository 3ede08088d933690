import type Database from 'better-sqlite3';

/**
 * Which snapshot each server replica serves, with when it last said so: what `rcm snapshots
 * prune` keeps beside the newest manifests, so no replica loses the files it has mounted.
 */
export interface ReplicaHeartbeat {
  /** `<host>/<pid>/<nonce>`: one per server process. */
  replica: string;
  snapshot_id: string;
  /** ISO 8601 */
  seen_at: string;
}

export interface ReplicaRegistry {
  /** Records that `replica` serves `snapshotId` now (one row per replica, replaced). */
  beat(replica: string, snapshotId: string, now: Date): Promise<void>;
  /** The heartbeats at or after `since`, newest first. */
  since(since: Date): Promise<ReplicaHeartbeat[]>;
  /** Forgets the replicas not heard from since `before` (a stopped server's row). */
  forget(before: Date): Promise<number>;
}

export const REPLICAS_DDL = `
  CREATE TABLE replica_heartbeats (
    replica TEXT PRIMARY KEY, snapshot_id TEXT NOT NULL, seen_at TEXT NOT NULL);
  CREATE INDEX replica_heartbeats_seen ON replica_heartbeats(seen_at);`;

const UPSERT = 'INSERT INTO replica_heartbeats (replica, snapshot_id, seen_at) VALUES (?, ?, ?) ON CONFLICT (replica) DO UPDATE SET snapshot_id = excluded.snapshot_id, seen_at = excluded.seen_at';
const SINCE = 'SELECT replica, snapshot_id, seen_at FROM replica_heartbeats WHERE seen_at >= ? ORDER BY seen_at DESC, replica';
const FORGET = 'DELETE FROM replica_heartbeats WHERE seen_at < ?';

/** The registry on SQLite: `run` is the store's serialised access (a heartbeat is no tenant write: no generation changes). */
export function sqliteReplicas(db: Database.Database, run: <T>(fn: () => T) => Promise<T>): ReplicaRegistry {
  return {
    beat: (replica, snapshotId, now) => run(() => void db.prepare(UPSERT).run(replica, snapshotId, now.toISOString())),
    since: (since) => run(() => db.prepare(SINCE).all(since.toISOString()) as ReplicaHeartbeat[]),
    forget: (before) => run(() => db.prepare(FORGET).run(before.toISOString()).changes),
  };
}

/** The same on PostgreSQL, through the store's `?`-placeholder calls (`warehouse/pg/sql.ts`). */
export function sqlReplicas(db: { all<R>(t: string, a?: unknown[]): Promise<R[]>; run(t: string, a?: unknown[]): Promise<number> }): ReplicaRegistry {
  return {
    beat: async (replica, snapshotId, now) => void (await db.run(UPSERT, [replica, snapshotId, now.toISOString()])),
    since: (since) => db.all<ReplicaHeartbeat>(SINCE, [since.toISOString()]),
    forget: (before) => db.run(FORGET, [before.toISOString()]),
  };
}
