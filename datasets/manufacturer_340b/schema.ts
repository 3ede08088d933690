import { z } from 'zod';
import { table } from '../_shared/table.js';

/**
 * Curated 340B knowledge: manufacturers' contract-pharmacy policies over time, their drug
 * carve-outs and rebate-model drugs, HRSA's rebate pilot status, and the states' contract-pharmacy
 * protection laws. Every row carries the `citation` it rests on (a row without one is rejected at
 * ingest); a figure or date the curators could not cite is absent (null), never estimated.
 */

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD');
const state = z.string().regex(/^[A-Z]{2}$/, 'a two-letter state code');

export const Citation340bSchema = z
  .strictObject({
    title: z.string().min(3),
    url: z.url(),
    published: isoDate.nullable().describe('the date the source was published, as it states; null when the page carries no date'),
  })
  .meta({ id: 'Citation340b' });
export type Citation340b = z.infer<typeof Citation340bSchema>;

/** HRSA's hospital covered entity types (340B OPAIS codes). */
export const HOSPITAL_TYPES = ['DSH', 'PED', 'CAH', 'SCH', 'RRC', 'CAN'] as const;
/** HRSA's grantee covered entity types (OPAIS codes; Ryan White parts as one `RW`). */
export const GRANTEE_TYPES = ['CH', 'FQHCLA', 'RW', 'HM', 'BL', 'FP', 'STD', 'TB', 'NH', 'UI'] as const;
export const ENTITY_TYPES = [...HOSPITAL_TYPES, ...GRANTEE_TYPES] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];
/** What a policy or law names: an entity type, or every hospital or every grantee type. */
export const EntityScopeSchema = z.enum([...ENTITY_TYPES, 'hospitals', 'grantees']);
export type EntityScope = z.infer<typeof EntityScopeSchema>;

export const CONTRACT_PHARMACY_RULES = [
  'none',
  'single_contract_pharmacy',
  'single_contract_pharmacy_within_40_miles',
  'two_contract_pharmacies',
  'claims_data_required',
  'no_contract_pharmacy',
] as const;

export const ManufacturerRowSchema = z.object({
  manufacturer_id: z.string().regex(/^[a-z][a-z0-9_]*$/, 'a snake_case id'),
  name: z.string().min(2),
  aliases: z.array(z.string().min(2)).describe('other names callers use (company names, subsidiaries)'),
  labeler_codes: z.array(z.string().regex(/^\d{5}$/, 'a 5-digit FDA labeler code')).describe('FDA labeler codes the cited source names for this manufacturer'),
  review_status: z.enum(['verified', 'unverified']).describe('`unverified`: curated from the cited sources, not yet re-read by a second person'),
  citation: Citation340bSchema,
});
export type ManufacturerRow = z.infer<typeof ManufacturerRowSchema>;

export const PolicyRowSchema = z.object({
  manufacturer_id: z.string(),
  policy_id: z.string().regex(/^[a-z0-9_-]+$/, 'a short id, unique within the manufacturer (e.g. 2023-04-17-hospitals)'),
  effective_date: isoDate.describe('the day this version of the policy took effect; it stays in force until the next one'),
  summary: z.string().min(10),
  contract_pharmacy_rule: z.enum(CONTRACT_PHARMACY_RULES),
  max_distance_miles: z.int().positive().nullable().describe('how far from the parent site a designated contract pharmacy may be'),
  designation_requires_no_in_house_pharmacy: z.boolean().default(true).describe('a contract pharmacy may be designated only by an entity without an in-house pharmacy'),
  entity_types_affected: z.array(EntityScopeSchema).describe('the entity types this version governs (empty: every type); for a type it does not name, the previous version covering that type stays in force'),
  entity_types_exempt: z.array(EntityScopeSchema),
  drugs_in_scope: z.array(z.string()).describe('empty: every product of the manufacturer'),
  data_submission_required: z.boolean().describe('claims data must be submitted for contract pharmacy orders'),
  data_submission_unlocks: z.enum(['multiple_contract_pharmacies', 'designation']).nullable().describe('what submitting the data opens: any number of contract pharmacies, or the single designation itself'),
  submission_platform: z.string().nullable(),
  submission_scope: z.array(z.string()).describe('which claims or fields must be submitted'),
  data_submission_effective_date: isoDate.nullable(),
  citation: Citation340bSchema,
});
export type PolicyRow = z.infer<typeof PolicyRowSchema>;

