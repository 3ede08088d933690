import { HOSPITAL_OUTPATIENT_POS } from '../../lib/vocabulary/place_of_service.js';
import type { Citation, PayerRow, PriorAuthRuleRow } from '../../datasets/payers/schema.js';
import type { PaOverride, RosterEntry } from '../../warehouse/facilities.js';
import type { z } from 'zod';
import type { RationaleStepSchema } from './schemas.js';
import type { PaymentSystem } from '../facilities/service.js';

/**
 * The prior-auth resolver: a pure function of the payer's curated rules, the code's service
 * categories and (tier 0) the facility's own overrides. Tiers run in order and the first that
 * matches decides; every tier looked at is recorded in `rationale_chain`.
 */

export const TIERS = ['facility_override', 'payer_code', 'payer_category', 'payer_default', 'national', 'none'] as const;
export type TierName = (typeof TIERS)[number];
export type Determination = 'required' | 'not_required' | 'conditional' | 'unknown';

/** Base confidence of the tier that decided (before the payer's review status lowers it). */
export const TIER_CONFIDENCE: Record<TierName, number> = {
  facility_override: 0.95,
  payer_code: 0.9,
  payer_category: 0.8,
  payer_default: 0.6,
  national: 0.9,
  none: 0.1,
};

/** Unverified curated rows (not yet re-read against their citation by a second person) count for less. */
export const UNVERIFIED_PENALTY = 0.1;

/**
 * CMS-0057-F (Interoperability and Prior Authorization final rule, 89 FR 8758, 2024-02-08): from
 * 2026-01-01 impacted payers (Medicare Advantage organizations, Medicaid and CHIP fee-for-service
 * programs and managed care plans) decide expedited requests within 72 hours and standard ones
 * within 7 calendar days. QHP issuers on the federal exchanges are outside these timeframes.
 */
export const FEDERAL_TURNAROUND = {
  from: '2026-01-01',
  urgent_hours: 72,
  standard_days: 7,
  citation: 'CMS-0057-F, 89 FR 8758 (2024-02-08): 42 CFR 422.568/422.572 (MA), 440.230(e) (Medicaid FFS), 438.210(d) (Medicaid managed care), effective 2026-01-01',
  url: 'https://www.cms.gov/newsroom/fact-sheets/cms-interoperability-and-prior-authorization-final-rule-cms-0057-f',
};
const IMPACTED_PAYER_TYPES = new Set(['medicare_advantage', 'medicaid']);
const IMPACTED_PLAN_TYPES = new Set(['medicare_advantage', 'medicaid', 'medicaid_managed_care', 'chip']);

export interface PaQuery {
  code?: string;
  service_category?: string;
  plan_type?: string;
  state?: string;
  place_of_service?: string;
  visit_count?: number;
  date_of_service: string;
}

export interface FacilityContext {
  ccn: string;
  /** How Medicare pays the facility's outpatient services (`resolveFacility`): the OPD program covers `opps` hospitals only. */
  payment_system: PaymentSystem;
  /** false: not registered by the tenant, or soft-deleted: overrides are not consulted. */
  active_registration: boolean;
  registered: boolean;
  overrides: PaOverride[];
  roster: RosterEntry | null;
}

export interface ResolveInput {
  payer: PayerRow;
  /** The payer's curated rules (all of them; the resolver filters by date, plan, state and POS). */
  rules: PriorAuthRuleRow[];
  /** Service categories the code falls in (from the service_categories table). */
  code_categories: string[];
  query: PaQuery;
  facility: FacilityContext | null;
}

export type RationaleStep = z.output<typeof RationaleStepSchema>;

export interface PaResolution {
  pa_required: boolean;
  determination: Determination;
  resolution_tier: TierName;
  confidence: number;
  payer_slug: string;
  payer_name: string;
  code: string | null;
  service_category: string | null;
  plan_type: string | null;
  auth_type: string | null;
  delegation_vendor: string | null;
  delegation_vendor_phone: string | null;
  delegation_vendor_portal: string | null;
  pa_threshold: number | null;
  visit_count: number | null;
  threshold_remaining: number | null;
  standard_turnaround_days: number | null;
  standard_turnaround_unit: 'calendar_days' | 'business_days' | null;
  urgent_turnaround_hours: number | null;
  urgent_turnaround_days: number | null;
  required_documents: string[];
  submission_info: { email?: string; fax?: string; mailing_address?: string; phone?: string; portal_url?: string };
  network_status: RosterEntry['network_status'] | null;
  rationale_chain: RationaleStep[];
  /** The rule or override that decided: rule id (payer tiers) or override id (tier 0). */
  source: { kind: 'payer_rule' | 'facility_override'; id: string; citation: Citation | null } | null;
  warnings: string[];
}

