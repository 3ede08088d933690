import { z } from 'zod';
import { Citation340bSchema, CONTRACT_PHARMACY_RULES, ENTITY_TYPES, PILOT_STATUSES } from '../../datasets/manufacturer_340b/schema.js';
import { StoredWatchSchema } from '../../warehouse/watches.js';
import { IsoDateSchema, QueryBoolSchema, ReliabilitySchema, StateSchema } from '../schemas.js';

/** An NDC as callers write it: 4-4-2, 5-3-2 or 5-4-1 dashed, or 11 digits (5-4-2) with or without dashes. */
export const NdcSchema = z
  .string()
  .trim()
  .regex(/^(\d{4}-\d{4}-\d{2}|\d{5}-\d{3}-\d{2}|\d{5}-\d{4}-\d{1,2}|\d{11})$/, 'NDC must be 4-4-2, 5-3-2 or 5-4-1 with dashes, or 11 digits');
export const EntityTypeSchema = z.enum(ENTITY_TYPES).describe('HRSA covered entity type (OPAIS code)');
const ManufacturerRefSchema = z.string().trim().min(2, 'manufacturer must be at least 2 characters').max(100);
const DrugSchema = z.string().trim().min(2).max(100);

export const ResolveQuerySchema = z
  .strictObject({
    entity_type: EntityTypeSchema,
    manufacturer: ManufacturerRefSchema.optional().describe('manufacturer id, name or alias (`abbvie`, `Eli Lilly`)'),
    ndc: NdcSchema.optional().describe("a drug's NDC (matched by labeler code)"),
    drug: DrugSchema.optional().describe('brand name (`Farxiga`)'),
    state: StateSchema.optional().describe("the covered entity's state"),
    has_in_house_pharmacy: QueryBoolSchema.optional().describe('whether the covered entity has its own (in-house) pharmacy'),
    as_of: IsoDateSchema.optional().describe('the day to resolve for (default today, UTC)'),
  })
  // `when`: checked even when other parameters failed, so one 422 names every issue.
  .refine((q) => q.manufacturer !== undefined || q.ndc !== undefined, { message: 'give manufacturer or ndc', path: ['manufacturer'], when: () => true });

const AccessStatusSchema = z.enum(['allowed', 'conditional', 'restricted', 'unknown']);

/** The spec's 340B access resolution, plus what decided it. */
export const AccessResolutionSchema = z
  .object({
    access_status: AccessStatusSchema,
    policy_status: AccessStatusSchema.describe("what the manufacturer's policy alone answers, before a state law"),
    as_of: z.string().describe('date-time: the start (UTC) of the day resolved for'),
    entity_type: z.string(),
    manufacturer: z.string().nullable(),
    manufacturer_id: z.string().nullable(),
    drug: z.string().nullable(),
    ndc: z.string().nullable(),
    has_in_house_pharmacy: z.boolean().nullable(),
    conditions: z.array(z.string()).describe('what makes the status so: conditions to meet, exemptions, why unknown'),
    policy: z
      .object({ policy_id: z.string(), effective_date: z.string(), contract_pharmacy_rule: z.enum(CONTRACT_PHARMACY_RULES), summary: z.string() })
      .nullable()
      .describe('the policy version in force'),
    data_submission: z.object({ required: z.boolean(), effective_date: z.string().nullable(), platform: z.string().nullable(), scope: z.array(z.string()) }),
    rebate_model: z.object({
      in_scope: z.boolean(),
      effective_date: z.string().nullable(),
      program: z.literal('hrsa_rebate_pilot').nullable(),
      pilot_status: z.enum(PILOT_STATUSES).nullable().describe("HRSA's rebate pilot status on the day"),
      drugs: z.array(z.string()).describe("the manufacturer's rebate-pilot drugs"),
    }),
    state_law_override: z.object({
      applies: z.boolean(),
      state: z.string().nullable(),
      law: z.string().nullable(),
      effective_date: z.string().nullable(),
      litigation_status: z.string().nullable(),
    }),
    citations: z.array(Citation340bSchema).describe('every source a fact of the answer rests on'),
    disclaimer: z.string(),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'AccessResolution340b' });

