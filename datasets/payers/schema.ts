import { GROUP_CODES } from '../../lib/vocabulary/adjustment_groups.js';
import { z } from 'zod';
import { DENIAL_CATEGORIES } from '../../lib/vocabulary/denial_categories.js';
import { table } from '../_shared/table.js';

/**
 * Curated payer knowledge, one table per kind of rule. Every row carries the `citation` it rests
 * on; a row without one is rejected at ingest. Figures the curators could not cite are absent
 * (null), never estimated: `knowledge_depth` and `data_quality_score` say how complete a payer is.
 */

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD');

export const CitationSchema = z
  .strictObject({
    title: z.string().min(3),
    url: z.url(),
    retrieved: isoDate.describe('when the curator read the source'),
    section: z.string().optional().describe('section, page or paragraph within the source'),
  })
  .meta({ id: 'Citation' });
export type Citation = z.infer<typeof CitationSchema>;

export const PAYER_TYPES = ['medicare', 'medicare_advantage', 'medicaid', 'commercial', 'tricare', 'workers_comp', 'other'] as const;
export const KNOWLEDGE_DEPTHS = ['identity', 'filing', 'appeals', 'full'] as const;
const state = z.string().regex(/^[A-Z]{2}$/, 'a two-letter state code');

export const PayerRowSchema = z.object({
  slug: z.string().regex(/^[a-z][a-z0-9_]*$/, 'a snake_case slug'),
  name: z.string().min(2),
  aliases: z.array(z.string().min(2)).describe('other names callers use; an alias may be shared (then it never resolves alone)'),
  payer_type: z.enum(PAYER_TYPES),
  coverage_scope: z.string().describe('`national`, `state:CA`, `regional`, ...'),
  states: z.array(state).describe('states the payer operates in; empty for national'),
  parent_slug: z.string().nullable(),
  is_active: z.boolean(),
  edi_payer_ids: z.record(z.string(), z.string()).describe('electronic payer id by clearinghouse (`default` when the payer publishes one id for all)'),
  ncci_edit_set: z.enum(['medicare', 'medicaid']).nullable().describe('which NCCI edit files apply to its claims (null: not known to apply NCCI)'),
  website: z.string().nullable(),
  provider_phone: z.string().nullable(),
  portal_url: z.string().nullable(),
  knowledge_depth: z.enum(KNOWLEDGE_DEPTHS).describe('`identity` only; `filing` rules; `appeals` too; `full` with denial patterns and prior-auth rules'),
  data_quality_score: z.number().min(0).max(1).describe('share of the fields a complete payer profile has that are present and cited'),
  review_status: z.enum(['verified', 'unverified']).describe('`unverified`: curated from the cited sources but not yet re-read against them by a second person'),
  citation: CitationSchema,
});
export type PayerRow = z.infer<typeof PayerRowSchema>;

export const FilingRuleRowSchema = z.object({
  payer_slug: z.string(),
  rule_id: z.string(),
  claim_type: z.string().describe('`initial`, `corrected`, `secondary`, ...'),
  plan_type: z.string().nullable().describe('null: every plan of the payer'),
  limit_value: z.int().positive(),
  limit_unit: z.enum(['days', 'months']),
  clock_starts: z.enum(['date_of_service', 'end_of_service_month', 'primary_payment_date', 'discharge_date']),
  business_day_rule: z.enum(['next_business_day', 'none']).describe('whether a deadline on a weekend or federal holiday moves to the next business day'),
  plan_override_days: z.record(z.string(), z.int().positive()).describe('plan type -> limit in days'),
  state_override_days: z.record(state, z.int().positive()).describe('state -> limit in days'),
  effective_date: isoDate.nullable(),
  expiration_date: isoDate.nullable(),
  notes: z.string().nullable(),
  late_payment: z
    .array(
      z.strictObject({
        through: z.int().positive().describe('the tier ends where the limit would with this value (same unit and clock as limit_value)'),
        payment_percent: z.number().gt(0).lt(100).describe('share of the amount otherwise payable'),
      }),
    )
    .optional()
    .describe('reduced payment after the limit, tier by tier (ascending `through`); after the last tier the claim is denied. Medi-Cal: 75% in months 7-9, 50% in months 10-12 after the month of service (Welfare and Institutions Code section 14115)'),
  citation: CitationSchema,
});
export type FilingRuleRow = z.infer<typeof FilingRuleRowSchema>;

export const AppealLevelRowSchema = z.object({
  payer_slug: z.string(),
  plan_type: z.string().nullable(),
  appeal_level: z.int().positive(),
  level_name: z.string(),
  deadline_days: z.int().positive(),
  starts_from: z.enum(['notice_date', 'notice_receipt', 'previous_decision_receipt', 'previous_decision']).describe('what the deadline counts from'),
  receipt_presumption_days: z.int().min(0).describe('days after its date a notice is presumed received (Medicare: 5)'),
  business_day_rule: z.enum(['next_business_day', 'none']),
  appeal_kind: z
    .enum(['claim_appeal', 'member_appeal', 'provider_dispute'])
    .describe("whose appeal the level is: `claim_appeal` either party's (Medicare: the provider is a party to the initial determination); `member_appeal` the member's benefit appeal (the provider files it only as the member's representative, never for a payment dispute under its contract); `provider_dispute` the provider's dispute of its payment"),
  amount_in_controversy: z.number().nullable().describe('minimum amount in dispute for this level, in dollars'),
  external_review_deadline_days: z.int().positive().nullable(),
  peer_to_peer_available: z.boolean().default(false),
  required_documents: z.array(z.string()),
  submission_method: z.string().nullable(),
  success_rate: z.number().min(0).max(1).nullable(),
  state_specific_rules: z.record(state, z.strictObject({ deadline_days: z.int().positive(), citation: CitationSchema })),
  citation: CitationSchema,
});
export type AppealLevelRow = z.infer<typeof AppealLevelRowSchema>;

