import { z } from 'zod';
import { composePaymentFor } from '../payment/compose.js';
import { defineRoute, type RouteDef } from '../route.js';
import { CcnSchema, HcpcsSchema, IsoDateSchema, QueryBoolSchema, ReliabilitySchema } from '../schemas.js';

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

const PhysicianSchema = z.object({
  allowed_phy_payment: z.number(),
  conversion_factor: z.number(),
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
  rvu_quarter: z.number(),
  rvu_year: z.number(),
  rvu_source: z.string(),
});

const OutpatientSchema = z.object({
  allowed_fac_payment: z.number(),
  opps_payment_rate: z.number(),
  apc_code: z.string().nullable(),
  status_indicator: z.string(),
  labor_share: z.number().default(0.6),
  non_labor_share: z.number().default(0.4),
  relative_weight: z.number().nullable(),
  wage_index: z.number(),
});

const LabSchema = z.object({ allowed_lab_payment: z.number(), lab_payment_rate: z.number(), indicator: z.string() });

const DmeSchema = z.object({
  allowed_dme_payment: z.number(),
  dme_payment_rate: z.number(),
  is_rural: z.boolean().default(false),
  rate_used: z.enum(['rural', 'non_rural']),
  state: z.string(),
});

const FacilitySchema = z.object({
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
});

const PolicyRuleSchema = z.object({
  code: z.string(),
  doc_id: z.string(),
  kind: z.string(),
  pdf_uri: z.string(),
  rule_text: z.string(),
  source_key: z.string(),
  action: z.string().optional(),
  change_type: z.string().optional(),
  effective_from: z.string().optional(),
  lineage_root_doc_id: z.string().optional(),
  parent_doc_id: z.string().optional(),
  trigger_condition: z.string().optional(),
  discovery_depth: z.number().int().default(0),
  license_kind: z.string().default('public'),
});

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
  facility: FacilitySchema.nullable(),
  policy_rules: z.array(PolicyRuleSchema),
  reliability: ReliabilitySchema,
});

/** `GET /v1/codes/{code}/payment`: the payment composition of a code (spec rules 1-5). */
export const paymentRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/codes/{code}/payment',
    operationId: 'getCodePayment',
    tag: 'codes',
    summary: 'Payment composition: physician (MPFS), outpatient facility (OPPS), lab (CLFS) and DME amounts for a code',
    description:
      'With ccn the facility geography drives GPCI (ZIP/county to locality), wage index (CBSA) and the rural flag, and every block is priced; ' +
      'without ccn only the physician block, in `locality` (7 digits) or nationally. qpp_flag (0/1) overrides qpp. place_of_service pins the ' +
      'facility or non-facility PE-RVU. Amounts are exact and rounded to cents once; estimated_payment is the sum of the applicable blocks.',
    scope: 'knowledge',
    cache: true,
    params: z.object({ code: HcpcsSchema }),
    query: PaymentQuerySchema,
    response: PaymentCompositionSchema,
    errors: [404],
    handler: async ({ params, query, snapshot, reliability }) => {
      const { composition, warnings, used, degraded } = await composePaymentFor(snapshot, { code: params.code, ...query });
      return { ...composition, reliability: reliability(used, { warnings, degraded }) };
    },
  }),
];
