import { HOSPITAL_POS } from '../../lib/vocabulary/place_of_service.js';
import type { z } from 'zod';
import { pickForRequest, requireCovered, versionLabel } from '../../datasets/_shared/versions.js';
import { lookupGpci } from '../../datasets/gpci/queries.js';
import { loadedYears, yearFigures, type YearFigures } from '../../datasets/medicare_yearly_figures/queries.js';
import { findRvuRows, type RvuRow } from '../../datasets/mpfs_rvu/queries.js';
import { NotFoundError, ValidationError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { isKnownCode } from '../codes/service.js';
import type { FacilityReference } from '../facilities/schemas.js';
import { isHospitalType, resolveFacility, type Facility, type FacilityReads } from '../facilities/service.js';
import { MEDICARE_FFS, policyRulesFor } from '../policies/service.js';
import type { Trace } from '../trace.js';
import { choosePeSetting, composePayment } from './calculate.js';
import { NATIONAL_LOCALITY, type Composition, type FacilityBlock, type GpciInput, type PaymentInputs, type PeSetting } from './inputs.js';
import { dmeFor, feeScheduleHints, gpciFor, labFor, oppsFor } from './lookups.js';
import { applyPaymentRules, OPPS_MODIFIERS, PAYMENT_RULES, POLICY_MODIFIERS, PRICING_RULE_MODIFIERS } from './rules/index.js';
import type { RuleEffect } from './rules/rule.js';
import { capFor, conversionFactorFor, RVU_PRICING_MODIFIERS, selectRvu, toRvuInput, yearOf } from './rvu.js';
import type { PaymentQuerySchema } from './schemas.js';

// What the payer routes (the year's factor, the RVU row) and knowledge resolve (the OPPS places of
// service, the pricing modifiers) read of the area, and the PC/TC rule's table of families.
export { conversionFactorFor, RVU_PRICING_MODIFIERS, selectRvu } from './rvu.js';

/**
 * The service year's Medicare figures (`medicare_yearly_figures`: deductibles, coinsurance, the
 * preventive list, a factor no RVU release prints), recorded on the trace. Null when the dataset
 * is not loaded (the trace says so) or has no document for the year: then degraded, with a
 * warning naming the years loaded, and no other year's figures are used.
 */
export async function yearFiguresFor(snapshot: SnapshotReader, year: number, trace: Trace): Promise<YearFigures | null> {
  if (!snapshot.has('medicare_yearly_figures')) {
    trace.use('medicare_yearly_figures');
    return null;
  }
  const y = await yearFigures(snapshot, year);
  trace.use('medicare_yearly_figures', versionLabel(snapshot, 'medicare_yearly_figures'));
  if (!y) {
    const years = (await loadedYears(snapshot)).map((x) => `CY${x}`).join(', ');
    trace.fallback(`no CY${year} Medicare yearly figures are loaded (medicare_yearly_figures has ${years || 'none'}): the year's deductibles, coinsurance and preventive services are not counted`);
  }
  return y;
}
export { OPPS_POS } from './lookups.js';
export { PCTC4_FAMILIES } from './rules/professional_component.js';

/** The fee schedules a composition prices: without a ccn the physician's alone, at a ccn the OPPS, CLFS and DMEPOS too. */
const PRICED_FILES = { physician: ['mpfs_rvu'], facility: ['mpfs_rvu', 'opps_addendum_b', 'clfs', 'dmepos'] } as const;

/**
 * The payment route's date rule (`requireCovered`): a `date_of_service` whose calendar year none
 * of the fee schedules the composition prices has a release of is 404, naming the year and the
 * nearest loaded release of each. Without a date the composition prices today's year, degraded
 * where a schedule has no release of it (the composition's warnings say which). The remittance
 * pricing applies its own rule to what the composition used (`not_priced: no_loaded_year`).
 */
export function requirePaymentYear(snapshot: SnapshotReader, q: { date_of_service?: string; ccn?: string }, today: string): void {
  if (q.date_of_service === undefined) return;
  const when = { year: yearOf(q.date_of_service)!, date: q.date_of_service, today };
  const files = q.ccn ? PRICED_FILES.facility : PRICED_FILES.physician;
  requireCovered(when, 'year', files.map((dataset) => ({ dataset, pick: pickForRequest(dataset, snapshot.versions(dataset), 'year', when) })));
}

/**
 * A payment request: the route's validated query, the code, today (`YYYY-MM-DD`: the year whose
 * conversion factor and caps apply without a date of service), and the facility of `ccn` as the
 * calling tenant sees it (`resolveFacility`), null without `ccn`.
 */
export type PaymentRequest = PaymentQuery & { code: string; today: string; facility: Facility | null };

/** The validated query (its schema splits comma lists and upper-cases the modifiers). */
type PaymentQuery = z.output<typeof PaymentQuerySchema>;

/** The request with the date priced: the one given, else today. */
type DatedRequest = PaymentRequest & { date_of_service: string };

/**
 * A modifier the physician composition does not act on (not an RVU row, nor read by a payment rule
 * that changes an amount): the lab and DME lookups read it (QW, NU, RR, UE).
 */
const pricesNothingHere = (m: string): boolean => !RVU_PRICING_MODIFIERS.has(m) && !PRICING_RULE_MODIFIERS.has(m);

/** The line as the composition reads it: its modifiers by role, and the conversion factor's QPP status. */
interface Line {
  code: string;
  /** Each modifier once, in the order given. */
  modifiers: string[];
  /** The pricing modifier (26, TC, 53) whose RVU row is priced, `''` for none. */
  modifier: string;
  /** The modifier passed to the CLFS lookup (QW). */
  feeModifier: string;
  qpp: boolean;
}

/** Reads the line's modifiers and QPP status, warning where the request disagrees with itself. */
function readLine(q: DatedRequest, trace: Trace): Line {
  // Each modifier once, in the order given.
  const modifiers = [...new Set(q.modifier ?? [])];
  // The RVU row: the first pricing modifier (26, TC, 53); 52 (reduced services) is priced by the
  // MAC (the reduced_services rule).
  const pricing = modifiers.filter((m) => RVU_PRICING_MODIFIERS.has(m));
  if (pricing.length > 1) trace.warn(`modifiers ${pricing.join(', ')} each select an RVU row; ${pricing[0]} was priced`);
  // The modifier passed to the CLFS lookup (QW); the DMEPOS row is the one matching most of the modifiers.
  const feeModifier = modifiers.length === 1 ? modifiers[0]! : (modifiers.find(pricesNothingHere) ?? '');
  // QPP: the numeric flag wins over the boolean (spec), said out loud when they disagree.
  const qpp = q.qpp_flag !== undefined ? q.qpp_flag === 1 : (q.qpp ?? false);
  if (q.qpp_flag !== undefined && q.qpp !== undefined && q.qpp !== (q.qpp_flag === 1)) {
    trace.warn(`qpp=${q.qpp} conflicts with qpp_flag=${q.qpp_flag}; qpp_flag wins (${qpp ? 'QPP' : 'non-QPP'} conversion factor)`);
  }
  return { code: q.code, modifiers, modifier: pricing[0] ?? '', feeModifier, qpp };
}

/**
 * The physician's RVU row (rule 1): none when a rule of stage `line` leaves no physician amount
 * (52), else the row of the pricing modifier with the notes of the rules of stage `rowChosen` (53).
 */
async function physicianRow(snapshot: SnapshotReader, q: DatedRequest, line: Line, rvuRows: readonly RvuRow[], effects: readonly RuleEffect[], trace: Trace, calculation: string[]): Promise<RvuRow | null> {
  const { code, modifier } = line;
  if (rvuRows.length === 0) {
    trace.warn(`physician: ${code} is not in the physician fee schedule RVU file${snapshot.has('mpfs_rvu') ? '' : ' (mpfs_rvu not loaded)'}`);
    if (!snapshot.has('mpfs_rvu')) trace.use('mpfs_rvu');
    return null;
  }
  let row: RvuRow | null;
  const notPriced = effects.find((e) => e.physician_not_priced);
  if (notPriced) {
    row = null;
    trace.warn(`physician: ${notPriced.physician_not_priced}`);
  } else {
    row = await selectRvu(snapshot, code, modifier, q.date_of_service, trace);
    for (const r of PAYMENT_RULES) r.rowChosen?.({ code, modifier, row, trace, calculation });
  }
  for (const m of line.modifiers.filter(pricesNothingHere)) {
    trace.warn(`modifier ${m} does not select a separate RVU row${modifier ? '' : `; the unmodified RVUs of ${code} were used`}`);
  }
  if (!row) return null;
  trace.use('mpfs_rvu', row.version);
  // A date in a year without its own release: the nearest release prices it, degraded.
  const dosYear = yearOf(q.date_of_service);
  if (dosYear !== undefined && dosYear !== row.year) {
    trace.fallback(`physician: no CY${dosYear} RVU release is loaded; the ${code} RVUs are the nearest release's, CY${row.year} (mpfs_rvu ${row.version})`);
  }
  return row;
}

/** Where the service is priced: the facility's geography (rule 5), else the locality parameter, else national GPCIs. */
interface Place {
  /** The reference row (payment prices with its geography) with the active registration's type. */
  facility: FacilityReference | null;
  gpci: GpciInput;
  /** The facility's state, else the locality's (its MAC jurisdiction decides which LCDs apply). */
  state: string | null;
}

/** The geography of the request (rule 5); throws ValidationError for a locality not in the GPCI file. */
async function placeOf(snapshot: SnapshotReader, q: DatedRequest, trace: Trace): Promise<Place> {
  const f = q.facility;
  if (f?.reference) {
    if (q.locality) trace.warn(`locality ${q.locality} ignored: ccn ${f.ccn} sets the locality`);
    const ref = f.reference;
    if (f.fromRegistration.includes('facility_type')) {
      trace.warn(`facility type ${f.effective.facility_type} from your registration of ${f.ccn} (reference data: ${ref.facility_type})`);
    }
    trace.useAll(ref.versions).warn(...ref.warnings);
    const gpci = await gpciFor(snapshot, ref.locality, q.date_of_service, trace, `facility ${ref.ccn}`);
    return { facility: { ...ref, facility_type: f.effective.facility_type }, gpci, state: ref.state };
  }
  if (q.locality) {
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
    return { facility: null, gpci: { locality: q.locality, pw_gpci: g.row.pw_gpci, pe_gpci: g.row.pe_gpci, mp_gpci: g.row.mp_gpci }, state: g.row.state };
  }
  trace.warn('no ccn or locality given: national amounts (every GPCI 1.000); pass locality for a geographically adjusted amount');
  return { facility: null, gpci: { locality: NATIONAL_LOCALITY, pw_gpci: 1, pe_gpci: 1, mp_gpci: 1 }, state: null };
}

/** Facility vs non-facility PE: POS pins it, else the facility type, else the legacy flag. */
function peSettingOf(q: DatedRequest, facility: FacilityReference | null, trace: Trace): { pe: PeSetting; hospital: boolean | undefined } {
  const hospital = facility ? isHospitalType(facility.facility_type) : undefined;
  if (facility && !hospital && q.place_of_service === undefined) {
    trace.warn(`facility type ${facility.facility_type} is not a hospital: non-facility PE used; pass place_of_service to pin the setting`);
  }
  if (q.use_facility_rate !== undefined && (facility || q.place_of_service !== undefined)) {
    trace.warn(`use_facility_rate ignored: ${q.place_of_service !== undefined ? `place_of_service ${q.place_of_service}` : `the facility type of ccn ${q.facility?.ccn}`} decides the PE setting`);
  }
  return { pe: choosePeSetting({ placeOfService: q.place_of_service, facilityIsFacilitySetting: hospital, useFacilityRate: q.use_facility_rate }), hospital };
}

/** The facility block of the answer (spec "facility"), with the place of service the composition assumed. */
function toFacilityBlock(facility: FacilityReference, q: DatedRequest, hospital: boolean | undefined): FacilityBlock {
  return {
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
  };
}

/**
 * Gathers every input of a payment composition through the dataset query functions and composes
 * it (spec rules 1-5) with the payment rules of `rules/`, each acting at its stage. With `ccn` the
 * facility's geography drives GPCI, wage index and the rural flag, and the OPPS, lab and DME
 * blocks are looked up; without it only the physician block is priced, in `locality` (or
 * nationally). Throws NotFoundError for an unknown code or CCN and ValidationError for an unknown
 * locality.
 */
export async function composePaymentFor(snapshot: SnapshotReader, request: PaymentRequest, trace: Trace): Promise<Composition> {
  // The date priced for: the one given, else today (the server's date), used for every release,
  // factor and rule picked below and echoed in the answer.
  const q: DatedRequest = { ...request, date_of_service: request.date_of_service ?? request.today };
  const line = readLine(q, trace);
  const { code, modifiers } = line;
  const calculation: string[] = [];
  if (!(await isKnownCode(snapshot, code))) {
    throw new NotFoundError(`code ${code} is not in any loaded fee schedule (physician RVUs, OPPS Addendum B, CLFS or DMEPOS)`);
  }

  const rvuRows = await findRvuRows(snapshot, code);
  const f = q.facility;
  // The service's year: its releases, factor and Medicare figures (the date given, else today's).
  const year = yearOf(q.date_of_service)!;
  const figures = await yearFiguresFor(snapshot, year, trace);
  const effects = applyPaymentRules({
    code,
    modifiers,
    year,
    figures,
    facility: f ? { ccn: f.ccn, facility_type: f.effective.facility_type, payment_system: f.effective.payment_system } : null,
    rvu_modifiers: [...new Set(rvuRows.map((r) => r.modifier))],
  });
  let rvuRow = await physicianRow(snapshot, q, line, rvuRows, effects, trace, calculation);
  const { facility, gpci, state } = await placeOf(snapshot, q, trace);
  const { pe, hospital } = peSettingOf(q, facility, trace);

  // At a facility's outpatient setting the facility is paid the technical component: the rules of
  // stage `hospitalSetting` price the professional one (or nothing), so the TC is not counted twice.
  // Without a CCN, a hospital place of service decides the same (ch. 13 section 20).
  const hospitalSetting = f ? pe.facility : q.place_of_service !== undefined && HOSPITAL_POS.has(q.place_of_service);
  if (rvuRow && hospitalSetting) {
    const where = f ? 'at a facility' : `at place of service ${q.place_of_service}`;
    for (const r of PAYMENT_RULES) if (r.hospitalSetting && rvuRow) rvuRow = await r.hospitalSetting({ snapshot, row: rvuRow, date: q.date_of_service, where, trace, calculation });
    if (rvuRow) trace.use('mpfs_rvu', rvuRow.version);
  }
  const rvu = rvuRow ? toRvuInput(rvuRow, snapshot) : null;

  let blocks: Pick<PaymentInputs, 'opps' | 'lab' | 'dme'> = { opps: null, lab: null, dme: null };
  if (facility) {
    blocks = {
      opps: await oppsFor(snapshot, code, year, facility, f!.effective.payment_system, q.place_of_service, effects, trace, calculation),
      lab: await labFor(snapshot, code, line.feeModifier, year, trace),
      dme: await dmeFor(snapshot, code, modifiers, facility, trace, calculation),
    };
  } else await feeScheduleHints(snapshot, code, line.feeModifier, modifiers, year, state, q.date_of_service, trace);

  const cf = await conversionFactorFor(snapshot, rvuRow, rvu?.source ?? '', q.date_of_service, line.qpp, figures, trace);
  const cap = rvuRow && rvu && gpci.locality !== NATIONAL_LOCALITY ? await capFor(snapshot, rvuRow.hcpcs, rvuRow.modifier, gpci.locality, year, pe.facility, trace) : null;
  const policy_rules = await policyRulesFor(snapshot, { payer: { slug: MEDICARE_FFS, medicare: true }, code, date: q.date_of_service, state }, trace);
  // What the rules look up for their own stages (CAH Method II's election, anesthesia's units and factor).
  let gathered: Partial<PaymentInputs> = {};
  for (const r of PAYMENT_RULES) {
    if (r.gather) gathered = { ...gathered, ...(await r.gather({ snapshot, trace, code, modifiers, facility: f, query: q, pe, row: rvuRow, locality: gpci.locality, year })) };
  }
  const { composition, warnings } = composePayment({
    ...gathered,
    cost_sharing: { year, deductible_met: q.deductible_met ?? true, terms: effects.find((e) => e.cost_sharing)?.cost_sharing ?? null },
    cf,
    figures,
    opps_cap: cap,
    code,
    ccn: facility?.ccn ?? null,
    date_of_service: q.date_of_service,
    qpp: line.qpp,
    pe,
    rvu,
    gpci,
    facility: facility ? toFacilityBlock(facility, q, hospital) : null,
    ...blocks,
    policy_rules,
    policy_modifiers: modifiers.filter((m) => POLICY_MODIFIERS.has(m)),
    opps_modifiers: modifiers.filter((m) => OPPS_MODIFIERS.has(m)),
    calculation,
  });
  trace.warn(...warnings);
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
