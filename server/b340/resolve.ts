import type { Knowledge340b } from '../../datasets/manufacturer_340b/queries.js';
import { scopeIncludes } from '../../datasets/manufacturer_340b/queries.js';
import { aliasKey } from '../../datasets/payers/queries.js';
import { addDays } from '../../datasets/_shared/dates.js';
import type { Citation340b, EntityType, ManufacturerRow, PolicyRow, RebatePilotRow, StateLawRow } from '../../datasets/manufacturer_340b/schema.js';

/** Said on every resolve answer. */
export const DISCLAIMER =
  "Informational use only: a summary of manufacturers' published 340B contract-pharmacy policies, HRSA's rebate pilot and state laws as curated from the cited sources (seed rows are not yet re-verified). It is not legal advice; the manufacturer's current notice, HRSA and the courts govern.";

export const FDA_NDC_WARNING =
  'NDC -> labeler resolution through the FDA NDC directory needs the fda_ndc dataset, which is not loaded: the NDC was matched only against the labeler codes the manufacturer files list';

/** What the FDA NDC directory says of an NDC: its labeler code (from FDA's own segments) and labeler name. */
export interface NdcLabeler {
  labeler_code: string;
  labeler_name: string | null;
}

export type AccessStatus = 'allowed' | 'conditional' | 'restricted' | 'unknown';

export interface ResolveInput {
  entity_type: EntityType;
  /** A manufacturer already identified (the list route); wins over `manufacturer` and `ndc`. */
  manufacturer_id?: string;
  manufacturer?: string;
  ndc?: string;
  /** The NDC as the FDA directory knows it; absent: the NDC's own first segment is the labeler code. */
  ndc_labeler?: NdcLabeler;
  drug?: string;
  state?: string;
  has_in_house_pharmacy?: boolean;
  /** YYYY-MM-DD */
  as_of: string;
}

export interface Resolution340b {
  access_status: AccessStatus;
  /** What the manufacturer's policy alone answers, before any state law. */
  policy_status: AccessStatus;
  conditions: string[];
  manufacturer_id: string | null;
  manufacturer: string | null;
  policy: { policy_id: string; effective_date: string; contract_pharmacy_rule: PolicyRow['contract_pharmacy_rule']; summary: string } | null;
  data_submission: { required: boolean; effective_date: string | null; platform: string | null; scope: string[] };
  rebate_model: { in_scope: boolean; effective_date: string | null; program: 'hrsa_rebate_pilot' | null; pilot_status: RebatePilotRow['status'] | null; drugs: string[] };
  state_law_override: { applies: boolean; state: string | null; law: string | null; effective_date: string | null; litigation_status: string | null };
  citations: Citation340b[];
  warnings: string[];
}

/** The 5-digit labeler code of an NDC as callers write it (4-4-2, 5-3-2, 5-4-1 dashed, or 11 digits). */
export function labelerOf(ndc: string): string {
  const first = ndc.includes('-') ? ndc.split('-')[0]! : ndc.slice(0, 5);
  return first.padStart(5, '0');
}

const norm = (s: string) => s.trim().toLowerCase();

/** The manufacturer id a name, alias or id names alone, or null (unknown, or shared by several). */
export function findManufacturer(k: Knowledge340b, ref: string): string | null {
  const ids = k.names.get(aliasKey(ref)) ?? [];
  return ids.length === 1 ? ids[0]! : null;
}

/** The manufacturer an input names (by name, or by an NDC's labeler code), or why it is unknown. */
function identify(k: Knowledge340b, q: ResolveInput): { row: ManufacturerRow } | { why: string } {
  const known = q.manufacturer_id !== undefined ? k.manufacturers.get(q.manufacturer_id) : undefined;
  if (known) return { row: known };
  const byName = q.manufacturer !== undefined ? findManufacturer(k, q.manufacturer) : null;
  const labeler = q.ndc_labeler?.labeler_code ?? (q.ndc !== undefined ? labelerOf(q.ndc) : null);
  // The labeler code the manufacturer files list, else the FDA labeler name as a manufacturer name or alias.
  const fdaName = q.ndc_labeler?.labeler_name;
  const byNdc = labeler !== null ? (k.labelers.get(labeler) ?? (fdaName ? findManufacturer(k, fdaName) : null)) : null;
  if (q.manufacturer !== undefined && byName === null) return { why: `manufacturer "${q.manufacturer}" is not in the curated 340B dataset (or names several manufacturers)` };
  if (byName !== null && byNdc !== null && byNdc !== byName) return { why: `the NDC's labeler code ${labeler} belongs to ${k.manufacturers.get(byNdc)!.name}, not ${k.manufacturers.get(byName)!.name}` };
  const id = byName ?? byNdc;
  if (id === null) return { why: `labeler code ${labeler}${fdaName ? ` (${fdaName})` : ''} of NDC ${q.ndc} is not among the curated manufacturers` };
  return { row: k.manufacturers.get(id)! };
}

