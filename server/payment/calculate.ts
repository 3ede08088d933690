import type { z } from 'zod';
import { Dec, toCents } from '../../datasets/_shared/decimal.js';
import type { PolicyRule } from '../policies/schemas.js';
import type { DmeSchema, FacilityBlockSchema, LabSchema, OutpatientSchema, PaymentCompositionSchema, PhysicianSchema } from './schemas.js';

/**
 * Pure payment calculators (spec "Payment composition", calculation rules 1-5). No I/O: every
 * input is passed in, so each rule is unit-tested with values worked by hand from the CMS files.
 * Arithmetic is exact (`Dec`); an amount is rounded to cents once, at the end of its own rule.
 */

/** 2026 conversion factor for qualifying APM participants (spec rule 1). Not the file's CF column. */
export const CF_QPP = '33.5675';
/** 2026 conversion factor for everyone else (spec rule 1). */
export const CF_NON_QPP = '33.4009';
/** OPPS labor-related share (spec rule 2, and the CMS OPPS default). */
export const OPPS_LABOR_SHARE = '0.6';

/**
 * Place-of-service codes priced at the MPFS facility rate (facility PE RVUs). This is CMS's
 * facility-setting list (Medicare Claims Processing Manual ch. 12 §20.4.2, extended by the CY2024
 * PFS final rule for POS 02): every other POS code (11 office, 12 home, 10 telehealth in the
 * patient's home, 20 urgent care, 49, 50, 65, 71, 72, 81, 99...) takes the non-facility rate.
 */
export const FACILITY_POS: ReadonlySet<string> = new Set([
  '02', // telehealth provided other than in the patient's home (facility rate since CY2024)
  '19', // off-campus outpatient hospital
  '21', // inpatient hospital
  '22', // on-campus outpatient hospital
  '23', // emergency room - hospital
  '24', // ambulatory surgical center
  '26', // military treatment facility
  '31', // skilled nursing facility
  '34', // hospice
  '41', // ambulance - land
  '42', // ambulance - air or water
  '51', // inpatient psychiatric facility
  '52', // psychiatric facility - partial hospitalization
  '53', // community mental health center
  '56', // psychiatric residential treatment center
  '61', // comprehensive inpatient rehabilitation facility
]);

/** True when a place-of-service code is paid at the facility PE rate (see FACILITY_POS). */
export function isFacilityPos(pos: string): boolean {
  return FACILITY_POS.has(pos);
}

/** The 2026 conversion factor as exact text; QPP status is the only input (rule 1). */
export function conversionFactor(qpp: boolean): string {
  return qpp ? CF_QPP : CF_NON_QPP;
}

type Num = number | string | Dec;

/** The three RVUs of one PPRRVU row, with PE already chosen for the setting. */
export interface RvuTriple {
  work_rvu: Num;
  pe_rvu: Num;
  mp_rvu: Num;
}

/** The three GPCIs of one locality (GPCI file, Addendum E). */
export interface GpciTriple {
  pw_gpci: Num;
  pe_gpci: Num;
  mp_gpci: Num;
}

/** Exact intermediate values of rule 1 plus the allowed amount in cents. */
export interface PhysicianAmount {
  work_rvu_adjusted: Dec;
  pe_rvu_adjusted: Dec;
  mp_rvu_adjusted: Dec;
  total_adjusted_rvu: Dec;
  /** Exact product total_adjusted_rvu * CF, before rounding. */
  exact: Dec;
  /** `exact` rounded half away from zero to cents (the only rounding). */
  allowed: number;
}

/**
 * Rule 1: ((work * pw_gpci) + (pe * pe_gpci) + (mp * mp_gpci)) * CF, rounded to cents once.
 * The adjusted RVUs are exact (2-place RVU x 3-place GPCI = at most 5 places), so reporting them
 * needs no rounding and the amount is computed from exactly what is shown.
 */
export function physicianAllowed(rvu: RvuTriple, gpci: GpciTriple, cf: Num): PhysicianAmount {
  const work = Dec.of(rvu.work_rvu).mul(gpci.pw_gpci);
  const pe = Dec.of(rvu.pe_rvu).mul(gpci.pe_gpci);
  const mp = Dec.of(rvu.mp_rvu).mul(gpci.mp_gpci);
  const total = work.add(pe).add(mp);
  const exact = total.mul(cf);
  return { work_rvu_adjusted: work, pe_rvu_adjusted: pe, mp_rvu_adjusted: mp, total_adjusted_rvu: total, exact, allowed: toCents(exact) };
}

