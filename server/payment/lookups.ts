import { HOSPITAL_OUTPATIENT_POS } from '../../lib/vocabulary/place_of_service.js';
import { findLabRates, isLabCode } from '../../datasets/clfs/queries.js';
import { findDmeRates, isDmeCode } from '../../datasets/dmepos/queries.js';
import { isDmeRuralZip } from '../../datasets/dmepos_rural_zip/queries.js';
import { lookupGpci } from '../../datasets/gpci/queries.js';
import { findOppsRatesIn, oppsVersionFor } from '../../datasets/opps_addendum_b/queries.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { FacilityReference } from '../facilities/schemas.js';
import type { PaymentSystem } from '../facilities/service.js';
import type { Trace } from '../trace.js';
import { NATIONAL_LOCALITY, type GpciInput, type PaymentInputs } from './inputs.js';
import { PAYMENT_RULES } from './rules/index.js';
import type { RuleEffect } from './rules/rule.js';

/**
 * The inputs of the blocks other than the physician's, each looked up through the dataset query
 * functions with what it used, fell back to or lacks recorded on the trace: the locality's GPCIs,
 * and at a facility the OPPS, CLFS and DMEPOS rows (a `null` block says why in a warning).
 */

/** Place-of-service codes of hospital outpatient services, the only ones OPPS pays (19, 22, 23). */
export const OPPS_POS = HOSPITAL_OUTPATIENT_POS;

/** The GPCIs of a facility's locality: national (1.000) with a warning when the locality is unknown or not in the GPCI file. */
export async function gpciFor(
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

/**
 * The OPPS block's inputs at a facility: its Addendum B row for the service's year, wage index and
 * the payment rules' effects on the amount (not paid on this line or by this payment system, or a
 * percent of it); null with a warning when OPPS pays nothing here.
 */
export async function oppsFor(
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
    // A rule of stage `oppsUnpriced` explains the status indicator (N: packaged), else it is said as it is.
    const explained = PAYMENT_RULES.map((r) => r.oppsUnpriced?.({ code, status_indicator: row.status_indicator })).find((e) => e);
    if (explained) {
      trace.warn(explained.warning);
      calculation.push(explained.calculation);
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

/** The CLFS block's inputs: the national limit of the code (and `modifier`, QW) for the year. */
export async function labFor(snapshot: SnapshotReader, code: string, modifier: string, year: number | undefined, trace: Trace): Promise<PaymentInputs['lab']> {
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
export async function dmeFor(snapshot: SnapshotReader, code: string, modifiers: readonly string[], f: FacilityReference, trace: Trace, calculation: string[]): Promise<PaymentInputs['dme']> {
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
export async function feeScheduleHints(snapshot: SnapshotReader, code: string, modifier: string, modifiers: readonly string[], year: number | undefined, state: string | null, date: string | undefined, trace: Trace): Promise<void> {
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

