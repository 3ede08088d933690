import type { z } from 'zod';
import type { MediCalAprDrgRow } from '../../datasets/medi_cal_apr_drg/dataset.js';
import type { MediCalHospitalRow } from '../../datasets/medi_cal_hospitals/dataset.js';
import type { PolicyAdjustorRow, PolicyParameter } from '../../datasets/medi_cal_drg_policy/dataset.js';
import { Dec, toCents } from '../../lib/decimal.js';
import type { AprDrgCalculationSchema } from './schemas.js';

/**
 * The Medi-Cal APR-DRG pricing calculator (DHCS "DRG Pricing Calculator" order), pure: every
 * table row and request value is passed in. Arithmetic is exact (`Dec`); each published money
 * step is rounded to cents once, half away from zero, and the next step starts from that rounded
 * amount, as the workbook shows it (server/medi_cal/README.md lists the steps and the rounding
 * points). Weights, shares and adjustors are never rounded.
 */

export type AprDrgCalculation = z.output<typeof AprDrgCalculationSchema>;

/** The DRG-SOI row values the price uses. */
export type DrgTerms = Pick<
  MediCalAprDrgRow,
  | 'hsrv_casemix_relative_weight'
  | 'national_average_los'
  | 'medicaid_care_category_adult'
  | 'medicaid_care_category_pediatric'
  | 'policy_adjustor_a'
  | 'policy_adjustor_b'
  | 'policy_adjustor_c'
  | 'policy_adjustor_d'
>;

/** The hospital list values the price uses. */
export type HospitalTerms = Pick<MediCalHospitalRow, 'designated_nicu' | 'dhcs_designated_remote_rural' | 'cost_to_charge_ratio' | 'ca_neutrality_adjusted_wage_index'>;

/** The fiscal year's parameters, policy adjustor table and transfer status codes. */
export interface PolicyTerms {
  parameters: Record<PolicyParameter, number>;
  adjustors: Pick<PolicyAdjustorRow, 'policy_adjustor_code' | 'age_group' | 'care_category' | 'designated_nicu'>[];
  transfer_status_codes: string[];
}

/** The stay as billed. */
export interface Stay {
  length_of_stay: number;
  patient_age: number;
  total_charges: number;
  /** UB-04 patient discharge status (two digits); a transfer code prices the stay as a transfer. */
  discharge_status?: string;
}

/** Values the request sets in place of the hospital list's. */
export interface Overrides {
  cost_to_charge_ratio?: number;
  designated_nicu?: boolean;
  wage_adjusted_base_rate?: number;
}

/** NUBC patient status 30: still a patient (the bill of an interim claim). */
export const STILL_A_PATIENT = '30';

const ADJUSTOR_FIELD = { A: 'policy_adjustor_a', B: 'policy_adjustor_b', C: 'policy_adjustor_c', D: 'policy_adjustor_d' } as const;

/**
 * The row of the policy adjustor table that applies: the age group's rows whose care category
 * and NICU designation match (`*` matches any), the most specific first (a row naming the care
 * category and the NICU designation beats one naming only one of them), then by code.
 */
export function selectPolicyAdjustor<R extends PolicyTerms['adjustors'][number]>(rows: R[], ageGroup: 'pediatric' | 'adult', careCategory: string, designatedNicu: boolean): R | undefined {
  const nicu = designatedNicu ? 'Y' : 'N';
  const specificity = (r: R) => (r.care_category === '*' ? 0 : 1) + (r.designated_nicu === '*' ? 0 : 1);
  return rows
    .filter((r) => r.age_group === ageGroup && (r.care_category === '*' || r.care_category.toLowerCase() === careCategory.toLowerCase()) && (r.designated_nicu === '*' || r.designated_nicu === nicu))
    .sort((a, b) => specificity(b) - specificity(a) || a.policy_adjustor_code.localeCompare(b.policy_adjustor_code))[0];
}

