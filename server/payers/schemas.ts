import { z } from 'zod';
import {
  AppealLevelRowSchema,
  CitationSchema,
  DenialPatternRowSchema,
  FilingRuleRowSchema,
  PayerRowSchema,
  PriorAuthRuleRowSchema,
} from '../../datasets/payers/schema.js';
import { PolicyRuleSchema } from '../policies/schemas.js';
import { IsoDateSchema, PayerRefSchema, PlanTypeSchema, ReliabilitySchema, StateSchema } from '../schemas.js';
import { DenialRemedySchema } from '../denials/remedy.js';
import { AppealLevelDeadlineSchema } from '../deadlines/deadlines.js';
import { X12_STATUSES } from '../../datasets/x12_codes/queries.js';

export const SlugParams = z.object({ slug: PayerRefSchema.describe('payer slug or alias (`medicare_ffs`, `medicare`, `Medi-Cal`)') });

export const PayerSearchResultSchema = PayerRowSchema.pick({
  slug: true,
  name: true,
  payer_type: true,
  coverage_scope: true,
  is_active: true,
  knowledge_depth: true,
  data_quality_score: true,
})
  .extend({
    matched_on: z.enum(['slug', 'name', 'alias']).describe('what the query matched'),
    matched_text: z.string(),
    score: z.number().describe('match quality, 1 for an exact slug, name or alias'),
  })
  .meta({ id: 'PayerSearchResult' });

