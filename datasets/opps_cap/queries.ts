import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { oppsCap, type OppsCapRow } from './dataset.js';

/** A release's caps by `hcpcs|modifier|locality`, built once per snapshot (16k rows a release). */
function capIndex(snapshot: SnapshotReader, version: string): Promise<Map<string, OppsCapRow>> {
  return snapshot.memo(
    `${oppsCap.id}:index:${version}`,
    async () => {
      const rows = await snapshot.all<OppsCapRow>(`SELECT * EXCLUDE (version) FROM ${oppsCap.id} WHERE version = $1`, [version]);
      return new Map(rows.map((r) => [`${r.hcpcs}|${r.modifier}|${r.locality}`, r]));
    },
    { pin: true },
  );
}

/** The calendar year a cap release belongs to (`2025D` -> 2025). */
export const capYear = (version: string): number => Number(version.slice(0, 4));

export interface CapLookup {
  /** The cap row for the year of the date of service, or null. */
  row: OppsCapRow | null;
  version: string | null;
  /** A release of another year has a cap for this code and locality, but none of the service's year is loaded. */
  other_year: { version: string; row: OppsCapRow } | null;
}

/**
 * The OPPS cap of a code, modifier and locality for a calendar year: from the latest loaded
 * release of that year. A cap of another year never applies (the caps move every year), but is
 * reported so the answer can say the year's file is missing. Null when opps_cap is not loaded.
 */
export async function lookupOppsCap(snapshot: SnapshotReader, code: string, modifier: string, locality: string, year: number): Promise<CapLookup | null> {
  const versions = snapshot.versions(oppsCap.id);
  if (versions.length === 0) return null;
  const key = `${code}|${modifier}|${locality}`;
  const ofYear = versions.filter((v) => capYear(v.version) === year).at(-1);
  if (ofYear) return { row: (await capIndex(snapshot, ofYear.version)).get(key) ?? null, version: ofYear.version, other_year: null };
  for (const v of [...versions].reverse()) {
    const row = (await capIndex(snapshot, v.version)).get(key);
    if (row) return { row: null, version: null, other_year: { version: v.version, row } };
  }
  return { row: null, version: null, other_year: null };
}
