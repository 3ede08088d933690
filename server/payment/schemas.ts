import { z } from 'zod';
import { PolicyRuleSchema } from '../policies/schemas.js';
import { CcnSchema, IsoDateSchema, QueryBoolSchema, ReliabilitySchema } from '../schemas.js';

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
  modifier: ModifierSchema.optional(),
  date_of_service: IsoDateSchema.optional(),
  qpp: QueryBoolSchema.optional(),
  qpp_flag: z
    .enum(['0', '1'], { message: 'qpp_flag must be 0 (non-QPP) or 1 (QPP)' })
    .transform((s) => (s === '1' ? 1 : 0) as 0 | 1)
    .optional(),
  locality: LocalitySchema.optional(),
  place_of_service: z.string().trim().regex(/^\d{2}$/, 'place_of_service must be a 2-digit CMS place-of-service code').optional(),
  use_facility_rate: QueryBoolSchema.optional(),
});

export const PhysicianSchema = z.object({
  allowed_phy_payment: z.number().describe('the lesser of the PFS amount and the OPPS cap when a cap applies'),
  conversion_factor: z.number(),
  conversion_factor_source: z.string().describe("where the factor comes from: the CONV FACTOR of the date of service's RVU release, or the spec's CY2026 constant"),
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
  rvu_row: z
    .enum(['global', '26', 'TC', '53'])
    .describe("the PPRRVU row priced: the global row, or a modifier's; at a facility's outpatient setting a PC/TC indicator 1 code is priced from its -26 row (the facility is paid the technical component)"),
  setting_na: z.boolean().describe('CMS marks the PE-RVU of the chosen setting NA (not paid there); the published value was used, with a warning'),
  rvu_quarter: z.number(),
  rvu_year: z.number(),
  rvu_source: z.string(),
}).meta({ id: 'PaymentPhysicianBlock' });

export const OutpatientSchema = z.object({
  allowed_fac_payment: z.number(),
  opps_payment_rate: z.number(),
  apc_code: z.string().nullable(),
  status_indicator: z.string(),
  labor_share: z.number(),
  non_labor_share: z.number(),
  relative_weight: z.number().nullable(),
  wage_index: z.number(),
  informational: z
    .boolean()
    .describe('true when the facility is not paid under the OPPS (a critical access hospital at cost, a Maryland hospital): shown for reference, not in applicable_blocks or estimated_payment'),
}).meta({ id: 'PaymentOutpatientBlock' });

export const LabSchema = z.object({ allowed_lab_payment: z.number(), lab_payment_rate: z.number(), indicator: z.string() }).meta({ id: 'PaymentLabBlock' });

export const DmeSchema = z.object({
  allowed_dme_payment: z.number(),
  dme_payment_rate: z.number(),
  is_rural: z.boolean(),
  rate_used: z.enum(['rural', 'non_rural']),
  state: z.string(),
}).meta({ id: 'PaymentDmeBlock' });

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


/**
 * Spec "Payment composition". Blocks that do not apply are null (and absent from
 * `applicable_blocks`); the top-level adjusted RVUs are null without a physician block.
 */
export const PaymentCompositionSchema = z.object({
  code: z.string(),
  conversion_factor: z.number(),
  applicable_blocks: z.array(z.enum(['physician', 'outpatient_facility', 'lab', 'dme'])),
  ccn: z.string().nullable(),
  date_of_service: z.string().nullable(),
  estimated_payment: z.number(),
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
  facility: FacilityBlockSchema.nullable(),
  policy_rules: z.array(PolicyRuleSchema).describe('Medicare coverage rules for the code: the billing articles listing it and their LCDs, in the MAC jurisdictions of the facility\'s (or locality\'s) state'),
  reliability: ReliabilitySchema,
}).meta({ id: 'PaymentComposition' });

