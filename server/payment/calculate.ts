import type { z } from 'zod';
import { Dec, toCents } from '../../datasets/_shared/decimal.js';
import type { PolicyRule } from '../policies/schemas.js';
import type { CostSharingTerms } from './rules/index.js';
import type { CostSharingSchema, DmeSchema, PaymentAdjustmentSchema, FacilityBlockSchema, LabSchema, OutpatientSchema, PaymentCompositionSchema, PhysicianSchema } from './schemas.js';

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
  /** The code whose row this is (a PC/TC indicator 4 code at a hospital is priced from its professional code). */
  hcpcs?: string;
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
  /** Payment-policy indicators of the RVU file (MULT PROC, BILAT SURG, ASST SURG, CO-SURG, TEAM SURG). */
  mult_proc: string;
  bilat_surg: string;
  asst_surg: string;
  co_surg: string;
  team_surg: string;
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
  date_of_service: string;
  qpp: boolean;
  pe: PeSetting;
  /** Null when the code has no payable RVU row (the physician block is then absent). */
  rvu: RvuInput | null;
  gpci: GpciInput;
  /** Only with a CCN. */
  facility: FacilityBlock | null;
  /** `informational`: the facility is not paid under the OPPS; the block is shown, not summed. */
  opps: {
    payment_rate: number;
    apc_code: string | null;
    status_indicator: string;
    relative_weight: number | null;
    wage_index: number;
    informational: boolean;
    /** Addendum B copayments: national unadjusted, minimum unadjusted (20%), IRA-adjusted (already final). */
    national_unadjusted_copayment?: number | null;
    minimum_unadjusted_copayment?: number | null;
    adjusted_copayment?: number | null;
    /** The facility's payment system's adjustments of the amount, not of the copayment (a rural emergency hospital's 105%). */
    adjustments?: readonly Adjustment[];
  } | null;
  lab: { rate: number; indicator: string } | null;
  dme: { row: DmeRates; state: string; is_rural: boolean } | null;
  /** The conversion factor of the date of service's year (exact text) and why it was chosen. */
  cf: { value: string; source: string };
  /** The OPPS cap of the code, modifier and locality for the setting (DRA 2005), when one applies. */
  opps_cap: { amount: number; version: string } | null;
  /** Medicare coverage rules for the code (`policyRulesFor`), carried into the composition as they are. */
  policy_rules: PolicyRule[];
  /** Payment-policy modifiers of the request (50, 51, 62, 66, 80, 81, 82, AS), applied to the physician amount. */
  policy_modifiers?: readonly string[];
  /** Beneficiary cost sharing: the service's year (its deductibles), whether the Part B deductible is met, and a payment rule's terms for the line (`server/payment/rules/`). */
  cost_sharing?: { year: number; deductible_met: boolean; terms?: CostSharingTerms | null };
  /** An anesthesia service (PFS status J) with its minutes, base units and the locality's anesthesia factor. */
  anesthesia?: AnesthesiaInput | null;
  /** A critical access hospital billing professional services under Method II: 115% (42 CFR 413.70(b)(3)). */
  cah_method_ii?: boolean;
  /** Off-campus provider-based department modifiers of the request (PN, PO), applied to the OPPS amount. */
  opps_modifiers?: readonly string[];
  /** Notes of rules applied while gathering the inputs (PC/TC row choice, ...), each citing its source. */
  calculation?: readonly string[];
}

// ---------------------------------------------------------------------------------------------
// Payment-policy modifiers (Medicare Claims Processing Manual ch. 12, sections 20.4 and 40)
// ---------------------------------------------------------------------------------------------

