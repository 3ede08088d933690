import { NotFoundError, ValidationError } from '../../warehouse/errors.js';
import { findLabRates, isLabCode } from '../../datasets/clfs/queries.js';
import { findDmeRates, isDmeCode } from '../../datasets/dmepos/queries.js';
import { isDmeRuralZip } from '../../datasets/dmepos_rural_zip/queries.js';
import { getFacility, type FacilityProfile } from '../../datasets/facilities/queries.js';
import { findGpci } from '../../datasets/gpci/queries.js';
import { findRvuRows, getRvu, type RvuRow } from '../../datasets/mpfs_rvu/queries.js';
import { findOppsRatesIn, isOppsCode, oppsVersionFor } from '../../datasets/opps_addendum_b/queries.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { findOppsCap } from '../../datasets/opps_cap/queries.js';
import { choosePeSetting, composePayment, conversionFactor, type Composition, type FacilityBlock, type GpciInput, type PaymentInputs, type RvuInput } from './calculate.js';

/** Query of `GET /v1/codes/{code}/payment`, already validated. */
export interface PaymentRequest {
  code: string;
  ccn?: string;
  modifier?: string;
  date_of_service?: string;
  qpp?: boolean;
  qpp_flag?: 0 | 1;
  /** 7 digits (MAC + locality), normalised by the route. */
  locality?: string;
  place_of_service?: string;
  use_facility_rate?: boolean;
  /** Today (`YYYY-MM-DD`): the year whose conversion factor and caps apply when no date of service is given. */
  today?: string;
  /** The caller's registration of `ccn` (its facility type wins over the reference data's). */
  registration?: { active: boolean; facility_type: string | null } | null;
}

/** What the route needs: the composition, warnings for `reliability`, and the versions used. */
export interface PaymentAnswer {
  composition: Composition;
  warnings: string[];
  /** dataset -> version label used; a dataset that was needed but is not loaded maps to ''. */
  used: Record<string, string>;
  /** True when an input had to be replaced by a fallback (national GPCI for a facility, no wage index). */
  degraded: boolean;
}

/**
 * Modifiers that select a different PPRRVU row (professional/technical component, reduced or
 * discontinued service). Any other modifier (25, 59, GT, ...) does not change the RVUs.
 */
export const RVU_PRICING_MODIFIERS: ReadonlySet<string> = new Set(['26', 'TC', '53']);

/** Place-of-service codes of hospital outpatient services, the only ones OPPS pays (19, 22, 23). */
export const OPPS_POS: ReadonlySet<string> = new Set(['19', '22', '23']);

/** Used when no ccn and no locality are given: national amounts (every GPCI 1.000). */
export const NATIONAL_LOCALITY = 'national';

/** True when a facility type is a hospital: a facility setting for PE, and paid under OPPS. */
export function isHospitalType(facilityType: string): boolean {
  return /(^|_)hospital$/.test(facilityType) && facilityType !== 'medicaid_only_hospital';
}

function toRvuInput(row: RvuRow, snapshot: SnapshotReader): RvuInput {
  const v = snapshot.versions('mpfs_rvu').find((x) => x.version === row.version);
  const files = v?.source_files.map((f) => f.name).join(' + ') ?? '';
  return {
    modifier: row.modifier,
    status_code: row.status_code,
    work_rvu: row.work_rvu,
    non_fac_pe_rvu: row.non_fac_pe_rvu,
    facility_pe_rvu: row.facility_pe_rvu,
    mp_rvu: row.mp_rvu,
    non_fac_na_indicator: row.non_fac_na_indicator,
    facility_na_indicator: row.facility_na_indicator,
    year: row.year,
    quarter: row.quarter,
    source: files ? `${files} (mpfs_rvu ${row.version})` : `mpfs_rvu ${row.version}`,
  };
}

/**
 * The RVU row a modifier selects: the row with that modifier when the release has one; for a
 * pricing modifier (26/TC/53) the code does not carry, none (the physician block is absent); for
 * any other modifier the code's unmodified row.
 */
