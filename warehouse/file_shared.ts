import type { SnapshotReader } from './snapshot.js';

/**
 * Values built from one version file (an in-memory index), shared by every snapshot that mounts
 * the same file. Version files are immutable (a replaced label gets a new file), so a snapshot
 * mounting a file an earlier snapshot indexed reuses that value: a hot swap of another dataset
 * neither rebuilds it nor holds two copies while both snapshots serve. Keyed by warehouse,
 * dataset and file; a failed build (or one answering null) is not kept, so the next snapshot
 * tries again.
 */
export class FileShared<T> {
  private readonly built = new Map<string, Promise<T | null>>();

  /** The value of `file` of `dataset`, built by `build` unless an earlier snapshot built it; a reader with no location (a test double) builds its own. */
  get(snapshot: SnapshotReader, dataset: string, file: string, build: () => Promise<T | null>): Promise<T | null> {
    if (!snapshot.location) return build();
    const key = `${snapshot.location}\u0000${dataset}\u0000${file}`;
    let p = this.built.get(key);
    if (!p) {
      p = build();
      this.built.set(key, p);
      p.then(
        (v) => v === null && this.built.get(key) === p && this.built.delete(key),
        () => this.built.get(key) === p && this.built.delete(key),
      );
    }
    return p;
  }

  /** Forgets the values of `dataset` files this snapshot no longer mounts (only the newest snapshot's stay shared; older ones keep their own). */
  prune(snapshot: SnapshotReader, dataset: string, mounted: string[]): void {
    if (!snapshot.location) return;
    const prefix = `${snapshot.location}\u0000${dataset}\u0000`;
    const keep = new Set(mounted.map((f) => prefix + f));
    for (const k of this.built.keys()) if (k.startsWith(prefix) && !keep.has(k)) this.built.delete(k);
  }

  keys(): string[] {
    return [...this.built.keys()];
  }
}
