import { findRvuRows } from '../../datasets/mpfs_rvu/queries.js';
import { payerKnowledge, type PayerKnowledge } from '../../datasets/payers/queries.js';
import type { PayerRow } from '../../datasets/payers/schema.js';
import { x12Index } from '../../datasets/x12_codes/queries.js';
import { todayOf } from '../../datasets/_shared/dates.js';
import { offsetPage } from '../paging.js';
import { conversionFactorFor, selectRvu, yearFiguresFor } from '../payment/service.js';
import { defineRoute, result, type RouteDef } from '../route.js';
import { VERSION_HEADERS } from '../trace.js';
import { policyPayer, policyRulesFor } from '../policies/service.js';
import { appealDeadlines, filingDeadlineRow, filingLimit, receiptConvention } from '../deadlines/deadlines.js';
import {
  AppealDeadlineSchema,
  AppealQuerySchema,
  ClaimIntelligenceQuerySchema,
  ClaimIntelligenceSchema,
  DenialCodeLookupSchema,
  DenialCodeParams,
  DenialCodeQuerySchema,
  DenialPatternListSchema,
  DirectoryListSchema,
  DirectoryQuerySchema,
  PayerProfileSchema,
  PayerSearchQuerySchema,
  PayerSearchResultListSchema,
  SlugParams,
  TimelyFilingQuerySchema,
  TimelyFilingSchema,
} from '../payers/schemas.js';
import { denialPattern, matchingPriorAuthRules, parseDenialCode, payerWarnings, resolvePayer, searchPayers, searchResult, x12Master } from '../payers/service.js';
import { classifyDenial, denialFacts, withDeadline } from '../denials/remedy.js';
import { inForce } from '../prior_auth/resolve.js';

const PAYERS_TAG = 'payers';
const PUBLIC_TAG = 'payers-public';

const byName = (a: PayerRow, b: PayerRow) => a.name.localeCompare(b.name);

const withoutSlug = <R extends { payer_slug: string }>(rows: R[] | undefined) => (rows ?? []).map(({ payer_slug: _s, ...r }) => r);

function profile(k: PayerKnowledge, p: PayerRow) {
  return { ...p, filing_rules: withoutSlug(k.filing.get(p.slug)), appeal_levels: withoutSlug(k.appeals.get(p.slug)) };
}