async function selectRvu(snapshot: SnapshotReader, code: string, modifier: string, date: string | undefined, warnings: string[]): Promise<RvuRow | null> {
  try {
    const r = await getRvu(snapshot, code, modifier, date);
    warnings.push(...r.warnings);
    return r.row;
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    if (modifier === '') {
      // A code priced only as components (86153 exists only as 86153-26): no global amount.
      const mods = [...new Set((await findRvuRows(snapshot, code)).map((r) => r.modifier).filter(Boolean))];
      if (mods.length === 0) throw e;
      warnings.push(`physician: ${code} is on the fee schedule only with modifier${mods.length > 1 ? 's' : ''} ${mods.join(', ')}; pass modifier=${mods[0]} for its amount`);
      return null;
    }
    if (RVU_PRICING_MODIFIERS.has(modifier)) {
      warnings.push(`physician: ${e.message}`);
      return null;
    }
    const r = await getRvu(snapshot, code, '', date);
    warnings.push(...r.warnings, `modifier ${modifier} does not select a separate RVU row; the unmodified RVUs of ${code} were used`);
    return r.row;
  }
}

/** True when a loaded fee schedule (physician RVUs, OPPS Addendum B, CLFS, DMEPOS) has the code. */
export async function isKnownCode(snapshot: SnapshotReader, code: string): Promise<boolean> {
  if ((await findRvuRows(snapshot, code)).length > 0) return true;
  return (await isOppsCode(snapshot, code)) || (await isLabCode(snapshot, code)) || (await isDmeCode(snapshot, code));
}

const yearOf = (date?: string | null) => (date ? Number(date.slice(0, 4)) : undefined);

/**
 * The conversion factor of the service's year (issue: CMS pays a 2025 service with the CY2025
 * factor): the CONV FACTOR column of that year's RVU release (QPP and non-QPP where the year has
 * both); for CY2026 without its own file the spec's constants (rule 1). A release of another year
 * lends its factor only with a warning.
 */
export function conversionFactorFor(row: RvuRow | null, source: string, year: number, qpp: boolean, warnings: string[]): { value: string; source: string } {
  const variant = qpp ? 'QPP' : 'non-QPP';
  if (row && row.year === year) {
    const file = qpp ? (row.conv_factor_qpp ?? (row.cf_variant === 'all' ? row.conv_factor : null)) : row.cf_variant === 'QPP' ? null : row.conv_factor;
    if (file !== null) {
      return { value: String(file), source: `CONV FACTOR of ${source}${row.cf_variant === 'all' ? ` (CY${year} has one factor for QPP and non-QPP)` : ` (${variant} file)`}` };
    }
  }
  if (year === 2026) {
    const why = !row ? '' : row.year === 2026 ? `; ${source} carries no ${variant} factor` : `; no CY2026 RVU release is loaded (RVUs from ${source})`;
    return { value: conversionFactor(qpp), source: `spec rule 1: CY2026 ${variant} constant${why}` };
  }
  if (row?.conv_factor) {
    warnings.push(`no CY${year} RVU release is loaded: the CY${row.year} conversion factor ${row.conv_factor} of ${source} was used`);
    return { value: String(row.conv_factor), source: `CONV FACTOR of ${source} (CY${row.year}; no CY${year} release loaded)` };
  }
  return { value: conversionFactor(qpp), source: `spec rule 1: CY2026 ${variant} constant (no CY${year} factor loaded)` };
}

/** The OPPS cap for the physician block (DRA 2005), with warnings for status C and a missing year. */
async function capFor(
  snapshot: SnapshotReader,
  code: string,
  modifier: string,
  locality: string,
  year: number,
  facilitySetting: boolean,
  warnings: string[],
  used: Record<string, string>,
): Promise<{ amount: number; version: string } | null> {
  const c = await findOppsCap(snapshot, code, modifier, locality, year);
  const what = `${code}${modifier ? `-${modifier}` : ''} in locality ${locality}`;
  if (!c) return null;
  if (c.other_year) {
    warnings.push(`opps_cap: ${what} is capped in release ${c.other_year.version}, but no CY${year} cap file is loaded; paid without the OPPS cap`);
    return null;
  }
  if (!c.row) return null;
  used.opps_cap = c.version!;
  if (c.row.procstat === 'C') {
    warnings.push(`opps_cap: ${what} is carrier priced (status C in the OPPS cap file ${c.version}): the MAC sets the amount; the cap was not applied`);
    return null;
  }
  return { amount: facilitySetting ? c.row.facility_price : c.row.non_facility_price, version: c.version! };
}

/**
 * Gathers every input of a payment composition through the dataset query functions and composes
 * it (spec rules 1-5). With `ccn` the facility's geography drives GPCI, wage index and the rural
 * flag, and the OPPS, lab and DME blocks are looked up; without it only the physician block is
 * priced, in `locality` (or nationally). Throws NotFoundError for an unknown code or CCN and
 * ValidationError for an unknown locality.
 */
