import type { SnapshotReader } from '../../warehouse/snapshot.js';

/** The latest loaded version label of a dataset, or undefined when it is not loaded. */
export function latestVersion(snapshot: SnapshotReader, dataset: string): string | undefined {
  return snapshot.versions(dataset).at(-1)?.version;
}

/**
 * The latest loaded version effective in `year` (fee schedules are quarterly; a `year` query means
 * that year's newest release), or the latest overall when no year is given.
 */
export function versionForYear(snapshot: SnapshotReader, dataset: string, year?: number): string | undefined {
  const vs = snapshot.versions(dataset);
  const pool = year === undefined ? vs : vs.filter((v) => (v.effective_date ?? v.version).startsWith(String(year)));
  return pool.at(-1)?.version;
}
