import { z } from 'zod';
import { PolicyRuleSchema } from '../policies/schemas.js';
import { CcnSchema, IsoDateSchema, QueryBoolSchema, ReliabilitySchema } from '../schemas.js';
import { ADJUSTMENT_RULES } from './rules/index.js';

/** Medicare locality: 7 digits MAC + locality (`1320201`), or `13202-01`; normalised to 7 digits. */
export const LocalitySchema = z
  .string()
  .trim()
  .regex(/^\d{5}-?\d{2}$/, 'Locality must be 7 digits: MAC number + locality number, e.g. 1320201 or 13202-01')
  .transform((s) => s.replace('-', ''));

/** HCPCS modifier: two letters/digits (26, TC, 53, QW, NU...), upper-cased. */
export const ModifierSchema = z
  .string()
  .trim()
  .transform((s) => s.toUpperCase())
  .pipe(z.string().regex(/^[A-Z0-9]{2}$/, 'Modifier must be 2 letters or digits (e.g. 26, TC, 53)'));

/**
 * Query of the payment call, with the names fixed in ARCHITECTURE.md; `qpp_flag` is a string enum
 * (not a coerced number) so `qpp_flag=2` or `qpp_flag=true` is a 422, never a silent QPP choice.
 */
export const PaymentQuerySchema = z.object({
  ccn: z.string().trim().toUpperCase().pipe(CcnSchema).optional(),
  modifier: z
    .array(z.string())
    .transform((list) => list.flatMap((m) => m.split(',')).map((m) => m.trim()).filter(Boolean))
    .pipe(z.array(ModifierSchema).max(4, 'at most 4 modifiers'))
    .optional()
    .describe('HCPCS modifiers, repeated (`modifier=80&modifier=51`) or as a comma list (`80,51`): 26, TC and 53 select an RVU row; 50, 51, 62, 66, 80, 81, 82 and AS apply the payment policy of the RVU file indicators; 52 is priced by the MAC (no amount); 26, 80, 81, 82, AS, 62 and 66 bill the professional service only (a hospital\'s OPPS amount is not summed); PT and 33 (with 99497/99498) set the cost sharing; the DMEPOS row is the one keyed by the most of them (NU,KE: the NU-KE row)'),
  date_of_service: IsoDateSchema.optional().describe("the day of service priced (default: today, the server's date): picks the RVU, GPCI, OPPS, CLFS and DMEPOS releases and the conversion factor's year"),
  qpp: QueryBoolSchema.optional(),
  qpp_flag: z
    .enum(['0', '1'], { message: 'qpp_flag must be 0 (non-QPP) or 1 (QPP)' })
    .transform((s) => (s === '1' ? 1 : 0) as 0 | 1)
    .optional(),
  locality: LocalitySchema.optional(),
  place_of_service: z.string().trim().regex(/^\d{2}$/, 'place_of_service must be a 2-digit CMS place-of-service code').optional(),
  use_facility_rate: QueryBoolSchema.optional(),
  anesthesia_minutes: z.coerce.number().int().min(1).max(1440).optional().describe('anesthesia time in minutes, for an anesthesia code (PFS status J)'),
  deductible_met: QueryBoolSchema.optional().describe('the beneficiary has met the year\'s Part B deductible (default true)'),
  zip: z.string().trim().regex(/^\d{5}(-?\d{4})?$/, 'zip must be a 5-digit ZIP code (ZIP+4 accepted)').optional().describe('ZIP of the ASC (place_of_service 24): its CBSA when its payment locality lies in one'),
  cbsa: z.string().trim().regex(/^\d{2}(\d{3})?$/, 'cbsa must be a 5-digit CBSA code, or the 2-digit code of a statewide rural area').optional().describe('CBSA of the ASC (place_of_service 24): its wage index adjusts the 50% labor share, 42 CFR 416.172(c); wins over ccn and zip'),
  cah_method_ii: QueryBoolSchema.optional().describe('the critical access hospital (ccn) bills its practitioners\' professional services under the optional method (Method II): 115% of the facility fee schedule amount, 42 CFR 413.70(b)(3). Omitted: your registration\'s election of the ccn (`PUT /v1/facilities/{ccn}`)'),
});

