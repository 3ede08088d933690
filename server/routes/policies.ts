import { todayOf } from '../../datasets/_shared/dates.js';
import { afterCursor, encodeFeedCursor, offsetPage } from '../paging.js';
import { payerWarnings, resolvePayerIn } from '../payers/service.js';
import { defineRoute, type RouteDef } from '../route.js';
import { policyChanges } from '../policies/changes.js';
import { PolicyChangeListSchema, PolicyChangeQuerySchema, PolicyListSchema, PolicyQuerySchema } from '../policies/schemas.js';
import { findPolicies, MEDICARE_FFS, policyIndex, policyPayer } from '../policies/service.js';
import { isDatasetId } from '../../datasets/registry.js';

/**
 * Cited policy documents (Medicare LCDs, billing articles and NCDs; payers' curated documents)
 * and the feed of their version changes. Both read the snapshot only: customer documents parsed
 * through `/v1/policy/*` are tenant state and never appear here.
 */
export const policyRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/policies',
    operationId: 'listPolicies',
    tag: 'policies',
    summary: 'Cited policy documents: Medicare LCDs, billing articles and NCDs by MAC jurisdiction, and payers\' curated policies',
    description:
      'payer `medicare_ffs` (or an alias) lists CMS documents, a commercial payer its curated ones, none both. `code` keeps documents listing the code (unknown: empty list). `state` keeps Medicare documents of its MAC jurisdictions, placed by contractor (`jurisdiction_resolved` false may over-include). Each document is the version in force today.',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: 'daily',
    query: PolicyQuerySchema,
    resolve: resolvePayerIn('query', 'payer'),
    response: PolicyListSchema,
    examples: [
      { summary: 'Medicare documents listing a facet joint injection', query: { payer: 'medicare_ffs', code: '64490' } },
      { summary: 'Medicare LCDs and articles of the MAC jurisdictions of Ohio', query: { payer: 'medicare', state: 'OH', limit: '5' } },
      { summary: "UnitedHealthcare's bariatric surgery policy", query: { payer: 'uhc', code: '43644' } },
      { summary: 'a code no loaded document lists: an empty list naming the sources searched', query: { code: '99999' } },
      { summary: 'an unknown payer and a limit of 0', status: 422, query: { payer: 'nobody', limit: '0' } },
    ],
    handler: async ({ query, resolved, snapshot, trace, now }) => {
      const idx = await policyIndex(snapshot);
      const payer = resolved.payer ? policyPayer(resolved.payer) : undefined;
      const { documents, unplaced } = findPolicies(idx, { payer, code: query.code, state: query.state, q: query.q }, todayOf(now()));
      const { page, next_cursor } = offsetPage(documents, query.cursor, query.limit);
      // The datasets of the documents found; when none is, those searched (a payer's own curated rules, or every source).
      const read = documents.length ? documents.flatMap((d) => d.sources) : payer && !payer.medicare ? ['payers'] : Object.keys(idx.versions);
      for (const s of read) if (isDatasetId(s)) trace.use(s, idx.versions[s]);
      if (resolved.payer) trace.warn(...payerWarnings(resolved.payer));
      if (documents.some((d) => d.illustrative)) trace.warn('illustrative seed documents (L99xxx, A99xxx, NCD 999.x) are listed with their codes: no real MCD code-level export is loaded');
      if (documents.some((d) => !d.codes_loaded)) trace.warn('documents with codes_loaded false come from the MCD listing, which names no codes: a code filter cannot find them until an MCD export is loaded');
      if (unplaced) trace.warn(`documents are placed in ${query.state} by their contractor only (jurisdiction_resolved false): the list may over-include until an MCD export with contract numbers is loaded`);
      if (query.plan_type) trace.warn(`no loaded policy document is scoped to a plan type, so plan_type ${query.plan_type} narrows nothing`);
      return { results: page, next_cursor, total: documents.length, reliability: trace.reliability() };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/policies/changes',
    operationId: 'listPolicyChanges',
    tag: 'policies',
    summary: 'Policy document changes (new, revised, retired), newest first, cursor paged',
    description:
      'Built from the per-key change rows each ingest keeps: a document version added is new or revised (from and to versions), one no longer listed or given a retirement date is retired. Empty until a second version of mcd_documents, mcd_coverage or payers is loaded.',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: true,
    query: PolicyChangeQuerySchema,
    resolve: resolvePayerIn('query', 'payer'),
    response: PolicyChangeListSchema,
    examples: [
      { summary: 'document changes effective since 2025-01-01', query: { since: '2025-01-01' } },
      { summary: 'a cursor this server did not issue', status: 422, query: { cursor: 'bogus' } },
    ],
    handler: async ({ query, resolved, snapshot, trace }) => {
      const payer = resolved.payer ? policyPayer(resolved.payer) : undefined;
      const mine = (slug: string) => !payer || (payer.medicare ? slug === MEDICARE_FFS : slug === payer.slug);
      const all = afterCursor(await policyChanges(snapshot), query.cursor).filter((c) => mine(c.payer_slug) && (!query.since || c.date >= query.since));
      const page = all.slice(0, query.limit);
      for (const d of ['mcd_documents', 'mcd_coverage', 'payers'] as const) if (snapshot.has(d)) trace.use(d);
      if (!snapshot.manifest.changes.some((c) => ['mcd_documents', 'mcd_coverage', 'payers'].includes(c.dataset) && c.keys_file)) {
        trace.warn('only one version of mcd_documents, mcd_coverage and payers is loaded: the feed fills once a second one is');
      }
      return { changes: page, next_cursor: all.length > query.limit ? encodeFeedCursor(page.at(-1)!) : null, reliability: trace.reliability() };
    },
  }),
];
