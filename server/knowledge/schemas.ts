import { z } from 'zod';
import { ownValue } from '../../lib/own.js';
import { DATASETS } from '../../datasets/registry.js';
import { MacJurisdictionRowSchema } from '../../datasets/mac_jurisdictions/dataset.js';
import { AppealLevelRowSchema, PayerRowSchema } from '../../datasets/payers/schema.js';
import { FacilityReferenceSchema, PaOverrideSchema, PaymentSystemSchema, PosSchema, RegistrationSchema, RosterEntrySchema } from '../facilities/schemas.js';
import { FilingDeadlineOut } from '../payers/schemas.js';
import { ModifierSchema, PaymentCompositionSchema } from '../payment/schemas.js';
import { PolicyRuleSchema } from '../policies/schemas.js';
import { PaDeterminationSchema } from '../prior_auth/schemas.js';
import { CcnSchema, HcpcsSchema, icd10Schema, IsoDateSchema, PayerRefSchema, PlanTypeSchema, ReliabilitySchema, StateSchema } from '../schemas.js';

const CountsSchema = z.object({ added: z.number(), removed: z.number(), changed: z.number(), unchanged: z.number() });

/** The spec's dataset change record. */
export const ChangeSchema = z
  .object({
    id: z.string(),
    dataset: z.string(),
    from_version: z.string().nullable(),
    to_version: z.string(),
    effective_date: z.string().nullable(),
    summary: z.string(),
    counts: CountsSchema,
    supersedes: z.string().optional(),
    seed: z.boolean().describe('the version is seed (sample) data of the repository (`rcm seed`), not a publisher release'),
    replaces_seed: z.boolean().describe('this release replaced seed data (no removal guard applies to that): a seed is served only while its dataset has no real release'),
    replaced_seeds: z.array(z.string()).describe('the seed versions this release took out of service (empty when none)'),
    delta_of: z
      .string()
      .nullable()
      .describe('a delta release (an NPPES weekly file) folded into this version, which it follows: `to_version` holds its rows plus the delta; null for a whole release'),
    created_at: z.string(),
  })
  .meta({ id: 'DatasetChange' });

/** `GET /v1/data/changes`: the spec's change record list (newest first). */
export const ChangeListSchema = z
  .object({ changes: z.array(ChangeSchema), total_count: z.number().int(), reliability: ReliabilitySchema })
  .meta({ id: 'DatasetChangeList' });

/**
 * Names of publications that are not a dataset id's prefix but cover datasets (the spec's own
 * example `ipps`: the IPPS final rule's wage index table and its CBSA crosswalk).
 */
export const DATASET_FAMILIES: Record<string, readonly string[]> = {
  ipps: ['wage_index', 'cbsa_county'],
  pfs: ['mpfs_rvu', 'gpci', 'locality_county', 'zip_locality', 'anesthesia_cf', 'anesthesia_base_units', 'opps_cap'],
  mcd: ['mcd_documents', 'mcd_coverage'],
  x12: ['x12_codes'],
};

/** The dataset ids a change-feed `dataset` filter names: an id, a family prefix (`ncci` -> `ncci_*`) or a family above. */
export function datasetsNamed(filter: string): string[] {
  const ids = DATASETS.map((d) => d.id as string);
  return [...new Set([...ids.filter((id) => id === filter || id.startsWith(`${filter}_`)), ...(ownValue(DATASET_FAMILIES, filter) ?? [])])];
}

