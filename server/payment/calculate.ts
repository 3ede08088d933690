import { FACILITY_RATE_POS } from '../../lib/vocabulary/place_of_service.js';
import { Dec, toCents } from '../../lib/decimal.js';
import type { Adjustment, Composition, CostSharingBlock, DmeBlock, DmeRates, LabBlock, OutpatientBlock, PaymentInputs, PeSetting, PhysicianBlock, PolicyIndicators, RvuInput } from './inputs.js';
import { PAYMENT_RULES } from './rules/index.js';
import type { YearFigures } from '../../datasets/medicare_yearly_figures/queries.js';
import type { CostSharingAmounts, CostSharingState, CostSharingTerms, Notes, OutpatientEffect } from './rules/rule.js';

/** `composePayment`'s input, declared with the answer's blocks in `inputs.ts`. */
export type { PaymentInputs } from './inputs.js';

/**
 * Pure payment calculators (spec "Payment composition", calculation rules 1-5). No I/O: every
 * input is passed in (the year's Medicare figures too, read by the service from
 * `medicare_yearly_figures`), so each rule is unit-tested with values worked by hand from the CMS
 * files. Arithmetic is exact (`Dec`); an amount is rounded to cents once, at the end of its own rule.
 */

/** OPPS labor-related share (spec rule 2, and the CMS OPPS default). */
export const OPPS_LABOR_SHARE = '0.6';

/**
 * Place-of-service codes priced at the MPFS facility rate (facility PE RVUs). This is CMS's
 * facility-setting list (Medicare Claims Processing Manual ch. 12 §20.4.2, extended by the CY2024
 * PFS final rule for POS 02): every other POS code (11 office, 12 home, 10 telehealth in the
 * patient's home, 20 urgent care, 49, 50, 65, 71, 72, 81, 99...) takes the non-facility rate. The
 * codes are `facility_rate` in lib/vocabulary/place_of_service.ts.
 */
export const FACILITY_POS = FACILITY_RATE_POS;

