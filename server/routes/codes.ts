import { z } from 'zod';
import { defineRoute, type RouteDef } from '../route.js';
import { HcpcsSchema } from '../schemas.js';
import { CodeLookupSchema, CrosswalkCodeSchema, CrosswalkResultSchema } from '../codes/schemas.js';
import { getCodeLookup, getCrosswalks, groupBySystem } from '../codes/service.js';

/** Code lookup (descriptor, status, RVUs per release) and crosswalks. */
export const codeRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/codes/{code}',
    operationId: 'getCode',
    tag: 'codes',
    summary: 'Code lookup: descriptor, status and RVUs per year and quarter',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: true,
    params: z.object({ code: HcpcsSchema }),
    response: CodeLookupSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'an established-patient office visit', params: { code: '99213' } },
      { summary: 'a code in no loaded code set', status: 404, params: { code: 'ZZZZZ' } },
      { summary: 'too short to be a code', status: 422, params: { code: '12' } },
    ],
    handler: async ({ params, snapshot, trace }) => {
      const { lookup, version } = await getCodeLookup(snapshot, params.code);
      return { ...lookup, reliability: trace.use('mpfs_rvu', version).reliability() };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/codes/crosswalk/{code}',
    operationId: 'getCrosswalk',
    tag: 'codes',
    summary: 'Crosswalks of a HCPCS code (to APC and NDC) or an NDC (to HCPCS), grouped by target system',
    description: 'HCPCS -> APC from OPPS Addendum B; HCPCS <-> NDC from the CMS ASP NDC-HCPCS crosswalk. 404 when no loaded dataset knows the code.',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: true,
    params: z.object({ code: CrosswalkCodeSchema }),
    response: CrosswalkResultSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'the APC of a hospital clinic visit', params: { code: 'G0463' } },
      { summary: 'a code with no crosswalk', status: 404, params: { code: 'ZZZZZ' } },
    ],
    handler: async ({ params, snapshot, trace }) => {
      const r = await getCrosswalks(snapshot, params.code);
      if (Object.keys(r.used).length > 0) trace.useAll(r.used);
      else trace.use('opps_addendum_b').use('asp_crosswalk');
      return {
        code: r.code,
        by_system: groupBySystem(r.crosswalks),
        crosswalks: r.crosswalks,
        total_count: r.crosswalks.length,
        reliability: trace.reliability(),
      };
    },
  }),
];
