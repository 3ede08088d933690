import { Dec, toCents } from '../../../lib/decimal.js';
import { ascIndicatorMeaning, ASC_PAYMENT_INDICATORS } from '../../../lib/vocabulary/asc_payment_indicators.js';
import { ascVersionFor, findAscRatesIn } from '../../../datasets/asc_addendum_aa/queries.js';
import { getWageIndex } from '../../../datasets/wage_index/queries.js';
import { findLocalityForZip } from '../../../datasets/zip_locality/queries.js';
import { countiesOfLocality } from '../../../datasets/locality_county/queries.js';
import { findCbsaForCounty } from '../../../datasets/cbsa_county/queries.js';
import { NotFoundError } from '../../../warehouse/errors.js';
import type { SnapshotReader } from '../../../warehouse/snapshot.js';
import type { Trace } from '../../trace.js';
import type { AscBlock, AscInput } from '../inputs.js';
import { SOURCES, type GatherContext, type PaymentRule } from './rule.js';

/** Place of service 24: ambulatory surgical center (CMS Place of Service Code Set). */
export const ASC_POS = '24';

/** The labor-related share of the ASC payment rate (42 CFR 416.172(c)). */
export const ASC_LABOR_SHARE = '0.5';

export const CITE_ASC_RATE = '42 CFR 416.171 (ASC payment rates: the national rate of each covered surgical procedure, CMS Addendum AA)';
export const CITE_ASC_WAGE = '42 CFR 416.172(c) (the labor-related 50% of the ASC rate is adjusted by the IPPS wage index of the CBSA where the ASC is located)';
const citeRelease = (release: string): string => `CMS ASC Addendum AA, release ${release} (asc_addendum_aa ${release})`;

/** The ASC amount: rate x (0.50 x wage_index + 0.50), exact, rounded to cents once. */
export function ascAllowed(rate: number | string | Dec, wageIndex: number | string | Dec): { exact: Dec; allowed: number } {
  const labor = Dec.of(ASC_LABOR_SHARE);
  const exact = Dec.of(rate).mul(labor.mul(wageIndex).add(Dec.of(1).sub(labor)));
  return { exact, allowed: toCents(exact) };
}

/** The CBSA of the ASC and its wage index: `cbsa`, else the CBSA of `ccn`, else the one CBSA of `zip`'s locality. Null with a warning when none is known. */
async function ascWageIndex(g: GatherContext): Promise<{ cbsa: string; wage_index: number } | null> {
  const { snapshot, trace, query } = g;
  if (query.cbsa) {
    try {
      const w = await getWageIndex(snapshot, query.cbsa);
      trace.use('wage_index', w.version);
      warnIfIllustrative(snapshot, trace, w.version, query.cbsa);
      return { cbsa: w.cbsa, wage_index: w.wage_index };
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
      trace.use('wage_index');
      trace.degrade().warn(`asc: ${e.message}; the national ASC rate is shown, not wage-adjusted (${CITE_ASC_WAGE})`);
      return null;
    }
  }
  const ref = g.facility?.reference;
  if (ref) {
    if (ref.cbsa && ref.wage_index !== null) {
      trace.useAll(ref.versions);
      warnIfIllustrative(snapshot, trace, ref.versions.wage_index, ref.cbsa);
      return { cbsa: ref.cbsa, wage_index: ref.wage_index };
    }
    trace.degrade().warn(`asc: no wage index for CBSA ${ref.cbsa ?? '(unknown)'} of ${ref.ccn}; the national ASC rate is shown, not wage-adjusted: pass cbsa`);
    return null;
  }
  if (query.zip) return zipWageIndex(snapshot, trace, query.zip);
  trace.warn(`asc: no cbsa, ccn or zip given: the national ASC rate, not wage-adjusted; pass cbsa for the amount of ${CITE_ASC_WAGE}`);
  return null;
}

/**
 * The CBSA of a ZIP, where the loaded data decide it: the ZIP's payment locality (zip_locality), the
 * counties that locality covers (locality_county), each county's CBSA (cbsa_county). One CBSA for
 * every county of a closed list is the ZIP's; a locality that is open (`ALL OTHER COUNTIES`) or
 * spans several CBSAs names none, and the national rate is shown with the CBSAs it could be.
 */