/** Rule 2's result: the wage-adjusted OPPS amount and the shares used. */
export interface OutpatientAmount {
  exact: Dec;
  allowed: number;
  labor_share: number;
  non_labor_share: number;
}

/**
 * Rule 2: (rate * labor * wage_index) + (rate * (1 - labor)), labor share 0.6 by default, with the
 * FY26 IPPS wage index of the facility's CBSA. Rounded to cents once.
 */
export function outpatientFacilityAllowed(rate: Num, wageIndex: Num, labor: Num = OPPS_LABOR_SHARE): OutpatientAmount {
  const l = Dec.of(labor);
  const nonLabor = Dec.of(1).sub(l);
  const exact = Dec.of(rate).mul(l).mul(wageIndex).add(Dec.of(rate).mul(nonLabor));
  return { exact, allowed: toCents(exact), labor_share: l.toNumber(), non_labor_share: nonLabor.toNumber() };
}

/** Rule 3: the CLFS national limit, paid flat (no geographic adjustment); cents. */
export function labAllowed(rate: Num): number {
  return toCents(Dec.of(rate));
}

/** A DMEPOS fee row's two amounts for one state (null where CMS prints 0.00 = none published). */
export interface DmeRates {
  non_rural_rate: number | null;
  rural_rate: number | null;
}

/** Rule 4's result. */
export interface DmeAmount {
  rate: number;
  rate_used: 'rural' | 'non_rural';
  allowed: number;
}

/**
 * Rule 4: the rural fee when the facility is rural and the file publishes one for the state, else
 * the non-rural fee. Null when the applicable fee is not published (the block is then absent).
 */
export function dmeAllowed(row: DmeRates, isRural: boolean): DmeAmount | null {
  if (isRural && row.rural_rate !== null) return { rate: row.rural_rate, rate_used: 'rural', allowed: toCents(Dec.of(row.rural_rate)) };
  if (row.non_rural_rate === null) return null;
  return { rate: row.non_rural_rate, rate_used: 'non_rural', allowed: toCents(Dec.of(row.non_rural_rate)) };
}

/** Sum of amounts already in cents, exact (no further rounding: cents add to cents). */
export function sumCents(amounts: number[]): number {
  return amounts.reduce((acc, a) => acc.add(Dec.of(a)), Dec.of(0)).round(2).toNumber();
}

// ---------------------------------------------------------------------------------------------
// Composition
// ---------------------------------------------------------------------------------------------

/** PE setting: `facility` or `non_facility` PE-RVU, and what decided it. */
export interface PeSetting {
  facility: boolean;
  /** `place_of_service`, `facility_type`, `use_facility_rate` or `default`. */
  decided_by: 'place_of_service' | 'facility_type' | 'use_facility_rate' | 'default';
}

/**
 * Chooses facility vs non-facility PE (rule 1): a place of service pins it; else the facility
 * type of the CCN (hospitals are facility settings); else the legacy `use_facility_rate`; else
 * non-facility (an office visit, POS 11).
 */
export function choosePeSetting(o: { placeOfService?: string; facilityIsFacilitySetting?: boolean; useFacilityRate?: boolean }): PeSetting {
  if (o.placeOfService !== undefined) return { facility: isFacilityPos(o.placeOfService), decided_by: 'place_of_service' };
  if (o.facilityIsFacilitySetting !== undefined) return { facility: o.facilityIsFacilitySetting, decided_by: 'facility_type' };
  if (o.useFacilityRate !== undefined) return { facility: o.useFacilityRate, decided_by: 'use_facility_rate' };
  return { facility: false, decided_by: 'default' };
}

/** The RVU row fields composition needs (a PPRRVU row). */
export interface RvuInput {
  modifier: string;
  status_code: string;
  work_rvu: number | null;
  non_fac_pe_rvu: number | null;
  facility_pe_rvu: number | null;
  mp_rvu: number | null;
  non_fac_na_indicator: string;
  facility_na_indicator: string;
  /** PC/TC indicator (RVU25D.pdf): 1 global with -26/TC rows, 3 technical only, 5 incident to, ... */
  pctc_indicator: string;
  year: number;
  quarter: number;
  /** Where the row came from, e.g. `PPRRVU2025_Oct.csv (mpfs_rvu 2025D)`. */
  source: string;
}