export async function composePaymentFor(snapshot: SnapshotReader, q: PaymentRequest): Promise<PaymentAnswer> {
  const warnings: string[] = [];
  const used: Record<string, string> = {};
  const fallback = { degraded: false };
  const code = q.code;
  const modifier = (q.modifier ?? '').toUpperCase();

  // QPP: the numeric flag wins over the boolean (spec), said out loud when they disagree.
  const qpp = q.qpp_flag !== undefined ? q.qpp_flag === 1 : (q.qpp ?? false);
  if (q.qpp_flag !== undefined && q.qpp !== undefined && q.qpp !== (q.qpp_flag === 1)) {
    warnings.push(`qpp=${q.qpp} conflicts with qpp_flag=${q.qpp_flag}; qpp_flag wins (${qpp ? 'QPP' : 'non-QPP'} conversion factor)`);
  }

  if (!(await isKnownCode(snapshot, code))) {
    throw new NotFoundError(`code ${code} is not in any loaded fee schedule (physician RVUs, OPPS Addendum B, CLFS or DMEPOS)`);
  }

  // Physician RVUs (rule 1).
  let rvu: RvuInput | null = null;
  let rvuRow: RvuRow | null = null;
  if ((await findRvuRows(snapshot, code)).length > 0) {
    const row = await selectRvu(snapshot, code, modifier, q.date_of_service, warnings);
    if (row) {
      rvuRow = row;
      rvu = toRvuInput(row, snapshot);
      used.mpfs_rvu = row.version;
    }
  } else {
    warnings.push(`physician: ${code} is not in the physician fee schedule RVU file${snapshot.has('mpfs_rvu') ? '' : ' (mpfs_rvu not loaded)'}`);
    if (!snapshot.has('mpfs_rvu')) used.mpfs_rvu = '';
  }

  // Geography: the facility's (rule 5) or the locality parameter.
  let facility: FacilityProfile | null = null;
  let gpci: GpciInput;
  if (q.ccn) {
    if (q.locality) warnings.push(`locality ${q.locality} ignored: ccn ${q.ccn} sets the locality`);
    facility = await getFacility(snapshot, q.ccn);
    if (q.registration?.facility_type && q.registration.facility_type !== facility.facility_type) {
      warnings.push(`facility type ${q.registration.facility_type} from your registration of ${q.ccn} (reference data: ${facility.facility_type})`);
      facility = { ...facility, facility_type: q.registration.facility_type };
    }
    Object.assign(used, facility.versions);
    warnings.push(...facility.warnings);
    gpci = await gpciFor(snapshot, facility.locality, q.date_of_service, warnings, used, `facility ${facility.ccn}`, fallback);
  } else if (q.locality) {
    const g = await findGpci(snapshot, q.locality, q.date_of_service);
    if (!g?.row) {
      throw new ValidationError([
        {
          loc: ['query', 'locality'],
          msg: g ? `locality ${q.locality} is not in GPCI ${g.version}` : 'gpci is not loaded; no locality can be priced',
          type: 'value_error',
          input: q.locality,
        },
      ]);
    }
    warnings.push(...g.warnings);
    used.gpci = g.version;
    gpci = { locality: q.locality, pw_gpci: g.row.pw_gpci, pe_gpci: g.row.pe_gpci, mp_gpci: g.row.mp_gpci };
  } else {
    warnings.push('no ccn or locality given: national amounts (every GPCI 1.000); pass locality for a geographically adjusted amount');
    gpci = { locality: NATIONAL_LOCALITY, pw_gpci: 1, pe_gpci: 1, mp_gpci: 1 };
  }

  // Facility vs non-facility PE: POS pins it, else the facility type, else the legacy flag.
  const hospital = facility ? isHospitalType(facility.facility_type) : undefined;
  if (facility && !hospital && q.place_of_service === undefined) {
    warnings.push(`facility type ${facility.facility_type} is not a hospital: non-facility PE used; pass place_of_service to pin the setting`);
  }
  if (q.use_facility_rate !== undefined && (facility || q.place_of_service !== undefined)) {
    warnings.push(`use_facility_rate ignored: ${q.place_of_service !== undefined ? `place_of_service ${q.place_of_service}` : `the facility type of ccn ${q.ccn}`} decides the PE setting`);
  }
  const pe = choosePeSetting({ placeOfService: q.place_of_service, facilityIsFacilitySetting: hospital, useFacilityRate: q.use_facility_rate });

  const year = yearOf(q.date_of_service);
  let opps: PaymentInputs['opps'] = null;
  let lab: PaymentInputs['lab'] = null;
  let dme: PaymentInputs['dme'] = null;
  if (facility) {
    opps = await oppsFor(snapshot, code, year, facility, hospital!, q.place_of_service, warnings, used, fallback);
    lab = await labFor(snapshot, code, modifier, year, warnings, used);
    dme = await dmeFor(snapshot, code, modifier, facility, warnings, used);
  }

  const facilityBlock: FacilityBlock | null = facility
    ? {
        ccn: facility.ccn,
        name: facility.name,
        state: facility.state,
        county: facility.county,
        cbsa: facility.cbsa,
        facility_type: facility.facility_type,
        locality_name: facility.locality_name,
        locality_number: facility.locality_number,
        // The POS the composition assumed: the pinned one, else on-campus outpatient hospital (22).
        pos_code: q.place_of_service ?? (hospital ? '22' : null),
        is_rural: facility.is_rural,
        registered: q.registration?.active === true,
        wage_index: facility.wage_index,
      }
    : null;

  const cfYear = yearOf(q.date_of_service) ?? yearOf(q.today) ?? rvuRow?.year ?? 2026;
  const cf = conversionFactorFor(rvuRow, rvu?.source ?? '', cfYear, qpp, warnings);
  const cap = rvuRow && rvu && gpci.locality !== NATIONAL_LOCALITY ? await capFor(snapshot, code, rvuRow.modifier, gpci.locality, cfYear, pe.facility, warnings, used) : null;
  const { composition, warnings: calcWarnings } = composePayment({
    cf,
    opps_cap: cap,
    code,
    ccn: facility?.ccn ?? null,
    date_of_service: q.date_of_service ?? null,
    qpp,
    pe,
    rvu,
    gpci,
    facility: facilityBlock,
    opps,
    lab,
    dme,
  });
  return { composition, warnings: [...warnings, ...calcWarnings], used, degraded: fallback.degraded };
}