async function zipWageIndex(snapshot: SnapshotReader, trace: Trace, zip: string): Promise<{ cbsa: string; wage_index: number } | null> {
  const national = `the national ASC rate is shown, not wage-adjusted: pass cbsa (the CBSA of the ASC's county) for the amount of ${CITE_ASC_WAGE}`;
  const [z] = await findLocalityForZip(snapshot, zip);
  if (!z) {
    trace.degrade().warn(`asc: ZIP ${zip} is not in zip_locality${snapshot.has('zip_locality') ? '' : ' (not loaded)'}; ${national}`);
    return null;
  }
  trace.use('zip_locality', z.version);
  const loc = await countiesOfLocality(snapshot, z.locality);
  if (loc) trace.use('locality_county', loc.version);
  const where = `ZIP ${z.zip5} (${z.usps_state}, payment locality ${z.locality})`;
  if (!loc || loc.open || loc.counties.length === 0) {
    trace.degrade().warn(`asc: ${where}: ${!loc ? 'locality_county is not loaded' : 'its locality covers every county of the state not listed elsewhere'}, so no one CBSA is known; ${national}`);
    return null;
  }
  const cbsas = new Set<string>();
  for (const c of loc.counties) {
    const [hit] = await findCbsaForCounty(snapshot, { state: c.state, county: c.county });
    if (!hit) {
      trace.degrade().warn(`asc: ${where}: county ${c.county}, ${c.state} of its locality is not in cbsa_county, so its CBSA is not known; ${national}`);
      return null;
    }
    trace.use('cbsa_county', hit.version);
    cbsas.add(hit.cbsa);
  }
  if (cbsas.size > 1) {
    trace.degrade().warn(`asc: ${where}: its locality's counties lie in CBSAs ${[...cbsas].sort().join(', ')}, and the ZIP does not say which; ${national}`);
    return null;
  }
  const cbsa = [...cbsas][0]!;
  try {
    const w = await getWageIndex(snapshot, cbsa);
    trace.use('wage_index', w.version);
    trace.warn(`asc: CBSA ${cbsa} from ${where}: every county of the locality (${loc.counties.map((c) => c.county).join(', ')}) is in CBSA ${cbsa}`);
    warnIfIllustrative(snapshot, trace, w.version, cbsa);
    return { cbsa: w.cbsa, wage_index: w.wage_index };
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    trace.use('wage_index');
    trace.degrade().warn(`asc: ${where} is in CBSA ${cbsa}, which has no loaded wage index; ${national}`);
    return null;
  }
}

/** The answer rests on the illustrative wage index seed: degraded, said in the ASC's own words. */
function warnIfIllustrative(snapshot: SnapshotReader, trace: Trace, version: string | undefined, cbsa: string): void {
  const v = snapshot.versions('wage_index').find((x) => x.version === version);
  if (v?.illustrative) trace.degrade().warn(`asc: the wage index of CBSA ${cbsa} is from wage_index ${v.version}, an illustrative seed (invented figures): the wage-adjusted ASC amount is an estimate until CMS's IPPS wage index table is loaded`);
}

/** The inputs of the ASC block at place of service 24: the Addendum AA release of the date, the code's row, the wage index of the ASC's CBSA. */
async function ascFor(g: GatherContext): Promise<AscInput | null> {
  const { snapshot, trace, code, query } = g;
  const date = query.date_of_service;
  const pick = date ? ascVersionFor(snapshot, { date, today: date }) : undefined;
  if (!pick) {
    trace.use('asc_addendum_aa');
    trace.warn('asc: asc_addendum_aa (CMS ASC Addendum AA) is not loaded; no ASC payment');
    return null;
  }
  const release = pick.version.version;
  trace.use('asc_addendum_aa', release);
  if (!pick.covered && pick.warning) trace.fallback(`asc: ${pick.warning}`);
  const [row] = await findAscRatesIn(snapshot, release, code);
  if (!row) {
    trace.warn(`asc: ${code} is not on the ASC covered surgical procedures list (Addendum AA ${release}): Medicare pays no ASC facility fee for it (${CITE_ASC_RATE})`);
    return { release, row: null, cbsa: null, wage_index: null };
  }
  if (!separatelyPaid(row)) {
    trace.warn(`asc: ${code} has ASC payment indicator ${row.payment_indicator} (${ascIndicatorMeaning(row.payment_indicator)}): no separate ASC payment, its payment is in the procedure it is integral to`);
    return { release, row, cbsa: null, wage_index: null };
  }
  const w = await ascWageIndex(g);
  return { release, row, cbsa: w?.cbsa ?? null, wage_index: w?.wage_index ?? null };
}

