import { z } from 'zod';
import { AprDrgCodeRowSchema } from '../../datasets/apr_drg_codes/dataset.js';
import { MediCalAprDrgRowSchema } from '../../datasets/medi_cal_apr_drg/dataset.js';
import { MediCalHospitalRowSchema } from '../../datasets/medi_cal_hospitals/dataset.js';
import { DatasetCitationSchema, IsoDateSchema, ReliabilitySchema } from '../schemas.js';

const DRG_RE = /^(\d{1,3})(?:-([1-4]))?$/;

/**
 * `POST /v1/medi-cal/apr-drg/payment` body: the spec's fields plus ARCHITECTURE.md's
 * `discharge_date`, `discharge_status` and the three overrides. `apr_drg` is `640` with `soi`, or
 * `640-2`; both forms may be given only when they agree. Normalised to a three-digit DRG and the SOI.
 */
export const AprDrgBodySchema = z
  .strictObject({
    apr_drg: z.string().trim().regex(DRG_RE, 'apr_drg must be an APR-DRG number (640) or DRG-SOI (640-2)').describe('APR-DRG as grouped, `640`, or with its severity of illness, `640-2`'),
    soi: z.int().min(1).max(4).optional().describe('severity of illness 1-4; required unless apr_drg carries it'),
    oshpd_id: z.string().trim().regex(/^\d{9}$/, 'oshpd_id must be the 9-digit OSHPD (HCAI) facility id of the hospital list').describe('OSHPD (HCAI) id of the hospital, as in the DHCS hospital list'),
    length_of_stay: z.int().min(0).max(3650).describe('days'),
    patient_age: z.int().min(0).max(130).describe('years at admission; under the pediatric age cutoff (21) selects the pediatric care category'),
    total_charges: z.number().min(0).max(1e10).describe('billed charges of the stay, dollars'),
    discharge_date: IsoDateSchema.optional().describe("selects the state fiscal year's tables (SFY runs July 1 - June 30); default: the latest loaded SFY"),
    discharge_status: z
      .string()
      .trim()
      .regex(/^\d{2}$/, 'discharge_status must be the two-digit UB-04 patient discharge status')
      .optional()
      .describe("UB-04 patient discharge status: one of the year's transfer codes prices the stay as a transfer; 30 (still a patient) or none lets a stay past the interim threshold be an interim claim"),
    cost_to_charge_ratio: z.number().min(0).max(10).optional().describe("replaces the hospital list's cost-to-charge ratio"),
    designated_nicu: z.boolean().optional().describe("replaces the hospital list's NICU designation"),
    wage_adjusted_base_rate: z.number().min(0).max(1e7).optional().describe('replaces the computed wage-adjusted DRG base rate, dollars'),
  })
  .superRefine((b, ctx) => {
    const m = DRG_RE.exec(b.apr_drg);
    if (!m) return;
    const suffix = m[2] === undefined ? undefined : Number(m[2]);
    if (suffix !== undefined && b.soi !== undefined && suffix !== b.soi) {
      ctx.addIssue({ code: 'custom', path: ['soi'], message: `apr_drg '${b.apr_drg}' says SOI ${suffix} but soi is ${b.soi}: send one of them, or the same SOI in both`, params: { apr_drg: b.apr_drg, soi: b.soi } });
    }
    if (suffix === undefined && b.soi === undefined) ctx.addIssue({ code: 'custom', path: ['soi'], message: `soi is required when apr_drg ('${b.apr_drg}') has no SOI suffix` });
  })
  .transform((b) => {
    const m = DRG_RE.exec(b.apr_drg)!;
    return { ...b, apr_drg: m[1]!.padStart(3, '0'), soi: b.soi ?? Number(m[2]) };
  });
export type AprDrgBody = z.output<typeof AprDrgBodySchema>;

const money = z.number();