export const StateExemptionRowSchema = z.object({
  manufacturer_id: z.string(),
  state,
  effective_date: isoDate,
  entity_types: z.array(EntityScopeSchema).describe('empty: every covered entity type in the state'),
  summary: z.string().min(10),
  citation: Citation340bSchema,
});
export type StateExemptionRow = z.infer<typeof StateExemptionRowSchema>;

export const CarveOutRowSchema = z.object({
  manufacturer_id: z.string(),
  drug: z.string().min(2),
  effective_date: isoDate,
  treatment: z.enum(['excluded_from_policy', 'conditional_exception']).describe('`excluded_from_policy`: the contract-pharmacy policy does not apply to the drug; `conditional_exception`: it is exempt when the listed conditions hold'),
  conditions: z.array(z.string()),
  summary: z.string().min(10),
  citation: Citation340bSchema,
});
export type CarveOutRow = z.infer<typeof CarveOutRowSchema>;

export const RebateDrugRowSchema = z.object({
  manufacturer_id: z.string(),
  drug: z.string().min(2),
  labeler_name: z.string().describe('the labeler HRSA named in its approval'),
  program: z.literal('hrsa_rebate_pilot'),
  effective_date: isoDate.nullable().describe('when rebates were to replace the upfront 340B price for this drug; null when no source at hand dates it (the drug is then never in scope)'),
  citation: Citation340bSchema,
});
export type RebateDrugRow = z.infer<typeof RebateDrugRowSchema>;

export const PILOT_STATUSES = ['announced', 'approved', 'in_effect', 'enjoined', 'paused', 'vacated', 'withdrawn'] as const;

export const RebatePilotRowSchema = z.object({
  date: isoDate,
  time: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time of day as HH:MM')
    .nullable()
    .describe('the time of day the status takes effect, as the source states it (HRSA names no time zone); null: from the start of the day. A day-level answer applies a timed status from the next day and warns on the day itself'),
  status: z.enum(PILOT_STATUSES).describe('the pilot status from this date on (court orders included)'),
  summary: z.string().min(10),
  citation: Citation340bSchema,
});
export type RebatePilotRow = z.infer<typeof RebatePilotRowSchema>;

const LawEventSchema = z.strictObject({ date: isoDate, summary: z.string().min(10), citation: Citation340bSchema });

export const StateLawRowSchema = z.object({
  state,
  law: z.string().describe('act or bill as enacted'),
  statute: z.string().nullable().describe('where it is codified'),
  effective_date: isoDate.nullable().describe('null when no source at hand states it (the law is then never applied by date)'),
  enjoined_date: isoDate
    .nullable()
    .describe('the day a cited court order began barring its enforcement (the law is then not applied from that day, and the answer says so); null: no such order is cited'),
  entity_types_protected: z.array(EntityScopeSchema).describe('empty: every covered entity type'),
  bars: z.array(z.enum(['restricting_contract_pharmacy_delivery', 'requiring_claims_data'])).describe('the manufacturer conduct the law prohibits'),
  litigation_status: z.string().nullable(),
  history: z.array(LawEventSchema).describe('enactment, court decisions; each cited'),
  citation: Citation340bSchema,
});
export type StateLawRow = z.infer<typeof StateLawRowSchema>;

export const B340_TABLES = {
  manufacturers: table('manufacturers', ManufacturerRowSchema, ['manufacturer_id']),
  policies: table('policies', PolicyRowSchema, ['manufacturer_id', 'policy_id']),
  state_exemptions: table('state_exemptions', StateExemptionRowSchema, ['manufacturer_id', 'state', 'effective_date']),
  carve_outs: table('carve_outs', CarveOutRowSchema, ['manufacturer_id', 'drug', 'effective_date']),
  rebate_drugs: table('rebate_drugs', RebateDrugRowSchema, ['manufacturer_id', 'drug']),
  rebate_pilot: table('rebate_pilot', RebatePilotRowSchema, ['date', 'status']),
  state_laws: table('state_laws', StateLawRowSchema, ['state']),
};
export type B340TableName = keyof typeof B340_TABLES;