const cents = (v: Dec): Dec => v.round(2);
const min = (a: Dec, b: Dec): Dec => (a.compare(b) <= 0 ? a : b);
const positive = (v: Dec): Dec => (v.compare(0) > 0 ? v : Dec.of(0));

/**
 * Prices one stay:
 * 1. DRG base rate: the override, or the base price (remote rural hospitals: the remote rural
 *    base price) x (labor share x CA-neutrality-adjusted wage index + 1 - labor share), the labor
 *    share chosen by the index against the cutoff; cents.
 * 2. Payment relative weight = HSRV casemix weight x casemix adjustment factor (exact).
 * 3. Policy adjustor: age group by the pediatric cutoff, the DRG's care category for it, the
 *    hospital's NICU designation (or the override) through the policy adjustor table; the value is
 *    the DRG-SOI row's column A-D (so SOI enters through the row).
 * 4. DRG base payment = base rate x payment relative weight x policy adjustor; cents.
 * 5. Transfer (discharge status in the year's transfer codes): per diem = DRG base payment /
 *    national ALOS (cents); transfer payment = per diem x (LOS + 1); the lesser of it and the DRG
 *    base payment is the allowed amount after the transfer adjustment.
 * 6. Estimated cost = charges x cost-to-charge ratio (or the override); cents.
 * 7. Case margin: loss = cost - payment after transfer, gain = payment after transfer - cost.
 * 8. High-side outlier when the loss exceeds the cost outlier threshold: + (loss - threshold) x
 *    marginal cost percentage; low-side when the gain exceeds the low-side threshold:
 *    - (gain - threshold) x marginal cost percentage; cents each.
 * 9. DRG payment so far = payment after transfer + high-side - low-side; add-on (cents).
 * 10. Interim claim when the stay exceeds the interim threshold and is not a discharge (no
 *     discharge status, or 30 still a patient): interim per diem x LOS (cents) replaces the DRG amount.
 * 11. Allowed amount; lesser of allowed and charges (cents); payment = that lesser amount.
 */