/** True when a dated row is in force on `date` (both ends inclusive; null is open). */
export function inForce(r: { effective_date: string | null; expiration_date: string | null }, date: string): boolean {
  const from = r.effective_date?.slice(0, 10);
  const to = r.expiration_date?.slice(0, 10);
  return (!from || from <= date) && (!to || date <= to);
}

const codeMatches = (r: PriorAuthRuleRow, code: string | undefined): boolean =>
  code !== undefined &&
  (r.codes.includes(code) ||
    (r.code_range_start !== null && r.code_range_end !== null && code.length === r.code_range_start.length && code >= r.code_range_start && code <= r.code_range_end));
const isCodeRule = (r: PriorAuthRuleRow) => r.codes.length > 0 || r.code_range_start !== null;

interface Candidate {
  rule: PriorAuthRuleRow;
  /** The rule names POS but the query gave none: it applies only in those settings. */
  posUnknown: boolean;
}

/**
 * Rules that apply to the query's date, plan type, state and place of service. A rule for one plan
 * type or state applies only when the query names it; a rule limited to places of service applies
 * conditionally when the query gives none. More specific rules (plan type, state) sort first.
 */
function applicable(rules: PriorAuthRuleRow[], q: PaQuery, skipped: string[]): Candidate[] {
  const out: Candidate[] = [];
  for (const r of rules) {
    if (!inForce(r, q.date_of_service)) {
      skipped.push(`${r.rule_id} not in force on ${q.date_of_service}`);
      continue;
    }
    if (r.plan_type !== null && r.plan_type !== q.plan_type) {
      skipped.push(`${r.rule_id} is for plan type ${r.plan_type}`);
      continue;
    }
    if (r.state !== null && r.state !== q.state) {
      skipped.push(`${r.rule_id} is for ${r.state}`);
      continue;
    }
    if (r.place_of_service.length > 0 && q.place_of_service !== undefined && !r.place_of_service.includes(q.place_of_service)) {
      skipped.push(`${r.rule_id} applies at place of service ${r.place_of_service.join('/')}, not ${q.place_of_service}`);
      continue;
    }
    out.push({ rule: r, posUnknown: r.place_of_service.length > 0 && q.place_of_service === undefined });
  }
  const weight = (c: Candidate) => (c.rule.plan_type ? 2 : 0) + (c.rule.state ? 1 : 0) - (c.posUnknown ? 4 : 0);
  return out.sort((a, b) => weight(b) - weight(a));
}

function overrideMatches(o: PaOverride, payerSlug: string, q: PaQuery, cats: Set<string>): 'code' | 'category' | 'payer' | null {
  if (!o.is_active || !inForce(o, q.date_of_service)) return null;
  if (o.payer_slug !== null && o.payer_slug !== payerSlug) return null;
  if (o.code !== null) return o.code === q.code ? 'code' : null;
  if (o.service_category !== null) return cats.has(o.service_category) ? 'category' : null;
  return 'payer';
}

const SPECIFICITY = { code: 0, category: 1, payer: 2 } as const;

