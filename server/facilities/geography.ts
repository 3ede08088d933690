import { findCbsaForCounty } from '../../datasets/cbsa_county/queries.js';
import type { FacilityRow } from '../../datasets/facilities/dataset.js';
import { lookupFacilityRow, lookupGpciLocalityName } from '../../datasets/facilities/queries.js';
import { findFeeScheduleAreas, findLocalityForCounty } from '../../datasets/locality_county/queries.js';
import { versionLabel } from '../../datasets/_shared/versions.js';
import { getWageIndex, type WageIndexAnswer } from '../../datasets/wage_index/queries.js';
import { findLocalityForZip } from '../../datasets/zip_locality/queries.js';
import { NotFoundError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { FacilityReference } from './schemas.js';

/**
 * Payment geography of a CCN: a service over five datasets (facilities, zip_locality,
 * locality_county, cbsa_county, wage_index, and gpci for the locality name), not one dataset's
 * query. `resolveFacility` is its one caller outside tests.
 */

async function tryWageIndex(snapshot: SnapshotReader, cbsa: string): Promise<{ found?: WageIndexAnswer; error?: string }> {
  try {
    return { found: await getWageIndex(snapshot, cbsa) };
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    return { error: e.message };
  }
}

/**
 * A facility profile with geography resolved from the other datasets, cached per snapshot.
 * Locality: ZIP → zip_locality (the CMS rule: priced where the service is furnished), falling back
 * to county → locality_county. CBSA: the facility file's own (POS) else county → cbsa_county.
 * Wage index: wage_index by CBSA. Rural: the facility file's flag (POS CBSA_URBN_RRL_IND), else the
 * ZIP5 rural indicator (R/B), else a statewide-rural CBSA. Every derivation or gap adds a warning.
 * @throws NotFoundError when facilities is not loaded or the CCN is not in its latest version.
 */
export async function getFacilityReference(snapshot: SnapshotReader, ccn: string): Promise<FacilityReference> {
  const version = versionLabel(snapshot, 'facilities');
  if (!version) throw new NotFoundError('facilities is not loaded; no facility can be resolved');
  const id = ccn.trim().toUpperCase();
  return snapshot.memo(`facilities:profile:${version}:${id}`, async () => {
    const f = await lookupFacilityRow(snapshot, version, id);
    if (!f) throw new NotFoundError(`CCN ${id} is not in facilities ${version}`);
    return resolveGeography(snapshot, f, version);
  });
}

async function resolveGeography(snapshot: SnapshotReader, f: FacilityRow, version: string): Promise<FacilityReference> {
  const warnings: string[] = [];
  const versions: Record<string, string> = { facilities: version };
  const layoutName = f.source_layout === 'pos' ? 'Provider of Services file' : 'Care Compare file';

  // County: the POS file has only FIPS codes; the crosswalk names the county (and gives the CBSA).
  const xwalk = await findCbsaForCounty(snapshot, { fips: f.county_fips, state: f.state, county: f.county_name });
  const county = f.county_name ?? xwalk[0]?.county_name ?? null;

  // Locality: ZIP first, county fallback.
  let locality: string | null = null;
  let localitySource: FacilityReference['locality_source'] = null;
  let mac: string | null = null;
  let localityNumber: string | null = null;
  let zipRural: boolean | undefined;
  const zipHits = f.zip ? await findLocalityForZip(snapshot, f.zip) : [];
  const zipHit = zipHits[0];
  if (zipHit) {
    locality = zipHit.locality;
    mac = zipHit.carrier;
    localityNumber = zipHit.pricing_locality;
    localitySource = 'zip';
    zipRural = zipHit.is_rural;
    versions.zip_locality = zipHit.version;
    if (zipHit.usps_state !== f.state) warnings.push(`ZIP ${f.zip} is listed under ${zipHit.state} in zip_locality but the facility state is ${f.state}`);
  } else {
    const why = !f.zip
      ? 'the facility has no ZIP code'
      : snapshot.has('zip_locality')
        ? `ZIP ${f.zip} is not in zip_locality ${versionLabel(snapshot, 'zip_locality')}`
        : 'zip_locality is not loaded';
    const byCounty = county ? await findLocalityForCounty(snapshot, f.state, county) : [];
    if (byCounty[0]) {
      const m = byCounty[0];
      locality = m.locality;
      mac = m.mac;
      localityNumber = m.locality_number;
      localitySource = 'county';
      versions.locality_county = m.version;
      warnings.push(`locality ${m.locality} derived from county ${county}, ${f.state} via locality_county (${m.matched_by} match) because ${why}`);
      if (byCounty.length > 1) warnings.push(`county ${county}, ${f.state} matches ${byCounty.length} localities in locality_county; using ${m.locality}`);
    } else {
      warnings.push(`locality unknown: ${why}, and county ${county ?? '(none)'}, ${f.state} has no match in locality_county${snapshot.has('locality_county') ? '' : ' (not loaded)'}`);
    }
  }

  let localityName: string | null = null;
  if (locality) {
    const g = await lookupGpciLocalityName(snapshot, locality);
    if (g) {
      localityName = g.name;
      versions.gpci = g.version;
    } else {
      const [area] = await findFeeScheduleAreas(snapshot, locality);
      if (area) {
        localityName = area;
        versions.locality_county ??= versionLabel(snapshot, 'locality_county')!;
      } else {
        warnings.push(`no name for locality ${locality}: not in gpci${snapshot.has('gpci') ? '' : ' (not loaded)'} or locality_county`);
      }
    }
  }

  // CBSA: facility file first, else county crosswalk.
  let cbsa = f.cbsa;
  let cbsaName: string | null = xwalk.find((x) => x.cbsa === cbsa)?.cbsa_name ?? null;
  if (xwalk[0]) versions.cbsa_county = xwalk[0].version;
  if (cbsa && xwalk[0] && xwalk[0].cbsa !== cbsa) {
    warnings.push(`the ${layoutName} gives CBSA ${cbsa} but cbsa_county ${xwalk[0].version} maps county ${xwalk[0].county_name} to ${xwalk[0].cbsa}; using the facility file`);
  }
  if (!cbsa) {
    if (xwalk[0]) {
      cbsa = xwalk[0].cbsa;
      cbsaName = xwalk[0].cbsa_name;
      warnings.push(`CBSA ${cbsa} derived from county ${xwalk[0].county_name}, ${xwalk[0].state} via cbsa_county ${xwalk[0].version} (the ${layoutName} has no CBSA)`);
    } else {
      warnings.push(`CBSA unknown: the ${layoutName} has none and county ${county ?? '(none)'}, ${f.state} is not in cbsa_county${snapshot.has('cbsa_county') ? '' : ' (not loaded)'}`);
    }
  }

  let wageIndex: number | null = null;
  if (cbsa) {
    const wi = await tryWageIndex(snapshot, cbsa);
    // A POS CBSA with no Table 3 row (e.g. a micropolitan code of a rural hospital) falls back to
    // the county's crosswalk CBSA, which names the statewide rural area.
    const alt = !wi.found && xwalk[0] && xwalk[0].cbsa !== cbsa ? await tryWageIndex(snapshot, xwalk[0].cbsa) : undefined;
    const w = wi.found ?? alt?.found;
    if (w) {
      wageIndex = w.wage_index;
      versions.wage_index = w.version;
      cbsaName ??= w.area_name;
      if (alt?.found) warnings.push(`${wi.error}; wage index of the county's crosswalk CBSA ${w.cbsa} (${w.area_name}) used instead`);
    } else {
      warnings.push(`wage index unknown: ${wi.error}`);
    }
  }

  // Rural: facility file, else ZIP5 rural indicator, else statewide-rural CBSA.
  let isRural = false;
  let ruralSource: FacilityReference['rural_source'] = null;
  if (f.is_rural !== null) {
    isRural = f.is_rural;
    ruralSource = 'facility_file';
    if (zipRural !== undefined && zipRural !== f.is_rural) {
      warnings.push(`the ${layoutName} marks the facility ${f.is_rural ? 'rural' : 'urban'} (CBSA) but ZIP ${f.zip} is ${zipRural ? 'rural' : 'urban'} in zip_locality; is_rural follows the facility file`);
    }
  } else if (zipRural !== undefined) {
    isRural = zipRural;
    ruralSource = 'zip_locality';
    warnings.push(`is_rural derived from the zip_locality rural indicator of ZIP ${f.zip} (the ${layoutName} has no rural flag)`);
  } else if (cbsa) {
    isRural = /^\d{2}$/.test(cbsa);
    ruralSource = 'cbsa';
    warnings.push(`is_rural derived from CBSA ${cbsa} (${isRural ? 'statewide rural area' : 'urban CBSA'}); no facility or ZIP rural flag available`);
  } else {
    warnings.push('is_rural unknown (no facility flag, ZIP rural indicator or CBSA); reported as false');
  }
  if (f.active === false) warnings.push(`CCN ${f.ccn} is terminated in the ${layoutName} (PGM_TRMNTN_CD is not 00)`);

  return {
    ccn: f.ccn,
    name: f.name,
    address: f.address,
    city: f.city,
    state: f.state,
    county,
    county_fips: f.county_fips ?? xwalk[0]?.fips_county ?? null,
    zip: f.zip,
    cbsa,
    cbsa_name: cbsaName,
    locality,
    locality_number: localityNumber,
    mac,
    locality_name: localityName,
    locality_source: localitySource,
    wage_index: wageIndex,
    is_rural: isRural,
    rural_source: ruralSource,
    facility_type: f.facility_type,
    facility_type_label: f.facility_type_label,
    active: f.active,
    source_layout: f.source_layout,
    warnings,
    versions,
  };
}
