import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { versionLabel, versionRows } from '../_shared/versions.js';
import { oppsAddendumA, type OppsAddendumARow } from './dataset.js';

/** A stored Addendum A row plus the version label (`2025-01`) it was loaded under. */
export type OppsApcEntry = OppsAddendumARow & { version: string };

/**
 * The newest Addendum A release effective in calendar year `year` (quarterly releases), or
 * undefined when none of that year is loaded: an APC's weight and rate belong to their year, so
 * another year's release never stands in.
 */
export function oppsApcVersionForYear(snapshot: SnapshotReader, year: number): string | undefined {
  return versionLabel(snapshot, oppsAddendumA.id, { rule: 'effective', year });
}

/**
 * The Addendum A row of an APC in one release (at most one: the APC is the key). A release (~1,000
 * APCs) is read once per snapshot into a map.
 */
export async function findApcRowsIn(snapshot: SnapshotReader, version: string, apc: string): Promise<OppsApcEntry[]> {
  const row = (await versionRows(snapshot, oppsAddendumA, version, (r) => r.apc)).get(apc.padStart(4, '0'));
  return row ? [row] : [];
}