export const ChangeQuerySchema = z.object({
  dataset: z
    .string()
    .regex(/^[a-z0-9_]{2,64}$/, 'dataset must be a snake_case dataset id or prefix')
    .refine((v) => !/^[a-z0-9_]{2,64}$/.test(v) || datasetsNamed(v).length > 0, {
      error: (i) =>
        `dataset '${String(i.input)}' names no dataset; known: ${DATASETS.map((d) => d.id).join(', ')}; families: every id prefix before '_' (mpfs, ncci, medicaid, medi_cal ...) and ${Object.keys(DATASET_FAMILIES).join(', ')}`,
    })
    .optional()
    .describe(`a dataset id, a family prefix such as mpfs or ncci, or one of ${Object.keys(DATASET_FAMILIES).join(', ')} (ipps: wage_index and cbsa_county); an unknown name is 422 listing the known ids`),
  from_version: z.string().max(64).optional(),
  to_version: z.string().max(64).optional(),
  since: IsoDateSchema.optional().describe('changes effective on or after this date (load date when a change has no effective date)'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

// ---- POST /v1/knowledge/resolve ----

const Icd10Schema = icd10Schema('dx_codes are ICD-10-CM codes such as M47.812');

export const ResolveBodySchema = z.strictObject({
  ccn: z.string().trim().toUpperCase().pipe(CcnSchema).describe('the facility: its geography, type and your registration, roster and overrides'),
  cpt: HcpcsSchema.describe('CPT/HCPCS code'),
  payer: PayerRefSchema.describe('payer slug or alias'),
  date_of_service: IsoDateSchema.optional().describe('default today (UTC)'),
  place_of_service: PosSchema.optional().describe('default: your registration\'s, else 22 for a hospital'),
  modifiers: z.array(ModifierSchema).max(4, 'at most 4 modifiers').optional().describe('the first pricing modifier (26, TC, 53) prices L6'),
  plan_type: PlanTypeSchema.optional().describe('the plan or line of business (hmo, ppo, medicare_advantage ...): plan-specific payer rules and overrides'),
  state: StateSchema.optional().describe('default the facility\'s'),
  units: z.int().min(1).max(9999).optional().describe('default 1'),
  dx_codes: z.array(Icd10Schema).max(12, 'at most 12 diagnosis codes').optional().describe('checked against the covered lists of the Medicare billing articles in L4'),
});
export type ResolveBody = z.output<typeof ResolveBodySchema>;

const LayerStatusSchema = z.enum(['resolved', 'partial', 'unavailable']);

/** What every layer carries beside its facts: how complete it is and what it rests on. */
const LayerBase = {
  status: LayerStatusSchema,
  dataset_versions: z.record(z.string(), z.string()),
  citations: z.array(z.object({ dataset: z.string(), version: z.string(), publisher: z.string(), source_files: z.array(z.string()) })),
  warnings: z.array(z.string()),
};

const JurisdictionSchema = MacJurisdictionRowSchema.pick({ jurisdiction: true, kind: true, contractor: true, citation: true }).extend({
  partial: z.string().nullable().describe('covers part of the state only (JL: Part B in Northern Virginia)'),
});

export const LocationLayerSchema = z
  .object({
    ...LayerBase,
    ...FacilityReferenceSchema.pick({ county: true, county_fips: true, zip: true, cbsa: true, cbsa_name: true, mac: true, locality: true, locality_number: true, locality_name: true, wage_index: true }).shape,
    state: z.string().nullable(),
    is_rural: z.boolean().nullable(),
    rural_source: FacilityReferenceSchema.shape.rural_source,
    mac_jurisdictions: z.array(JurisdictionSchema).describe('the A/B and DME MAC jurisdictions of the state (mac_jurisdictions)'),
  })
  .meta({ id: 'KnowledgeLocationLayer' });

export const FacilityTypeLayerSchema = z
  .object({
    ...LayerBase,
    ccn: z.string(),
    name: z.string(),
    facility_type: z.string(),
    facility_type_label: z.string(),
    ccn_category: z.object({ range: z.string(), category: z.string(), citation: z.string() }).nullable().describe('from the CCN\'s last four digits (State Operations Manual ch. 2, 2779A1); null outside the curated ranges'),
    payment_system: PaymentSystemSchema,
    billing_form: z.object({
      facility_claim: z.string().nullable().describe('the institutional claim a hospital bills (UB-04); null when not a hospital type'),
      professional_claim: z.string(),
    }),
    registered: z.boolean(),
    registration: RegistrationSchema.nullable(),
    overrides: z.array(PaOverrideSchema).describe('your active prior-auth overrides for the CCN (tier 0)'),
    from_registration: z.array(z.string()).describe('fields your registration sets over the reference data'),
  })
  .meta({ id: 'KnowledgeFacilityTypeLayer' });

export const CareSettingLayerSchema = z
  .object({
    ...LayerBase,
    place_of_service: z.string().nullable(),
    place_of_service_source: z.enum(['request', 'registration', 'facility_default']).nullable(),
    pe_setting: z.enum(['facility', 'non_facility']).describe('the physician PE-RVU the setting pays (L6 prices with the same)'),
    type_of_bill: z.string().nullable().describe('UB-04 form locator 4 where it follows from facility and setting: 013x hospital outpatient, 011x inpatient, 085x CAH outpatient'),
  })
  .meta({ id: 'KnowledgeCareSettingLayer' });

export const PayerRulesLayerSchema = z
  .object({
    ...LayerBase,
    payer: PayerRowSchema.pick({ slug: true, name: true, payer_type: true, knowledge_depth: true, review_status: true }),
    plan_type: z.string().nullable(),
    state: z.string().nullable(),
    filing_rules: z.array(FilingDeadlineOut).describe('each filing rule with its deadline for the date of service'),
    appeal_levels: z.array(AppealLevelRowSchema.omit({ payer_slug: true }).extend({ applied_deadline_days: z.int().describe('after the state\'s rule, when it has one') })),
    roster: RosterEntrySchema.nullable().describe('your roster entry for the payer at the CCN (network status); null when none'),
    prior_auth: PaDeterminationSchema.omit({ determination_id: true, reliability: true }).describe('what GET /v1/prior-auth/check answers for the same input (never stored)'),
    policy_rules: z.array(PolicyRuleSchema),
    diagnosis_coverage: z
      .array(z.object({ doc_id: z.string(), covered_dx_codes: z.array(z.string()), verdict: z.enum(['covered', 'not_covered']) }))
      .nullable()
      .describe('with dx_codes: per Medicare billing article with a covered list, which given codes it lists'),
  })
  .meta({ id: 'KnowledgePayerRulesLayer' });

export const ServiceGroupLayerSchema = z
  .object({
    ...LayerBase,
    code: z.string(),
    description: z.string().nullable(),
    status_code: z.string().nullable(),
    status_description: z.string().nullable(),
    pctc_indicator: z.string().nullable(),
    global_days: z.string().nullable(),
    mue: z.array(z.object({ mue_type: z.string(), mue_value: z.int().nullable(), mue_adj_ind: z.int().nullable(), mue_rationale: z.string().nullable() })),
    add_on: z.object({ primary_codes: z.array(z.string()).describe('as an add-on, the codes it is billed with'), add_on_codes: z.array(z.string()).describe('as a primary, its add-ons') }),
    opps: z.object({ apc_code: z.string().nullable(), status_indicator: z.string(), payment_rate: z.number().nullable(), version: z.string() }).nullable(),
    lab: z.boolean().describe('on the clinical laboratory fee schedule'),
    dme: z.boolean().describe('on the DMEPOS fee schedule'),
  })
  .meta({ id: 'KnowledgeServiceGroupLayer' });

export const PaymentLayerSchema = z
  .object({
    ...LayerBase,
    modifier: z.string().nullable().describe('the pricing modifier used (the first 26, TC or 53 of modifiers)'),
    composition: PaymentCompositionSchema.omit({ reliability: true }).nullable().describe('per unit, exactly as GET /v1/codes/{cpt}/payment answers'),
    units: z.int(),
    amount_basis: z
      .enum(['medicare_payment', 'medicare_reference'])
      .describe("medicare_payment: the payer is Medicare and the amounts are its payment; medicare_reference: another payer's request, the Medicare fee schedule shown as a reference amount (the layer is partial)"),
    total_blocks: z
      .array(z.enum(['physician', 'outpatient_facility', 'lab', 'dme']))
      .describe("the composition's blocks the claim line is paid, its applicable_blocks: a professional-only line (modifier 26, 80, 81, 82, AS, 62 or 66) is paid the physician block only, the hospital's OPPS amount being on its own claim"),
    estimated_payment_total: z.number().nullable().describe('the total_blocks amounts x units, in cents'),
  })
  .meta({ id: 'KnowledgePaymentLayer' });

export const ResolveAnswerSchema = z
  .object({
    ccn: z.string(),
    cpt: z.string(),
    payer_slug: z.string(),
    date_of_service: z.string(),
    layers: z.object({
      L1_location: LocationLayerSchema,
      L2_facility_type: FacilityTypeLayerSchema,
      L3_care_setting: CareSettingLayerSchema,
      L4_payer_rules: PayerRulesLayerSchema,
      L5_service_group: ServiceGroupLayerSchema,
      L6_payment: PaymentLayerSchema,
    }),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'KnowledgeResolution' });
export type ResolveAnswer = z.output<typeof ResolveAnswerSchema>;