export const PayerSearchQuerySchema = z.object({
  q: z.string().trim().min(2, 'q must be at least 2 characters').max(100),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** A payer's public profile: identity, contacts, EDI ids, filing and appeal rules (denial patterns need a key). */
export const PayerProfileSchema = PayerRowSchema.extend({
  filing_rules: z.array(FilingRuleRowSchema.omit({ payer_slug: true })),
  appeal_levels: z.array(AppealLevelRowSchema.omit({ payer_slug: true })),
  reliability: ReliabilitySchema,
}).meta({ id: 'PayerProfile' });

export const DirectoryQuerySchema = z.object({
  q: z.string().trim().min(2, 'q must be at least 2 characters').max(100).optional(),
  payer_type: PayerRowSchema.shape.payer_type.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional().describe('next_cursor of the previous page'),
});
export const DirectoryListSchema = z
  .object({
    results: z.array(PayerSearchResultSchema.partial({ matched_on: true, matched_text: true, score: true })),
    next_cursor: z.string().nullable(),
    total: z.int(),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'PayerDirectoryPage' });

/** The spec's denial pattern, with the payer it belongs to and the source it rests on. */
export const DenialPatternSchema = DenialPatternRowSchema.extend({
  denial_code: z.string().describe('group + CARC as printed on a remittance (`CO-50`), or the CARC alone'),
  payer_name: z.string(),
  remedy: DenialRemedySchema.describe('what this denial leaves the provider to do, by the payer’s pattern (no deadline: a pattern has no claim dates)'),
}).meta({ id: 'DenialPattern' });
export const DenialPatternListSchema = z.array(DenialPatternSchema).meta({ id: 'DenialPatternList' });
export const PayerSearchResultListSchema = z.array(PayerSearchResultSchema).meta({ id: 'PayerSearchResults' });

export const X12MasterSchema = z
  .object({
    code_type: z.enum(['carc', 'rarc']),
    carc_code: z.string().nullable(),
    carc_description: z.string().nullable(),
    rarc_code: z.string().nullable(),
    rarc_description: z.string().nullable(),
    group_code: z.string().nullable(),
    group_description: z.string().nullable(),
    effective_date: z.string().nullable(),
    last_modified: z.string().nullable(),
    stop_date: z.string().nullable().describe('the date X12 deactivated the code (null while in use)'),
    notes: z.string().nullable(),
    status: z.enum(X12_STATUSES).optional().describe('the code on `as_of` by its start and stop dates: `deactivated` from its stop date (it was valid before it), `not_yet_active` before its start date'),
    status_note: z.string().optional().describe('the status in words, with the date that decides it'),
  })
  .meta({ id: 'X12MasterCode' });

export const DenialCodeLookupSchema = z
  .object({
    denial_code: z.string().describe('the code as given'),
    matched_as: z.enum(['carc', 'rarc', 'group+carc']),
    group_code: z.string().nullable(),
    code: z.string().describe('the CARC or RARC itself'),
    payer_count: z.int(),
    total_results: z.int(),
    results: z.array(DenialPatternSchema),
    remedy: DenialRemedySchema.describe('what the code alone leaves to do, for any payer (each pattern in `results` carries its payer’s own)'),
    x12_master: z.array(X12MasterSchema),
    as_of: z.string().optional().describe('the date the code was checked on (the remittance date given, else today)'),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'DenialCodeLookup' });

export const DenialCodeQuerySchema = z.object({
  as_of: IsoDateSchema.optional().describe("the remittance's date (when the payer used the code): the X12 lists' start and stop dates are checked on it (default today, UTC)"),
});

export const DenialCodeParams = z.object({
  code: z
    .string()
    .trim()
    .toUpperCase()
    .max(12)
    .describe('a CARC (`50`), group + CARC (`CO-50`, `CO50`, `co 50`) or a RARC (`N290`, `MA130`)'),
});

export const AppealQuerySchema = z.object({
  denial_date: IsoDateSchema.describe('the date printed on the denial notice'),
  state: StateSchema.optional(),
  plan_type: PlanTypeSchema.optional(),
  as_of: IsoDateSchema.optional().describe('the day days_remaining counts from (default today, UTC)'),
  decision_date: IsoDateSchema.optional().describe('date of the decision at decision_level, from which the next level runs'),
  decision_level: z.coerce.number().int().min(1).max(10).optional().describe('the level decision_date belongs to (default 1)'),
});

export const AppealDeadlineSchema = z
  .object({
    denial_date: z.string(),
    as_of: z.string(),
    payer_slug: z.string(),
    payer_name: z.string(),
    receipt_convention: z.string().describe('how the notice date becomes the start of the clock'),
    appeal_levels: z.array(AppealLevelDeadlineSchema),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'AppealDeadline' });

export const TimelyFilingQuerySchema = z.object({
  date_of_service: IsoDateSchema,
  plan_type: PlanTypeSchema.optional(),
  state: StateSchema.optional(),
  as_of: IsoDateSchema.optional().describe('the day days_remaining counts from (default today, UTC)'),
  primary_payment_date: IsoDateSchema.optional().describe('for rules counting from the primary payer’s payment'),
});

export const FilingDeadlineOut = z.object({
  rule_id: z.string(),
  claim_type: z.string(),
  plan_type: z.string().nullable(),
  limit_value: z.int(),
  limit_unit: z.enum(['days', 'months']),
  clock_starts: FilingRuleRowSchema.shape.clock_starts,
  clock_start_date: z.string().nullable(),
  override_applied: z.string().nullable(),
  deadline_date: z.string().nullable(),
  days_remaining: z.int().nullable(),
  is_expired: z.boolean().nullable(),
  business_day_adjustment: z.object({ moved_from: z.string(), reasons: z.array(z.string()) }).nullable(),
  full_payment_deadline_date: z.string().nullable().optional().describe('the last day the claim is paid in full, for a rule with reduced-payment tiers (then deadline_date is the end of the last tier); null otherwise'),
  payment_schedule: z
    .array(z.object({ from_date: z.string().nullable(), through_date: z.string(), payment_percent: z.number() }))
    .optional()
    .describe('full payment to the limit, then each reduced tier (Medi-Cal: 75% months 7-9, 50% months 10-12 after the month of service); empty for a rule without tiers'),
  payment_percent_as_of: z.number().nullable().optional().describe('the share paid for a claim received on as_of (100, a tier, or 0 after the last tier); null for a rule without tiers'),
  explanation: z.string(),
  notes: z.string().nullable(),
  citation: CitationSchema,
});

export const TimelyFilingSchema = z
  .object({
    payer_slug: z.string(),
    payer_name: z.string(),
    date_of_service: z.string(),
    as_of: z.string(),
    deadlines: z.array(FilingDeadlineOut).describe('one per filing rule of the payer (initial, corrected, secondary, ...)'),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'TimelyFiling' });

export const ClaimIntelligenceQuerySchema = z.object({
  // The spec's minimum length 1: any code a claim carries is answered (a code no loaded source
  // knows answers no fee and no rules, with a warning), not refused for its shape.
  code: z.string().trim().toUpperCase().min(1, 'code is required').max(20, 'code is at most 20 characters').regex(/^[A-Z0-9.-]+$/, 'code is letters, digits, dots or hyphens').describe('the CPT/HCPCS (or other) code the claim carries'),
  modifier: z.string().trim().toUpperCase().regex(/^[A-Z0-9]{2}$/, 'Modifier must be 2 letters or digits').optional(),
  plan_type: PlanTypeSchema.optional(),
  service_category: z.string().trim().toLowerCase().max(80).optional(),
  state: StateSchema.optional(),
});

const FeeSchema = z.object({
  code: z.string(),
  modifier: z.string(),
  work_rvu: z.number().nullable(),
  pe_rvu_nonfacility: z.number().nullable(),
  pe_rvu_facility: z.number().nullable(),
  mp_rvu: z.number().nullable(),
  conversion_factor: z.number().nullable().describe("the non-QPP conversion factor payment uses for this code today: the service year's (GET /v1/codes/{code}/payment answers the same)"),
  conversion_factor_source: z.string().describe('where the factor comes from: the RVU release of the year, or the CY2026 constant'),
  year: z.int(),
  quarter: z.int(),
  source: z.string(),
});

export const ClaimIntelligenceSchema = z
  .object({
    payer_slug: z.string(),
    payer_name: z.string(),
    payer_type: z.string(),
    code: z.string(),
    modifier: z.string().nullable(),
    plan_type: z.string().nullable(),
    edi_payer_ids: z.record(z.string(), z.string()),
    fee: FeeSchema.nullable().describe('Medicare physician fee schedule RVUs of the release in force (a reference for every payer)'),
    policy_rules: z.array(PolicyRuleSchema),
    coverage_determinations: z
      .array(PolicyRuleSchema)
      .meta({ deprecated: true })
      .describe('deprecated alias: the Medicare (`source_key` cms_mcd) rows of policy_rules, Medicare FFS only; read policy_rules'),
    denial_patterns: z.array(DenialPatternSchema),
    appeal_rules: z.array(AppealLevelRowSchema.omit({ payer_slug: true })),
    filing_rules: z.array(
      FilingRuleRowSchema.omit({ payer_slug: true }).extend({
        standard_days: z.int().nullable().describe('the limit in days; null when it counts calendar months (standard_months holds it)'),
        standard_months: z.int().nullable().describe('the limit in calendar months (Medicare: 12); null when it counts days (standard_days holds it)'),
        applied_limit: z.object({ value: z.int(), unit: z.enum(['days', 'months']), override: z.string().nullable() }),
      }),
    ),
    prior_auth_rules: z.array(
      PriorAuthRuleRowSchema.omit({ payer_slug: true }).extend({
        portal_url: z.string().nullable().describe("where to submit: the vendor's portal, else the payer's submission portal"),
      }),
    ),
    prior_auth: z.object({
      pa_required: z.boolean().nullable(),
      determination: z.string(),
      matched_rules: z.array(z.string()),
    }),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'ClaimIntelligence' });