export const ManufacturerListQuerySchema = z.strictObject({
  manufacturer: ManufacturerRefSchema.optional().describe('manufacturer id, name or alias'),
  status: z.enum(['restricted', 'conditional', 'allowed']).optional().describe('the status of the policy in force for a hospital without an in-house pharmacy'),
  as_of: IsoDateSchema.optional().describe('the policies in force on this day (default today, UTC), from the history'),
});

const HistorySchema = z.object({ date: z.string(), summary: z.string(), citation: Citation340bSchema });

export const ManufacturerPolicySchema = z
  .object({
    id: z.string(),
    manufacturer: z.string(),
    citation: Citation340bSchema,
    contract_pharmacy_rule: z.enum(CONTRACT_PHARMACY_RULES),
    data_submission_required: z.boolean(),
    effective_date: z.string(),
    entity_types_affected: z.array(z.string()),
    entity_types_exempt: z.array(z.string()),
    drugs_in_scope: z.array(z.string()),
    rebate_model_drug: z.boolean().describe('the manufacturer has a drug in the HRSA rebate pilot'),
    status: z.enum(['restricted', 'conditional', 'allowed']).describe('for a hospital without an in-house pharmacy'),
    submission_platform: z.string().nullable(),
    submission_scope: z.array(z.string()),
    history: z.array(HistorySchema).describe('every dated change up to as_of, oldest first'),
  })
  .meta({ id: 'ManufacturerPolicy340b' });

export const ManufacturerListSchema = z
  .object({ as_of: z.string(), manufacturers: z.array(ManufacturerPolicySchema), reliability: ReliabilitySchema })
  .meta({ id: 'ManufacturerPolicyList340b' });

export const CHANGE_KINDS = ['manufacturer_policy', 'state_exemption', 'drug_carve_out', 'rebate_pilot', 'state_law', 'dataset_release'] as const;

export const ChangeItemSchema = z
  .object({
    id: z.string(),
    date: z.string(),
    kind: z.enum(CHANGE_KINDS),
    summary: z.string(),
    manufacturers: z.array(z.string()).describe('manufacturer ids it concerns (empty: every manufacturer)'),
    states: z.array(z.string()).describe('states it concerns (empty: every state)'),
    entity_types: z.array(z.string()).describe('entity types it concerns (empty: every type)'),
    citation: Citation340bSchema.nullable().describe('null for a dataset release (its change record is the source)'),
  })
  .meta({ id: 'Change340b' });

export const ChangeQuerySchema = z.strictObject({
  since: IsoDateSchema.optional().describe('changes dated on or after this day'),
  manufacturer: ManufacturerRefSchema.optional().describe('manufacturer id, name or alias'),
  state: StateSchema.optional(),
  watch: z.uuid('watch must be a watch id').optional().describe('only what this watch of yours matches since it was created (live data)'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional().describe('next_cursor of the previous page'),
});

export const ChangeListSchema = z
  .object({ changes: z.array(ChangeItemSchema), next_cursor: z.string().nullable(), reliability: ReliabilitySchema })
  .meta({ id: 'ChangeList340b' });

export const WatchBodySchema = z.strictObject({
  manufacturers: z.array(ManufacturerRefSchema).max(100).default([]).describe('manufacturer ids, names or aliases (stored as ids)'),
  ndcs: z.array(NdcSchema).max(100).default([]).describe('NDCs: followed through their labeler codes'),
  states: z.array(StateSchema).max(60).default([]).describe('states whose contract-pharmacy law changes are followed (USPS codes)'),
  entity_types: z.array(EntityTypeSchema).max(20).default([]).describe('covered-entity types whose policy changes are followed (hospital types, health centers ...)'),
});

export const WatchSchema = StoredWatchSchema.meta({ id: 'Watch340b' });
/** A new watch as answered: the watch and the manufacturer list its names were checked against. */
export const WatchCreatedSchema = StoredWatchSchema.extend({ reliability: ReliabilitySchema }).meta({ id: 'Watch340bCreated' });
export const WatchListSchema = z
  .object({ watches: z.array(WatchSchema), next_cursor: z.string().nullable().describe('pass as cursor for the next page; null on the last') })
  .meta({ id: 'WatchList340b' });
export const WatchListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('at most this many watches (1-100; a tenant holds at most 100)'),
  cursor: z.string().max(200).optional().describe('next_cursor of the previous page'),
});
export const WatchParamsSchema = z.object({ id: z.uuid('id must be a watch id').describe('watch id') });
