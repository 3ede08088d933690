import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { quoteIdent } from '../../warehouse/sql_quote.js';
import { versionLabel } from '../_shared/versions.js';
import { anesthesiaBaseUnits, type AnesthesiaBaseUnitsRow } from './dataset.js';

/** A stored row plus the version label it was loaded under. */
export type AnesthesiaBaseUnitsEntry = AnesthesiaBaseUnitsRow & { version: string };

/**
 * The base units of `code` in the latest loaded version, null when the code is not there; null
 * `version` when the dataset is not loaded. `illustrative` is true when the version answering is
 * the repository's seed (loaded by `rcm seed`, marked `seed` in the manifest: its base units are
 * written for the tests), so callers can say so; any publisher's release loaded replaces it.
 */
export async function findAnesthesiaBaseUnits(snapshot: SnapshotReader, code: string): Promise<{ version: string | null; row: AnesthesiaBaseUnitsEntry | null; illustrative: boolean }> {
  const version = versionLabel(snapshot, anesthesiaBaseUnits.id);
  if (!version) return { version: null, row: null, illustrative: false };
  const seed = snapshot.versions(anesthesiaBaseUnits.id).find((v) => v.version === version)?.seed === true;
  const rows = await snapshot.memo(`${anesthesiaBaseUnits.id}:code:${version}:${code}`, () =>
    snapshot.all<AnesthesiaBaseUnitsEntry>(`SELECT * FROM ${quoteIdent(anesthesiaBaseUnits.id)} WHERE version = $1 AND code = $2`, [version, code]),
  );
  return { version, row: rows[0] ?? null, illustrative: seed };
}