/**
 * Whether a covered entity of `entity_type` in `state` can buy a manufacturer's drug at the 340B
 * price for dispensing through a contract pharmacy on `as_of`. Rules, in order:
 * 1. an unknown manufacturer or NDC, or a manufacturer with no cited policy: `unknown`;
 * 2. the policy version in force is the latest effective on or before `as_of` that governs the
 *    entity type (and the drug, when given); none yet: `allowed` (no restriction in force);
 * 3. an exempt entity type (grantees, mostly), the manufacturer's own exemption of the state, or
 *    a drug the policy excludes: `allowed`; a drug excepted on conditions: `conditional`;
 * 4. the contract-pharmacy rule: a designation open only to entities without an in-house
 *    pharmacy is `restricted` for an entity with one (unless claims data opens contract pharmacies),
 *    `conditional` (designate one, within N miles, submit data) otherwise;
 * 5. a state law in force on `as_of` that protects the entity type overrides a restriction:
 *    `allowed`, with `state_law_override.applies` (a law without a cited effective date is never
 *    applied by date, nor one a cited court order bars from its `enjoined_date`; a warning says so).
 *    The answer cites the law and the source of its effective date.
 * The rebate model is in scope only for a pilot drug with a cited start, past it, while the pilot is
 * approved or in effect (a court order or HRSA's pause takes it out of scope). A status that takes
 * effect at a time of day (HRSA's pause at noon) holds from the next day; on its own day a warning
 * says when it starts.
 */
export function resolveAccess(k: Knowledge340b, q: ResolveInput): Resolution340b {
  const citations = new Map<string, Citation340b>();
  const cite = (c: Citation340b) => citations.set(`${c.url} ${c.title}`, c);
  const warnings: string[] = [];
  if (q.ndc !== undefined && q.ndc_labeler === undefined) warnings.push(FDA_NDC_WARNING);
  const out: Resolution340b = {
    access_status: 'unknown',
    policy_status: 'unknown',
    conditions: [],
    manufacturer_id: null,
    manufacturer: null,
    policy: null,
    data_submission: { required: false, effective_date: null, platform: null, scope: [] },
    rebate_model: { in_scope: false, effective_date: null, program: null, pilot_status: null, drugs: [] },
    state_law_override: { applies: false, state: q.state ?? null, law: null, effective_date: null, litigation_status: null },
    citations: [],
    warnings,
  };
  const law = q.state !== undefined ? k.stateLaws.get(q.state) : undefined;
  if (law) {
    Object.assign(out.state_law_override, { law: law.law, effective_date: law.effective_date, litigation_status: law.litigation_status });
    out.state_law_override.applies = stateLawApplies(law, q, cite, warnings);
  }
  const who = identify(k, q);
  if ('why' in who) {
    out.conditions.push(who.why);
    out.citations = [...citations.values()];
    return out;
  }
  const m = who.row;
  cite(m.citation);
  out.manufacturer_id = m.manufacturer_id;
  out.manufacturer = m.name;
  if (m.review_status === 'unverified') warnings.push(`${m.name}: curated rows not yet re-verified against their sources`);
  out.rebate_model = rebateModel(k, m.manufacturer_id, q, cite, warnings);
  out.policy_status = policyStatus(k, m, q, out, cite, warnings);
  out.access_status = out.state_law_override.applies && (out.policy_status === 'restricted' || out.policy_status === 'conditional') ? 'allowed' : out.policy_status;
  if (out.access_status !== out.policy_status) {
    out.conditions.unshift(`${law!.law} bars this restriction in ${law!.state} since ${law!.effective_date}; the manufacturer's policy alone would make it ${out.policy_status}`);
  }
  out.citations = [...citations.values()];
  return out;
}

