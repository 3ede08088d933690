import { z } from 'zod';
import { defineRoute, type RouteDef } from '../route.js';
import { IsoDateSchema, ReliabilitySchema } from '../schemas.js';

const ChangeSchema = z.object({
  id: z.string(),
  dataset: z.string(),
  from_version: z.string().nullable(),
  to_version: z.string(),
  effective_date: z.string().nullable(),
  summary: z.string(),
  counts: z.object({ added: z.number(), removed: z.number(), changed: z.number(), unchanged: z.number() }),
  supersedes: z.string().optional(),
  created_at: z.string(),
});

/** Dataset change feed, from the change records in the served snapshot's manifest. */
export const dataRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/data/changes',
    operationId: 'listDataChanges',
    tag: 'knowledge',
    summary: 'Dataset version transitions (newest first)',
    description:
      '`dataset` matches an id or an id family (`mpfs` matches `mpfs_rvu`, `ncci` every `ncci_*`). `since` keeps changes effective on or after the date (load date when a change has no effective date).',
    scope: 'knowledge',
    cache: true,
    query: z.object({
      dataset: z.string().regex(/^[a-z0-9_]{2,64}$/, 'dataset must be a snake_case dataset id or prefix').optional(),
      from_version: z.string().max(64).optional(),
      to_version: z.string().max(64).optional(),
      since: IsoDateSchema.optional(),
      limit: z.coerce.number().int().min(1).max(200).default(50),
    }),
    response: z.object({ changes: z.array(ChangeSchema), total_count: z.number().int(), reliability: ReliabilitySchema }),
    handler: ({ query, snapshot, reliability }) => {
      const matches = snapshot.manifest.changes
        .filter((c) => !query.dataset || c.dataset === query.dataset || c.dataset.startsWith(`${query.dataset}_`))
        .filter((c) => !query.from_version || c.from_version === query.from_version)
        .filter((c) => !query.to_version || c.to_version === query.to_version)
        .filter((c) => !query.since || (c.effective_date ?? c.created_at.slice(0, 10)) >= query.since)
        .reverse();
      const datasets = [...new Set(matches.map((c) => c.dataset))];
      return {
        changes: matches.slice(0, query.limit).map(({ samples: _s, ...c }) => c),
        total_count: matches.length,
        reliability: reliability(datasets),
      };
    },
  }),
];
