import { NotFoundError, ValidationError } from '../../warehouse/errors.js';
import { findLabRates, isLabCode } from '../../datasets/clfs/queries.js';
import { findDmeRates, isDmeCode } from '../../datasets/dmepos/queries.js';
import { isDmeRuralZip } from '../../datasets/dmepos_rural_zip/queries.js';
import { lookupGpci } from '../../datasets/gpci/queries.js';
import { findRvuRows, getRvu, type RvuRow } from '../../datasets/mpfs_rvu/queries.js';
import { findOppsRatesIn, oppsVersionFor } from '../../datasets/opps_addendum_b/queries.js';
import { findAnesthesiaBaseUnits } from '../../datasets/anesthesia_base_units/queries.js';
import { lookupAnesCf } from '../../datasets/anesthesia_cf/queries.js';
import type { z } from 'zod';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { lookupOppsCap } from '../../datasets/opps_cap/queries.js';
import { isKnownCode } from '../codes/service.js';
import { isHospitalType, resolveFacility, type Facility, type FacilityReads, type PaymentSystem } from '../facilities/service.js';
import type { FacilityReference } from '../facilities/schemas.js';
import type { Trace } from '../trace.js';
import { MEDICARE_FFS, policyRulesFor } from '../policies/service.js';
import type { PaymentQuerySchema } from './schemas.js';
import { ANESTHESIA_MODIFIERS, choosePeSetting, CITE_INCOMPLETE_COLONOSCOPY, CITE_PCTC, composePayment, conversionFactor, OPPS_MODIFIERS, POLICY_MODIFIERS, type Composition, type FacilityBlock, type AnesthesiaInput, type GpciInput, type PaymentInputs, type RvuInput } from './calculate.js';
import { applyPaymentRules, type RuleEffect } from './rules/index.js';
import { isOwnKey, ownValue } from '../../lib/own.js';

/**
 * A payment request: the route's validated query, the code, today (`YYYY-MM-DD`: the year whose
 * conversion factor and caps apply without a date of service), and the facility of `ccn` as the
 * calling tenant sees it (`resolveFacility`), null without `ccn`.
 */
export type PaymentRequest = PaymentQuery & { code: string; today: string; facility: Facility | null };

/** The validated query (its schema splits comma lists and upper-cases the modifiers). */
type PaymentQuery = z.output<typeof PaymentQuerySchema>;

/**
 * Modifiers that select a different PPRRVU row (professional/technical component, reduced or
 * discontinued service). Any other modifier (25, 59, GT, ...) does not change the RVUs.
 */
export const RVU_PRICING_MODIFIERS: ReadonlySet<string> = new Set(['26', 'TC', '53']);

/** Place-of-service codes of hospital outpatient services, the only ones OPPS pays (19, 22, 23). */
export const OPPS_POS: ReadonlySet<string> = new Set(['19', '22', '23']);

/** Used when no ccn and no locality are given: national amounts (every GPCI 1.000). */
export const NATIONAL_LOCALITY = 'national';