/** True when the ASC is paid for the code apart: a printed rate, and an indicator that is not packaged (an unknown one counts as paid, its rate printed). */
const separatelyPaid = <R extends { payment_rate: number | null; payment_indicator: string }>(r: R): r is R & { payment_rate: number } =>
  r.payment_rate !== null && (ASC_PAYMENT_INDICATORS[r.payment_indicator]?.separately_paid ?? true);

/** The ASC block from its inputs (pure): the wage-adjusted amount, the national rate without a CBSA, null amount when not separately paid. */
export function ascBlock(a: AscInput, calculation: string[]): AscBlock {
  const base = { labor_share: Number(ASC_LABOR_SHARE), release: a.release, cbsa: a.cbsa, wage_index: a.wage_index };
  const r = a.row;
  if (!r) {
    return { ...base, allowed_asc_payment: null, national_rate: null, payment_weight: null, payment_indicator: null, payment_indicator_meaning: `not on the ASC covered surgical procedures list of Addendum AA ${a.release}: no ASC facility payment`, multiple_procedure_discount: null, wage_adjusted: false, citations: [CITE_ASC_RATE, citeRelease(a.release)] };
  }
  const row = { ...base, national_rate: r.payment_rate, payment_weight: r.payment_weight, payment_indicator: r.payment_indicator, payment_indicator_meaning: ascIndicatorMeaning(r.payment_indicator), multiple_procedure_discount: r.multiple_procedure_discount };
  if (!separatelyPaid(r)) {
    calculation.push(`asc: payment indicator ${r.payment_indicator}, ${ascIndicatorMeaning(r.payment_indicator)}: no separate ASC amount (${citeRelease(a.release)})`);
    return { ...row, allowed_asc_payment: null, wage_adjusted: false, citations: [CITE_ASC_RATE, citeRelease(a.release)] };
  }
  if (a.wage_index === null) {
    return { ...row, allowed_asc_payment: toCents(Dec.of(r.payment_rate)), wage_adjusted: false, citations: [CITE_ASC_RATE, citeRelease(a.release)] };
  }
  const amt = ascAllowed(r.payment_rate, a.wage_index);
  calculation.push(`asc: ${r.payment_rate} x (${ASC_LABOR_SHARE} x ${a.wage_index} + ${ASC_LABOR_SHARE}) = ${amt.exact.toString()} (${CITE_ASC_WAGE}; CBSA ${a.cbsa}; ${citeRelease(a.release)})`);
  return { ...row, allowed_asc_payment: amt.allowed, wage_adjusted: true, citations: [CITE_ASC_RATE, CITE_ASC_WAGE, citeRelease(a.release)] };
}

/**
 * The ASC facility payment at place of service 24: the Addendum AA national rate of the code
 * (42 CFR 416.171), its labor-related 50% adjusted by the wage index of the ASC's CBSA (42 CFR
 * 416.172(c)); packaged codes (N1) and codes off the ASC list have no amount, never $0.
 */
export const ascPayment: PaymentRule = {
  id: 'asc_payment',
  modifiers: [],
  applies_to: 'a code at place of service 24 (ambulatory surgical center); the CBSA from cbsa, else ccn, else the one CBSA of zip\'s payment locality',
  does: 'adds the asc block: the Addendum AA national rate, payment indicator and multiple procedure discount flag, and the rate x (0.50 x wage index + 0.50) of the CBSA; outside applicable_blocks and estimated_payment (the ASC bills its own claim)',
  block: 'asc',
  citation: { title: `${CITE_ASC_RATE}; ${CITE_ASC_WAGE}`, url: SOURCES.cfr(416, '172') },
  async gather(g) {
    return { asc: g.query.place_of_service === ASC_POS ? await ascFor(g) : null };
  },
  asc(i, notes) {
    return i.asc ? ascBlock(i.asc, notes.calculation) : null;
  },
};
