import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChangeRecord } from './manifest.js';
import type { SnapshotReader } from './snapshot.js';

/** One key a release added, removed or changed in a table (a line of a change record's `keys_file`). */
export interface KeyChange {
  table: string;
  kind: 'added' | 'removed' | 'changed';
  /** The table's key columns joined with `|` (empty text for a null). */
  key: string;
  /** The value columns that changed (changed keys only). */
  columns: string[];
}

/**
 * The per-key change rows the ingest kept beside a change record (`changes/<dataset>/...jsonl`,
 * written by the diff as DuckDB JSON lines), read once per snapshot. Empty for a first load,
 * which keeps none (every key is added).
 */
export function readKeyChanges(snapshot: SnapshotReader, change: ChangeRecord): Promise<KeyChange[]> {
  const file = change.keys_file;
  if (!file || !snapshot.location) return Promise.resolve([]);
  return snapshot.memo(
    `key_changes:${change.id}`,
    async () =>
      (await readFile(join(snapshot.location!, file), 'utf8'))
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as KeyChange),
    { pin: true },
  );
}
