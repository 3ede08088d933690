import { z } from 'zod';
import { ReliabilitySchema } from '../schemas.js';
import { npiProblem } from './provider.js';

export const NpiParamsSchema = z.strictObject({
  npi_number: z
    .string()
    .superRefine((v, ctx) => {
      const problem = npiProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .describe('10-digit NPI (its last digit checks the first nine)'),
});
export const NpiQuerySchema = z.strictObject({
  live: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true')
    .describe('true: ask the live NPPES registry, bypassing the local copy'),
});

const TaxonomySchema = z.object({ code: z.string(), description: z.string().nullable(), license: z.string().nullable(), state: z.string().nullable() });

export const ProviderSchema = z
  .object({
    npi: z.string(),
    entity_type: z.enum(['individual', 'organization']).nullable().describe('null for a deactivated NPI the local copy knows only by number and date'),
    name: z.string(),
    credential: z.string().nullable(),
    gender: z.string().nullable(),
    enumeration_date: z.string().nullable(),
    last_updated: z.string().nullable(),
    status: z.string().describe('active or deactivated'),
    deactivation_date: z.string().nullable().describe('YYYY-MM-DD, when deactivated'),
    primary_taxonomy: TaxonomySchema.nullable(),
    other_taxonomies: z.array(TaxonomySchema),
    practice_address: z
      .object({
        address_1: z.string().nullable(),
        address_2: z.string().nullable(),
        city: z.string().nullable(),
        state: z.string().nullable(),
        postal_code: z.string().nullable(),
        phone: z.string().nullable(),
        fax: z.string().nullable(),
      })
      .nullable(),
  })
  .meta({ id: 'Provider' });

export const NpiLookupSchema = z
  .object({
    npi: z.string(),
    found: z.boolean(),
    source: z.enum(['nppes_local', 'nppes_api']).nullable().describe('which source answered: nppes_local (the loaded NPPES copy) or nppes_api (the live registry); null when none had it'),
    data_sources: z.array(z.string()).describe('every source asked, in order: nppes_local@<version>, nppes_api'),
    raw: z.record(z.string(), z.unknown()).nullable().describe('the source record: the local row (provider, practice_locations, other_names) or the registry result as sent'),
    provider: ProviderSchema.nullable(),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'NpiLookup' });