/** OPPS status indicators paid the national rate without wage adjustment: separately payable drugs and biologicals. */
export const OPPS_NATIONAL_RATE_SI: ReadonlySet<string> = new Set(['G', 'K']);
export const CITE_OPPS_DRUGS = '42 CFR 419.43 wage-adjusts the labor-related share of APC payments; drugs and biologicals with status indicator G (pass-through) or K (separately payable) are paid the national Addendum B rate (section 1833(t)(14) of the Social Security Act; OPPS Addendum D1 status indicators)';
export const CITE_OFF_CAMPUS = 'section 1833(t)(21) of the Social Security Act and 42 CFR 419.48 (off-campus provider-based departments); PFS relativity adjuster 40% of the OPPS rate (OPPS final rules); the clinic visit G0463 at 40% at excepted departments too (CY2019 OPPS final rule)';
/** OPPS modifiers of off-campus provider-based departments. */
export const OPPS_MODIFIERS: ReadonlySet<string> = new Set(['PN', 'PO']);

/**
 * Off-campus provider-based departments: PN (non-excepted) is paid 40% of the OPPS amount; PO
 * (excepted) 100%, except the clinic visit G0463, paid 40% with PO too. Null when neither applies.
 */
export function offCampusAdjustment(code: string, modifiers: readonly string[]): Adjustment | null {
  if (modifiers.includes('PN')) return { modifier: 'PN', rule: 'off_campus_department', indicator: 'PN', percent: 40, citation: CITE_OFF_CAMPUS };
  if (modifiers.includes('PO')) return { modifier: 'PO', rule: 'off_campus_department', indicator: 'PO', percent: code === 'G0463' ? 40 : 100, citation: CITE_OFF_CAMPUS };
  return null;
}

/** Modifiers whose payment policy the RVU file's indicators decide. */
export const POLICY_MODIFIERS: ReadonlySet<string> = new Set(['50', '51', '62', '66', '80', '81', '82', 'AS']);

export const CITE_MULTIPLE = 'Medicare Claims Processing Manual ch. 12 section 40.6 (multiple surgeries); RVU file MULT PROC indicator';
export const CITE_BILATERAL = 'Medicare Claims Processing Manual ch. 12 section 40.7 (bilateral surgeries); RVU file BILAT SURG indicator';
export const CITE_CO_TEAM = 'Medicare Claims Processing Manual ch. 12 section 40.8 (co-surgeons and team surgeons); RVU file CO-SURG / TEAM SURG indicators';
export const CITE_ASSISTANT = 'Medicare Claims Processing Manual ch. 12 section 20.4.3 (assistant-at-surgery services); RVU file ASST SURG indicator';
export const CITE_REDUCED = 'Medicare Claims Processing Manual ch. 12 section 20.4.6 (reduced services, modifier 52: the contractor prices the reduced service from the documentation)';
/** The RVU file's 53 rows: Medicare's incomplete colonoscopy is billed with modifier 53 (44388, 45378, G0105, G0121 carry 53 rows). */
export const CITE_INCOMPLETE_COLONOSCOPY = 'Medicare Claims Processing Manual ch. 12 section 30.1.B (incomplete colonoscopies are billed with modifier 53 and paid from the RVU file\'s 53 rows; MLN MM9317)';
export const CITE_PCTC = 'Medicare Claims Processing Manual ch. 13 section 20 (professional and technical components); RVU file PCTC IND';
export const CITE_ASSISTANT_NPP = `${CITE_ASSISTANT}; non-physician practitioners at 85% of the physician amount (42 CFR 414.52, 414.56)`;

/** The indicators the policy rules read. */
export type PolicyIndicators = Pick<RvuInput, 'mult_proc' | 'bilat_surg' | 'asst_surg' | 'co_surg' | 'team_surg'>;

export type Adjustment = z.output<typeof PaymentAdjustmentSchema>;

/** What the payment-policy modifiers do to one code's physician amount. */
export interface PolicyResult {
  adjustments: Adjustment[];
  /** Product of the adjustments' percents / 100 (exact). */
  factor: Dec;
  /** Set when a modifier makes the service unpriceable here (by report, not payable): the reason. */
  not_priced: string[];
  warnings: string[];
}

/**
 * Applies the payment-policy modifiers to a code by its RVU file indicators, in the manual's
 * order: bilateral (40.7), multiple procedure (40.6), co-surgeon / team (40.8), assistant at
 * surgery (20.4.3). The percents multiply (an assistant on a second procedure: 16% of 50%).
 * A modifier whose indicator makes the service not payable or priced by report sets `not_priced`.
 */
