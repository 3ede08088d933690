import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { versionLabel } from '../_shared/versions.js';
import { localityCounty, type LocalityCountyRow } from './dataset.js';
import { normCounty, toStateCode } from './states.js';

/** A locality a county belongs to, with how the match was made. */
export interface CountyLocalityMatch {
  /** 7-digit locality id (MAC + locality number). */
  locality: string;
  mac: string;
  locality_number: string;
  /** Fee schedule area as printed in LOCCO, e.g. `MANHATTAN`, `REST OF STATE`. */
  fee_schedule_area: string;
  /** `county`: named in the list; `all_other`: the state's `ALL OTHER COUNTIES` row; `all`: a statewide row. */
  matched_by: 'county' | 'all_other' | 'all';
  /** The locality_county version label the answer came from. */
  version: string;
}

async function rowsByState(snapshot: SnapshotReader): Promise<{ version: string; byState: Map<string, LocalityCountyRow[]> } | undefined> {
  const version = versionLabel(snapshot, localityCounty.id);
  if (!version) return undefined;
  return snapshot.memo(`${localityCounty.id}:rows:${version}`, async () => {
    const rows = await snapshot.all<LocalityCountyRow>(
      `SELECT locality, mac, locality_number, state, fee_schedule_area, county, county_state, excluded_counties, two_carriers, year FROM ${localityCounty.id} WHERE version = $1 ORDER BY locality, county`,
      [version],
    );
    const byState = new Map<string, LocalityCountyRow[]>();
    for (const r of rows) {
      const list = byState.get(r.county_state) ?? [];
      list.push(r);
      byState.set(r.county_state, list);
    }
    return { version, byState };
  }, { pin: true });
}

/**
 * Localities a county belongs to under the latest LOCCO file, most specific first: a county named
 * in a list, else the state's `ALL OTHER COUNTIES` row, else a statewide `ALL COUNTIES` row —
 * skipping catch-alls whose `EXCEPT` list names the county (Virginia, Maryland in 25LOCCO).
 * `state` is a USPS code or a state name; county names are matched without `COUNTY`/`PARISH`
 * suffixes. Empty when locality_county is not loaded or nothing matches.
 */
export async function findLocalityForCounty(snapshot: SnapshotReader, state: string, county: string): Promise<CountyLocalityMatch[]> {
  const data = await rowsByState(snapshot);
  const st = toStateCode(state);
  if (!data || !st) return [];
  const rows = data.byState.get(st) ?? [];
  const want = normCounty(county);
  const toMatch = (r: LocalityCountyRow, matched_by: CountyLocalityMatch['matched_by']): CountyLocalityMatch => ({
    locality: r.locality,
    mac: r.mac,
    locality_number: r.locality_number,
    fee_schedule_area: r.fee_schedule_area,
    matched_by,
    version: data.version,
  });
  const named = rows.filter((r) => normCounty(r.county) === want);
  if (named.length > 0) return named.map((r) => toMatch(r, 'county'));
  const notExcluded = (r: LocalityCountyRow) => !(r.excluded_counties ?? '').split(';').some((c) => c !== '' && normCounty(c) === want);
  const other = rows.filter((r) => r.county === 'ALL OTHER COUNTIES' && notExcluded(r));
  if (other.length > 0) return other.map((r) => toMatch(r, 'all_other'));
  return rows.filter((r) => r.county !== 'ALL OTHER COUNTIES' && r.county.startsWith('ALL ') && notExcluded(r)).map((r) => toMatch(r, 'all'));
}

/** Fee schedule areas of a 7-digit locality from the latest LOCCO file (the name used when `gpci` is absent). */
export async function findFeeScheduleAreas(snapshot: SnapshotReader, locality: string): Promise<string[]> {
  const data = await rowsByState(snapshot);
  if (!data) return [];
  const areas = new Set<string>();
  for (const rows of data.byState.values()) for (const r of rows) if (r.locality === locality) areas.add(r.fee_schedule_area);
  return [...areas];
}

/**
 * The counties a 7-digit locality covers in the latest LOCCO file: each named county with its state,
 * and whether a catch-all row (`ALL COUNTIES`, `ALL OTHER COUNTIES`, `REST OF STATE`...) makes the
 * list open. Undefined when locality_county is not loaded.
 */
export async function countiesOfLocality(snapshot: SnapshotReader, locality: string): Promise<{ version: string; counties: { county: string; state: string }[]; open: boolean } | undefined> {
  const data = await rowsByState(snapshot);
  if (!data) return undefined;
  const counties: { county: string; state: string }[] = [];
  let open = false;
  for (const rows of data.byState.values()) {
    for (const r of rows) {
      if (r.locality !== locality) continue;
      if (r.county.startsWith('ALL ') || /^REST OF/.test(r.county)) open = true;
      else counties.push({ county: r.county, state: r.county_state });
    }
  }
  return { version: data.version, counties, open };
}