/** The spec's `calculation` object, with the intermediate values the spec leaves out (marked). */
export const AprDrgCalculationSchema = z
  .object({
    base_price: money.describe('extension: the base price priced from (statewide, or remote rural for a DHCS designated remote rural hospital)'),
    base_price_source: z.enum(['statewide_base_price', 'remote_rural_base_price', 'override']).describe('extension'),
    labor_share: z.number().describe('extension: the labor share for the wage index (at or below the cutoff, or above it)'),
    wage_index_used: z.number().describe("extension: the hospital's CA-neutrality-adjusted wage index"),
    drg_base_rate: money.describe('the wage-adjusted DRG base rate priced with (the override when given); cents'),
    computed_drg_base_rate: money.describe('extension: the base rate the policy and wage index give (differs from drg_base_rate only with the override)'),
    payment_relative_weight: z.number().describe('HSRV casemix relative weight x casemix adjustment factor (exact)'),
    age_group: z.enum(['pediatric', 'adult']).describe('extension: by the pediatric age cutoff'),
    care_category: z.string().describe("extension: the DRG's Medi-Cal care category for the age group"),
    designated_nicu: z.boolean().describe('extension: the NICU designation priced with (the override when given)'),
    policy_adjustor_code: z.string().describe('A-D: the column of the APR-DRG table that applied (none: no row of the policy adjustor table matched; value 1)'),
    policy_adjustor_value: z.number(),
    drg_base_payment: money.describe('drg_base_rate x payment_relative_weight x policy_adjustor_value; cents'),
    national_average_los: z.number(),
    transfer_applies: z.boolean().describe("extension: discharge_status is one of the year's transfer codes"),
    transfer_per_diem: money.nullable().describe('extension: drg_base_payment / national_average_los; cents; null without a transfer'),
    transfer_payment: money.nullable().describe('extension: transfer_per_diem x (length_of_stay + 1); null without a transfer'),
    transfer_payment_adjustment: money.describe('allowed_after_transfer_adjustment - drg_base_payment (0 or negative)'),
    allowed_after_transfer_adjustment: money.describe('the lesser of the transfer payment and the DRG base payment for a transfer, else the DRG base payment'),
    cost_to_charge_ratio: z.number().describe('extension: the ratio priced with (the override when given)'),
    estimated_cost: money.describe('total_charges x cost_to_charge_ratio; cents'),
    estimated_loss: money.describe('estimated_cost - allowed_after_transfer_adjustment when positive, else 0'),
    estimated_gain: money.describe('allowed_after_transfer_adjustment - estimated_cost when positive, else 0'),
    case_margin_status: z.enum(['loss', 'gain', 'even']),
    high_side_outlier_applies: z.boolean().describe('estimated_loss exceeds cost_outlier_threshold'),
    high_side_outlier_payment_increase: money.describe('(estimated_loss - cost_outlier_threshold) x marginal_cost_percentage; cents'),
    low_side_outlier_applies: z.boolean().describe('estimated_gain exceeds low_side_outlier_threshold'),
    low_side_outlier_payment_decrease: money.describe('(estimated_gain - low_side_outlier_threshold) x marginal_cost_percentage; cents'),
    drg_payment_so_far: money.describe('allowed_after_transfer_adjustment + high-side increase - low-side decrease'),
    add_on_amount: money.describe('the add-on of the year (0 on an interim claim)'),
    interim_claim_applies: z.boolean().describe('extension: length_of_stay exceeds interim_claim_threshold and no discharge status says the patient left (none, or 30)'),
    interim_claim_payment: money.describe('interim_per_diem_amount x length_of_stay on an interim claim, else 0; cents'),
    allowed_amount: money.describe('interim_claim_payment on an interim claim, else drg_payment_so_far + add_on_amount'),
    total_charges: money.describe('extension: the charges, cents'),
    lesser_of_amount: money.describe('the lesser of allowed_amount and total_charges'),
    payment_amount: money,
  })
  .meta({ id: 'AprDrgCalculation' });

/** The spec's `drg` object: the DRG-SOI row of the year's table. */
export const AprDrgDrgSchema = MediCalAprDrgRowSchema.omit({ illustrative: true }).meta({ id: 'AprDrgTableRow' });

/** The spec's `hospital` object: the hospital list row as published, and which values the request replaced. */
export const AprDrgHospitalSchema = MediCalHospitalRowSchema.omit({ illustrative: true })
  .extend({ overridden: z.array(z.enum(['cost_to_charge_ratio', 'designated_nicu', 'wage_adjusted_base_rate'])).describe('extension: values the request replaced (the calculation shows what was priced with)') })
  .meta({ id: 'AprDrgHospital' });

/** The spec's `policy` object plus the other parameters of the year and each one's source. */
export const AprDrgPolicySchema = z
  .object({
    add_on_amount: money,
    casemix_adjustment_factor: z.number(),
    cost_outlier_threshold: money.describe('high-side cost outlier threshold'),
    interim_claim_threshold: z.number().describe('days'),
    interim_per_diem_amount: money,
    marginal_cost_percentage: z.number().describe('a fraction: 0.6 is 60%'),
    low_side_outlier_threshold: money.describe('extension'),
    statewide_base_price: money.describe('extension'),
    remote_rural_base_price: money.describe('extension'),
    labor_share_low: z.number().describe('extension: labor share when the wage index is at or below the cutoff'),
    labor_share_high: z.number().describe('extension: labor share when the wage index is above the cutoff'),
    labor_share_wage_index_cutoff: z.number().describe('extension'),
    pediatric_age_cutoff: z.number().describe('extension: patients under this age are pediatric'),
    transfer_status_codes: z.array(z.string()).describe('extension: patient discharge status codes priced as transfers'),
    sources: z.record(z.string(), z.string()).describe("extension: each parameter's source as the policy sheet states it"),
  })
  .meta({ id: 'AprDrgPolicy' });

/** The APR-DRG's entry in the APR-DRG code list (dataset apr_drg_codes), with the list it came from. */
export const AprDrgNameSchema = AprDrgCodeRowSchema.pick({ description: true, medical_surgical: true, mdc: true })
  .extend({ apr_drg: z.string().describe('three digits, `139`'), source: DatasetCitationSchema.describe('the code list version and its publisher') })
  .meta({ id: 'AprDrgName' });

/** Spec "Medi-Cal APR-DRG payment (response)". */
export const AprDrgPaymentSchema = z
  .object({
    allowed_amount: money,
    payment_amount: money,
    total_base_payment: money.describe('the DRG base payment after the transfer adjustment, before outliers and add-ons'),
    fiscal_year: z.string().describe('the state fiscal year whose tables priced the stay, `2025-26`'),
    fiscal_year_source: z.enum(['discharge_date', 'latest_loaded']).describe('extension: from discharge_date, or the latest loaded SFY when none was given'),
    payer: z.literal('medi_cal'),
    discharge_date: z.string().nullable(),
    caveats: z.array(z.string()),
    calculation: AprDrgCalculationSchema,
    drg: AprDrgDrgSchema,
    apr_drg_name: AprDrgNameSchema.nullable().describe('extension: the APR-DRG\'s description in the APR-DRG code list in force on the discharge date (apr_drg_codes), with its source; null, with a warning, when the list is not loaded or lacks the DRG'),
    hospital: AprDrgHospitalSchema,
    policy: AprDrgPolicySchema,
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'AprDrgPayment' });
export type AprDrgPayment = z.output<typeof AprDrgPaymentSchema>;
