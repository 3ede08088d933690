import { rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { DomainError } from '../warehouse/errors.js';
import type { ReplicaHeartbeat } from '../warehouse/replicas.js';
import { filesUnder, sidecarsOf, type Warehouse } from '../warehouse/store.js';
import { withWriteLock } from './lock.js';

/** How recently a replica must have reported a snapshot for a prune to keep it (10 minutes). */
export const REPLICA_GRACE_MS = 10 * 60 * 1000;

export interface PruneResult {
  dry_run: boolean;
  /** Snapshots kept, and why each (`newest`, `current`, `replica <id>`). */
  kept: { id: string; why: string[] }[];
  /** Manifests removed. */
  removed_snapshots: string[];
  /** Files removed (version files with their sidecars, change keys, rejects of removed versions), relative to the data dir. */
  removed_files: string[];
  freed_bytes: number;
}

/**
 * `rcm snapshots prune --keep N`: keeps the N newest manifests, the served one (CURRENT) and every
 * one a replica reported within the last 10 minutes, removes the other manifests, then removes the
 * version files (with their sidecars), per-key change files and rejects that no kept manifest
 * references. Holds the ingest lock, so no ingest publishes meanwhile; a dry run lists what it
 * would remove.
 */
export async function pruneSnapshots(wh: Warehouse, o: { keep: number; heartbeats: ReplicaHeartbeat[]; dryRun?: boolean; now?: () => Date }): Promise<PruneResult> {
  if (!Number.isInteger(o.keep) || o.keep < 1) throw new DomainError('validation_error', '--keep must be a whole number of at least 1');
  const now = o.now ?? (() => new Date());
  await wh.init();
  return withWriteLock(wh.path('ingest.lock'), async () => {
    const all = await wh.listSnapshots();
    const current = await wh.currentId();
    const why = new Map<string, string[]>();
    const keep = (id: string, reason: string) => {
      if (all.some((m) => m.id === id)) why.set(id, [...(why.get(id) ?? []), reason]);
    };
    for (const m of all.slice(-o.keep)) keep(m.id, 'newest');
    if (current) keep(current, 'current');
    const since = now().getTime() - REPLICA_GRACE_MS;
    for (const h of o.heartbeats) if (Date.parse(h.seen_at) >= since) keep(h.snapshot_id, `replica ${h.replica}`);
    const kept = all.filter((m) => why.has(m.id));
    const dropped = all.filter((m) => !why.has(m.id));

    // What the kept manifests reference: version files (their sidecars go with them) and change keys.
    const referenced = new Set<string>();
    for (const m of kept) {
      for (const versions of Object.values(m.datasets)) for (const v of versions) referenced.add(v.file);
      for (const c of m.changes) if (c.keys_file) referenced.add(c.keys_file);
    }
    const removed: string[] = [];
    for (const f of await filesUnder(wh.dir, 'datasets')) {
      if (!f.endsWith('.duckdb') || referenced.has(f)) continue;
      removed.push(f, ...(await sidecarsOf(wh.path(f))).map((s) => `${f}${s}`));
      // The rejected rows of that version (`rejects/<dataset>/<label>.<nonce>.jsonl`).
      const reject = join('rejects', basename(join(f, '..')), `${basename(f, '.duckdb')}.jsonl`);
      if (await stat(wh.path(reject)).catch(() => null)) removed.push(reject);
    }
    for (const f of await filesUnder(wh.dir, 'changes')) if (!referenced.has(f)) removed.push(f);
    let freed = 0;
    for (const f of removed) freed += (await stat(wh.path(f)).catch(() => null))?.size ?? 0;
    if (!o.dryRun) {
      // Manifests first: a manifest never points at a removed file, even if the prune stops half-way.
      for (const m of dropped) await rm(wh.path('snapshots', `${m.id}.json`), { force: true });
      for (const f of removed) await rm(wh.path(f), { force: true, recursive: true });
    }
    return {
      dry_run: Boolean(o.dryRun),
      kept: kept.map((m) => ({ id: m.id, why: why.get(m.id)! })),
      removed_snapshots: dropped.map((m) => m.id),
      removed_files: removed,
      freed_bytes: freed,
    };
  });
}
