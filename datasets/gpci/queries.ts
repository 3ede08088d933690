import { selectVersion } from '../_shared/versions.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { gpci, type GpciRow } from './dataset.js';

/**
 * The GPCI table of one version by 7-digit locality, loaded once per snapshot (109 rows): every
 * payment call needs one locality's row.
 */
function gpciTable(snapshot: SnapshotReader, version: string): Promise<Map<string, GpciRow>> {
  return snapshot.memo(`${gpci.id}:table:${version}`, async () => {
    const rows = await snapshot.all<GpciRow>(`SELECT locality, mac, locality_number, state, locality_name, pw_gpci, pe_gpci, mp_gpci, year FROM ${gpci.id} WHERE version = $1`, [version]);
    return new Map(rows.map((r) => [r.locality, r]));
  }, { pin: true });
}

/**
 * The GPCI row of a locality from the release in force on `date` (latest release when no date),
 * with a warning when no loaded release is effective yet. Undefined when gpci is not loaded;
 * `row` undefined when the locality is not in the release.
 */
export async function lookupGpci(snapshot: SnapshotReader, locality: string, date?: string): Promise<{ row: GpciRow | undefined; version: string; warnings: string[] } | undefined> {
  const pick = selectVersion(gpci.id, snapshot.versions(gpci.id), { rule: 'effective', date });
  if (!pick) return undefined;
  const warnings = pick.warning ? [pick.warning] : [];
  const table = await gpciTable(snapshot, pick.version.version);
  return { row: table.get(locality), version: pick.version.version, warnings };
}