/** Resolves a prior-auth question through tiers 0 to 5. */
export function resolvePriorAuth(input: ResolveInput): PaResolution {
  const { payer, query: q } = input;
  const chain: RationaleStep[] = [];
  const warnings: string[] = [];
  const cats = new Set(input.code_categories);
  if (q.service_category) cats.add(q.service_category);
  const catList = [...cats].join(', ') || 'none';

  const base: PaResolution = {
    pa_required: false,
    determination: 'unknown',
    resolution_tier: 'none',
    confidence: TIER_CONFIDENCE.none,
    payer_slug: payer.slug,
    payer_name: payer.name,
    code: q.code ?? null,
    service_category: q.service_category ?? input.code_categories[0] ?? null,
    plan_type: q.plan_type ?? null,
    auth_type: null,
    delegation_vendor: null,
    delegation_vendor_phone: null,
    delegation_vendor_portal: null,
    pa_threshold: null,
    visit_count: q.visit_count ?? null,
    threshold_remaining: null,
    standard_turnaround_days: null,
    standard_turnaround_unit: null,
    urgent_turnaround_hours: null,
    urgent_turnaround_days: null,
    required_documents: [],
    submission_info: {},
    network_status: input.facility?.roster?.network_status ?? null,
    rationale_chain: chain,
    source: null,
    warnings,
  };
  const finish = (r: PaResolution): PaResolution => {
    applyFederalTurnaround(r, payer, q, chain);
    if (payer.review_status === 'unverified' && r.resolution_tier !== 'facility_override' && r.resolution_tier !== 'none') {
      r.confidence = Math.round((r.confidence - UNVERIFIED_PENALTY) * 100) / 100;
    }
    return r;
  };

  // Tier 0: the facility's own overrides.
  const f = input.facility;
  if (!f) {
    chain.push({ tier: 0, tier_name: 'facility_override', matched: false, detail: 'no ccn given: facility overrides not consulted' });
  } else if (!f.active_registration) {
    chain.push({
      tier: 0,
      tier_name: 'facility_override',
      matched: false,
      detail: f.registered ? `facility ${f.ccn} is inactive (soft-deleted) for this tenant: its overrides are not applied` : `facility ${f.ccn} is not registered by this tenant: no overrides`,
    });
  } else {
    const hits = f.overrides
      .map((o) => ({ o, how: overrideMatches(o, payer.slug, q, cats) }))
      .filter((h): h is { o: PaOverride; how: 'code' | 'category' | 'payer' } => h.how !== null)
      .sort((a, b) => SPECIFICITY[a.how] - SPECIFICITY[b.how] || (a.o.payer_slug ? 0 : 1) - (b.o.payer_slug ? 0 : 1));
    const roster = f.roster ? `; roster: ${payer.slug} ${f.roster.network_status}${f.roster.is_active ? '' : ' (inactive)'}` : `; ${payer.slug} is not on the facility's roster`;
    const hit = hits[0];
    if (!hit) {
      chain.push({ tier: 0, tier_name: 'facility_override', matched: false, detail: `${f.overrides.length} override(s) of facility ${f.ccn}, none for ${payer.slug} and this code or category on ${q.date_of_service}${roster}` });
    } else {
      const o = hit.o;
      const what = hit.how === 'code' ? `code ${o.code}` : hit.how === 'category' ? `service category ${o.service_category}` : `every code of ${o.payer_slug ?? 'every payer'}`;
      chain.push({
        tier: 0,
        tier_name: 'facility_override',
        matched: true,
        detail: `facility ${f.ccn} override ${o.id} (${what}): PA ${o.pa_required ? 'required' : 'not required'}${o.reason ? ` - ${o.reason}` : ''}${o.source_document ? ` [${o.source_document}]` : ''}${roster}`,
      });
      return finish({
        ...base,
        pa_required: o.pa_required,
        determination: o.pa_required ? 'required' : 'not_required',
        resolution_tier: 'facility_override',
        confidence: TIER_CONFIDENCE.facility_override,
        service_category: o.service_category ?? base.service_category,
        auth_type: o.auth_type,
        delegation_vendor: o.delegation_vendor,
        source: { kind: 'facility_override', id: o.id, citation: null },
      });
    }
  }

  const skipped: string[] = [];
  const payerRules = applicable(input.rules.filter((r) => r.scope === 'payer'), q, skipped);
  const nationalRules = applicable(input.rules.filter((r) => r.scope === 'national'), q, skipped);
  const skippedNote = () => (skipped.length ? `; skipped: ${skipped.splice(0).slice(0, 5).join('; ')}${skipped.length > 5 ? ' ...' : ''}` : '');

  const tiers: { tier: number; name: TierName; pick: (c: Candidate) => boolean; looked: string }[] = [
    { tier: 1, name: 'payer_code', pick: (c) => codeMatches(c.rule, q.code), looked: q.code ? `${payer.slug} rules naming code ${q.code}` : 'no code given' },
    {
      tier: 2,
      name: 'payer_category',
      pick: (c) => !isCodeRule(c.rule) && c.rule.service_category !== null && cats.has(c.rule.service_category),
      looked: `${payer.slug} rules for service categories: ${catList}`,
    },
    { tier: 3, name: 'payer_default', pick: (c) => !isCodeRule(c.rule) && c.rule.service_category === null, looked: `${payer.slug} plan-type or line-of-business defaults${q.plan_type ? ` (plan type ${q.plan_type})` : ''}` },
  ];
  for (const t of tiers) {
    const c = payerRules.find(t.pick);
    if (!c) {
      chain.push({ tier: t.tier, tier_name: t.name, matched: false, detail: `${t.looked}: none in force${t.tier === 1 ? skippedNote() : ''}` });
      continue;
    }
    chain.push({ tier: t.tier, tier_name: t.name, matched: true, detail: `${t.looked}: rule ${c.rule.rule_id}${ruleSummary(c)} (${c.rule.citation.title})` });
    return finish(fromRule(base, c, t.name, q));
  }

  const listed = (c: Candidate) => codeMatches(c.rule, q.code) || (c.rule.service_category !== null && cats.has(c.rule.service_category));
  const nat = nationalRules.find(listed);
  // The CMS hospital OPD prior-authorization program (42 CFR 419.80-419.89) covers hospital
  // outpatient departments paid under the OPPS: a listed service elsewhere (an office, a critical
  // access hospital, a Maryland hospital) needs no authorization under it.
  const outside = opdProgramOutside(nat ?? applicable(input.rules.filter((r) => r.scope === 'national'), { ...q, place_of_service: undefined }, []).find(listed), q, f);
  if (outside) {
    chain.push({ tier: 4, tier_name: 'national', matched: false, detail: `national program: rule ${outside.rule.rule_id} lists this service, but ${outside.why} (${outside.rule.citation.title})` });
    return finish({
      ...base,
      pa_required: false,
      determination: 'not_required',
      resolution_tier: 'national',
      confidence: TIER_CONFIDENCE.national,
      source: { kind: 'payer_rule', id: outside.rule.rule_id, citation: outside.rule.citation },
    });
  }
  if (nat) {
    chain.push({ tier: 4, tier_name: 'national', matched: true, detail: `national program: rule ${nat.rule.rule_id}${ruleSummary(nat)} (${nat.rule.citation.title})` });
    return finish(fromRule(base, nat, 'national', q));
  }
  chain.push({
    tier: 4,
    tier_name: 'national',
    matched: false,
    detail: input.rules.some((r) => r.scope === 'national')
      ? `${payer.slug} national programs: none lists ${q.code ? `code ${q.code}` : 'this service'} (categories: ${catList}) in force${skippedNote()}`
      : `no national prior-auth program is curated for ${payer.slug}`,
  });

  chain.push({ tier: 5, tier_name: 'none', matched: true, detail: 'no rule found in any tier: prior authorization is unknown, not "not required"; ask the payer' });
  warnings.push(`no prior-auth rule found for ${payer.slug}${q.code ? ` code ${q.code}` : ''}${q.service_category ? ` category ${q.service_category}` : ''}: determination unknown (pa_required false is not a confirmation)`);
  if (payer.knowledge_depth !== 'full') warnings.push(`${payer.slug}: knowledge_depth ${payer.knowledge_depth}; the payer's prior-auth lists are not in the loaded knowledge`);
  return finish(base);
}


