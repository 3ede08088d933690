import { knowledge340b, type Knowledge340b } from '../../datasets/manufacturer_340b/queries.js';
import { DomainError, ValidationError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { todayOf } from '../../datasets/_shared/dates.js';
import { defineRoute, json, result, type RouteDef } from '../route.js';
import { DISCLAIMER, labelerOf, resolveAccess, type NdcLabeler } from '../b340/resolve.js';
import { drugDirectory, productOfNdc } from '../drugs/service.js';
import type { Trace } from '../trace.js';
import {
  AccessResolutionSchema,
  ChangeListSchema,
  ChangeQuerySchema,
  ManufacturerListQuerySchema,
  ManufacturerListSchema,
  ResolveQuerySchema,
  WatchBodySchema,
  WatchCreatedSchema,
  WatchListQuerySchema,
  WatchListSchema,
  WatchParamsSchema,
  WatchSchema,
} from '../b340/schemas.js';
import { afterCursor, encodeFeedCursor, offsetPage } from '../paging.js';
import { changeFeed, feedMatches, manufacturerIds, manufacturerPolicies, watchFilter, type FeedFilter } from '../b340/service.js';

const TAG = '340B Policy';
/** Watches are live-mode tenant data: a test key is refused on any host (403 `live_key_required`). */
const LIVE = { scope: 'knowledge', keyType: 'live' } as const;
const EXAMPLE_WATCH = { manufacturers: ['AbbVie', 'eli_lilly'], states: ['AR'] };

/** The loaded 340B knowledge; 503 `not_ready` when the dataset is not loaded. */
/**
 * What the FDA NDC directory says of an NDC: the labeler code of FDA's own segments (an 11-digit
 * NDC's first five digits may pad a four-digit labeler) and labeler name, and the brand (else
 * generic) name. Nothing when fda_ndc is not loaded (the resolver then warns it matched the NDC's
 * own labeler segment only).
 */
async function ndcViaFda(snapshot: SnapshotReader, ndc: string, trace: Trace): Promise<{ labeler?: NdcLabeler; drug?: string }> {
  const dir = await drugDirectory(snapshot);
  if (!dir) return {};
  trace.use('fda_ndc', dir.version);
  const p = await productOfNdc(dir, ndc);
  if (!p) {
    trace.warn(`NDC ${ndc} is not in the FDA NDC directory (fda_ndc ${dir.version}): matched by its own labeler segment only`);
    return { labeler: { labeler_code: labelerOf(ndc), labeler_name: null } };
  }
  const drug = p.brand_name ?? p.generic_name ?? undefined;
  return { labeler: { labeler_code: p.product_ndc.split('-')[0]!.padStart(5, '0'), labeler_name: p.labeler_name }, ...(drug ? { drug } : {}) };
}

async function loaded(snapshot: SnapshotReader): Promise<Knowledge340b> {
  const k = await knowledge340b(snapshot);
  if (!k) throw new DomainError('not_ready', 'the manufacturer_340b dataset is not loaded');
  return k;
}

/** One manufacturer reference of a query parameter as an id; unknown is a 422 naming it. */
function oneManufacturer(k: Knowledge340b, ref: string | undefined): string | undefined {
  if (ref === undefined) return undefined;
  const r = manufacturerIds(k, [ref], ['query', 'manufacturer'], false);
  if (r.issues.length) throw new ValidationError(r.issues);
  return r.ids[0];
}

const startOfDay = (d: string) => `${d}T00:00:00.000Z`;

/** 340B: manufacturer contract-pharmacy policies, access resolution, the change feed and watches. */
export const b340Routes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/340b/manufacturers',
    operationId: 'list340bManufacturers',
    tag: TAG,
    summary: "Manufacturers' 340B contract-pharmacy policies in force on a day, with history",
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: 'daily',
    query: ManufacturerListQuerySchema,
    response: ManufacturerListSchema,
    examples: [
      { summary: 'the policies in force on 2024-09-01', query: { as_of: '2024-09-01' } },
      { summary: 'one manufacturer by name, before its 40-mile rule', query: { manufacturer: 'AbbVie', as_of: '2023-01-01' } },
      { summary: 'a manufacturer the dataset does not know', status: 422, query: { manufacturer: 'Acme Pharma' } },
    ],
    handler: async ({ query, snapshot, trace, now }) => {
      const k = await loaded(snapshot);
      const asOf = query.as_of ?? todayOf(now());
      const id = oneManufacturer(k, query.manufacturer);
      const manufacturers = manufacturerPolicies(k, asOf).filter((m) => (id === undefined || m.id === id) && (query.status === undefined || m.status === query.status));
      trace.use('manufacturer_340b', k.version).warn('curated 340B rows are unverified seeds: re-check the cited source before acting on them');
      return { as_of: startOfDay(asOf), manufacturers, reliability: trace.reliability() };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/340b/restrictions/resolve',
    operationId: 'resolve340bRestrictions',
    tag: TAG,
    summary: '340B access through a contract pharmacy: allowed, conditional, restricted or unknown',
    description:
      "An NDC is looked up in the FDA NDC directory (fda_ndc): its labeler code, from FDA's own segments, or its labeler name finds the manufacturer, and its brand name is the drug when `drug` is not given. An NDC FDA does not list is matched by its own first segment, with a warning. Unknown manufacturer or NDC: `unknown`.",
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: 'daily',
    query: ResolveQuerySchema,
    response: AccessResolutionSchema,
    examples: [
      { summary: 'a hospital without an in-house pharmacy, AbbVie, in Texas', query: { entity_type: 'DSH', manufacturer: 'abbvie', state: 'TX', has_in_house_pharmacy: 'false', as_of: '2024-09-01' } },
      { summary: 'the same hospital in Arkansas (state law)', query: { entity_type: 'DSH', manufacturer: 'abbvie', state: 'AR', has_in_house_pharmacy: 'true', as_of: '2024-01-15' } },
      { summary: 'a Lilly NDC (Strattera), through the FDA NDC directory', query: { entity_type: 'CH', ndc: '0002-3229-30', as_of: '2023-06-01' } },
      { summary: 'a rebate-pilot drug after the court order', query: { entity_type: 'DSH', manufacturer: 'Bristol Myers Squibb', drug: 'Eliquis', has_in_house_pharmacy: 'false', as_of: '2026-01-15' } },
      { summary: 'an unknown entity type and no manufacturer or NDC', status: 422, query: { entity_type: 'XYZ' } },
    ],
    handler: async ({ query, snapshot, trace, now }) => {
      const k = await loaded(snapshot);
      const asOf = query.as_of ?? todayOf(now());
      const fda = query.ndc !== undefined ? await ndcViaFda(snapshot, query.ndc, trace) : {};
      const drug = query.drug ?? fda.drug;
      const r = resolveAccess(k, { ...query, ...(drug !== undefined ? { drug } : {}), ...(fda.labeler ? { ndc_labeler: fda.labeler } : {}), as_of: asOf });
      trace.use('manufacturer_340b', k.version).warn(...r.warnings);
      return {
        access_status: r.access_status,
        policy_status: r.policy_status,
        as_of: startOfDay(asOf),
        entity_type: query.entity_type,
        manufacturer: r.manufacturer,
        manufacturer_id: r.manufacturer_id,
        drug: drug ?? null,
        ndc: query.ndc ?? null,
        has_in_house_pharmacy: query.has_in_house_pharmacy ?? null,
        conditions: r.conditions,
        policy: r.policy,
        data_submission: r.data_submission,
        rebate_model: r.rebate_model,
        state_law_override: r.state_law_override,
        citations: r.citations,
        disclaimer: DISCLAIMER,
        reliability: trace.reliability(),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/340b/changes',
    operationId: 'list340bChanges',
    tag: TAG,
    summary: '340B policy and law changes, newest first, cursor paged',
    description: "`watch`: what your watch follows since its creation day (another tenant's or a test-mode id: 404).",
    auth: { scope: 'knowledge' },
    reads: 'snapshot+tenant',
    cache: true,
    tenantScoped: ({ query }) => query.watch !== undefined,
    query: ChangeQuerySchema,
    response: ChangeListSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'changes concerning Arkansas since 2024', query: { state: 'AR', since: '2024-01-01', limit: '5' } },
      { summary: 'a watch id that is not one of yours', status: 404, query: { watch: '00000000-0000-4000-8000-000000000000' } },
      { summary: 'a cursor this server did not issue', status: 422, query: { cursor: 'bogus' } },
    ],
    handler: async ({ query, snapshot, tenant, trace }) => {
      const k = await loaded(snapshot);
      const id = oneManufacturer(k, query.manufacturer);
      const filters: FeedFilter[] = [{ manufacturers: id ? [id] : [], states: query.state ? [query.state] : [], entity_types: [], since: query.since }];
      if (query.watch !== undefined) filters.push(watchFilter(k, await tenant.watches.get(query.watch)));
      const all = afterCursor(changeFeed(k, snapshot.manifest.changes), query.cursor).filter((i) => filters.every((f) => feedMatches(i, f)));
      const page = all.slice(0, query.limit);
      trace.use('manufacturer_340b', k.version);
      return { changes: page, next_cursor: all.length > query.limit ? encodeFeedCursor(page.at(-1)!) : null, reliability: trace.reliability() };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/340b/watches',
    operationId: 'create340bWatch',
    tag: TAG,
    summary: 'Watch manufacturers, NDCs, states or entity types (live key only)',
    description: 'A test key is 403 on any host. Pull with `changes?watch=<id>`. A tenant holds at most 100 watches (409 past that).',
    auth: LIVE,
    reads: 'snapshot+tenant',
    body: json(WatchBodySchema, 16 * 1024),
    status: 201,
    responseHeaders: { Location: { description: 'the watch created: /v1/340b/watches/{id}', always: true } },
    resolve: async (input, snapshot) => {
      const refs = (input.body as { manufacturers?: unknown } | undefined)?.manufacturers;
      const list = Array.isArray(refs) ? refs.filter((r): r is string => typeof r === 'string' && r.trim().length >= 2) : [];
      const r = manufacturerIds(await knowledge340b(snapshot!), list, ['body', 'manufacturers'], true);
      return { issues: r.issues, value: r.ids };
    },
    response: WatchCreatedSchema,
    errors: ['conflict'],
    examples: [
      { summary: 'watch AbbVie and Lilly in Arkansas', host: 'live', body: EXAMPLE_WATCH },
      { summary: 'a test key (watches are live data)', status: 403, body: EXAMPLE_WATCH },
      { summary: 'an unknown manufacturer and a bad state', status: 422, host: 'live', body: { manufacturers: ['Acme Pharma'], states: ['Arkansas'] } },
    ],
    handler: async ({ body, resolved, snapshot, tenant, now, trace }) => {
      const w = await tenant.watches.create({ manufacturers: [...new Set(resolved)], ndcs: body.ndcs, states: body.states, entity_types: body.entity_types }, now());
      trace.use('manufacturer_340b', (await knowledge340b(snapshot))?.version);
      return result(201, { ...w, reliability: trace.reliability() }, { location: `/v1/340b/watches/${w.id}` });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/340b/watches',
    operationId: 'list340bWatches',
    tag: TAG,
    summary: "Your 340B watches (live key only)",
    auth: LIVE,
    reads: 'tenant',
    cache: true,
    query: WatchListQuerySchema,
    response: WatchListSchema,
    examples: [
      { summary: "the tenant's watches", host: 'live' },
      { summary: 'a page of ten', host: 'live', query: { limit: '10' } },
      { summary: 'a test key', status: 403 },
    ],
    handler: async ({ tenant, query }) => {
      const { page, next_cursor } = offsetPage(await tenant.watches.list(), query.cursor, query.limit);
      return { watches: page, next_cursor };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/340b/watches/{id}',
    operationId: 'get340bWatch',
    tag: TAG,
    summary: 'One of your 340B watches (live key only)',
    auth: LIVE,
    reads: 'tenant',
    cache: true,
    params: WatchParamsSchema,
    response: WatchSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'a watch', host: 'live', params: { id: '{watch}' } },
      { summary: 'an id that is none of your watches', status: 404, host: 'live', params: { id: '00000000-0000-4000-8000-000000000000' } },
    ],
    handler: ({ params, tenant }) => tenant.watches.get(params.id),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/340b/watches/{id}',
    operationId: 'delete340bWatch',
    tag: TAG,
    summary: 'Delete one of your 340B watches (live key only)',
    auth: LIVE,
    reads: 'tenant',
    params: WatchParamsSchema,
    response: WatchSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'delete a watch', host: 'live', params: { id: '{watch}' } },
      { summary: 'the same watch again', status: 404, host: 'live', params: { id: '{watch}' } },
    ],
    handler: ({ params, tenant }) => tenant.watches.remove(params.id),
  }),
];