export const DenialPatternRowSchema = z.object({
  payer_slug: z.string(),
  group_code: z.enum(GROUP_CODES).nullable(),
  carc_code: z.string(),
  remark_code: z.string().nullable(),
  denial_category: z.enum(DENIAL_CATEGORIES).describe('what the payer means by the code (lib/vocabulary/denial_categories.ts): its CARC class must be the code\'s, else the row is refused'),
  root_cause: z.string(),
  documentation_needed: z.array(z.string()),
  resolution_steps: z.array(z.string()),
  frequency_rank: z.int().positive().nullable(),
  success_rate: z.number().min(0).max(1).nullable(),
  avg_resolution_days: z.number().nullable(),
  auto_appealable: z.boolean().default(false),
  citation: CitationSchema,
});
export type DenialPatternRow = z.infer<typeof DenialPatternRowSchema>;

export const PriorAuthRuleRowSchema = z.object({
  payer_slug: z.string(),
  rule_id: z.string(),
  codes: z.array(z.string()).describe('CPT/HCPCS codes the rule names; empty when it covers a range or a service category'),
  code_range_start: z.string().nullable(),
  code_range_end: z.string().nullable(),
  service_category: z.string().nullable(),
  plan_type: z.string().nullable(),
  state: state.nullable(),
  place_of_service: z.array(z.string()).describe('places of service the rule applies to; empty for all'),
  scope: z
    .enum(['payer', 'national'])
    .default('payer')
    .describe('`national`: a federal program the payer runs for every plan (the CMS OPD prior authorization list for Medicare FFS), tier 4 of the resolver; `payer`: the payer\'s own rule'),
  pa_required: z.boolean(),
  condition: z
    .string()
    .nullable()
    .optional()
    .describe('a requirement that applies only in the case named here (the OPD botulinum toxin codes: only a drug code J0585-J0588 billed with 64612 or 64615): the determination is `conditional`, with this text'),
  pa_threshold: z.int().positive().nullable().describe('visits allowed before authorization is needed'),
  auth_type: z.string().nullable(),
  delegation_vendor: z.string().nullable(),
  vendor_phone: z.string().nullable(),
  vendor_portal: z.string().nullable(),
  turnaround_standard_days: z.int().positive().nullable(),
  turnaround_standard_unit: z.enum(['calendar_days', 'business_days']).nullable(),
  turnaround_urgent_hours: z.int().positive().nullable(),
  turnaround_urgent_days: z.int().positive().nullable().describe('expedited turnaround when the source states it in (business) days'),
  required_documents: z.array(z.string()),
  gold_card_eligible: z.boolean().default(false),
  effective_date: isoDate.nullable(),
  expiration_date: isoDate.nullable(),
  submission_info: z.strictObject({ email: z.string().optional(), fax: z.string().optional(), mailing_address: z.string().optional(), phone: z.string().optional(), portal_url: z.string().optional() }),
  citation: CitationSchema,
});
export type PriorAuthRuleRow = z.infer<typeof PriorAuthRuleRowSchema>;

export const PolicyRuleRowSchema = z.object({
  payer_slug: z.string(),
  doc_id: z.string(),
  rule_id: z.string(),
  kind: z.string().describe('`coverage`, `billing`, `reimbursement`, ...'),
  code: z.string().nullable(),
  action: z.string().nullable(),
  change_type: z.string().nullable(),
  trigger_condition: z.string().nullable(),
  rule_text: z.string(),
  pdf_uri: z.string().nullable(),
  source_key: z.string().nullable(),
  license_kind: z.string().nullable(),
  effective_from: isoDate.nullable(),
  lineage: z.array(z.string()).describe('doc ids this rule replaced, oldest first'),
  citation: CitationSchema,
});
export type PolicyRuleRow = z.infer<typeof PolicyRuleRowSchema>;

export const ServiceCategoryRowSchema = z.object({
  category: z.string(),
  code_start: z.string(),
  code_end: z.string().describe('equal to code_start for a single code'),
  description: z.string(),
  citation: CitationSchema,
});
export type ServiceCategoryRow = z.infer<typeof ServiceCategoryRowSchema>;

export const PAYER_TABLES = {
  payers: table('payers', PayerRowSchema, ['slug']),
  filing_rules: table('filing_rules', FilingRuleRowSchema, ['payer_slug', 'rule_id']),
  appeal_levels: table('appeal_levels', AppealLevelRowSchema, ['payer_slug', 'plan_type', 'appeal_level']),
  denial_patterns: table('denial_patterns', DenialPatternRowSchema, ['payer_slug', 'group_code', 'carc_code', 'remark_code']),
  prior_auth_rules: table('prior_auth_rules', PriorAuthRuleRowSchema, ['payer_slug', 'rule_id']),
  policy_rules: table('policy_rules', PolicyRuleRowSchema, ['payer_slug', 'doc_id', 'rule_id']),
  service_categories: table('service_categories', ServiceCategoryRowSchema, ['category', 'code_start']),
};
export type PayerTableName = keyof typeof PAYER_TABLES;