async function gpciFor(
  snapshot: SnapshotReader,
  locality: string | null,
  date: string | undefined,
  warnings: string[],
  used: Record<string, string>,
  who: string,
  fallback: { degraded: boolean },
): Promise<GpciInput> {
  const national = { locality: NATIONAL_LOCALITY, pw_gpci: 1, pe_gpci: 1, mp_gpci: 1 };
  if (!locality || !snapshot.has('gpci')) fallback.degraded = true;
  if (!locality) {
    warnings.push(`physician: the locality of ${who} is unknown; national GPCIs (1.000) used`);
    return national;
  }
  const g = await findGpci(snapshot, locality, date);
  if (!g) {
    used.gpci = '';
    warnings.push(`physician: gpci is not loaded; national GPCIs (1.000) used for locality ${locality}`);
    return { ...national, locality };
  }
  used.gpci = g.version;
  warnings.push(...g.warnings);
  if (!g.row) {
    fallback.degraded = true;
    warnings.push(`physician: locality ${locality} of ${who} is not in GPCI ${g.version}; national GPCIs (1.000) used`);
    return { ...national, locality };
  }
  return { locality, pw_gpci: g.row.pw_gpci, pe_gpci: g.row.pe_gpci, mp_gpci: g.row.mp_gpci };
}