/**
 * Why a national hospital-OPD program rule (one limited to OPD places of service) does not apply
 * to this service, or null when it does (or is not such a rule): another place of service, or a
 * facility the OPPS does not pay.
 */
function opdProgramOutside(c: Candidate | undefined, q: PaQuery, f: FacilityContext | null): { rule: PriorAuthRuleRow; why: string } | null {
  if (!c) return null;
  const pos = c.rule.place_of_service;
  if (pos.length === 0 || !pos.every((p) => HOSPITAL_OUTPATIENT_POS.has(p))) return null;
  if (q.place_of_service !== undefined && !pos.includes(q.place_of_service)) {
    return { rule: c.rule, why: `it covers hospital outpatient departments (place of service ${pos.join('/')}), not place of service ${q.place_of_service}` };
  }
  // A rural emergency hospital is paid the OPPS amount plus 5% (42 CFR 419.92): OPPS-paid here.
  if (f && f.payment_system !== 'opps' && f.payment_system !== 'reh') {
    const what = {
      cah_cost: 'a critical access hospital (paid at cost, not under the OPPS)',
      maryland: "a Maryland hospital (paid under the state's all-payer model, not the OPPS)",
      federal: 'a federal hospital (Medicare does not pay a Federal provider, 42 CFR 411.6)',
      non_hospital: 'not a hospital outpatient department',
    }[f.payment_system];
    return { rule: c.rule, why: `it covers OPPS-paid hospital outpatient departments and facility ${f.ccn} is ${what}` };
  }
  return null;
}

