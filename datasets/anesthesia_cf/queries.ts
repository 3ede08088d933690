import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { quoteIdent } from '../../warehouse/sql_quote.js';
import { anesthesiaCf, type AnesthesiaCfRow } from './dataset.js';

/** A stored row plus the version (year) it was loaded under. */
export type AnesthesiaCfEntry = AnesthesiaCfRow & { version: string };

/**
 * The anesthesia conversion factor of a locality (`1320201`: MAC + locality number, as the GPCI
 * file) for a year: the release of that year, else the nearest loaded year (`other_year` set, the
 * caller says so). `row` is null when the locality is not in that release; the national factor of
 * the release is always given. Null when the dataset is not loaded.
 */
export async function lookupAnesCf(
  snapshot: SnapshotReader,
  locality: string | null,
  year: number,
): Promise<{ version: string; national_anes_cf: number; row: AnesthesiaCfEntry | null; other_year: boolean } | null> {
  const versions = snapshot.versions(anesthesiaCf.id).map((v) => v.version);
  if (versions.length === 0) return null;
  const nearest = versions.includes(String(year)) ? String(year) : [...versions].sort((a, b) => Math.abs(Number(a) - year) - Math.abs(Number(b) - year) || Number(b) - Number(a))[0]!;
  const rows = await snapshot.memo(`${anesthesiaCf.id}:rows:${nearest}`, () =>
    snapshot.all<AnesthesiaCfEntry>(`SELECT * FROM ${quoteIdent(anesthesiaCf.id)} WHERE version = $1`, [nearest]),
  );
  const row = locality ? (rows.find((r) => `${r.contractor}${r.locality}` === locality) ?? null) : null;
  return { version: nearest, national_anes_cf: rows[0]?.national_anes_cf ?? 0, row, other_year: nearest !== String(year) };
}