/** One payment-policy adjustment applied to the physician amount (Claims Processing Manual ch. 12). */
export const PaymentAdjustmentSchema = z.object({
  modifier: z.string().nullable().describe('the modifier that triggers the rule; null for a rule of the facility (CAH Method II, a query parameter; a rural emergency hospital)'),
  // The rules that adjust an amount declare the values they write (`rules/index.ts`).
  rule: z.enum(ADJUSTMENT_RULES),
  indicator: z.string().describe('the indicator the rule reads: the RVU file column (MULT PROC, BILAT SURG, CO-SURG, ASST SURG), or the modifier itself for an off-campus department (PN, PO), or `method_ii` for a CAH, or `reh` for a rural emergency hospital (42 CFR 419.92)'),
  percent: z.number().describe('percent of the fee schedule amount paid by this adjustment (150 = 150%)'),
  citation: z.string(),
}).meta({ id: 'PaymentAdjustment' });

export const PhysicianSchema = z.object({
  allowed_phy_payment: z.number().describe('the lesser of the PFS amount and the OPPS cap when a cap applies, times the payment-policy adjustments'),
  fee_schedule_amount: z.number().describe('the fee schedule amount before the payment-policy adjustments (after the OPPS cap)'),
  adjustments: z.array(PaymentAdjustmentSchema).describe('payment-policy modifiers applied, in the order applied; their percents multiply'),
  conversion_factor: z.number(),
  conversion_factor_source: z.string().describe("where the factor comes from: the CONV FACTOR of the date of service's RVU release, or the year's figure of medicare_yearly_figures (CY2026: the spec's rule 1)"),
  opps_cap_amount: z.number().nullable().describe('OPPS cap of the code, modifier and locality for the setting (opps_cap dataset, DRA 2005); null when none applies'),
  opps_cap_applied: z.boolean().describe('true when the cap was lower than the PFS amount and was paid instead'),
  mp_gpci: z.number(),
  mp_rvu: z.number(),
  mp_rvu_adjusted: z.number(),
  pe_gpci: z.number(),
  pe_rvu: z.number(),
  pe_rvu_adjusted: z.number(),
  pw_gpci: z.number(),
  total_adjusted_rvu: z.number(),
  work_rvu: z.number(),
  work_rvu_adjusted: z.number(),
  pe_rvu_source: z.enum(['facility', 'non_facility']),
  priced_code: z.string().describe('the code whose RVU row is priced: the requested code, or in a hospital setting the professional-only code of a PC/TC indicator 4 family (93000: 93010)'),
  rvu_row: z
    .enum(['global', '26', 'TC', '53'])
    .describe("the PPRRVU row priced: the global row, or a modifier's; in a hospital setting (a hospital ccn, or place of service 19, 21, 22, 23, 51, 52, 61) a PC/TC indicator 1 code is priced from its -26 row (the facility is paid the technical component)"),
  setting_na: z.boolean().describe('CMS marks the PE-RVU of the chosen setting NA (not paid there); the published value was used, with a warning'),
  anesthesia: z
    .object({
      minutes: z.number(),
      base_units: z.number().describe('the base units paid (3 with modifier AD)'),
      time_units: z.number().describe('minutes / 15 to one decimal place (0 with AD)'),
      anesthesia_conversion_factor: z.number(),
      base_units_source: z.string(),
      modifier: z.string().nullable().describe('the anesthesia modifier applied (AA, QZ 100%; QK, QX, QY 50%; AD three base units)'),
    })
    .nullable()
    .describe('an anesthesia service (PFS status J) priced on base and time units (Claims Processing Manual ch. 12 section 50); null otherwise. The RVU fields are then the row\'s zeros and conversion_factor is the anesthesia factor'),
  rvu_quarter: z.number(),
  rvu_year: z.number(),
  rvu_source: z.string(),
}).meta({ id: 'PaymentPhysicianBlock' });