/** GPCI inputs plus the locality they belong to. */
export interface GpciInput {
  locality: string;
  pw_gpci: number;
  pe_gpci: number;
  mp_gpci: number;
}

/** The facility profile resolved from reference data (spec "facility" block). */
export type FacilityBlock = z.output<typeof FacilityBlockSchema>;

/** Everything composition needs, already looked up. Null inputs make their block absent. */
export interface PaymentInputs {
  code: string;
  ccn: string | null;
  date_of_service: string | null;
  qpp: boolean;
  pe: PeSetting;
  /** Null when the code has no payable RVU row (the physician block is then absent). */
  rvu: RvuInput | null;
  gpci: GpciInput;
  /** Only with a CCN. */
  facility: FacilityBlock | null;
  /** `informational`: the facility is not paid under the OPPS; the block is shown, not summed. */
  opps: { payment_rate: number; apc_code: string | null; status_indicator: string; relative_weight: number | null; wage_index: number; informational: boolean } | null;
  lab: { rate: number; indicator: string } | null;
  dme: { row: DmeRates; state: string; is_rural: boolean } | null;
  /** The conversion factor of the date of service's year (exact text) and why it was chosen. */
  cf: { value: string; source: string };
  /** The OPPS cap of the code, modifier and locality for the setting (DRA 2005), when one applies. */
  opps_cap: { amount: number; version: string } | null;
  /** Medicare coverage rules for the code (`policyRulesFor`), carried into the composition as they are. */
  policy_rules: PolicyRule[];
}

/** PFS status codes paid separately on RVUs (RVU25D.pdf, "Status Code"). */
export const PFS_PAYABLE_STATUS: ReadonlySet<string> = new Set(['A', 'R', 'T']);

const n = (d: Dec) => d.toNumber();

/**
 * Builds the spec's payment composition from looked-up inputs (rules 1-4). `estimated_payment` is
 * the sum of the applicable blocks' allowed amounts, each already rounded once to cents, so it
 * always equals what the blocks show. Returns warnings for blocks that turned out not payable.
 */
