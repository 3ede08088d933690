import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { versionLabel } from '../_shared/versions.js';
import { normCounty, toStateCode } from '../locality_county/states.js';
import { cbsaCounty, type CbsaCountyRow } from './dataset.js';

/** A county's CBSA with the crosswalk version used. */
export interface CbsaCountyMatch extends CbsaCountyRow {
  /** cbsa_county version label, e.g. `FY2026`. */
  version: string;
}

/**
 * The CBSA of a county from the latest crosswalk: by 5-digit FIPS state+county code when given
 * (exact), else by state (USPS code or name) and county name (matched without `COUNTY`/`PARISH`
 * suffixes, `SAINT` = `ST.`). Empty when cbsa_county is not loaded or nothing matches.
 */
export async function findCbsaForCounty(snapshot: SnapshotReader, where: { fips?: string | null; state?: string | null; county?: string | null }): Promise<CbsaCountyMatch[]> {
  const version = versionLabel(snapshot, cbsaCounty.id);
  if (!version) return [];
  const rows = await snapshot.memo(`${cbsaCounty.id}:rows:${version}`, () =>
    snapshot.all<CbsaCountyRow>(
      `SELECT fips_county, ssa_county, county_name, state, cbsa, cbsa_name, is_rural, fiscal_year FROM ${cbsaCounty.id} WHERE version = $1 ORDER BY fips_county`,
      [version],
    ),
    { pin: true },
  );
  let hits: CbsaCountyRow[] = [];
  if (where.fips && /^\d{5}$/.test(where.fips)) hits = rows.filter((r) => r.fips_county === where.fips);
  if (hits.length === 0 && where.state && where.county) {
    const st = toStateCode(where.state);
    const want = normCounty(where.county);
    hits = rows.filter((r) => r.state === st && normCounty(r.county_name) === want);
  }
  return hits.map((r) => ({ ...r, version }));
}