/** Step 5: whether a state's law is in force on `as_of` for the entity type; cites the law and its dating event, warns why not. */
function stateLawApplies(law: StateLawRow, q: ResolveInput, cite: (c: Citation340b) => void, warnings: string[]): boolean {
  cite(law.citation);
  const name = `${law.state} ${law.law}`;
  if (law.effective_date === null) {
    warnings.push(`${name}: no effective date is cited in the dataset, so it is not applied by date`);
    return false;
  }
  const dated = law.history.find((h) => h.date === law.effective_date);
  if (dated) cite(dated.citation);
  if (law.effective_date > q.as_of) {
    warnings.push(`${name} takes effect on ${law.effective_date}, after ${q.as_of}`);
    return false;
  }
  if (law.enjoined_date !== null && law.enjoined_date <= q.as_of) {
    const order = law.history.find((h) => h.date === law.enjoined_date);
    if (order) cite(order.citation);
    warnings.push(`${name}: a court order of ${law.enjoined_date} bars its enforcement, so it is not applied (${law.litigation_status ?? 'see the cited order'})`);
    return false;
  }
  return scopeIncludes(law.entity_types_protected, q.entity_type, true);
}

function policyStatus(k: Knowledge340b, m: ManufacturerRow, q: ResolveInput, out: Resolution340b, cite: (c: Citation340b) => void, warnings: string[]): AccessStatus {
  const all = k.policies.get(m.manufacturer_id) ?? [];
  if (all.length === 0) {
    out.conditions.push(`no contract-pharmacy policy of ${m.name} is in the curated dataset`);
    return 'unknown';
  }
  const drug = q.drug !== undefined ? norm(q.drug) : undefined;
  const governs = (p: PolicyRow) =>
    scopeIncludes(p.entity_types_affected, q.entity_type, true) && (drug === undefined || p.drugs_in_scope.length === 0 || p.drugs_in_scope.some((d) => norm(d) === drug));
  const p = all.filter((x) => x.effective_date <= q.as_of && governs(x)).at(-1);
  if (!p) {
    const later = all.find(governs);
    out.conditions.push(
      later
        ? `no restriction of ${m.name} governing ${q.entity_type}${q.drug ? ` and ${q.drug}` : ''} is in force on ${q.as_of}; the first takes effect on ${later.effective_date}`
        : `${m.name}'s contract-pharmacy policies do not govern ${q.entity_type}${q.drug ? ` or ${q.drug}` : ''}`,
    );
    (later ? [later] : all).forEach((x) => cite(x.citation));
    return 'allowed';
  }
  cite(p.citation);
  out.policy = { policy_id: p.policy_id, effective_date: p.effective_date, contract_pharmacy_rule: p.contract_pharmacy_rule, summary: p.summary };
  if (p.data_submission_required || p.data_submission_unlocks) {
    out.data_submission = { required: p.data_submission_required, effective_date: p.data_submission_effective_date, platform: p.submission_platform, scope: p.submission_scope };
  }
  if (scopeIncludes(p.entity_types_exempt, q.entity_type, false)) {
    out.conditions.push(`${q.entity_type} is exempt from ${m.name}'s policy of ${p.effective_date}`);
    return 'allowed';
  }
  const exemption = (k.exemptions.get(m.manufacturer_id) ?? []).filter((e) => e.state === q.state && e.effective_date <= q.as_of && scopeIncludes(e.entity_types, q.entity_type, true)).at(-1);
  if (exemption) {
    cite(exemption.citation);
    out.conditions.push(`${m.name} exempts ${exemption.state}${exemption.entity_types.length ? ` (${exemption.entity_types.join(', ')})` : ''} from its policy since ${exemption.effective_date}`);
    return 'allowed';
  }
  const carve = drug === undefined ? undefined : (k.carveOuts.get(m.manufacturer_id) ?? []).filter((c) => norm(c.drug) === drug && c.effective_date <= q.as_of).at(-1);
  if (carve) {
    cite(carve.citation);
    if (carve.treatment === 'excluded_from_policy') {
      out.conditions.push(`${carve.drug} is excluded from ${m.name}'s contract-pharmacy policy since ${carve.effective_date}`);
      return 'allowed';
    }
    out.conditions.push(...carve.conditions);
    return 'conditional';
  }
  if (drug === undefined && p.drugs_in_scope.length) out.conditions.push(`the policy applies only to ${p.drugs_in_scope.join(', ')}; ${m.name}'s other products are not restricted by it`);
  return ruleStatus(p, q, out.conditions, warnings);
}