/** Payer directory, denial codes, filing and appeal deadlines, claim intelligence (`payers` and `x12_codes`). */
export const payerRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/payers/search',
    operationId: 'searchPayers',
    tag: PAYERS_TAG,
    summary: 'Find payers by name, alias or slug (typo tolerant, ranked)',
    description: 'Fuzzy match over slugs, names and aliases: exact matches first, then prefixes, then words with small typos ("united helthcare"). An empty list when nothing matches.',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: true,
    query: PayerSearchQuerySchema,
    response: PayerSearchResultListSchema,
    responseHeaders: VERSION_HEADERS,
    examples: [
      { summary: 'a misspelled payer name', query: { q: 'united helthcare' } },
      { summary: 'a query of one character', status: 422, query: { q: 'u' } },
    ],
    handler: async ({ query, snapshot, trace }) => {
      const k = await payerKnowledge(snapshot);
      // The spec's answer is a bare array: the dataset read is named in X-Dataset-Versions.
      return result(200, searchPayers(k, query.q).slice(0, query.limit).map(searchResult), trace.use('payers', k.version).headers());
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/directory/payers',
    operationId: 'listDirectoryPayers',
    tag: PUBLIC_TAG,
    summary: 'Public payer directory: list or search payers, paged (no key)',
    description: 'No API key; limited per client IP. Without `q`, payers by name; with `q`, ranked matches. Page with `next_cursor`.',
    auth: 'public',
    reads: 'snapshot',
    cache: true,
    query: DirectoryQuerySchema,
    response: DirectoryListSchema,
    examples: [
      { summary: 'Medicaid programs', query: { payer_type: 'medicaid' } },
      { summary: 'a cursor this server did not issue', status: 422, query: { cursor: 'bogus' } },
    ],
    handler: async ({ query, snapshot, trace }) => {
      const k = await payerKnowledge(snapshot);
      const keep = (p: PayerRow) => !query.payer_type || p.payer_type === query.payer_type;
      const all = query.q
        ? searchPayers(k, query.q, keep).map(searchResult)
        : [...k.payers.values()].filter(keep).sort(byName).map((p) => ({
            slug: p.slug,
            name: p.name,
            payer_type: p.payer_type,
            coverage_scope: p.coverage_scope,
            is_active: p.is_active,
            knowledge_depth: p.knowledge_depth,
            data_quality_score: p.data_quality_score,
          }));
      const { page, next_cursor } = offsetPage(all, query.cursor, query.limit);
      return {
        results: page,
        next_cursor,
        total: all.length,
        reliability: trace.use('payers', k.version).reliability(),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/directory/payers/{slug}',
    operationId: 'getDirectoryPayer',
    tag: PUBLIC_TAG,
    summary: 'Public payer profile: identity, EDI payer ids, contacts, filing rules and appeal levels, each cited (no key)',
    description: 'Slug or alias. An unknown payer, or an alias several payers share, answers 404 with `suggestions`.',
    auth: 'public',
    reads: 'snapshot',
    cache: true,
    params: SlugParams,
    response: PayerProfileSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'Medicare fee-for-service by alias', params: { slug: 'medicare' } },
      { summary: 'a name several payers share (404 with their slugs)', status: 404, params: { slug: 'bcbs' } },
    ],
    handler: async ({ params, snapshot, trace }) => {
      const k = await payerKnowledge(snapshot);
      const p = resolvePayer(k, params.slug);
      return { ...profile(k, p), reliability: trace.use('payers', k.version).warn(...payerWarnings(p)).reliability() };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/directory/payers/{slug}/denial-patterns',
    operationId: 'listPayerDenialPatterns',
    // The spec puts it in the public directory's group, though it takes a key.
    tag: PUBLIC_TAG,
    summary: "A payer's denial patterns: root cause, documentation and resolution steps per CARC/RARC",
    description: 'API key required. An empty list when the loaded knowledge has no pattern for the payer.',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: true,
    params: SlugParams,
    response: DenialPatternListSchema,
    responseHeaders: VERSION_HEADERS,
    errors: ['not_found'],
    examples: [
      { summary: 'Medicare denial patterns', params: { slug: 'medicare_ffs' } },
      { summary: 'no API key', status: 401, key: 'none', params: { slug: 'medicare_ffs' } },
      { summary: 'a slug no payer has', status: 404, params: { slug: 'nobody_here' } },
    ],
    handler: async ({ params, snapshot, trace }) => {
      const k = await payerKnowledge(snapshot);
      const p = resolvePayer(k, params.slug);
      return result(200, (k.denials.get(p.slug) ?? []).map((d) => denialPattern(k, p, d)), trace.use('payers', k.version).headers());
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/payers/denial-codes/{code}',
    operationId: 'lookupDenialCode',
    tag: PAYERS_TAG,
    summary: 'What a denial code means and what to do: X12 definition plus every payer’s pattern for it',
    description:
      'Accepts `CO-50`, `CO50`, `50` (CARC) or `N290`/`MA130` (RARC) and says which it matched (`matched_as`). With a group code, only patterns with that group (or none) match. `as_of` (the remittance date, default today) checks the code against the X12 lists\' start and stop dates: a code deactivated by then is answered with its stop date and a warning, one in use then is not called invalid, one not yet started says so. A code missing from the loaded X12 lists answers with an empty `x12_master` and a warning (the seed lists are a limited excerpt).',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: 'daily',
    params: DenialCodeParams,
    query: DenialCodeQuerySchema,
    response: DenialCodeLookupSchema,
    examples: [
      { summary: 'medical necessity denial', params: { code: 'CO-50' } },
      { summary: 'a remark code (RARC)', params: { code: 'N290' } },
      { summary: 'a CARC deactivated in 2007, on a 2006 remittance', params: { code: 'CO-42' }, query: { as_of: '2006-05-01' } },
      { summary: 'an unknown group code', status: 422, params: { code: 'XX-ABC' } },
    ],
    handler: async ({ params, query, snapshot, trace, now }) => {
      const asOf = query.as_of ?? todayOf(now());
      const c = parseDenialCode(params.code);
      const [k, x] = await Promise.all([payerKnowledge(snapshot), x12Index(snapshot)]);
      const results = [];
      const payers = new Set<string>();
      for (const [slug, rows] of k.denials) {
        const p = k.payers.get(slug);
        if (!p) continue;
        for (const d of rows) {
          const hit = c.matched_as === 'rarc' ? d.remark_code === c.code : d.carc_code === c.code && (!c.group_code || d.group_code === null || d.group_code === c.group_code);
          if (hit) {
            results.push(denialPattern(k, p, d));
            payers.add(slug);
          }
        }
      }
      const master = x12Master(x, c, asOf);
      trace.use('payers', k.version).use('x12_codes', x.version);
      if (master.length === 0) trace.warn(`${c.matched_as === 'rarc' ? 'RARC' : 'CARC'} ${c.code} is not in the loaded X12 code lists (x12_codes ${x.version || 'not loaded'}: ${x.count} codes; the full lists are X12's, the seed carries a limited excerpt)`);
      for (const m of master) if (m.status !== 'active') trace.warn(m.status_note);
      for (const s of payers) trace.warn(...payerWarnings(k.payers.get(s)!).filter((w) => w.includes('not yet re-verified')));
      return {
        denial_code: params.code,
        matched_as: c.matched_as,
        group_code: c.group_code,
        code: c.code,
        payer_count: payers.size,
        total_results: results.length,
        results,
        remedy: withDeadline(classifyDenial(denialFacts({ group: c.group_code, carc: c.matched_as === 'rarc' ? null : c.code, rarcs: c.matched_as === 'rarc' ? [c.code] : [] }))),
        x12_master: master,
        as_of: asOf,
        reliability: trace.reliability(),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/payers/{slug}/appeal-deadline',
    operationId: 'getAppealDeadline',
    tag: PAYERS_TAG,
    summary: 'Appeal deadlines for a denial: one row per appeal level with the date and days remaining',
    description:
      'The first level counts from the denial notice (Medicare presumes receipt 5 days after its date, and says so in `receipt_convention`); later levels count from the previous decision, so they carry `deadline_days` and `starts_from` but no date unless `decision_date` is given. `state` applies state-specific rules. Dates on a weekend or federal holiday move to the next business day where the payer’s rule says so. `days_remaining` counts from `as_of` (default today, UTC).',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: 'daily',
    params: SlugParams,
    query: AppealQuerySchema,
    response: AppealDeadlineSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'a Medicare denial dated 2026-03-02', params: { slug: 'medicare_ffs' }, query: { denial_date: '2026-03-02', as_of: '2026-04-01' } },
      { summary: 'a denial date that does not exist', status: 422, params: { slug: 'medicare_ffs' }, query: { denial_date: '2026-02-30' } },
      { summary: 'a slug no payer has', status: 404, params: { slug: 'acme' }, query: { denial_date: '2026-03-02' } },
    ],
    handler: async ({ params, query, snapshot, trace, now }) => {
      const k = await payerKnowledge(snapshot);
      const p = resolvePayer(k, params.slug);
      const asOf = query.as_of ?? todayOf(now());
      const levels = (k.appeals.get(p.slug) ?? []).filter((l) => !query.plan_type || l.plan_type === null || l.plan_type === query.plan_type);
      trace.use('payers', k.version).warn(...payerWarnings(p));
      if (levels.length === 0) trace.warn(`no appeal levels are loaded for ${p.slug}${query.plan_type ? ` and plan type ${query.plan_type}` : ''}`);
      return {
        denial_date: query.denial_date,
        as_of: asOf,
        payer_slug: p.slug,
        payer_name: p.name,
        receipt_convention: levels.length ? receiptConvention(levels) : 'no appeal levels loaded',
        appeal_levels: appealDeadlines(levels, { denial_date: query.denial_date, as_of: asOf, state: query.state, decision_date: query.decision_date, decision_level: query.decision_level }),
        reliability: trace.reliability(),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/payers/{slug}/timely-filing',
    operationId: 'getTimelyFiling',
    tag: PAYERS_TAG,
    summary: 'The date a claim for a service must be filed by, per filing rule of the payer',
    description:
      'Calendar months clamp to the month end (Medicare: 12 months, so a 2024-02-29 service is due 2025-02-28); state and plan overrides apply when given; `days_remaining` counts from `as_of` (default today, UTC).',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: 'daily',
    params: SlugParams,
    query: TimelyFilingQuerySchema,
    response: TimelyFilingSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'a Medicare service on a leap day', params: { slug: 'medicare_ffs' }, query: { date_of_service: '2024-02-29', as_of: '2025-01-15' } },
      { summary: 'no date of service', status: 422, params: { slug: 'medicare_ffs' } },
    ],
    handler: async ({ params, query, snapshot, trace, now }) => {
      const k = await payerKnowledge(snapshot);
      const p = resolvePayer(k, params.slug);
      const asOf = query.as_of ?? todayOf(now());
      const rules = (k.filing.get(p.slug) ?? []).filter((r) => !query.plan_type || r.plan_type === null || r.plan_type === query.plan_type);
      trace.use('payers', k.version).warn(...payerWarnings(p));
      if (rules.length === 0) trace.warn(`no filing rules are loaded for ${p.slug}`);
      return {
        payer_slug: p.slug,
        payer_name: p.name,
        date_of_service: query.date_of_service,
        as_of: asOf,
        deadlines: rules.map((r) => filingDeadlineRow(r, { ...query, as_of: asOf })),
        reliability: trace.reliability(),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/payers/{slug}/claim-intelligence',
    operationId: 'getClaimIntelligence',
    tag: PAYERS_TAG,
    summary: 'Everything a biller needs for one payer and code: identity, EDI ids, Medicare fee reference, policies, denial patterns, appeal, filing and prior-auth rules',
    description:
      'Filing rules carry the limit after plan and state overrides (`applied_limit`): in `standard_days` when it counts days, in `standard_months` when it counts calendar months (the other null). `prior_auth` summarises the payer’s matching prior-auth rules. `fee` follows the payment rule for modifiers (26/TC/53 select their row, any other modifier the unmodified one). `policy_rules`: the payer\u2019s curated rules for the code, and for Medicare FFS only the LCD billing articles listing it and their LCDs (in the MAC jurisdictions of `state`); `coverage_determinations` is a deprecated alias of those Medicare rows. An empty list means none is loaded for the code.',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: 'daily',
    params: SlugParams,
    query: ClaimIntelligenceQuerySchema,
    response: ClaimIntelligenceSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'a blepharoplasty for Medicare', params: { slug: 'medicare_ffs' }, query: { code: '15823' } },
      { summary: 'an office visit for Medicare', params: { slug: 'medicare_ffs' }, query: { code: '99213' } },
      { summary: 'a bariatric procedure for a UnitedHealthcare group plan', params: { slug: 'uhc' }, query: { code: '43644', plan_type: 'group' } },
      { summary: 'no code', status: 422, params: { slug: 'medicare_ffs' } },
    ],
    handler: async ({ params, query, snapshot, trace, now }) => {
      const k = await payerKnowledge(snapshot);
      const p = resolvePayer(k, params.slug);
      trace.use('payers', k.version).warn(...payerWarnings(p));
      // One modifier rule with payment: a pricing modifier (26/TC/53) selects its row, any other the unmodified one.
      const rvu = (await findRvuRows(snapshot, query.code)).length ? await selectRvu(snapshot, query.code, query.modifier ?? '', todayOf(now()), trace) : null;
      // The conversion factor payment uses for this code and day (one rule: the service year's).
      const source = `CMS Medicare Physician Fee Schedule RVU file, release ${rvu?.version ?? ''}`;
      const cf = rvu ? await conversionFactorFor(snapshot, rvu, source, todayOf(now()), false, await yearFiguresFor(snapshot, Number(todayOf(now()).slice(0, 4)), trace), trace) : null;
      if (rvu) trace.use('mpfs_rvu', rvu.version);
      else trace.warn(`no Medicare physician fee schedule row for ${query.code}${query.modifier ? `-${query.modifier}` : ''} in the loaded RVU releases`);
      // Rules in force today (a code CMS took off a list, such as 64492 in 2024, no longer matches).
      const pa = matchingPriorAuthRules(k, p.slug, query.code, { serviceCategory: query.service_category, planType: query.plan_type, state: query.state }).filter((r) => inForce(r, todayOf(now())));
      // CMS documents (LCDs, articles) only for Medicare FFS; every payer's own curated rules.
      const rules = await policyRulesFor(snapshot, { payer: policyPayer(p), code: query.code, date: todayOf(now()), state: query.state }, trace);
      const paRequired = pa.length ? pa.some((r) => r.pa_required) : null;
      return {
        payer_slug: p.slug,
        payer_name: p.name,
        payer_type: p.payer_type,
        code: query.code,
        modifier: query.modifier ?? null,
        plan_type: query.plan_type ?? null,
        edi_payer_ids: p.edi_payer_ids,
        fee: rvu
          ? {
              code: rvu.hcpcs,
              modifier: rvu.modifier,
              work_rvu: rvu.work_rvu,
              pe_rvu_nonfacility: rvu.non_fac_pe_rvu,
              pe_rvu_facility: rvu.facility_pe_rvu,
              mp_rvu: rvu.mp_rvu,
              conversion_factor: Number(cf!.value),
              conversion_factor_source: cf!.source,
              year: rvu.year,
              quarter: rvu.quarter,
              source,
            }
          : null,
        policy_rules: rules,
        coverage_determinations: rules.filter((r) => r.source_key === 'cms_mcd'),
        denial_patterns: (k.denials.get(p.slug) ?? []).map((d) => denialPattern(k, p, d)),
        appeal_rules: withoutSlug(k.appeals.get(p.slug)).filter((l) => !query.plan_type || l.plan_type === null || l.plan_type === query.plan_type),
        filing_rules: withoutSlug(k.filing.get(p.slug)).map((r) => {
          const lim = filingLimit({ ...r, payer_slug: p.slug }, query.plan_type, query.state);
          return { ...r, standard_days: lim.unit === 'days' ? lim.value : null, standard_months: lim.unit === 'months' ? lim.value : null, applied_limit: lim };
        }),
        prior_auth_rules: withoutSlug(pa).map((r) => ({ ...r, portal_url: r.vendor_portal ?? r.submission_info.portal_url ?? null })),
        prior_auth: {
          pa_required: paRequired,
          determination:
            paRequired === null
              ? `no prior-auth rule of ${p.slug} in the loaded knowledge names ${query.code}; that is not a statement that none is required`
              : paRequired
                ? `prior authorization required by ${pa.filter((r) => r.pa_required).map((r) => `${r.rule_id}${r.condition ? ` (conditional: ${r.condition})` : ''}`).join(', ')}`
                : 'matching rules say no prior authorization is required',
          matched_rules: pa.map((r) => r.rule_id),
        },
        reliability: trace.reliability(),
      };
    },
  }),
];