export function applyPolicyModifiers(code: string, modifiers: readonly string[], ind: PolicyIndicators): PolicyResult {
  const adjustments: Adjustment[] = [];
  const not_priced: string[] = [];
  const warnings: string[] = [];
  const has = (m: string) => modifiers.includes(m);
  if (has('50')) {
    const i = ind.bilat_surg;
    if (i === '1') adjustments.push({ modifier: '50', rule: 'bilateral', indicator: i, percent: 150, citation: CITE_BILATERAL });
    else if (i === '3') adjustments.push({ modifier: '50', rule: 'bilateral', indicator: i, percent: 200, citation: CITE_BILATERAL });
    else if (i === '0' || i === '2') {
      adjustments.push({ modifier: '50', rule: 'bilateral', indicator: i, percent: 100, citation: CITE_BILATERAL });
      warnings.push(`modifier 50: ${code} has bilateral indicator ${i} (${i === '0' ? 'the 150% bilateral adjustment does not apply' : 'the code is already bilateral'}): one payment at 100%`);
    } else warnings.push(`modifier 50: ${code} has bilateral indicator ${i || '(blank)'} (the bilateral concept does not apply); not adjusted`);
  }
  if (has('51')) {
    const i = ind.mult_proc;
    if (i === '2') adjustments.push({ modifier: '51', rule: 'multiple_procedure', indicator: i, percent: 50, citation: CITE_MULTIPLE });
    else if (i === '3' || i === '4' || i === '5' || i === '6' || i === '7') {
      const which = { '3': 'endoscopy', '4': 'diagnostic imaging', '5': 'therapy', '6': 'diagnostic cardiovascular', '7': 'diagnostic ophthalmology' }[i];
      warnings.push(`modifier 51: ${code} has multiple procedure indicator ${i}, the ${which} reduction, which depends on the other services of the day; not applied to a single code (${CITE_MULTIPLE})`);
    } else warnings.push(`modifier 51: ${code} has multiple procedure indicator ${i || '(blank)'}: no multiple procedure reduction applies; not adjusted`);
  }
  if (has('62')) {
    const i = ind.co_surg;
    if (i === '1' || i === '2') adjustments.push({ modifier: '62', rule: 'co_surgeon', indicator: i, percent: 62.5, citation: CITE_CO_TEAM });
    else not_priced.push(`modifier 62: ${code} has co-surgeon indicator ${i || '(blank)'} (${i === '0' ? 'co-surgeons not permitted' : 'the co-surgeon concept does not apply'}): not payable as co-surgery (${CITE_CO_TEAM})`);
  }
  if (has('66')) {
    const i = ind.team_surg;
    not_priced.push(
      i === '1' || i === '2'
        ? `modifier 66: team surgery on ${code} (team surgery indicator ${i}) is priced by report by the MAC; no amount (${CITE_CO_TEAM})`
        : `modifier 66: ${code} has team surgery indicator ${i || '(blank)'} (${i === '0' ? 'team surgeons not permitted' : 'the team concept does not apply'}): not payable as team surgery (${CITE_CO_TEAM})`,
    );
  }
  const asst = ['80', '81', '82', 'AS'].filter(has);
  if (asst.length > 1) warnings.push(`modifiers ${asst.join(', ')} all mark an assistant at surgery; ${asst[0]} was applied`);
  const a = asst[0];
  if (a) {
    const i = ind.asst_surg;
    if (i === '2') {
      if (a === 'AS') adjustments.push({ modifier: a, rule: 'assistant_at_surgery', indicator: i, percent: 13.6, citation: CITE_ASSISTANT_NPP });
      else adjustments.push({ modifier: a, rule: 'assistant_at_surgery', indicator: i, percent: 16, citation: CITE_ASSISTANT });
    } else if (i === '0') not_priced.push(`modifier ${a}: ${code} has assistant-at-surgery indicator 0: an assistant is paid only with documentation of medical necessity; no amount (${CITE_ASSISTANT})`);
    else if (i === '1') not_priced.push(`modifier ${a}: ${code} has assistant-at-surgery indicator 1: statutory payment restriction, an assistant at surgery cannot be paid (${CITE_ASSISTANT})`);
    else not_priced.push(`modifier ${a}: ${code} has assistant-at-surgery indicator ${i || '(blank)'} (the concept does not apply): not payable as an assistant at surgery (${CITE_ASSISTANT})`);
  }
  return { adjustments, factor: factorOf(adjustments), not_priced, warnings };
}