function ruleSummary(c: Candidate): string {
  const r = c.rule;
  const parts = [r.pa_required ? 'PA required' : 'PA not required'];
  if (r.pa_threshold !== null) parts.push(`after ${r.pa_threshold} visits`);
  if (r.place_of_service.length) parts.push(`at place of service ${r.place_of_service.join('/')}${c.posUnknown ? ' (no place of service given)' : ''}`);
  if (r.condition) parts.push(`(conditional: ${r.condition})`);
  return `: ${parts.join(' ')}`;
}

function fromRule(base: PaResolution, c: Candidate, tier: TierName, q: PaQuery): PaResolution {
  const r = c.rule;
  let determination: Determination = r.pa_required ? 'required' : 'not_required';
  let remaining: number | null = null;
  if (r.pa_required && r.pa_threshold !== null) {
    if (q.visit_count === undefined) determination = 'conditional';
    else {
      remaining = Math.max(r.pa_threshold - q.visit_count, 0);
      determination = remaining === 0 ? 'required' : 'conditional';
    }
  }
  if (r.pa_required && c.posUnknown) {
    determination = 'conditional';
    base.warnings.push(`rule ${r.rule_id} applies only at place of service ${r.place_of_service.join('/')}; pass place_of_service (or ccn) for a firm answer`);
  }
  if (r.pa_required && r.condition) {
    // A requirement limited to a case the query cannot show (a code billed with another): conditional, saying which.
    determination = 'conditional';
    base.warnings.push(`rule ${r.rule_id}: ${r.condition}`);
  }
  return {
    ...base,
    pa_required: determination === 'required' || (determination === 'conditional' && r.pa_required),
    determination,
    resolution_tier: tier,
    confidence: TIER_CONFIDENCE[tier],
    service_category: r.service_category ?? base.service_category,
    auth_type: r.auth_type,
    delegation_vendor: r.delegation_vendor,
    delegation_vendor_phone: r.vendor_phone,
    delegation_vendor_portal: r.vendor_portal,
    pa_threshold: r.pa_threshold,
    threshold_remaining: remaining,
    standard_turnaround_days: r.turnaround_standard_days,
    standard_turnaround_unit: r.turnaround_standard_days !== null ? (r.turnaround_standard_unit ?? 'calendar_days') : null,
    urgent_turnaround_hours: r.turnaround_urgent_hours,
    urgent_turnaround_days: r.turnaround_urgent_days,
    required_documents: r.required_documents,
    submission_info: r.submission_info,
    source: { kind: 'payer_rule', id: r.rule_id, citation: r.citation },
  };
}

/** Whether CMS-0057-F's decision timeframes bind this payer (or plan) on the date. */
export function federalTurnaroundApplies(payer: PayerRow, q: PaQuery): boolean {
  if (q.date_of_service < FEDERAL_TURNAROUND.from) return false;
  return IMPACTED_PAYER_TYPES.has(payer.payer_type) || (q.plan_type !== undefined && IMPACTED_PLAN_TYPES.has(q.plan_type));
}

/** Impacted payers: the federal maxima replace a longer or missing stated turnaround. */
function applyFederalTurnaround(r: PaResolution, payer: PayerRow, q: PaQuery, chain: RationaleStep[]): void {
  if (!federalTurnaroundApplies(payer, q) || r.determination === 'not_required') return;
  const calendarStandard = r.standard_turnaround_unit === 'calendar_days' ? r.standard_turnaround_days : null;
  if (calendarStandard === null || calendarStandard > FEDERAL_TURNAROUND.standard_days) {
    r.standard_turnaround_days = FEDERAL_TURNAROUND.standard_days;
    r.standard_turnaround_unit = 'calendar_days';
  }
  if (r.urgent_turnaround_hours === null || r.urgent_turnaround_hours > FEDERAL_TURNAROUND.urgent_hours) {
    r.urgent_turnaround_hours = FEDERAL_TURNAROUND.urgent_hours;
    r.urgent_turnaround_days = null;
  }
  const last = chain[chain.length - 1];
  if (last) last.detail += `; turnaround: at most ${FEDERAL_TURNAROUND.urgent_hours} hours expedited and ${FEDERAL_TURNAROUND.standard_days} calendar days standard (${FEDERAL_TURNAROUND.citation})`;
}