/** True when a place-of-service code is paid at the facility PE rate (see FACILITY_POS). */
export function isFacilityPos(pos: string): boolean {
  return FACILITY_POS.has(pos);
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

/** The product of the adjustments' percents as an exact factor (150% and 50%: 0.75). */
export function factorOf(adjustments: readonly Adjustment[]): Dec {
  return adjustments.reduce((f, x) => f.mul(Dec.of(x.percent).mul('0.01')), Dec.of(1));
}

// ---------------------------------------------------------------------------------------------
// Composition: the formulas, with the payment rules (`rules/`) folded in at each block
// ---------------------------------------------------------------------------------------------

/** What the rules of stage `physician` do to one code's physician amount, in the registry's order. */
export interface PolicyResult {
  adjustments: Adjustment[];
  /** The `calculation` line of each adjustment, in the same order. */
  calculation: string[];
  /** Product of the adjustments' percents / 100 (exact). */
  factor: Dec;
  /** Set when a modifier makes the service unpriceable here (by report, not payable): the reason. */
  not_priced: string[];
  warnings: string[];
}

/**
 * The payment-policy adjustments of a code's physician amount: the rules of stage `physician`
 * (the modifiers by the RVU file's indicators, then CAH Method II), in the registry's order, which
 * is the manual's: bilateral (40.7), multiple procedure (40.6), co-surgeon / team (40.8),
 * assistant at surgery (20.4.3). The percents multiply (an assistant on a second procedure: 16% of
 * 50%). A modifier whose indicator makes the service not payable or priced by report sets `not_priced`.
 */
export function applyPolicyModifiers(code: string, modifiers: readonly string[], indicators: PolicyIndicators, facility: { cah_method_ii: boolean } = { cah_method_ii: false }): PolicyResult {
  const out: PolicyResult = { adjustments: [], calculation: [], factor: Dec.of(1), not_priced: [], warnings: [] };
  for (const rule of PAYMENT_RULES) {
    const e = rule.physician?.({ code, modifiers, indicators, cah_method_ii: facility.cah_method_ii });
    if (!e) continue;
    out.warnings.push(...(e.warnings ?? []));
    if (e.not_priced) out.not_priced.push(e.not_priced);
    if (e.adjustment) {
      out.adjustments.push(e.adjustment.applied);
      out.calculation.push(e.adjustment.calculation);
    }
  }
  out.factor = factorOf(out.adjustments);
  return out;
}

/** PFS status codes paid separately on RVUs (RVU25D.pdf, "Status Code"). */
export const PFS_PAYABLE_STATUS: ReadonlySet<string> = new Set(['A', 'R', 'T']);

const n = (d: Dec) => d.toNumber();

/**
 * The physician block: a rule's own formula (anesthesia) where one prices the line, else rule 1
 * with the OPPS cap and the payment-policy adjustments; null, with a warning, when not payable.
 */
function physicianBlock(i: PaymentInputs, notes: Notes): PhysicianBlock | null {
  const r = i.rvu;
  if (!r) return null;
  const policy = applyPolicyModifiers(i.code, i.policy_modifiers ?? [], r, { cah_method_ii: i.cah_method_ii ?? false });
  notes.warnings.push(...policy.warnings);
  for (const rule of PAYMENT_RULES) {
    const block = rule.physicianFormula?.(i, r, notes);
    if (block !== undefined) return block;
  }
  if (!PFS_PAYABLE_STATUS.has(r.status_code)) {
    notes.warnings.push(`physician: ${i.code}${r.modifier ? `-${r.modifier}` : ''} has PFS status ${r.status_code}, not paid on RVUs under the physician fee schedule`);
    return null;
  }
  if (policy.not_priced.length > 0) {
    notes.warnings.push(...policy.not_priced.map((w) => `physician: ${w}`));
    return null;
  }
  return rule1Block(i, r, policy, notes);
}

/** Rule 1 on the priced row, capped at the OPPS amount (DRA 2005), times the adjustments; rounded once. */
function rule1Block(i: PaymentInputs, r: RvuInput, policy: PolicyResult, notes: Notes): PhysicianBlock | null {
  const cf = i.cf.value;
  const pe = i.pe.facility ? r.facility_pe_rvu : r.non_fac_pe_rvu;
  const na = i.pe.facility ? r.facility_na_indicator : r.non_fac_na_indicator;
  if (na === 'NA') notes.warnings.push(`CMS marks the ${i.pe.facility ? 'facility' : 'non-facility'} PE-RVU of ${i.code} as NA (not paid in that setting); the published value was used`);
  const amt = physicianAllowed({ work_rvu: r.work_rvu ?? 0, pe_rvu: pe ?? 0, mp_rvu: r.mp_rvu ?? 0 }, i.gpci, cf);
  if (amt.allowed <= 0) {
    notes.warnings.push(`physician: ${i.code}${r.modifier ? `-${r.modifier}` : ''} has no RVUs in the ${i.pe.facility ? 'facility' : 'non-facility'} setting (status ${r.status_code}); no physician fee schedule payment`);
    return null;
  }
  // DRA 2005: an imaging service's PFS amount is capped at the OPPS amount for the setting.
  const capApplied = i.opps_cap !== null && i.opps_cap.amount < amt.allowed;
  const feeSchedule = capApplied ? i.opps_cap!.amount : amt.allowed;
  // The adjustments multiply the exact fee schedule amount (or the cap); rounded once, here.
  const allowed = policy.adjustments.length ? toCents((capApplied ? Dec.of(i.opps_cap!.amount) : amt.exact).mul(policy.factor)) : feeSchedule;
  notes.calculation.push(...policy.calculation);
  return {
    allowed_phy_payment: allowed,
    fee_schedule_amount: feeSchedule,
    adjustments: policy.adjustments,
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
}

/**
 * The OPPS block: rule 2 with the rules of stage `outpatient` (the national rate of G and K; PN and
 * PO, which scale the amount and its copayment) and the facility's own adjustments (a rural
 * emergency hospital's 105%, of the amount only). `copayment_percent` is the department's.
 */
function outpatientBlock(i: PaymentInputs, notes: Notes): { block: OutpatientBlock; before_facility: Dec; copayment_percent: number } | null {
  const line = { code: i.code, opps: i.opps !== null, status_indicator: i.opps?.status_indicator ?? null, modifiers: i.opps_modifiers ?? [] };
  const effects: OutpatientEffect[] = PAYMENT_RULES.flatMap((r) => r.outpatient?.(line) ?? []);
  if (!i.opps) {
    notes.warnings.push(...effects.flatMap((e) => e.warning ?? []));
    return null;
  }
  const wageAdjusted = !effects.some((e) => e.national_rate);
  const o = outpatientFacilityAllowed(i.opps.payment_rate, i.opps.wage_index, wageAdjusted ? OPPS_LABOR_SHARE : '0');
  const department = effects.flatMap((e) => e.adjustment ?? []);
  const adjustments = [...department, ...(i.opps.adjustments ?? [])];
  const allowedFac = adjustments.length ? toCents(o.exact.mul(factorOf(adjustments))) : o.allowed;
  notes.calculation.push(...effects.flatMap((e) => e.calculation ?? []));
  const block: OutpatientBlock = {
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
  // The department's percent applies to the amount and its copayment; the facility's (REH) to the amount only.
  return { block, before_facility: o.exact.mul(factorOf(department)), copayment_percent: factorOf(department).mul(100).toNumber() };
}

/** The DME block (rule 4), null with a warning when the file publishes no applicable fee. */
function dmeBlock(i: PaymentInputs, warnings: string[]): DmeBlock | null {
  if (!i.dme) return null;
  const d = dmeAllowed(i.dme.row, i.dme.is_rural);
  if (!d) {
    warnings.push(`dme: no ${i.dme.is_rural ? 'rural or non-rural' : 'non-rural'} fee is published for ${i.code} in ${i.dme.state}`);
    return null;
  }
  if (i.dme.is_rural && d.rate_used === 'non_rural') warnings.push(`dme: no rural fee is published for ${i.code} in ${i.dme.state}; the non-rural fee applies`);
  return { allowed_dme_payment: d.allowed, dme_payment_rate: d.rate, is_rural: i.dme.is_rural, rate_used: d.rate_used, state: i.dme.state };
}

/**
 * Builds the spec's payment composition from looked-up inputs (rules 1-4) and the payment rules.
 * `estimated_payment` is the sum of the applicable blocks' allowed amounts, each already rounded
 * once to cents, so it always equals what the blocks show. Returns warnings for blocks that
 * turned out not payable.
 */
export function composePayment(i: PaymentInputs): { composition: Composition; warnings: string[] } {
  const notes: Notes = { calculation: [...(i.calculation ?? [])], warnings: [] };
  const physician = physicianBlock(i, notes);
  const outpatient = outpatientBlock(i, notes);
  const lab: LabBlock | null = i.lab ? { allowed_lab_payment: labAllowed(i.lab.rate), lab_payment_rate: i.lab.rate, indicator: i.lab.indicator } : null;
  const dme = dmeBlock(i, notes.warnings);
  // The ASC's facility payment (place of service 24), for reference: billed on the ASC's own claim.
  const asc = PAYMENT_RULES.map((r) => r.asc?.(i, notes)).find((b) => b !== undefined) ?? null;
  const payable = outpatient && !outpatient.block.informational ? outpatient : null;
  const applicable = [
    ...(physician ? [['physician', physician.allowed_phy_payment] as const] : []),
    ...(payable ? [['outpatient_facility', payable.block.allowed_fac_payment] as const] : []),
    ...(lab ? [['lab', lab.allowed_lab_payment] as const] : []),
    ...(dme ? [['dme', dme.allowed_dme_payment] as const] : []),
  ];
  const terms = i.cost_sharing?.terms ?? null;
  const opps = payable && i.opps
    ? {
        allowed: payable.block.allowed_fac_payment,
        // A rule's coinsurance percent is of the OPPS amount (before a facility's increase), in place of Addendum B's copayment.
        copayment: terms ? (terms.coinsurance_percent === null ? null : payable.before_facility.mul(Dec.of(terms.coinsurance_percent).mul('0.01'))) : oppsCopayment(i.opps, payable.block.wage_adjusted, payable.copayment_percent),
      }
    : null;
  const shared = costSharing({ code: i.code, year: i.cost_sharing?.year ?? i.figures?.year ?? yearOfDate(i.date_of_service), figures: i.figures, deductible_met: i.cost_sharing?.deductible_met ?? true, physician: physician?.allowed_phy_payment ?? 0, dme: dme?.allowed_dme_payment ?? 0, lab: lab?.allowed_lab_payment ?? 0, opps, terms });
  notes.calculation.push(...shared.calculation);
  notes.warnings.push(...shared.warnings);
  return {
    composition: {
      code: i.code,
      conversion_factor: Number(i.cf.value),
      applicable_blocks: applicable.map(([b]) => b),
      ccn: i.ccn,
      date_of_service: i.date_of_service,
      estimated_payment: sumCents(applicable.map(([, a]) => a)),
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
      outpatient_facility: outpatient?.block ?? null,
      lab,
      dme,
      asc,
      facility: i.facility,
      calculation: notes.calculation,
      beneficiary_cost_sharing: shared.block,
      policy_rules: i.policy_rules,
    },
    warnings: notes.warnings,
  };
}

// ---------------------------------------------------------------------------------------------
// Beneficiary cost sharing
// ---------------------------------------------------------------------------------------------

/** The OPPS copayment before the inpatient-deductible cap, exact (null when Addendum B prints none). */
export function oppsCopayment(o: NonNullable<PaymentInputs['opps']>, wageAdjusted: boolean, percent: number): Dec | null {
  if (o.adjusted_copayment !== undefined && o.adjusted_copayment !== null) return Dec.of(o.adjusted_copayment).mul(Dec.of(percent).mul('0.01'));
  const unadjusted = o.national_unadjusted_copayment ?? o.minimum_unadjusted_copayment ?? null;
  if (unadjusted === null) return null;
  const c = wageAdjusted ? outpatientFacilityAllowed(unadjusted, o.wage_index).exact : Dec.of(unadjusted);
  return c.mul(Dec.of(percent).mul('0.01'));
}

/** The year of a `YYYY-MM-DD` date. */
const yearOfDate = (date: string): number => Number(date.slice(0, 4));

/**
 * What the beneficiary pays and what the program pays for the service's applicable blocks: the
 * rules of stage `costSharing` in the registry's order (a listed preventive service ends it with
 * nothing to pay; a line rule's terms; the Part B deductible, taken from the physician amount
 * first, then DME, then OPPS; the coinsurance of what remains of the physician and DME amounts;
 * none on clinical lab tests; the OPPS copayment, capped at the inpatient deductible and at what
 * remains of the block), each reading the year's `figures` (null: none is loaded for the year).
 * With a rule's `terms` (modifier PT, ACP with modifier 33) the OPPS `copayment` passed in is
 * already the rule's.
 */
export function costSharing(o: CostSharingAmounts & { code: string; year: number; figures: YearFigures | null; deductible_met: boolean; terms?: CostSharingTerms | null }): { block: CostSharingBlock; warnings: string[]; calculation: string[] } {
  const terms = o.terms ?? null;
  const s: CostSharingState = {
    code: o.code,
    year: o.year,
    deductible_met: o.deductible_met,
    amounts: { physician: o.physician, dme: o.dme, lab: o.lab, opps: o.opps },
    terms,
    figures: o.figures,
    waived: false,
    deductible_applies: terms?.deductible_applies ?? true,
    deductible: Dec.of(0),
    coinsurance: Dec.of(0),
    copayment: null,
    rest: { physician: Dec.of(o.physician), dme: Dec.of(o.dme), opps: Dec.of(o.opps?.allowed ?? 0) },
    citations: [],
    warnings: [],
    calculation: [],
  };
  for (const rule of PAYMENT_RULES) {
    if (s.waived) break;
    rule.costSharing?.(s);
  }
  const d = toCents(s.deductible);
  const c = toCents(s.coinsurance);
  const oc = s.copayment === null ? null : toCents(s.copayment);
  const beneficiary = sumCents([d, c, oc ?? 0]);
  const total = Dec.of(o.physician).add(o.dme).add(o.lab).add(o.opps?.allowed ?? 0);
  return {
    block: {
      year: o.year,
      deductible_applies: s.deductible_applies,
      deductible_met: o.deductible_met,
      part_b_deductible: s.figures?.figure('part_b_deductible')?.value.toNumber() ?? null,
      inpatient_deductible: s.figures?.figure('inpatient_deductible')?.value.toNumber() ?? null,
      deductible: d,
      coinsurance: c,
      opps_copayment: oc,
      beneficiary_total: beneficiary,
      program_payment: total.sub(beneficiary).round(2).toNumber(),
      citations: s.citations,
    },
    warnings: s.warnings,
    calculation: s.calculation,
  };
}
