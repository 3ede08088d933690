import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { versionLabel } from '../_shared/versions.js';
import { gpci } from '../gpci/dataset.js';
import { facilities, type FacilityRow } from './dataset.js';

/** The facility row of a CCN in a facilities version, or undefined. */
export async function lookupFacilityRow(snapshot: SnapshotReader, version: string, ccn: string): Promise<FacilityRow | undefined> {
  const rows = await snapshot.memo(`${facilities.id}:row:${version}:${ccn}`, () =>
    snapshot.all<FacilityRow>(
      `SELECT ccn, name, address, city, state, zip, county_name, county_fips, cbsa, is_rural, facility_type,
              facility_type_label, active, source_layout
         FROM ${facilities.id} WHERE version = $1 AND ccn = $2`,
      [version, ccn],
    ),
  );
  return rows[0];
}

/** The GPCI file's name of a locality in the latest gpci version, with that version. */
export async function lookupGpciLocalityName(snapshot: SnapshotReader, locality: string): Promise<{ name: string; version: string } | undefined> {
  const version = versionLabel(snapshot, gpci.id);
  if (!version) return undefined;
  const rows = await snapshot.memo(`${gpci.id}:name:${version}:${locality}`, () =>
    snapshot.all<{ locality_name: string }>(`SELECT locality_name FROM ${gpci.id} WHERE version = $1 AND locality = $2`, [version, locality]),
  );
  return rows[0] ? { name: rows[0].locality_name, version } : undefined;
}