async function oppsFor(
  snapshot: SnapshotReader,
  code: string,
  year: number | undefined,
  f: FacilityProfile,
  hospital: boolean,
  placeOfService: string | undefined,
  warnings: string[],
  used: Record<string, string>,
  fallback: { degraded: boolean },
): Promise<PaymentInputs['opps']> {
  if (!hospital) {
    warnings.push(`outpatient_facility: ${f.facility_type} ${f.ccn} is not a hospital paid under OPPS`);
    return null;
  }
  if (placeOfService !== undefined && !OPPS_POS.has(placeOfService)) {
    warnings.push(`outpatient_facility: place_of_service ${placeOfService} is not a hospital outpatient setting (19, 22, 23); no OPPS payment`);
    return null;
  }
  if (!snapshot.has('opps_addendum_b')) {
    used.opps_addendum_b = '';
    warnings.push('outpatient_facility: opps_addendum_b is not loaded');
    return null;
  }
  let version = oppsVersionFor(snapshot, year);
  if (!version) {
    version = oppsVersionFor(snapshot)!;
    warnings.push(`outpatient_facility: no OPPS Addendum B for ${year} is loaded; used ${version}`);
  }
  const [row] = await findOppsRatesIn(snapshot, version, code);
  if (!row) {
    used.opps_addendum_b = version;
    warnings.push(`outpatient_facility: ${code} is not in OPPS Addendum B ${version}`);
    return null;
  }
  used.opps_addendum_b = row.version;
  if (row.payment_rate === null) {
    warnings.push(`outpatient_facility: ${code} has OPPS status indicator ${row.status_indicator} with no separate payment rate (packaged or not paid under OPPS)`);
    return null;
  }
  if (f.wage_index === null) {
    fallback.degraded = true;
    used.wage_index ??= '';
    warnings.push(`outpatient_facility: no wage index for CBSA ${f.cbsa ?? '(unknown)'} of ${f.ccn}; OPPS amount not computed`);
    return null;
  }
  if (f.facility_type === 'critical_access_hospital') {
    warnings.push(`outpatient_facility: ${f.ccn} is a critical access hospital, paid at 101% of reasonable cost rather than OPPS; the OPPS amount is a reference`);
  }
  return { payment_rate: row.payment_rate, apc_code: row.apc_code, status_indicator: row.status_indicator, relative_weight: row.relative_weight, wage_index: f.wage_index };
}

async function labFor(snapshot: SnapshotReader, code: string, modifier: string, year: number | undefined, warnings: string[], used: Record<string, string>): Promise<PaymentInputs['lab']> {
  if (!snapshot.has('clfs')) {
    used.clfs = '';
    warnings.push('lab: clfs is not loaded');
    return null;
  }
  if (!(await isLabCode(snapshot, code))) {
    warnings.push(`lab: ${code} is not on the clinical laboratory fee schedule`);
    return null;
  }
  let [r] = await findLabRates(snapshot, code, modifier || undefined, year);
  if (!r && year !== undefined && !snapshot.versions('clfs').some((v) => (v.effective_date ?? v.version).startsWith(String(year)))) {
    [r] = await findLabRates(snapshot, code, modifier || undefined);
    if (r) warnings.push(`lab: no CLFS for ${year} is loaded; used ${r.version}`);
  }
  if (!r) {
    warnings.push(`lab: ${code} is not on the clinical laboratory fee schedule`);
    return null;
  }
  used.clfs = r.version;
  if (r.rate === null) {
    warnings.push(`lab: ${code} has CLFS indicator ${r.indicator} with no national limit (priced by the MAC)`);
    return null;
  }
  return { rate: r.rate, indicator: r.indicator };
}

async function dmeFor(snapshot: SnapshotReader, code: string, modifier: string, f: FacilityProfile, warnings: string[], used: Record<string, string>): Promise<PaymentInputs['dme']> {
  if (!snapshot.has('dmepos')) {
    used.dmepos = '';
    warnings.push('dme: dmepos is not loaded');
    return null;
  }
  if (!(await isDmeCode(snapshot, code))) {
    warnings.push(`dme: ${code} is not on the DMEPOS fee schedule`);
    return null;
  }
  const [row] = await findDmeRates(snapshot, code, f.state, modifier || undefined);
  if (!row) {
    warnings.push(`dme: ${code}${modifier ? `-${modifier}` : ''} has no DMEPOS fee in ${f.state}${modifier ? '' : ' without a modifier (pass NU, RR or UE)'}`);
    return null;
  }
  used.dmepos = row.version;
  // Rule 4 uses the facility's rural flag; the DME rural ZIP list is the DMEPOS program's own
  // test, so a disagreement is reported (not acted on).
  if (f.zip && snapshot.has('dmepos_rural_zip')) {
    const listed = await isDmeRuralZip(snapshot, f.zip);
    used.dmepos_rural_zip = snapshot.versions('dmepos_rural_zip').at(-1)!.version;
    if (listed !== f.is_rural) warnings.push(`dme: the facility is ${f.is_rural ? 'rural' : 'not rural'} but ZIP ${f.zip} is ${listed ? '' : 'not '}on the DMEPOS rural ZIP list; rule 4 follows the facility's flag`);
  }
  return { row: { non_rural_rate: row.non_rural_rate, rural_rate: row.rural_rate }, state: f.state, is_rural: f.is_rural };
}