export const OutpatientSchema = z.object({
  allowed_fac_payment: z.number(),
  wage_adjusted: z.boolean().describe('false for status indicators paid the national rate (G, K: separately payable drugs and biologicals); the labor share is then 0'),
  adjustments: z.array(PaymentAdjustmentSchema).describe('off-campus provider-based department modifiers applied (PN 40%; PO 100%, G0463 40%), and a rural emergency hospital\'s 105% (42 CFR 419.92)'),
  opps_payment_rate: z.number(),
  apc_code: z.string().nullable(),
  status_indicator: z.string(),
  labor_share: z.number(),
  non_labor_share: z.number(),
  relative_weight: z.number().nullable(),
  wage_index: z.number(),
  informational: z
    .boolean()
    .describe('true when the OPPS amount is not paid on this line: the facility is not paid under the OPPS (a critical access hospital at cost, a Maryland hospital under the all-payer model, a federal hospital Medicare does not pay), or the line bills a professional service only (modifier 26, 80, 81, 82, AS, 62 or 66; the hospital bills the OPPS service on its own claim): shown for reference, not in applicable_blocks or estimated_payment'),
}).meta({ id: 'PaymentOutpatientBlock' });

export const LabSchema = z.object({ allowed_lab_payment: z.number(), lab_payment_rate: z.number(), indicator: z.string() }).meta({ id: 'PaymentLabBlock' });

export const DmeSchema = z.object({
  allowed_dme_payment: z.number(),
  dme_payment_rate: z.number(),
  is_rural: z.boolean(),
  rate_used: z.enum(['rural', 'non_rural']),
  state: z.string(),
}).meta({ id: 'PaymentDmeBlock' });

export const CostSharingSchema = z.object({
  year: z.number().describe("the service's year, whose deductibles apply"),
  deductible_applies: z.boolean().describe('false for preventive services without cost sharing (42 CFR 410.152(l), 410.160(b)), a colorectal screening test that became therapeutic (modifier PT) and advance care planning with the annual wellness visit (99497/99498 with modifier 33)'),
  deductible_met: z.boolean().describe('the deductible_met query parameter (default true)'),
  part_b_deductible: z.number().nullable().describe("the year's Part B deductible (medicare_yearly_figures); null when no figure of the year is loaded"),
  inpatient_deductible: z.number().nullable().describe("the year's inpatient deductible, the cap of an OPPS copayment (medicare_yearly_figures); null when not loaded"),
  deductible: z.number().describe('the part of the Part B deductible paid on this service (0 when met)'),
  coinsurance: z.number().describe('the year\'s coinsurance percent (20%) of the physician and DME amounts after the deductible, 0 when the year\'s figure is not loaded, or the percent of a payment rule (modifier PT: 15% in 2023-2026, 10% in 2027-2029, 0 from 2030; ACP with modifier 33: 0)'),
  opps_copayment: z.number().nullable().describe('the Addendum B copayment, wage-adjusted, capped at the inpatient deductible, or a payment rule\'s percent of the OPPS amount (modifier PT, ACP with modifier 33); null without a payable OPPS block'),
  beneficiary_total: z.number(),
  program_payment: z.number().describe('estimated_payment less the beneficiary total'),
  citations: z.array(z.string()),
}).meta({ id: 'PaymentCostSharing' });

export const FacilityBlockSchema = z.object({
  ccn: z.string(),
  cbsa: z.string().nullable(),
  county: z.string().nullable(),
  facility_type: z.string(),
  locality_name: z.string().nullable(),
  locality_number: z.string().nullable(),
  name: z.string(),
  pos_code: z.string().nullable(),
  state: z.string(),
  is_rural: z.boolean(),
  registered: z.boolean(),
  wage_index: z.number().nullable(),
}).meta({ id: 'PaymentFacilityBlock' });

