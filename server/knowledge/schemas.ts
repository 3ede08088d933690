import { z } from 'zod';
import { IsoDateSchema, ReliabilitySchema } from '../schemas.js';

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
    replaces_seed: z.boolean().describe('this release replaced seed data (no removal guard applies to that)'),
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

export const ChangeQuerySchema = z.object({
  dataset: z
    .string()
    .regex(/^[a-z0-9_]{2,64}$/, 'dataset must be a snake_case dataset id or prefix')
    .optional()
    .describe('a dataset id, or a family prefix such as mpfs or ncci'),
  from_version: z.string().max(64).optional(),
  to_version: z.string().max(64).optional(),
  since: IsoDateSchema.optional().describe('changes effective on or after this date (load date when a change has no effective date)'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
