import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { pickForRequest, requireCovered, versionRows, type RequestDate, type VersionPick } from '../_shared/versions.js';
import { ascAddendumAa, type AscAddendumAaRow } from './dataset.js';

/** A stored Addendum AA row plus the version label (`2025-01`) it was loaded under. */
export type AscRate = AscAddendumAaRow & { version: string };

/**
 * The Addendum AA release that answers a request, by the project's date rule (`pickForRequest`,
 * rule `year`: a calendar-year payment file updated in quarterly releases, as OPPS Addendum B):
 * the newest release in force on the date, of the date's year; else the nearest, `covered` false
 * with a warning. Undefined when the dataset is not loaded.
 */
export function ascVersionFor(snapshot: SnapshotReader, when: RequestDate): VersionPick | undefined {
  return pickForRequest(ascAddendumAa.id, snapshot.versions(ascAddendumAa.id), 'year', when);
}

/**
 * The Addendum AA rows of a code in one release (at most one: the code is the key). A release
 * (~4,200 rows) is read once per snapshot into a map, so many codes cost one query.
 */
export async function findAscRatesIn(snapshot: SnapshotReader, version: string, hcpcs: string): Promise<AscRate[]> {
  const row = (await versionRows(snapshot, ascAddendumAa, version, (r) => r.hcpcs_code)).get(hcpcs);
  return row ? [row] : [];
}

/**
 * The ASC row of a code for a request's date or year (the date rule: a date or year given that no
 * loaded release covers is a NotFoundError naming the nearest; without one, today's release, else
 * the newest with `pick.covered` false). Empty `rows` when the code is not in the release (not an
 * ASC covered surgical procedure); `pick` undefined when the dataset is not loaded.
 * `payment_rate` is null for packaged codes (N1): no separate payment, never $0.
 */
export async function findAscRates(snapshot: SnapshotReader, hcpcs: string, when: RequestDate): Promise<{ pick: VersionPick | undefined; rows: AscRate[] }> {
  const pick = ascVersionFor(snapshot, when);
  requireCovered(when, 'year', [{ dataset: ascAddendumAa.id, pick }]);
  return { pick, rows: pick ? await findAscRatesIn(snapshot, pick.version.version, hcpcs) : [] };
}
