import { defineRoute, type RouteDef } from '../route.js';
import { ChangeListSchema, ChangeQuerySchema } from './schemas.js';
import { findChanges } from './service.js';

/** Dataset change feed, from the change records in the served snapshot's manifest. */
export const knowledgeRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/data/changes',
    operationId: 'listDataChanges',
    tag: 'knowledge',
    summary: 'Dataset version transitions (newest first)',
    description:
      '`dataset` matches an id or an id family (`mpfs` matches `mpfs_rvu`, `ncci` every `ncci_*`). `since` keeps changes effective on or after the date (load date when a change has no effective date).',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: true,
    query: ChangeQuerySchema,
    response: ChangeListSchema,
    examples: [
      { summary: 'what changed in the NCCI datasets', query: { dataset: 'ncci', limit: '10' } },
      { summary: 'the last three changes of any dataset', query: { limit: '3' } },
      { summary: 'a limit above the largest page', status: 422, query: { limit: '500' } },
    ],
    handler: ({ query, snapshot, trace }) => {
      const { changes, total, datasets } = findChanges(snapshot.manifest, query);
      for (const d of datasets) trace.use(d);
      return { changes, total_count: total, reliability: trace.reliability() };
    },
  }),
];