/** The ASC facility payment of a code at place of service 24 (CMS Addendum AA; 42 CFR 416.171, 416.172(c)). */
export const AscSchema = z.object({
  allowed_asc_payment: z.number().nullable().describe('the ASC rate wage-adjusted at the CBSA: rate x (0.50 x wage_index + 0.50), rounded to cents once; the national rate when no CBSA is known (wage_adjusted false, with a warning); null when the code is packaged (N1) or not on the ASC list: no separate ASC payment, never 0'),
  national_rate: z.number().nullable().describe('the national unadjusted ASC payment rate of Addendum AA; null when none is printed (packaged)'),
  payment_weight: z.number().nullable(),
  payment_indicator: z.string().nullable().describe('the ASC payment indicator (A2, G2, J8, N1, P3, ...); null when the code is not on the ASC list'),
  payment_indicator_meaning: z.string().describe('what the indicator means (Addendum DD1), or why the code has no ASC payment'),
  multiple_procedure_discount: z.boolean().nullable().describe('the code is subject to multiple procedure discounting: a second or later such procedure of the same session is paid at 50% (not applied here: the answer prices one code)'),
  wage_adjusted: z.boolean(),
  labor_share: z.number().describe('0.5 (42 CFR 416.172(c))'),
  cbsa: z.string().nullable().describe('the CBSA whose wage index was applied: cbsa, else the CBSA of ccn'),
  wage_index: z.number().nullable(),
  release: z.string().nullable().describe('the asc_addendum_aa version priced (`2025-01`)'),
  citations: z.array(z.string()),
}).meta({ id: 'PaymentAscBlock' });

/**
 * Spec "Payment composition". Blocks that do not apply are null (and absent from
 * `applicable_blocks`); the top-level adjusted RVUs are null without a physician block.
 */
export const PaymentCompositionSchema = z.object({
  code: z.string(),
  conversion_factor: z.number(),
  applicable_blocks: z.array(z.enum(['physician', 'outpatient_facility', 'lab', 'dme'])),
  ccn: z.string().nullable(),
  date_of_service: z.string().describe('the day priced: the one asked for, else today'),
  estimated_payment: z.number().describe('the sum of the applicable blocks\' allowed amounts (an informational OPPS block is not one)'),
  facility_rate: z.boolean(),
  locality: z.string(),
  mp_gpci: z.number(),
  pe_gpci: z.number(),
  pw_gpci: z.number(),
  mp_rvu_adjusted: z.number().nullable(),
  pe_rvu_adjusted: z.number().nullable(),
  work_rvu_adjusted: z.number().nullable(),
  total_adjusted_rvu: z.number().nullable(),
  qpp: z.boolean(),
  physician: PhysicianSchema.nullable(),
  outpatient_facility: OutpatientSchema.nullable(),
  lab: LabSchema.nullable(),
  dme: DmeSchema.nullable(),
  asc: AscSchema.nullable().describe('at place_of_service 24 (ambulatory surgical center): the ASC facility payment of Addendum AA, for reference beside the professional amount; the ASC bills it on its own claim, so it is not in applicable_blocks, estimated_payment or beneficiary_cost_sharing. Null elsewhere'),
  facility: FacilityBlockSchema.nullable(),
  beneficiary_cost_sharing: CostSharingSchema,
  calculation: z.array(z.string()).describe('the payment rules applied beyond the base formulas (payment-policy modifiers, PC/TC, OPPS status indicators), each with the manual section or regulation it implements'),
  policy_rules: z.array(PolicyRuleSchema).describe('Medicare coverage rules for the code: the billing articles listing it and their LCDs, in the MAC jurisdictions of the facility\'s (or locality\'s) state'),
  reliability: ReliabilitySchema,
}).meta({ id: 'PaymentComposition' });

