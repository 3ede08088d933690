import { todayOf } from '../../datasets/_shared/dates.js';
import { resolvePayerIn } from '../payers/service.js';
import { defineRoute, json, type RouteDef } from '../route.js';
import { resolveKnowledge } from '../knowledge/resolve.js';
import { ChangeListSchema, ChangeQuerySchema, ResolveAnswerSchema, ResolveBodySchema } from '../knowledge/schemas.js';
import { findChanges } from '../knowledge/service.js';
import { isDatasetId } from '../../datasets/registry.js';

/** Knowledge resolution over six layers, and the dataset change feed of the served snapshot's manifest. */
export const knowledgeRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: '/v1/knowledge/resolve',
    operationId: 'resolveKnowledge',
    tag: 'knowledge',
    summary: 'Everything that decides how a service for a payer at a facility is billed and paid, in six layers (L1-L6)',
    description:
      'L1 location, L2 facility type, L3 care setting, L4 payer rules (filing, appeals, your roster, the prior-auth check, policy rules), L5 service group, L6 payment (GET /v1/codes/{cpt}/payment per unit, times units). Each layer has status, dataset_versions, citations, warnings. Never stores a determination.',
    auth: { scope: 'knowledge' },
    reads: 'snapshot+tenant',
    // A question, not a write: the same question again is answered from the cache until the tenant writes (the generation moves) or the day ends.
    cache: 'daily',
    body: json(ResolveBodySchema),
    resolve: resolvePayerIn('body', 'payer'),
    response: ResolveAnswerSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'a facet joint injection for Medicare at a California hospital', body: { ccn: '050454', cpt: '64490', payer: 'medicare_ffs', date_of_service: '2026-03-02', dx_codes: ['M47.812'] } },
      { summary: 'an office visit for Aetna in an office, two units, modifier 25', body: { ccn: '330101', cpt: '99213', payer: 'aetna', place_of_service: '11', modifiers: ['25'], units: 2 } },
      { summary: 'an unknown payer, a bad code and zero units', status: 422, body: { ccn: '050454', cpt: '9', payer: 'nobody', units: 0 } },
      { summary: 'a CCN neither in the reference data nor registered', status: 404, body: { ccn: '999999', cpt: '99213', payer: 'medicare_ffs' } },
    ],
    handler: async ({ body, resolved, snapshot, tenant, trace, now }) => {
      const answer = await resolveKnowledge(snapshot, { body, payer: resolved.payer!, tenant, today: todayOf(now()), now }, trace);
      const r = trace.reliability();
      return { ...answer, reliability: { ...r, warnings: [...new Set(r.warnings)] } };
    },
  }),
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
      { summary: 'no NCCI change since a late date: an empty list naming the datasets searched', query: { dataset: 'ncci', since: '2099-01-01' } },
      { summary: 'a limit above the largest page', status: 422, query: { limit: '500' } },
    ],
    handler: ({ query, snapshot, trace }) => {
      const { changes, total, datasets } = findChanges(snapshot.manifest, query);
      for (const d of datasets) if (isDatasetId(d) && snapshot.has(d)) trace.use(d);
      return { changes, total_count: total, reliability: trace.reliability() };
    },
  }),
];
