import { defineRoute, type RouteDef } from '../route.js';
import { DrugSearchQuerySchema, DrugSearchSchema, PackageDetailSchema, PackageParams } from '../drugs/schemas.js';
import { getPackageDetail, searchDrugs } from '../drugs/service.js';

/** Drug products and packages by NDC from the FDA NDC directory (`fda_ndc`). */
export const drugRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/drugs/ndc/package/{package_ndc}',
    operationId: 'getDrugPackage',
    tag: 'drugs',
    summary: 'A drug package by NDC: the package, its product and active ingredients',
    description:
      'Any of the 10-digit dashed forms FDA publishes (4-4-2, 5-3-2, 5-4-1) or the 11-digit 5-4-2 form with or without dashes; the answer carries the published and the 11-digit form. 422 for a malformed NDC (ten digits without dashes included: the padded segment is unknown), 404 when the loaded directory lacks it.',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: true,
    params: PackageParams,
    response: PackageDetailSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'a 4-4-2 NDC in its 11-digit form (the labeler padded)', params: { package_ndc: '00002322930' } },
      { summary: 'a 5-3-2 NDC as FDA publishes it', params: { package_ndc: '71610-199-30' } },
      { summary: 'ten digits without dashes', status: 422, params: { package_ndc: '0002322930' } },
      { summary: 'an NDC the directory lacks', status: 404, params: { package_ndc: '99999-9999-99' } },
    ],
    handler: ({ params, snapshot, trace }) => getPackageDetail(snapshot, params.package_ndc, trace),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/drugs/ndc/search',
    operationId: 'searchDrugs',
    tag: 'drugs',
    summary: 'Find drug products by NDC, brand, generic or labeler name (typo tolerant, ranked)',
    description:
      'Ranked: the product NDC the text names (any form; a package NDC finds its product), then brand or generic names equal to or beginning with the text, then products carrying every word (or a word it begins) in brand, generic or labeler name, then matches with typos (one edit in words of 4+ characters, two from 8). `total_count` counts every match; an empty list when nothing matches.',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: true,
    query: DrugSearchQuerySchema,
    response: DrugSearchSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'a misspelled brand', query: { q: 'stratera' } },
      { summary: 'a product NDC in its 9-digit form', query: { q: '716100199' } },
      { summary: 'a labeler name with its umlauts', query: { q: 'schwabisch gmund', limit: '5' } },
      { summary: 'a query of one character', status: 422, query: { q: 's' } },
    ],
    handler: ({ query, snapshot, trace }) => searchDrugs(snapshot, query.q, query.limit, trace),
  }),
];
