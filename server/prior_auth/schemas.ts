import { z } from 'zod';
import { CcnSchema, HcpcsSchema, IsoDateSchema, QueryBoolSchema, ReliabilitySchema, StateSchema } from '../schemas.js';
import { TIERS } from './resolve.js';
import { CitationSchema } from '../../datasets/payers/schema.js';

export const PaCheckQuerySchema = z
  .object({
    payer: z.string().trim().min(1).max(100).describe('payer slug or alias'),
    code: HcpcsSchema.optional(),
    service_category: z.string().trim().toLowerCase().pipe(z.string().regex(/^[a-z][a-z0-9_]{1,63}$/, 'service_category is a snake_case category such as vein_ablation')).optional(),
    plan_type: z.string().trim().toLowerCase().pipe(z.string().regex(/^[a-z][a-z0-9_]{1,63}$/, 'plan_type is a snake_case plan or product line such as hmo or medicare_advantage')).optional(),
    state: StateSchema.optional(),
    place_of_service: z.string().trim().regex(/^\d{2}$/, 'place_of_service must be a 2-digit CMS place-of-service code').optional(),
    visit_count: z.coerce.number().int('visit_count is a whole number').min(0).max(100_000).optional(),
    ccn: z.string().trim().toUpperCase().pipe(CcnSchema).optional(),
    date_of_service: IsoDateSchema.optional().describe('selects the rules, overrides and CMS list in force (default today)'),
    persist: QueryBoolSchema.optional().describe('default true: store the determination and return its determination_id; false answers without a record'),
  })
  .superRefine((q, ctx) => {
    if (q.code === undefined && q.service_category === undefined) {
      ctx.addIssue({ code: 'custom', path: ['code'], message: 'give code or service_category (or both)' });
    }
  });

export const RationaleStepSchema = z.object({ tier: z.int(), tier_name: z.enum(TIERS), matched: z.boolean(), detail: z.string() });

export const PaDeterminationSchema = z
  .object({
    determination_id: z.uuid().optional().describe('persisted id (GET /v1/prior-auth/determinations/{id}); absent with persist=false'),
    pa_required: z.boolean().describe('true when the deciding rule requires PA (for `conditional`: once its condition holds)'),
    determination: z.enum(['required', 'not_required', 'conditional', 'unknown']),
    resolution_tier: z.enum(TIERS),
    confidence: z.number().min(0).max(1),
    payer_slug: z.string(),
    payer_name: z.string(),
    code: z.string().nullable(),
    service_category: z.string().nullable(),
    plan_type: z.string().nullable(),
    state: z.string().nullable().describe('the state used: the query, else the facility'),
    place_of_service: z.string().nullable().describe('the place of service used: the query, else the facility default'),
    ccn: z.string().nullable(),
    date_of_service: z.string(),
    auth_type: z.string().nullable(),
    delegation_vendor: z.string().nullable(),
    delegation_vendor_phone: z.string().nullable(),
    delegation_vendor_portal: z.string().nullable(),
    pa_threshold: z.number().nullable(),
    visit_count: z.number().nullable(),
    threshold_remaining: z.number().nullable(),
    standard_turnaround_days: z.number().nullable(),
    standard_turnaround_unit: z.enum(['calendar_days', 'business_days']).nullable(),
    urgent_turnaround_hours: z.number().nullable(),
    urgent_turnaround_days: z.number().nullable().describe('expedited turnaround when the source states it in business days'),
    required_documents: z.array(z.string()),
    submission_info: z.object({ email: z.string().optional(), fax: z.string().optional(), mailing_address: z.string().optional(), phone: z.string().optional(), portal_url: z.string().optional() }),
    network_status: z.enum(['in_network', 'out_of_network', 'unknown']).nullable().describe("the payer's status on the facility roster (with ccn)"),
    rationale_chain: z.array(RationaleStepSchema),
    source: z
      .object({
        kind: z.enum(['payer_rule', 'facility_override']),
        id: z.string(),
        citation: CitationSchema.nullable(),
      })
      .nullable()
      .describe('the rule or override that decided'),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'PriorAuthDetermination' });

export const DeterminationRecordSchema = z
  .object({
    determination_id: z.uuid(),
    created_at: z.string(),
    inputs: z.record(z.string(), z.unknown()).describe('the validated query of the check'),
    snapshot_id: z.string(),
    dataset_versions: z.record(z.string(), z.string()),
    determination: PaDeterminationSchema,
  })
  .meta({ id: 'StoredPriorAuthDetermination' });
