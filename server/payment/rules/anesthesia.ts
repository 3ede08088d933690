import { Dec, toCents } from '../../../lib/decimal.js';
import { findAnesthesiaBaseUnits } from '../../../datasets/anesthesia_base_units/queries.js';
import { lookupAnesCf } from '../../../datasets/anesthesia_cf/queries.js';
import { isOwnKey } from '../../../lib/own.js';
import { MODIFIERS, modifiersWhere } from '../../../lib/vocabulary/modifiers.js';
import type { Trace } from '../../trace.js';
import type { SnapshotReader } from '../../../warehouse/snapshot.js';
import { NATIONAL_LOCALITY, type Adjustment, type PaymentInputs, type PhysicianBlock, type RvuInput } from '../inputs.js';
import { SOURCES, type Notes, type PaymentRule } from './rule.js';

export const CITE_ANESTHESIA = 'Medicare Claims Processing Manual ch. 12 section 50 (anesthesia: base units plus time units of 15 minutes, times the locality\'s anesthesia conversion factor); 42 CFR 414.46';

/** Anesthesia payment modifiers: the percent of the amount, or `AD` (medical supervision, three base units). */
export const ANESTHESIA_MODIFIERS: Readonly<Record<string, number | 'AD'>> = Object.fromEntries([...modifiersWhere('anesthesia')].map((code) => [code, MODIFIERS[code]!.anesthesia!]));

export interface AnesthesiaInput {
  base_units: number;
  minutes: number;
  /** The locality's anesthesia conversion factor (exact text) and where it comes from. */
  cf: string;
  cf_source: string;
  base_units_source: string;
  /** The first anesthesia modifier of the request (AA, QZ, QK, QX, QY, AD), if any. */
  modifier: string | null;
}

/**
 * The anesthesia amount: (base units + minutes / 15 to one decimal place) x the anesthesia
 * conversion factor, times the medical-direction percent (QK, QX, QY 50%; AA, QZ 100%); AD pays
 * three base units and no time units. Rounded once.
 */
export function anesthesiaAllowed(a: Pick<AnesthesiaInput, 'base_units' | 'minutes' | 'cf' | 'modifier'>): { base_units: number; time_units: Dec; percent: number; exact: Dec; before_direction: number; allowed: number } {
  const m = a.modifier ? ANESTHESIA_MODIFIERS[a.modifier] : undefined;
  const supervision = m === 'AD';
  const base = supervision ? 3 : a.base_units;
  const time = supervision ? Dec.of(0) : Dec.of(a.minutes).divRound(15, 1);
  const percent = typeof m === 'number' ? m : 100;
  const full = Dec.of(base).add(time).mul(a.cf);
  const exact = full.mul(Dec.of(percent).mul('0.01'));
  return { base_units: base, time_units: time, percent, exact, before_direction: toCents(full), allowed: toCents(exact) };
}

/** The physician block of an anesthesia service: the RVU fields are the row's (zeros), the factor the anesthesia one. */
function anesthesiaBlock(i: PaymentInputs, r: RvuInput, a: AnesthesiaInput, { calculation, warnings }: Notes): PhysicianBlock | null {
  const amt = anesthesiaAllowed(a);
  if (a.modifier === 'AD') warnings.push(`anesthesia: modifier AD (medical supervision): three base units, no time units; the manual allows one more unit where the physician documents presence at induction, not counted here (${CITE_ANESTHESIA})`);
  calculation.push(`anesthesia: (${amt.base_units} base units + ${amt.time_units.toString()} time units (${a.minutes} minutes / 15)) x ${a.cf}${amt.percent !== 100 ? ` x ${amt.percent}% (modifier ${a.modifier})` : ''} (${CITE_ANESTHESIA})`);
  if (amt.allowed <= 0) return null;
  const adjustments: Adjustment[] = a.modifier && amt.percent !== 100 ? [{ modifier: a.modifier, rule: 'anesthesia_medical_direction', indicator: a.modifier, percent: amt.percent, citation: CITE_ANESTHESIA }] : [];
  return {
    allowed_phy_payment: amt.allowed,
    fee_schedule_amount: amt.before_direction,
    adjustments,
    conversion_factor: Number(a.cf),
    conversion_factor_source: a.cf_source,
    opps_cap_amount: null,
    opps_cap_applied: false,
    work_rvu: r.work_rvu ?? 0,
    pe_rvu: (i.pe.facility ? r.facility_pe_rvu : r.non_fac_pe_rvu) ?? 0,
    mp_rvu: r.mp_rvu ?? 0,
    pw_gpci: i.gpci.pw_gpci,
    pe_gpci: i.gpci.pe_gpci,
    mp_gpci: i.gpci.mp_gpci,
    work_rvu_adjusted: 0,
    pe_rvu_adjusted: 0,
    mp_rvu_adjusted: 0,
    total_adjusted_rvu: 0,
    pe_rvu_source: i.pe.facility ? 'facility' : 'non_facility',
    priced_code: r.hcpcs ?? i.code,
    rvu_row: 'global',
    setting_na: false,
    anesthesia: {
      minutes: a.minutes,
      base_units: amt.base_units,
      time_units: amt.time_units.toNumber(),
      anesthesia_conversion_factor: Number(a.cf),
      base_units_source: a.base_units_source,
      modifier: a.modifier,
    },
    rvu_year: r.year,
    rvu_quarter: r.quarter,
    rvu_source: r.source,
  };
}

/**
 * The inputs of an anesthesia service (PFS status J; ch. 12 section 50): its minutes (the query),
 * its base units (anesthesia_base_units) and the anesthesia conversion factor of the locality and
 * year (anesthesia_cf). Null, with a warning naming what is missing, when one is not there.
 */
async function anesthesiaFor(snapshot: SnapshotReader, code: string, minutes: number | undefined, modifiers: readonly string[], locality: string, year: number, trace: Trace): Promise<AnesthesiaInput | null> {
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

/**
 * Anesthesia (PFS status J): base units plus time units (minutes / 15, one decimal place) times the
 * locality's anesthesia conversion factor, in place of rule 1; medical direction QK, QX, QY 50%,
 * AA, QZ 100%; AD (medical supervision) three base units and no time units.
 */
export const anesthesia: PaymentRule = {
  id: 'anesthesia',
  modifiers: Object.keys(ANESTHESIA_MODIFIERS),
  applies_to: 'a code with PFS status J (anesthesia) and anesthesia_minutes; medical direction modifiers AA, QZ, QK, QX, QY, AD',
  does: 'prices the physician block as (base units + time units) x the anesthesia conversion factor, times the medical-direction percent',
  block: 'physician',
  citation: { title: CITE_ANESTHESIA, url: SOURCES.claimsManualCh12 },
  adjustments: ['anesthesia_medical_direction'],
  async gather({ snapshot, trace, code, modifiers, query, row, locality, year }) {
    return { anesthesia: row?.status_code === 'J' ? await anesthesiaFor(snapshot, code, query.anesthesia_minutes, modifiers, locality, year, trace) : null };
  },
  physicianFormula(i, r, notes) {
    if (!i.anesthesia || r.status_code !== 'J') return undefined;
    return anesthesiaBlock(i, r, i.anesthesia, notes);
  },
};