export function priceAprDrg(drg: DrgTerms, hospital: HospitalTerms, policy: PolicyTerms, stay: Stay, overrides: Overrides = {}): AprDrgCalculation {
  const p = policy.parameters;
  // 1. base rate
  const remoteRural = hospital.dhcs_designated_remote_rural;
  const basePrice = Dec.of(remoteRural ? p.remote_rural_base_price : p.statewide_base_price);
  const wageIndex = Dec.of(hospital.ca_neutrality_adjusted_wage_index);
  const laborShare = Dec.of(wageIndex.compare(p.labor_share_wage_index_cutoff) <= 0 ? p.labor_share_low : p.labor_share_high);
  const computedRate = cents(basePrice.mul(laborShare.mul(wageIndex).add(Dec.of(1).sub(laborShare))));
  const baseRate = overrides.wage_adjusted_base_rate !== undefined ? cents(Dec.of(overrides.wage_adjusted_base_rate)) : computedRate;

  // 2. weight; 3. policy adjustor
  const weight = Dec.of(drg.hsrv_casemix_relative_weight).mul(p.casemix_adjustment_factor);
  const ageGroup = stay.patient_age < p.pediatric_age_cutoff ? 'pediatric' : 'adult';
  const careCategory = ageGroup === 'pediatric' ? drg.medicaid_care_category_pediatric : drg.medicaid_care_category_adult;
  const nicu = overrides.designated_nicu ?? hospital.designated_nicu;
  const adjustorRow = selectPolicyAdjustor(policy.adjustors, ageGroup, careCategory, nicu);
  const adjustorCode = adjustorRow ? (adjustorRow.policy_adjustor_code as keyof typeof ADJUSTOR_FIELD) : null;
  const adjustor = Dec.of(adjustorCode ? drg[ADJUSTOR_FIELD[adjustorCode]] : 1);

  // 4. DRG base payment
  const basePayment = cents(baseRate.mul(weight).mul(adjustor));

  // 5. transfer
  const transfer = stay.discharge_status !== undefined && policy.transfer_status_codes.includes(stay.discharge_status);
  const perDiem = transfer ? basePayment.divRound(drg.national_average_los, 2) : null;
  const transferPayment = perDiem ? perDiem.mul(stay.length_of_stay + 1) : null;
  const afterTransfer = transferPayment ? min(transferPayment, basePayment) : basePayment;

  // 6. estimated cost; 7. case margin
  const ccr = overrides.cost_to_charge_ratio ?? hospital.cost_to_charge_ratio;
  const cost = cents(Dec.of(stay.total_charges).mul(ccr));
  const loss = positive(cost.sub(afterTransfer));
  const gain = positive(afterTransfer.sub(cost));

  // 8. outliers at the marginal cost percentage
  const high = loss.compare(p.cost_outlier_threshold) > 0;
  const low = gain.compare(p.low_side_outlier_threshold) > 0;
  const increase = high ? cents(loss.sub(p.cost_outlier_threshold).mul(p.marginal_cost_percentage)) : Dec.of(0);
  const decrease = low ? cents(gain.sub(p.low_side_outlier_threshold).mul(p.marginal_cost_percentage)) : Dec.of(0);

  // 9. payment so far, add-on; 10. interim claim
  const soFar = afterTransfer.add(increase).sub(decrease);
  const addOn = cents(Dec.of(p.add_on_amount));
  const interim = stay.length_of_stay > p.interim_claim_threshold && (stay.discharge_status === undefined || stay.discharge_status === STILL_A_PATIENT);
  const interimPayment = interim ? cents(Dec.of(p.interim_per_diem_amount).mul(stay.length_of_stay)) : Dec.of(0);

  // 11. allowed, lesser of allowed and charges, payment
  const allowed = interim ? interimPayment : soFar.add(addOn);
  const lesser = cents(min(allowed, Dec.of(stay.total_charges)));

  return {
    base_price: basePrice.toNumber(),
    base_price_source: overrides.wage_adjusted_base_rate !== undefined ? 'override' : remoteRural ? 'remote_rural_base_price' : 'statewide_base_price',
    labor_share: laborShare.toNumber(),
    wage_index_used: wageIndex.toNumber(),
    drg_base_rate: toCents(baseRate),
    computed_drg_base_rate: toCents(computedRate),
    payment_relative_weight: weight.toNumber(),
    age_group: ageGroup,
    care_category: careCategory,
    designated_nicu: nicu,
    policy_adjustor_code: adjustorCode ?? 'none',
    policy_adjustor_value: adjustor.toNumber(),
    drg_base_payment: toCents(basePayment),
    national_average_los: drg.national_average_los,
    transfer_applies: transfer,
    transfer_per_diem: perDiem ? toCents(perDiem) : null,
    transfer_payment: transferPayment ? toCents(transferPayment) : null,
    transfer_payment_adjustment: toCents(afterTransfer.sub(basePayment)),
    allowed_after_transfer_adjustment: toCents(afterTransfer),
    cost_to_charge_ratio: ccr,
    estimated_cost: toCents(cost),
    estimated_loss: toCents(loss),
    estimated_gain: toCents(gain),
    case_margin_status: loss.compare(0) > 0 ? 'loss' : gain.compare(0) > 0 ? 'gain' : 'even',
    high_side_outlier_applies: high,
    high_side_outlier_payment_increase: toCents(increase),
    low_side_outlier_applies: low,
    low_side_outlier_payment_decrease: toCents(decrease),
    drg_payment_so_far: toCents(soFar),
    add_on_amount: interim ? 0 : toCents(addOn),
    interim_claim_applies: interim,
    interim_claim_payment: toCents(interimPayment),
    allowed_amount: toCents(allowed),
    total_charges: toCents(Dec.of(stay.total_charges)),
    lesser_of_amount: toCents(lesser),
    payment_amount: toCents(lesser),
  };
}
