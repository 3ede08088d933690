import { uuidv7 } from '../../warehouse/ids.js';
import { z } from 'zod';
import { todayOf } from '../../datasets/_shared/dates.js';
import { resolvePayerIn } from '../payers/service.js';
import { defineRoute, type RouteDef } from '../route.js';
import { PaCheckQuerySchema, PaDeterminationSchema, DeterminationRecordSchema } from '../prior_auth/schemas.js';
import { checkPriorAuth } from '../prior_auth/service.js';
import { payerKnowledge } from '../../datasets/payers/queries.js';

/**
 * Prior authorization: the 5-tier determination (tier 0 the facility's own override) and the
 * persisted determinations behind it. The resolution is cached per tenant state generation; the
 * record of each check is a durable write after it (`persist`).
 */
export const priorAuthRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/prior-auth/check',
    operationId: 'checkPriorAuth',
    tag: 'prior-auth',
    summary: 'Does this payer require prior authorization for this code or service category? (tiers 0-5, with the rationale)',
    description:
      'Tiers, first match decides: 0 facility_override (with ccn: your override for the CCN), 1 payer_code, 2 payer_category, 3 payer_default ' +
      '(plan type or line of business), 4 national (Medicare FFS: the CMS hospital outpatient department list, at OPD places of service), ' +
      "5 none: determination 'unknown' with pa_required false and a warning, never a silent 'not required'. ccn also fills state and place of service. " +
      'Every check is stored (tenant-scoped, immutable) and its determination_id answers GET /v1/prior-auth/determinations/{id}; persist=false skips the record, and a playground key never stores one.',
    auth: { scope: 'knowledge' },
    reads: 'snapshot+tenant',
    cache: 'daily',
    query: PaCheckQuerySchema,
    resolve: resolvePayerIn('query', 'payer'),
    response: PaDeterminationSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'Medicare FFS, blepharoplasty in a hospital outpatient department', query: { payer: 'medicare_ffs', code: '15823', place_of_service: '22', date_of_service: '2026-03-02' } },
      { summary: 'Medicare by alias, a facet joint injection in a hospital outpatient department', query: { payer: 'medicare', code: '64483', place_of_service: '22', date_of_service: '2026-03-02' } },
      { summary: 'Aetna, an office visit at a registered facility', query: { payer: 'aetna', code: '99213', ccn: '330101' } },
      { summary: 'a payer nobody knows, no code and a negative visit count', status: 422, query: { payer: 'nobody', visit_count: '-1' } },
    ],
    handler: async ({ query, resolved, snapshot, tenant, now, trace }) => {
      const { persist: _persist, payer: _payer, ...q } = query;
      const a = await checkPriorAuth(snapshot, tenant, { knowledge: await payerKnowledge(snapshot), payer: resolved.payer!, query: q, today: todayOf(now()) }, trace);
      return { ...a, reliability: trace.reliability() };
    },
    persist: async ({ query, tenant, snapshotId, now }, answer) => {
      if (query.persist === false) return null;
      const body = answer.value();
      const id = uuidv7(now.getTime());
      await tenant.determinations.create({
        id,
        created_at: now.toISOString(),
        ccn: body.ccn,
        payer_slug: body.payer_slug,
        code: body.code,
        inputs: query,
        result_json: answer.json,
        snapshot_id: snapshotId,
        dataset_versions: body.reliability.dataset_versions,
      });
      return { determination_id: id };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/prior-auth/determinations/{id}',
    operationId: 'getPriorAuthDetermination',
    tag: 'prior-auth',
    summary: 'A persisted prior-auth determination as it was made (audit)',
    description: 'Tenant-scoped: an id of another tenant is 404. Records survive soft and hard facility deletes.',
    auth: { scope: 'audit' },
    reads: 'tenant',
    params: z.object({ id: z.uuid() }),
    response: DeterminationRecordSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'a determination that does not exist', status: 404, params: { id: '00000000-0000-4000-8000-000000000000' } },
      { summary: 'a determination the check persisted', params: { id: '{determination}' } },
    ],
    handler: async ({ params, tenant }) => {
      const d = await tenant.determinations.get(params.id);
      return {
        determination_id: d.id,
        created_at: d.created_at,
        inputs: d.inputs,
        snapshot_id: d.snapshot_id,
        dataset_versions: d.dataset_versions,
        determination: { determination_id: d.id, ...d.result } as never,
      };
    },
  }),
];