/** The product of the adjustments' percents as an exact factor (150% and 50%: 0.75). */
export function factorOf(adjustments: readonly Adjustment[]): Dec {
  return adjustments.reduce((f, x) => f.mul(Dec.of(x.percent).mul('0.01')), Dec.of(1));
}

export const CITE_CAH_METHOD_II = '42 CFR 413.70(b)(3): a CAH electing the optional method is paid 115% of the fee schedule amount for its practitioners\' professional outpatient services';

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

  const calculation: string[] = [...(i.calculation ?? [])];
  let physician: PhysicianBlock | null = null;
  const policy = i.rvu && i.policy_modifiers?.length ? applyPolicyModifiers(i.code, i.policy_modifiers, i.rvu) : null;
  if (policy) warnings.push(...policy.warnings);
  if (i.rvu && i.anesthesia && i.rvu.status_code === 'J') {
    physician = anesthesiaBlock(i, i.rvu, i.anesthesia, calculation, warnings);
    if (physician) {
      blocks.push('physician');
      amounts.push(physician.allowed_phy_payment);
    }
  } else if (i.rvu && !PFS_PAYABLE_STATUS.has(i.rvu.status_code)) {
    warnings.push(`physician: ${i.code}${i.rvu.modifier ? `-${i.rvu.modifier}` : ''} has PFS status ${i.rvu.status_code}, not paid on RVUs under the physician fee schedule`);
  } else if (i.rvu && policy && policy.not_priced.length > 0) {
    warnings.push(...policy.not_priced.map((w) => `physician: ${w}`));
  } else if (i.rvu) {
    const r = i.rvu;
    const pe = i.pe.facility ? r.facility_pe_rvu : r.non_fac_pe_rvu;
    const na = i.pe.facility ? r.facility_na_indicator : r.non_fac_na_indicator;
    if (na === 'NA') warnings.push(`CMS marks the ${i.pe.facility ? 'facility' : 'non-facility'} PE-RVU of ${i.code} as NA (not paid in that setting); the published value was used`);
    const amt = physicianAllowed({ work_rvu: r.work_rvu ?? 0, pe_rvu: pe ?? 0, mp_rvu: r.mp_rvu ?? 0 }, i.gpci, cf);
    // DRA 2005: an imaging service's PFS amount is capped at the OPPS amount for the setting.
    const capApplied = i.opps_cap !== null && i.opps_cap.amount < amt.allowed;
    if (amt.allowed > 0) {
      const feeSchedule = capApplied ? i.opps_cap!.amount : amt.allowed;
      const adjustments = [...(policy?.adjustments ?? [])];
      if (i.cah_method_ii) adjustments.push({ modifier: null, rule: 'cah_method_ii', indicator: 'method_ii', percent: 115, citation: CITE_CAH_METHOD_II });
      // The adjustments multiply the exact fee schedule amount (or the cap); rounded once, here.
      const allowed = adjustments.length ? toCents((capApplied ? Dec.of(i.opps_cap!.amount) : amt.exact).mul(factorOf(adjustments))) : feeSchedule;
      for (const a of adjustments) {
        calculation.push(a.modifier === null ? `CAH Method II: ${a.percent}% of the facility fee schedule amount (${a.citation})` : `modifier ${a.modifier}: ${a.percent}% (${a.rule.replace(/_/g, ' ')}, indicator ${a.indicator}; ${a.citation})`);
      }
      physician = {
        allowed_phy_payment: allowed,
        fee_schedule_amount: feeSchedule,
        adjustments,
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
        priced_code: r.hcpcs ?? i.code,
        rvu_row: r.modifier === '26' || r.modifier === 'TC' || r.modifier === '53' ? r.modifier : 'global',
        setting_na: na === 'NA',
        anesthesia: null,
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
  let oppsBeforeFacility = Dec.of(0);
  if (i.opps) {
    const wageAdjusted = !OPPS_NATIONAL_RATE_SI.has(i.opps.status_indicator);
    const o = outpatientFacilityAllowed(i.opps.payment_rate, i.opps.wage_index, wageAdjusted ? OPPS_LABOR_SHARE : '0');
    if (!wageAdjusted) calculation.push(`outpatient_facility: status indicator ${i.opps.status_indicator} (separately payable drug or biological) is paid the national rate, no wage adjustment (${CITE_OPPS_DRUGS})`);
    const oppsAdj = offCampusAdjustment(i.code, i.opps_modifiers ?? []);
    const adjustments = [...(oppsAdj ? [oppsAdj] : []), ...(i.opps.adjustments ?? [])];
    // The department's percent (PN/PO) applies to the amount and its copayment; the facility's (REH) to the amount only.
    oppsBeforeFacility = o.exact.mul(factorOf(oppsAdj ? [oppsAdj] : []));
    const allowedFac = adjustments.length ? toCents(o.exact.mul(factorOf(adjustments))) : o.allowed;
    if (oppsAdj) calculation.push(`outpatient_facility: modifier ${oppsAdj.modifier}: ${oppsAdj.percent}% of the OPPS amount (${oppsAdj.citation})`);
    outpatient = {
      allowed_fac_payment: allowedFac,
      wage_adjusted: wageAdjusted,
      adjustments,
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
      amounts.push(allowedFac);
    }
  }

  if (!outpatient && i.opps_modifiers?.length) warnings.push(`modifier ${i.opps_modifiers.join(', ')} adjusts the OPPS amount of an off-campus department; this answer has no OPPS block`);

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

  const terms = i.cost_sharing?.terms ?? null;
  if (terms && !PREVENTIVE_NO_COST_SHARING.has(i.code)) calculation.push(terms.calculation);
  const beneficiary_cost_sharing = costSharing({
    code: i.code,
    year: i.cost_sharing?.year ?? i.rvu?.year ?? 2026,
    deductible_met: i.cost_sharing?.deductible_met ?? true,
    physician: physician?.allowed_phy_payment ?? 0,
    dme: dme?.allowed_dme_payment ?? 0,
    lab: lab?.allowed_lab_payment ?? 0,
    opps:
      outpatient && !outpatient.informational && i.opps
        ? {
            allowed: outpatient.allowed_fac_payment,
            // A rule's coinsurance percent is of the OPPS amount (before a facility's increase), in place of Addendum B's copayment.
            copayment: terms ? oppsBeforeFacility.mul(Dec.of(terms.coinsurance_percent).mul('0.01')) : oppsCopayment(i.opps, outpatient.wage_adjusted, outpatient.adjustments.find((a) => a.rule === 'off_campus_department')?.percent ?? 100),
          }
        : null,
    terms,
  });
  warnings.push(...beneficiary_cost_sharing.warnings);

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
      calculation,
      beneficiary_cost_sharing: beneficiary_cost_sharing.block,
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

// ---------------------------------------------------------------------------------------------
// Beneficiary cost sharing
// ---------------------------------------------------------------------------------------------

/**
 * Yearly Part B figures, each from CMS's "Medicare Parts A & B Premiums and Deductibles" fact sheet
 * of the year; the 2026 inpatient deductible is also printed in the CY2026 Addendum B header
 * (the cap on OPPS copayments).
 */
export const YEARLY_DEDUCTIBLES: Readonly<Record<number, { part_b_deductible: string; inpatient_deductible: string; source: string }>> = {
  2025: { part_b_deductible: '257', inpatient_deductible: '1676', source: 'CMS 2025 Medicare Parts A & B Premiums and Deductibles fact sheet' },
  2026: { part_b_deductible: '283', inpatient_deductible: '1736', source: 'CMS 2026 Medicare Parts A & B Premiums and Deductibles fact sheet; CY2026 OPPS Addendum B (copayment cap)' },
};

/**
 * Preventive services with neither deductible nor coinsurance (USPSTF A/B and the statutory
 * preventive benefits): 42 CFR 410.152(l) and 410.160(b); Claims Processing Manual ch. 18.
 */
export const PREVENTIVE_NO_COST_SHARING: ReadonlySet<string> = new Set([
  '77063', // screening digital breast tomosynthesis
  '77067', // screening mammography
  'G0402', // initial preventive physical examination
  'G0438', // annual wellness visit, initial
  'G0439', // annual wellness visit, subsequent
  'G0105', // screening colonoscopy, high risk
  'G0121', // screening colonoscopy, not high risk
  'G0008', // influenza vaccine administration
  'G0009', // pneumococcal vaccine administration
]);

export const CITE_COINSURANCE = 'section 1833(a)(1) of the Social Security Act: Part B pays 80%, the beneficiary 20% coinsurance; 42 CFR 410.152';
export const CITE_DEDUCTIBLE = 'section 1833(b) of the Social Security Act; 42 CFR 410.160';
export const CITE_PREVENTIVE = '42 CFR 410.152(l) and 410.160(b): no deductible or coinsurance for the listed preventive services';
export const CITE_LAB_NO_COST_SHARING = 'section 1833(a)(1)(D) and (b)(3) of the Social Security Act: clinical laboratory tests are paid at 100%, no deductible or coinsurance';
export const CITE_OPPS_COPAY = '42 CFR 419.41 (beneficiary copayment under the OPPS), wage-adjusted as the payment (42 CFR 419.43), never above the year\'s inpatient deductible (section 1833(t)(8)(C)(i) of the Act)';

export type CostSharingBlock = z.output<typeof CostSharingSchema>;

/** The OPPS copayment before the inpatient-deductible cap, exact (null when Addendum B prints none). */
export function oppsCopayment(o: NonNullable<PaymentInputs['opps']>, wageAdjusted: boolean, percent: number): Dec | null {
  if (o.adjusted_copayment !== undefined && o.adjusted_copayment !== null) return Dec.of(o.adjusted_copayment).mul(Dec.of(percent).mul('0.01'));
  const unadjusted = o.national_unadjusted_copayment ?? o.minimum_unadjusted_copayment ?? null;
  if (unadjusted === null) return null;
  const c = wageAdjusted ? outpatientFacilityAllowed(unadjusted, o.wage_index).exact : Dec.of(unadjusted);
  return c.mul(Dec.of(percent).mul('0.01'));
}

/**
 * What the beneficiary pays and what the program pays for the service's applicable blocks. The
 * Part B deductible, when not met, is taken from the physician amount first, then DME, then OPPS;
 * the 20% coinsurance applies to what remains of the physician and DME amounts; the OPPS
 * copayment to the outpatient block (capped at the inpatient deductible and at what remains of
 * the block); clinical lab tests have no cost sharing; listed preventive services none at all.
 * A payment rule's `terms` (modifier PT, ACP with modifier 33) may waive the deductible and set
 * the coinsurance percent; the OPPS `copayment` passed in is then already the rule's.
 */
export function costSharing(o: {
  code: string;
  year: number;
  deductible_met: boolean;
  physician: number;
  dme: number;
  lab: number;
  opps: { allowed: number; copayment: Dec | null } | null;
  terms?: CostSharingTerms | null;
}): { block: CostSharingBlock; warnings: string[] } {
  const warnings: string[] = [];
  const citations: string[] = [];
  const y = YEARLY_DEDUCTIBLES[o.year];
  const preventive = PREVENTIVE_NO_COST_SHARING.has(o.code);
  const terms = preventive ? null : (o.terms ?? null);
  const deductibleApplies = !preventive && (terms?.deductible_applies ?? true);
  const total = Dec.of(o.physician).add(o.dme).add(o.lab).add(o.opps?.allowed ?? 0);
  let deductible = Dec.of(0);
  let coinsurance = Dec.of(0);
  let copay: Dec | null = null;
  if (preventive) {
    citations.push(CITE_PREVENTIVE);
    copay = o.opps ? Dec.of(0) : null;
  } else {
    let remaining = deductibleApplies && !o.deductible_met && y ? Dec.of(y.part_b_deductible) : Dec.of(0);
    if (terms) citations.push(terms.citation);
    if (deductibleApplies && !o.deductible_met) {
      if (y) citations.push(`${CITE_DEDUCTIBLE}; CY${o.year} Part B deductible $${y.part_b_deductible} (${y.source})`);
      else warnings.push(`beneficiary_cost_sharing: no CY${o.year} Part B deductible in the table; the deductible is not counted`);
    }
    const take = (amount: number) => {
      const d = Dec.of(amount).compare(remaining) < 0 ? Dec.of(amount) : remaining;
      remaining = remaining.sub(d);
      deductible = deductible.add(d);
      return Dec.of(amount).sub(d);
    };
    const phyRest = take(o.physician);
    const dmeRest = take(o.dme);
    const oppsRest = o.opps ? take(o.opps.allowed) : Dec.of(0);
    coinsurance = phyRest.add(dmeRest).mul(Dec.of(terms?.coinsurance_percent ?? 20).mul('0.01'));
    if ((o.physician > 0 || o.dme > 0) && !terms) citations.push(CITE_COINSURANCE);
    if (o.lab > 0) citations.push(CITE_LAB_NO_COST_SHARING);
    if (o.opps) {
      if (o.opps.copayment === null) {
        warnings.push(`beneficiary_cost_sharing: Addendum B prints no copayment for ${o.code}; the OPPS copayment is not counted`);
      } else {
        copay = o.opps.copayment;
        if (y && copay.compare(y.inpatient_deductible) > 0) copay = Dec.of(y.inpatient_deductible);
        if (!y) warnings.push(`beneficiary_cost_sharing: no CY${o.year} inpatient deductible in the table; the OPPS copayment is not capped`);
        if (copay.compare(oppsRest) > 0) copay = oppsRest;
        if (!terms) citations.push(CITE_OPPS_COPAY + (y ? `; CY${o.year} inpatient deductible $${y.inpatient_deductible} (${y.source})` : ''));
      }
    }
  }
  const d = toCents(deductible);
  const c = toCents(coinsurance);
  const oc = copay === null ? null : toCents(copay);
  const beneficiary = sumCents([d, c, oc ?? 0]);
  return {
    block: {
      year: o.year,
      deductible_applies: deductibleApplies,
      deductible_met: o.deductible_met,
      part_b_deductible: y ? Number(y.part_b_deductible) : null,
      inpatient_deductible: y ? Number(y.inpatient_deductible) : null,
      deductible: d,
      coinsurance: c,
      opps_copayment: oc,
      beneficiary_total: beneficiary,
      program_payment: total.sub(beneficiary).round(2).toNumber(),
      citations,
    },
    warnings,
  };
}

// ---------------------------------------------------------------------------------------------
// Anesthesia (Claims Processing Manual ch. 12 section 50)
// ---------------------------------------------------------------------------------------------

export const CITE_ANESTHESIA = 'Medicare Claims Processing Manual ch. 12 section 50 (anesthesia: base units plus time units of 15 minutes, times the locality\'s anesthesia conversion factor); 42 CFR 414.46';

/** Anesthesia payment modifiers: the percent of the amount, or `AD` (medical supervision, three base units). */
export const ANESTHESIA_MODIFIERS: Readonly<Record<string, number | 'AD'>> = { AA: 100, QZ: 100, QK: 50, QX: 50, QY: 50, AD: 'AD' };

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

function anesthesiaBlock(i: PaymentInputs, r: RvuInput, a: AnesthesiaInput, calculation: string[], warnings: string[]): PhysicianBlock | null {
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