function toRvuInput(row: RvuRow, snapshot: SnapshotReader): RvuInput {
  const v = snapshot.versions('mpfs_rvu').find((x) => x.version === row.version);
  const files = v?.source_files.map((f) => f.name).join(' + ') ?? '';
  return {
    hcpcs: row.hcpcs,
    modifier: row.modifier,
    status_code: row.status_code,
    work_rvu: row.work_rvu,
    non_fac_pe_rvu: row.non_fac_pe_rvu,
    facility_pe_rvu: row.facility_pe_rvu,
    mp_rvu: row.mp_rvu,
    non_fac_na_indicator: row.non_fac_na_indicator,
    facility_na_indicator: row.facility_na_indicator,
    pctc_indicator: row.pctc_indicator,
    mult_proc: row.mult_proc,
    bilat_surg: row.bilat_surg,
    asst_surg: row.asst_surg,
    co_surg: row.co_surg,
    team_surg: row.team_surg,
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
export async function selectRvu(snapshot: SnapshotReader, code: string, modifier: string, date: string | undefined, trace: Trace): Promise<RvuRow | null> {
  try {
    const r = await getRvu(snapshot, code, modifier, date);
    trace.fallback(...r.warnings);
    return r.row;
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    if (modifier === '') {
      // A code priced only as components (86153 exists only as 86153-26): no global amount.
      const mods = [...new Set((await findRvuRows(snapshot, code)).map((r) => r.modifier).filter(Boolean))];
      if (mods.length === 0) throw e;
      trace.warn(`physician: ${code} is on the fee schedule only with modifier${mods.length > 1 ? 's' : ''} ${mods.join(', ')}; pass modifier=${mods[0]} for its amount`);
      return null;
    }
    if (RVU_PRICING_MODIFIERS.has(modifier)) {
      trace.warn(`physician: ${e.message}`);
      return null;
    }
    const r = await getRvu(snapshot, code, '', date);
    trace.fallback(...r.warnings).warn(`modifier ${modifier} does not select a separate RVU row; the unmodified RVUs of ${code} were used`);
    return r.row;
  }
}

/**
 * A modifier the physician composition does not act on (not an RVU row, a payment policy, an OPPS
 * department, an anesthesia direction or 52): the lab and DME lookups read it (QW, NU, RR, UE).
 */
const pricesNothingHere = (m: string): boolean => !RVU_PRICING_MODIFIERS.has(m) && !POLICY_MODIFIERS.has(m) && !OPPS_MODIFIERS.has(m) && !isOwnKey(ANESTHESIA_MODIFIERS, m) && m !== '52';

/** Places of service that are hospital settings, where the hospital is paid the technical component. */
export const HOSPITAL_POS: ReadonlySet<string> = new Set(['19', '21', '22', '23', '51', '52', '61']);

/**
 * PC/TC indicator 4 families (global-test-only codes): the RVU file marks the global code but not
 * its components; the professional-only codes (PC/TC indicator 2) and technical-only codes (3) of
 * each family are named by the CPT descriptors. At a hospital the physician bills the professional
 * code(s) and the hospital the technical one(s) (RVU file documentation, "PC/TC Indicator" 4).
 */
export const PCTC4_FAMILIES: Readonly<Record<string, { professional: string; technical: readonly string[] }>> = {
  '93000': { professional: '93010', technical: ['93005'] }, // electrocardiogram
  '93040': { professional: '93042', technical: ['93041'] }, // rhythm ECG
  '93224': { professional: '93227', technical: ['93225', '93226'] }, // ECG monitoring up to 48 hours
  '93268': { professional: '93272', technical: ['93270', '93271'] }, // event recording
  '93784': { professional: '93790', technical: ['93786', '93788'] }, // ambulatory blood pressure monitoring
  '94014': { professional: '94016', technical: ['94015'] }, // patient-initiated spirometric recording
};

/**
 * The physician's part of a code in a hospital setting, where the hospital is paid the technical
 * component (OPPS or cost): a PC/TC indicator 1 code without a modifier is priced from its -26 row;
 * a PC/TC indicator 4 code from the professional-only code of its family (PCTC4_FAMILIES); a
 * technical component (a TC row, indicator 3) and an incident-to service (indicator 5) have no
 * physician payment there (ch. 13 section 20; RVU25D.pdf, "PC/TC Indicator").
 */
async function professionalComponent(snapshot: SnapshotReader, row: RvuRow, date: string | undefined, where: string, trace: Trace, calculation: string[]): Promise<RvuRow | null> {
  const code = row.hcpcs;
  if (row.modifier === 'TC' || row.pctc_indicator === '3') {
    trace.warn(`physician: ${code}${row.modifier ? `-${row.modifier}` : ''} is a technical component (PC/TC indicator ${row.pctc_indicator}): ${where} it is paid to the facility (OPPS or cost), not under the physician fee schedule`);
    return null;
  }
  if (row.pctc_indicator === '5') {
    trace.warn(`physician: ${code} is an incident-to service (PC/TC indicator 5): not paid under the physician fee schedule ${where}`);
    return null;
  }
  if (row.pctc_indicator === '1' && row.modifier === '') {
    try {
      const pc = await getRvu(snapshot, code, '26', date);
      trace.warn(`physician: ${code} has professional and technical components (PC/TC indicator 1); ${where} the physician bills the professional component, so ${code}-26 is priced and the facility is paid the technical component`);
      calculation.push(`PC/TC indicator 1 ${where}: ${code}-26 priced, the technical component is the facility's (${CITE_PCTC})`);
      return pc.row;
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
      trace.degrade().warn(`physician: ${code} has PC/TC indicator 1 but no -26 row is loaded; no physician amount ${where}`);
      return null;
    }
  }
  if (row.pctc_indicator === '4' && row.modifier === '') {
    const fam = ownValue(PCTC4_FAMILIES, code);
    if (!fam) {
      trace.warn(`physician: ${code} is a global-test-only code (PC/TC indicator 4): ${where} the physician bills the family's professional-only code and the hospital its technical-only code, and ${code} is not in the table of families; no physician amount (${CITE_PCTC})`);
      return null;
    }
    const rows = await findRvuRows(snapshot, fam.professional);
    if (rows.length === 0) {
      trace.degrade().warn(`physician: ${code} is a global-test-only code (PC/TC indicator 4): ${where} the physician bills ${fam.professional}, which is not in the loaded RVU file; no physician amount`);
      return null;
    }
    const pc = await getRvu(snapshot, fam.professional, '', date);
    trace.fallback(...pc.warnings);
    trace.warn(`physician: ${code} is a global-test-only code (PC/TC indicator 4): ${where} the physician bills the professional code ${fam.professional} (priced) and the hospital the technical code ${fam.technical.join(' + ')}`);
    calculation.push(`PC/TC indicator 4 ${where}: ${fam.professional} (professional only) priced for ${code}; the technical code ${fam.technical.join(' + ')} is the hospital's (${CITE_PCTC})`);
    return pc.row;
  }
  return row;
}

const yearOf = (date?: string | null) => (date ? Number(date.slice(0, 4)) : undefined);

/**
 * The conversion factor of the service's year (issue: CMS pays a 2025 service with the CY2025
 * factor): the CONV FACTOR column of that year's RVU release (QPP and non-QPP where the year has
 * both); for CY2026 without its own file the spec's constants (rule 1). A release of another year
 * lends its factor only with a warning.
 */
export function conversionFactorFor(row: RvuRow | null, source: string, year: number, qpp: boolean, trace: Trace): { value: string; source: string } {
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
    trace.fallback(`no CY${year} RVU release is loaded: the CY${row.year} conversion factor ${row.conv_factor} of ${source} was used`);
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
  trace: Trace,
): Promise<{ amount: number; version: string } | null> {
  const c = await lookupOppsCap(snapshot, code, modifier, locality, year);
  const what = `${code}${modifier ? `-${modifier}` : ''} in locality ${locality}`;
  if (!c) return null;
  if (c.other_year) {
    trace.fallback(`opps_cap: ${what} is capped in release ${c.other_year.version}, but no CY${year} cap file is loaded; paid without the OPPS cap`);
    return null;
  }
  if (!c.row) return null;
  trace.use('opps_cap', c.version!);
  if (c.row.procstat === 'C') {
    trace.warn(`opps_cap: ${what} is carrier priced (status C in the OPPS cap file ${c.version}): the MAC sets the amount; the cap was not applied`);
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
export async function composePaymentFor(snapshot: SnapshotReader, request: PaymentRequest, trace: Trace): Promise<Composition> {
  // The date priced for: the one given, else today (the server's date), used for every release,
  // factor and rule picked below and echoed in the answer.
  const q = { ...request, date_of_service: request.date_of_service ?? request.today };
  const code = q.code;
  // Each modifier once, in the order given.
  const modifiers = [...new Set(q.modifier ?? [])];
  // The RVU row: the first pricing modifier (26, TC, 53); 52 (reduced services) is priced by the
  // MAC (the reduced_services rule).
  const pricing = modifiers.filter((m) => RVU_PRICING_MODIFIERS.has(m));
  if (pricing.length > 1) trace.warn(`modifiers ${pricing.join(', ')} each select an RVU row; ${pricing[0]} was priced`);
  const modifier = pricing[0] ?? '';
  const policyModifiers = modifiers.filter((m) => POLICY_MODIFIERS.has(m));
  // The modifier passed to the CLFS lookup (QW); the DMEPOS row is the one matching most of the modifiers.
  const feeModifier = modifiers.length === 1 ? modifiers[0]! : (modifiers.find(pricesNothingHere) ?? '');
  const calculation: string[] = [];

  // QPP: the numeric flag wins over the boolean (spec), said out loud when they disagree.
  const qpp = q.qpp_flag !== undefined ? q.qpp_flag === 1 : (q.qpp ?? false);
  if (q.qpp_flag !== undefined && q.qpp !== undefined && q.qpp !== (q.qpp_flag === 1)) {
    trace.warn(`qpp=${q.qpp} conflicts with qpp_flag=${q.qpp_flag}; qpp_flag wins (${qpp ? 'QPP' : 'non-QPP'} conversion factor)`);
  }

  if (!(await isKnownCode(snapshot, code))) {
    throw new NotFoundError(`code ${code} is not in any loaded fee schedule (physician RVUs, OPPS Addendum B, CLFS or DMEPOS)`);
  }

  // Physician RVUs (rule 1).
  let rvu: RvuInput | null = null;
  let rvuRow: RvuRow | null = null;
  const rvuRows = await findRvuRows(snapshot, code);
  // The payment rules of the line (server/payment/rules/), each read where it acts.
  const f = q.facility;
  const effects = applyPaymentRules({
    code,
    modifiers,
    year: yearOf(q.date_of_service)!,
    facility: f ? { ccn: f.ccn, facility_type: f.effective.facility_type, payment_system: f.effective.payment_system } : null,
    rvu_modifiers: [...new Set(rvuRows.map((r) => r.modifier))],
  });
  if (rvuRows.length > 0) {
    let row: RvuRow | null;
    const notPriced = effects.find((e) => e.physician_not_priced);
    if (notPriced) {
      row = null;
      trace.warn(`physician: ${notPriced.physician_not_priced}`);
    } else {
      row = await selectRvu(snapshot, code, modifier, q.date_of_service, trace);
      if (!row && modifier === '53') trace.warn(`physician: modifier 53 (discontinued procedure): ${code} has no 53 row; the MAC prices it by report, no amount (${CITE_INCOMPLETE_COLONOSCOPY})`);
      if (row && modifier === '53') calculation.push(`modifier 53: discontinued procedure priced from the ${code}-53 row of the RVU file (${CITE_INCOMPLETE_COLONOSCOPY})`);
    }
    for (const m of modifiers.filter(pricesNothingHere)) {
      trace.warn(`modifier ${m} does not select a separate RVU row${modifier ? '' : `; the unmodified RVUs of ${code} were used`}`);
    }
    if (row) {
      rvuRow = row;
      rvu = toRvuInput(row, snapshot);
      trace.use('mpfs_rvu', row.version);
      // A date in a year without its own release: the nearest release prices it, degraded.
      const dosYear = yearOf(q.date_of_service);
      if (dosYear !== undefined && dosYear !== row.year) {
        trace.fallback(`physician: no CY${dosYear} RVU release is loaded; the ${code} RVUs are the nearest release's, CY${row.year} (mpfs_rvu ${row.version})`);
      }
    }
  } else {
    trace.warn(`physician: ${code} is not in the physician fee schedule RVU file${snapshot.has('mpfs_rvu') ? '' : ' (mpfs_rvu not loaded)'}`);
    if (!snapshot.has('mpfs_rvu')) trace.use('mpfs_rvu');
  }

  // Geography: the facility's (rule 5) or the locality parameter.
  // The reference row (payment prices with its geography) with the active registration's type.
  let facility: FacilityReference | null = null;
  let gpci: GpciInput;
  // Where the service is: the facility's state, else the locality's (its MAC jurisdiction decides which LCDs apply).
  let state: string | null = null;
  if (f?.reference) {
    if (q.locality) trace.warn(`locality ${q.locality} ignored: ccn ${f.ccn} sets the locality`);
    const ref = f.reference;
    if (f.fromRegistration.includes('facility_type')) {
      trace.warn(`facility type ${f.effective.facility_type} from your registration of ${f.ccn} (reference data: ${ref.facility_type})`);
    }
    facility = { ...ref, facility_type: f.effective.facility_type };
    state = ref.state;
    trace.useAll(ref.versions).warn(...ref.warnings);
    gpci = await gpciFor(snapshot, ref.locality, q.date_of_service, trace, `facility ${ref.ccn}`);
  } else if (q.locality) {
    const g = await lookupGpci(snapshot, q.locality, q.date_of_service);
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
    trace.fallback(...g.warnings);
    trace.use('gpci', g.version);
    state = g.row.state;
    gpci = { locality: q.locality, pw_gpci: g.row.pw_gpci, pe_gpci: g.row.pe_gpci, mp_gpci: g.row.mp_gpci };
  } else {
    trace.warn('no ccn or locality given: national amounts (every GPCI 1.000); pass locality for a geographically adjusted amount');
    gpci = { locality: NATIONAL_LOCALITY, pw_gpci: 1, pe_gpci: 1, mp_gpci: 1 };
  }

  // Facility vs non-facility PE: POS pins it, else the facility type, else the legacy flag.
  const hospital = facility ? isHospitalType(facility.facility_type) : undefined;
  if (facility && !hospital && q.place_of_service === undefined) {
    trace.warn(`facility type ${facility.facility_type} is not a hospital: non-facility PE used; pass place_of_service to pin the setting`);
  }
  if (q.use_facility_rate !== undefined && (facility || q.place_of_service !== undefined)) {
    trace.warn(`use_facility_rate ignored: ${q.place_of_service !== undefined ? `place_of_service ${q.place_of_service}` : `the facility type of ccn ${q.facility?.ccn}`} decides the PE setting`);
  }
  const pe = choosePeSetting({ placeOfService: q.place_of_service, facilityIsFacilitySetting: hospital, useFacilityRate: q.use_facility_rate });

  // At a facility's outpatient setting the facility is paid the technical component: the
  // physician block prices the professional one (or nothing), so the TC is not counted twice.
  // Without a CCN, a hospital place of service decides the same (ch. 13 section 20).
  const hospitalSetting = f ? pe.facility : q.place_of_service !== undefined && HOSPITAL_POS.has(q.place_of_service);
  if (rvuRow && hospitalSetting) {
    rvuRow = await professionalComponent(snapshot, rvuRow, q.date_of_service, f ? 'at a facility' : `at place of service ${q.place_of_service}`, trace, calculation);
    rvu = rvuRow ? toRvuInput(rvuRow, snapshot) : null;
    if (rvuRow) trace.use('mpfs_rvu', rvuRow.version);
  }

  const year = yearOf(q.date_of_service);
  let opps: PaymentInputs['opps'] = null;
  let lab: PaymentInputs['lab'] = null;
  let dme: PaymentInputs['dme'] = null;
  if (facility) {
    opps = await oppsFor(snapshot, code, year, facility, f!.effective.payment_system, q.place_of_service, effects, trace, calculation);
    lab = await labFor(snapshot, code, feeModifier, year, trace);
    dme = await dmeFor(snapshot, code, modifiers, facility, trace, calculation);
  }

  if (!facility) await feeScheduleHints(snapshot, code, feeModifier, modifiers, year, state, q.date_of_service, trace);

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
        registered: q.facility?.registered === true,
        wage_index: facility.wage_index,
      }
    : null;

  const cfYear = yearOf(q.date_of_service) ?? rvuRow?.year ?? 2026;
  const cf = conversionFactorFor(rvuRow, rvu?.source ?? '', cfYear, qpp, trace);
  const cap = rvuRow && rvu && gpci.locality !== NATIONAL_LOCALITY ? await capFor(snapshot, rvuRow.hcpcs, rvuRow.modifier, gpci.locality, cfYear, pe.facility, trace) : null;
  const policy_rules = await policyRulesFor(snapshot, { payer: { slug: MEDICARE_FFS, medicare: true }, code, date: q.date_of_service, state }, trace);
  // CAH Method II: the query's, else the election in the tenant's registration; only at a critical access hospital, in its facility setting.
  let cahMethodII = false;
  const methodII = q.cah_method_ii ?? f?.effective.cah_method_ii;
  if (methodII && q.cah_method_ii === undefined) trace.warn(`cah_method_ii from your registration of ${f!.ccn}`);
  if (methodII) {
    if (f?.effective.payment_system !== 'cah_cost') trace.warn(`cah_method_ii ignored: ${f ? `${f.ccn} is not a critical access hospital` : 'no ccn names a critical access hospital'}`);
    else if (!pe.facility) trace.warn(`cah_method_ii ignored: place of service ${q.place_of_service} is not the hospital's facility setting`);
    else cahMethodII = true;
  }
  const anesthesia = rvuRow?.status_code === 'J' ? await anesthesiaFor(snapshot, code, q.anesthesia_minutes, modifiers, gpci.locality, cfYear, trace) : null;
  const { composition, warnings: calcWarnings } = composePayment({
    anesthesia,
    cah_method_ii: cahMethodII,
    cost_sharing: { year: cfYear, deductible_met: q.deductible_met ?? true, terms: effects.find((e) => e.cost_sharing)?.cost_sharing ?? null },
    cf,
    opps_cap: cap,
    code,
    ccn: facility?.ccn ?? null,
    date_of_service: q.date_of_service,
    qpp,
    pe,
    rvu,
    gpci,
    facility: facilityBlock,
    opps,
    lab,
    dme,
    policy_rules,
    policy_modifiers: policyModifiers,
    opps_modifiers: modifiers.filter((m) => OPPS_MODIFIERS.has(m)),
    calculation,
  });
  trace.warn(...calcWarnings);
  return composition;
}

/**
 * The payment route's composition for a query as a tenant sees the facility: an active
 * registration's facility type, and its place of service unless the query pins one. One home for
 * `GET /v1/codes/{code}/payment` and knowledge resolve L6, so the two never disagree.
 */
export async function paymentFor(
  snapshot: SnapshotReader,
  tenant: FacilityReads | null,
  q: PaymentQuery & { code: string },
  today: string,
  trace: Trace,
): Promise<Composition> {
  const facility = q.ccn ? await resolveFacility(snapshot, tenant, q.ccn, 'reference') : null;
  const own = facility?.fromRegistration.includes('place_of_service') ? facility.effective.place_of_service! : undefined;
  const pos = q.place_of_service ?? own;
  const composition = await composePaymentFor(snapshot, { ...q, today, place_of_service: pos, facility }, trace);
  if (pos !== undefined && q.place_of_service === undefined) trace.warn(`place of service ${pos} from your registration of ${q.ccn}`);
  return composition;
}

async function gpciFor(
  snapshot: SnapshotReader,
  locality: string | null,
  date: string | undefined,
  trace: Trace,
  who: string,
): Promise<GpciInput> {
  const national = { locality: NATIONAL_LOCALITY, pw_gpci: 1, pe_gpci: 1, mp_gpci: 1 };
  if (!locality || !snapshot.has('gpci')) trace.degrade();
  if (!locality) {
    trace.warn(`physician: the locality of ${who} is unknown; national GPCIs (1.000) used`);
    return national;
  }
  const g = await lookupGpci(snapshot, locality, date);
  if (!g) {
    trace.use('gpci');
    trace.warn(`physician: gpci is not loaded; national GPCIs (1.000) used for locality ${locality}`);
    return { ...national, locality };
  }
  trace.use('gpci', g.version);
  trace.fallback(...g.warnings);
  if (!g.row) {
    trace.degrade();
    trace.warn(`physician: locality ${locality} of ${who} is not in GPCI ${g.version}; national GPCIs (1.000) used`);
    return { ...national, locality };
  }
  return { locality, pw_gpci: g.row.pw_gpci, pe_gpci: g.row.pe_gpci, mp_gpci: g.row.mp_gpci };
}

async function oppsFor(
  snapshot: SnapshotReader,
  code: string,
  year: number | undefined,
  f: FacilityReference,
  system: PaymentSystem,
  placeOfService: string | undefined,
  effects: readonly RuleEffect[],
  trace: Trace,
  calculation: string[],
): Promise<PaymentInputs['opps']> {
  if (system === 'non_hospital') {
    trace.warn(`outpatient_facility: ${f.facility_type} ${f.ccn} is not a hospital paid under OPPS`);
    return null;
  }
  if (placeOfService !== undefined && !OPPS_POS.has(placeOfService)) {
    trace.warn(`outpatient_facility: place_of_service ${placeOfService} is not a hospital outpatient setting (19, 22, 23); no OPPS payment`);
    return null;
  }
  if (!snapshot.has('opps_addendum_b')) {
    trace.use('opps_addendum_b');
    trace.warn('outpatient_facility: opps_addendum_b is not loaded');
    return null;
  }
  let version = oppsVersionFor(snapshot, year);
  if (!version) {
    version = oppsVersionFor(snapshot)!;
    trace.fallback(`outpatient_facility: no OPPS Addendum B for ${year} is loaded; used ${version}`);
  }
  const [row] = await findOppsRatesIn(snapshot, version, code);
  if (!row) {
    trace.use('opps_addendum_b', version);
    trace.warn(`outpatient_facility: ${code} is not in OPPS Addendum B ${version}`);
    return null;
  }
  trace.use('opps_addendum_b', row.version);
  if (row.payment_rate === null) {
    if (row.status_indicator === 'N') {
      trace.warn(`outpatient_facility: ${code} has OPPS status indicator N (packaged): no separate payment, 0; its payment is in the APC payment of the primary service it is billed with (42 CFR 419.2(b))`);
      calculation.push(`outpatient_facility: status indicator N, packaged: paid 0 separately, within the primary service's APC (42 CFR 419.2(b))`);
    } else trace.warn(`outpatient_facility: ${code} has OPPS status indicator ${row.status_indicator} with no separate payment rate (packaged or not paid under OPPS)`);
    return null;
  }
  // The payment rules on the OPPS amount: not paid on this line or by this payment system (shown
  // for reference), or a percent of it (a rural emergency hospital).
  const notPaid = effects.filter((e) => e.opps_informational).map((e) => e.opps_informational!);
  const adjusted = effects.filter((e) => e.opps_adjustment);
  if (f.wage_index === null) {
    trace.use('wage_index');
    const noWage = `no wage index for CBSA ${f.cbsa ?? '(unknown)'} of ${f.ccn}`;
    if (notPaid.length) {
      // Not payable here: the missing wage index only costs the reference amount.
      for (const why of notPaid) trace.warn(`outpatient_facility: ${why}; no OPPS reference amount is shown (${noWage})`);
    } else if (adjusted.length) {
      for (const e of adjusted) trace.degrade().warn(`outpatient_facility: ${e.calculation}; the OPPS amount it is a percent of needs the IPPS wage index of the CBSA (42 CFR 419.43): ${noWage}, so no amount is computed`);
    } else {
      trace.degrade().warn(`outpatient_facility: ${noWage}; OPPS amount not computed`);
    }
    return null;
  }
  for (const why of notPaid) trace.warn(`outpatient_facility: ${why}; the OPPS amount is informational and not in estimated_payment`);
  if (!notPaid.length) calculation.push(...adjusted.map((e) => `outpatient_facility: ${e.calculation}`));
  return {
    payment_rate: row.payment_rate,
    apc_code: row.apc_code,
    status_indicator: row.status_indicator,
    relative_weight: row.relative_weight,
    wage_index: f.wage_index,
    informational: notPaid.length > 0,
    national_unadjusted_copayment: row.national_unadjusted_copayment,
    minimum_unadjusted_copayment: row.minimum_unadjusted_copayment,
    adjusted_copayment: row.adjusted_copayment,
    adjustments: adjusted.map((e) => e.opps_adjustment!),
  };
}

async function labFor(snapshot: SnapshotReader, code: string, modifier: string, year: number | undefined, trace: Trace): Promise<PaymentInputs['lab']> {
  if (!snapshot.has('clfs')) {
    trace.use('clfs');
    trace.warn('lab: clfs is not loaded');
    return null;
  }
  if (!(await isLabCode(snapshot, code))) {
    trace.warn(`lab: ${code} is not on the clinical laboratory fee schedule`);
    return null;
  }
  let [r] = await findLabRates(snapshot, code, modifier || undefined, year);
  if (!r && year !== undefined && !snapshot.versions('clfs').some((v) => (v.effective_date ?? v.version).startsWith(String(year)))) {
    [r] = await findLabRates(snapshot, code, modifier || undefined);
    if (r) trace.fallback(`lab: no CLFS for ${year} is loaded; used ${r.version}`);
  }
  if (!r) {
    trace.warn(`lab: ${code} is not on the clinical laboratory fee schedule`);
    return null;
  }
  trace.use('clfs', r.version);
  if (r.rate === null) {
    trace.warn(`lab: ${code} has CLFS indicator ${r.indicator} with no national limit (priced by the MAC)`);
    return null;
  }
  return { rate: r.rate, indicator: r.indicator };
}

const CITE_DME_ROW = 'DMEREAD 2025, Attachment A-1: a fee schedule amount for each combination of procedure code, modifier, second modifier ("when 2 modifiers apply") and state';

/**
 * The DMEPOS block's inputs: the fee row of the facility's state matching most of the line's
 * modifiers (`chooseDmeRow`: NU-KE over NU when both are on the line) and the rural flag (rule 4).
 */
async function dmeFor(snapshot: SnapshotReader, code: string, modifiers: readonly string[], f: FacilityReference, trace: Trace, calculation: string[]): Promise<PaymentInputs['dme']> {
  if (!snapshot.has('dmepos')) {
    trace.use('dmepos');
    trace.warn('dme: dmepos is not loaded');
    return null;
  }
  if (!(await isDmeCode(snapshot, code))) {
    trace.warn(`dme: ${code} is not on the DMEPOS fee schedule`);
    return null;
  }
  const [row] = await findDmeRates(snapshot, code, f.state, modifiers);
  if (!row) {
    trace.warn(`dme: ${code}${modifiers.length ? `-${modifiers.join('-')}` : ''} has no DMEPOS fee in ${f.state}${modifiers.length ? " keyed by the line's modifiers (no row's modifiers are all on the line, or two rows fit equally)" : ' without a modifier (pass NU, RR or UE)'}`);
    return null;
  }
  trace.use('dmepos', row.version);
  if (modifiers.length && row.modifier) {
    calculation.push(`dme: the ${code} ${[row.modifier, row.modifier2].filter(Boolean).join('-')} row of DMEPOS ${row.version} in ${f.state}, the row keyed by the most of the line's modifiers (${CITE_DME_ROW})`);
  }
  // Rule 4 uses the facility's rural flag; the DME rural ZIP list is the DMEPOS program's own
  // test, so a disagreement is reported (not acted on).
  if (f.zip && snapshot.has('dmepos_rural_zip')) {
    const listed = await isDmeRuralZip(snapshot, f.zip);
    trace.use('dmepos_rural_zip', snapshot.versions('dmepos_rural_zip').at(-1)!.version);
    if (listed !== f.is_rural) trace.warn(`dme: the facility is ${f.is_rural ? 'rural' : 'not rural'} but ZIP ${f.zip} is ${listed ? '' : 'not '}on the DMEPOS rural ZIP list; rule 4 follows the facility's flag`);
  }
  return { row: { non_rural_rate: row.non_rural_rate, rural_rate: row.rural_rate }, state: f.state, is_rural: f.is_rural };
}

/**
 * Without a ccn only the physician block is priced, so a clinical lab (CLFS) or DMEPOS code answers
 * 0: the warning says why and gives the fee schedule's rate for the date and the route to ask.
 */
async function feeScheduleHints(snapshot: SnapshotReader, code: string, modifier: string, modifiers: readonly string[], year: number | undefined, state: string | null, date: string | undefined, trace: Trace): Promise<void> {
  const when = date ? ` on ${date}` : '';
  if (snapshot.has('clfs') && (await isLabCode(snapshot, code))) {
    let [r] = await findLabRates(snapshot, code, modifier || undefined, year);
    if (!r && year !== undefined) {
      [r] = await findLabRates(snapshot, code, modifier || undefined);
      if (r) trace.fallback(`lab: no CLFS for ${year} is loaded; the rate quoted is from ${r.version}`);
    }
    if (r) trace.use('clfs', r.version);
    const rate = !r ? 'no CLFS row for the date' : r.rate === null ? `CLFS ${r.version}: no national limit (indicator ${r.indicator}, priced by the MAC)` : `CLFS ${r.version} national limit $${r.rate.toFixed(2)}${when}`;
    trace.warn(`lab: ${code} is a clinical laboratory fee schedule code, paid on the CLFS, not on physician RVUs (${rate}); without ccn only the physician block is priced: pass ccn, or see GET /v1/fee-schedules/lab/${code}${year ? `?year=${year}` : ''}`);
  }
  if (snapshot.has('dmepos') && (await isDmeCode(snapshot, code))) {
    const [row] = state ? await findDmeRates(snapshot, code, state, modifiers) : [];
    if (row) trace.use('dmepos', row.version);
    const rate = !state
      ? 'fees are by state: pass locality or ccn'
      : row
        ? `DMEPOS ${row.version} in ${state}${row.modifier ? ` (${[row.modifier, row.modifier2].filter(Boolean).join('-')})` : ''}: non-rural $${row.non_rural_rate?.toFixed(2) ?? 'n/a'}, rural $${row.rural_rate?.toFixed(2) ?? 'n/a'}`
        : `no DMEPOS fee in ${state}${modifiers.length ? ` for modifier${modifiers.length > 1 ? 's' : ''} ${modifiers.join(', ')}` : ' without a modifier (pass NU, RR or UE)'}`;
    trace.warn(`dme: ${code} is a DMEPOS fee schedule code, paid on the DMEPOS fee schedule, not on physician RVUs (${rate}); without ccn only the physician block is priced: pass ccn, or see GET /v1/fee-schedules/dme/${code}${state ? `?state=${state}` : ''}`);
  }
}

/**
 * The inputs of an anesthesia service (PFS status J; ch. 12 section 50): its minutes (the query),
 * its base units (anesthesia_base_units) and the anesthesia conversion factor of the locality and
 * year (anesthesia_cf). Null, with a warning naming what is missing, when one is not there.
 */
async function anesthesiaFor(
  snapshot: SnapshotReader,
  code: string,
  minutes: number | undefined,
  modifiers: string[],
  locality: string,
  year: number,
  trace: Trace,
): Promise<AnesthesiaInput | null> {
  if (minutes === undefined) {
    trace.warn(`anesthesia: ${code} is paid on base units plus time units; pass anesthesia_minutes for its amount`);
    return null;
  }
  const bu = await findAnesthesiaBaseUnits(snapshot, code);
  if (!bu.version) {
    trace.use('anesthesia_base_units');
    trace.warn('anesthesia: anesthesia_base_units is not loaded; no anesthesia amount');
    return null;
  }
  trace.use('anesthesia_base_units', bu.version);
  if (!bu.row) {
    trace.warn(`anesthesia: ${code} has no base units in anesthesia_base_units ${bu.version}; no anesthesia amount`);
    return null;
  }
  if (bu.illustrative) trace.degrade().warn(`anesthesia: the base units of ${code} (${bu.row.base_units}) are the illustrative seed of anesthesia_base_units, not CMS's file; load the real file before relying on the amount`);
  const cf = await lookupAnesCf(snapshot, locality === NATIONAL_LOCALITY ? null : locality, year);
  if (!cf) {
    trace.use('anesthesia_cf');
    trace.warn('anesthesia: anesthesia_cf (the ANES file of the RVU release) is not loaded; no anesthesia amount');
    return null;
  }
  trace.use('anesthesia_cf', cf.version);
  if (cf.other_year) trace.fallback(`anesthesia: no CY${year} anesthesia conversion factors are loaded; the nearest release's, CY${cf.version}, were used`);
  let value: number;
  let source: string;
  if (locality === NATIONAL_LOCALITY) {
    value = cf.national_anes_cf;
    source = `national anesthesia conversion factor of ANES${cf.version} (anesthesia_cf ${cf.version})`;
  } else if (cf.row) {
    value = cf.row.anes_cf;
    source = `anesthesia conversion factor of locality ${locality} (${cf.row.locality_name}) in ANES${cf.version} (anesthesia_cf ${cf.version})`;
  } else {
    trace.degrade().warn(`anesthesia: locality ${locality} is not in the anesthesia conversion factors of ${cf.version}; no anesthesia amount`);
    return null;
  }
  const directions = modifiers.filter((m) => isOwnKey(ANESTHESIA_MODIFIERS, m));
  if (directions.length > 1) trace.warn(`anesthesia: modifiers ${directions.join(', ')}; ${directions[0]} was applied`);
  return { base_units: bu.row.base_units, minutes, cf: String(value), cf_source: source, base_units_source: `anesthesia_base_units ${bu.version}${bu.illustrative ? ' (illustrative seed)' : ''}`, modifier: directions[0] ?? null };
}