/** Step 4: what the contract-pharmacy rule itself allows. */
function ruleStatus(p: PolicyRow, q: ResolveInput, conditions: string[], warnings: string[]): AccessStatus {
  const platform = p.submission_platform ?? 'the manufacturer';
  const data = p.data_submission_unlocks === 'designation' || (p.data_submission_required && p.contract_pharmacy_rule !== 'claims_data_required') ? `claims data submitted through ${platform}` : null;
  const unlock = p.data_submission_unlocks === 'multiple_contract_pharmacies' ? `claims data submitted through ${platform} (opens any number of contract pharmacies)` : null;
  switch (p.contract_pharmacy_rule) {
    case 'none':
      return 'allowed';
    case 'no_contract_pharmacy':
      conditions.push('340B pricing only for product shipped to the covered entity and its registered sites, not to contract pharmacies');
      return 'restricted';
    case 'claims_data_required':
      conditions.push(unlock ?? `claims data submitted through ${platform}`);
      return 'conditional';
    default: {
      const miles = p.max_distance_miles ? ` within ${p.max_distance_miles} miles of the parent site` : '';
      const designate = p.contract_pharmacy_rule === 'two_contract_pharmacies' ? 'up to two designated contract pharmacies' : `one designated contract pharmacy${miles}`;
      const conds = [designate, data].filter((c): c is string => c !== null);
      if (!p.designation_requires_no_in_house_pharmacy) {
        conditions.push(...conds);
        return 'conditional';
      }
      if (q.has_in_house_pharmacy === true) {
        if (unlock) {
          conditions.push(unlock);
          return 'conditional';
        }
        conditions.push('an entity with an in-house pharmacy may designate no contract pharmacy under this policy');
        return 'restricted';
      }
      if (q.has_in_house_pharmacy === undefined) {
        warnings.push('has_in_house_pharmacy not given: the designation is open only to an entity without an in-house pharmacy');
        conditions.push('the entity has no in-house pharmacy', ...conds);
      } else conditions.push(...conds);
      if (unlock) conditions.push(`or ${unlock}`);
      return 'conditional';
    }
  }
}

/** The day from which a pilot status holds in a day-level answer: a status taking effect at a time of day (HRSA's pause at noon) holds from the next day. */
const statusFrom = (r: RebatePilotRow): string => (r.time !== null && r.time !== '00:00' ? addDays(r.date, 1) : r.date);
const STOPPED: readonly RebatePilotRow['status'][] = ['enjoined', 'paused', 'vacated', 'withdrawn'];

/** The HRSA rebate pilot as it stands on `as_of` for the manufacturer's drug (or its pilot drugs). */
function rebateModel(k: Knowledge340b, id: string, q: ResolveInput, cite: (c: Citation340b) => void, warnings: string[]): Resolution340b['rebate_model'] {
  const drugs = k.rebateDrugs.get(id) ?? [];
  const none = { in_scope: false, effective_date: null, program: null, pilot_status: null, drugs: drugs.map((d) => d.drug) };
  if (drugs.length === 0) return none;
  const status = k.rebatePilot.filter((s) => statusFrom(s) <= q.as_of).at(-1) ?? null;
  const hit = q.drug !== undefined ? drugs.find((d) => norm(d.drug) === norm(q.drug!)) : undefined;
  if (!hit) return { ...none, pilot_status: status?.status ?? null };
  cite(hit.citation);
  if (status) cite(status.citation);
  for (const later of k.rebatePilot.filter((s) => s.date === q.as_of && statusFrom(s) > q.as_of)) {
    cite(later.citation);
    warnings.push(`HRSA's 340B rebate pilot becomes ${later.status} at ${later.time} on ${later.date} (the source names no time zone): this answer gives its status at the start of the day`);
  }
  if (hit.effective_date === null) warnings.push(`${hit.drug}: no implementation date of its rebate plan is cited in the dataset, so it is never in the rebate model's scope`);
  const active = status !== null && (status.status === 'approved' || status.status === 'in_effect') && hit.effective_date !== null && hit.effective_date <= q.as_of;
  if (!active && status && STOPPED.includes(status.status)) {
    warnings.push(`HRSA's 340B rebate pilot is ${status.status} since ${status.date}${status.time !== null ? ` ${status.time}` : ''} (${status.summary}): ${hit.drug} keeps the upfront 340B price`);
  }
  return { in_scope: active, effective_date: hit.effective_date, program: hit.program, pilot_status: status?.status ?? null, drugs: drugs.map((d) => d.drug) };
}