export function composePayment(i: PaymentInputs): { composition: Composition; warnings: string[] } {
  const warnings: string[] = [];
  const cf = i.cf.value;
  const blocks: Composition['applicable_blocks'] = [];
  const amounts: number[] = [];

  let physician: PhysicianBlock | null = null;
  if (i.rvu && !PFS_PAYABLE_STATUS.has(i.rvu.status_code)) {
    warnings.push(`physician: ${i.code}${i.rvu.modifier ? `-${i.rvu.modifier}` : ''} has PFS status ${i.rvu.status_code}, not paid on RVUs under the physician fee schedule`);
  } else if (i.rvu) {
    const r = i.rvu;
    const pe = i.pe.facility ? r.facility_pe_rvu : r.non_fac_pe_rvu;
    const na = i.pe.facility ? r.facility_na_indicator : r.non_fac_na_indicator;
    if (na === 'NA') warnings.push(`CMS marks the ${i.pe.facility ? 'facility' : 'non-facility'} PE-RVU of ${i.code} as NA (not paid in that setting); the published value was used`);
    const amt = physicianAllowed({ work_rvu: r.work_rvu ?? 0, pe_rvu: pe ?? 0, mp_rvu: r.mp_rvu ?? 0 }, i.gpci, cf);
    // DRA 2005: an imaging service's PFS amount is capped at the OPPS amount for the setting.
    const capApplied = i.opps_cap !== null && i.opps_cap.amount < amt.allowed;
    if (amt.allowed > 0) {
      physician = {
        allowed_phy_payment: capApplied ? i.opps_cap!.amount : amt.allowed,
        conversion_factor: Number(cf),
        conversion_factor_source: i.cf.source,
        opps_cap_amount: i.opps_cap?.amount ?? null,
        opps_cap_applied: capApplied,
        work_rvu: r.work_rvu ?? 0,
        pe_rvu: pe ?? 0,
        mp_rvu: r.mp_rvu ?? 0,
        pw_gpci: i.gpci.pw_gpci,
        pe_gpci: i.gpci.pe_gpci,
        mp_gpci: i.gpci.mp_gpci,
        work_rvu_adjusted: n(amt.work_rvu_adjusted),
        pe_rvu_adjusted: n(amt.pe_rvu_adjusted),
        mp_rvu_adjusted: n(amt.mp_rvu_adjusted),
        total_adjusted_rvu: n(amt.total_adjusted_rvu),
        pe_rvu_source: i.pe.facility ? 'facility' : 'non_facility',
        rvu_row: r.modifier === '26' || r.modifier === 'TC' || r.modifier === '53' ? r.modifier : 'global',
        setting_na: na === 'NA',
        rvu_year: r.year,
        rvu_quarter: r.quarter,
        rvu_source: r.source,
      };
      blocks.push('physician');
      amounts.push(physician.allowed_phy_payment);
    } else {
      warnings.push(`physician: ${i.code}${r.modifier ? `-${r.modifier}` : ''} has no RVUs in the ${i.pe.facility ? 'facility' : 'non-facility'} setting (status ${r.status_code}); no physician fee schedule payment`);
    }
  }

  let outpatient: OutpatientBlock | null = null;
  if (i.opps) {
    const o = outpatientFacilityAllowed(i.opps.payment_rate, i.opps.wage_index);
    outpatient = {
      allowed_fac_payment: o.allowed,
      opps_payment_rate: i.opps.payment_rate,
      apc_code: i.opps.apc_code,
      status_indicator: i.opps.status_indicator,
      labor_share: o.labor_share,
      non_labor_share: o.non_labor_share,
      relative_weight: i.opps.relative_weight,
      wage_index: i.opps.wage_index,
      informational: i.opps.informational,
    };
    if (!i.opps.informational) {
      blocks.push('outpatient_facility');
      amounts.push(o.allowed);
    }
  }

  let lab: LabBlock | null = null;
  if (i.lab) {
    const a = labAllowed(i.lab.rate);
    lab = { allowed_lab_payment: a, lab_payment_rate: i.lab.rate, indicator: i.lab.indicator };
    blocks.push('lab');
    amounts.push(a);
  }

  let dme: DmeBlock | null = null;
  if (i.dme) {
    const d = dmeAllowed(i.dme.row, i.dme.is_rural);
    if (d) {
      if (i.dme.is_rural && d.rate_used === 'non_rural') warnings.push(`dme: no rural fee is published for ${i.code} in ${i.dme.state}; the non-rural fee applies`);
      dme = { allowed_dme_payment: d.allowed, dme_payment_rate: d.rate, is_rural: i.dme.is_rural, rate_used: d.rate_used, state: i.dme.state };
      blocks.push('dme');
      amounts.push(d.allowed);
    } else {
      warnings.push(`dme: no ${i.dme.is_rural ? 'rural or non-rural' : 'non-rural'} fee is published for ${i.code} in ${i.dme.state}`);
    }
  }

  return {
    composition: {
      code: i.code,
      conversion_factor: Number(cf),
      applicable_blocks: blocks,
      ccn: i.ccn,
      date_of_service: i.date_of_service,
      estimated_payment: sumCents(amounts),
      facility_rate: i.pe.facility,
      locality: i.gpci.locality,
      pw_gpci: i.gpci.pw_gpci,
      pe_gpci: i.gpci.pe_gpci,
      mp_gpci: i.gpci.mp_gpci,
      work_rvu_adjusted: physician?.work_rvu_adjusted ?? null,
      pe_rvu_adjusted: physician?.pe_rvu_adjusted ?? null,
      mp_rvu_adjusted: physician?.mp_rvu_adjusted ?? null,
      total_adjusted_rvu: physician?.total_adjusted_rvu ?? null,
      qpp: i.qpp,
      physician,
      outpatient_facility: outpatient,
      lab,
      dme,
      facility: i.facility,
      policy_rules: i.policy_rules,
    },
    warnings,
  };
}

/** Spec blocks and the composition, as declared once in `schemas.ts`. */
export type PhysicianBlock = z.output<typeof PhysicianSchema>;
export type OutpatientBlock = z.output<typeof OutpatientSchema>;
export type LabBlock = z.output<typeof LabSchema>;
export type DmeBlock = z.output<typeof DmeSchema>;
/** The spec's payment composition without `reliability` (the route adds it). */
export type Composition = Omit<z.output<typeof PaymentCompositionSchema>, 'reliability'>;
