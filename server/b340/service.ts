import type { z } from 'zod';
import type { Knowledge340b } from '../../datasets/manufacturer_340b/queries.js';
import { scopeIncludes } from '../../datasets/manufacturer_340b/queries.js';
import type { ManufacturerRow, PolicyRow } from '../../datasets/manufacturer_340b/schema.js';
import type { ChangeRecord } from '../../warehouse/manifest.js';
import type { Watch } from '../../warehouse/watches.js';
import { findManufacturer, labelerOf, resolveAccess } from './resolve.js';
import type { ChangeItemSchema, ManufacturerPolicySchema } from './schemas.js';

type ChangeItem = z.output<typeof ChangeItemSchema>;

/**
 * The manufacturer list as of a day: each manufacturer's policy version in force for a hospital
 * (DSH) without an in-house pharmacy (else its latest version), the spec's "latest approved
 * manufacturer policies"; a
 * manufacturer with no policy in force that day is not listed. `history` is every dated change
 * up to the day (policies, state exemptions, carve-outs).
 */
export function manufacturerPolicies(k: Knowledge340b, asOf: string): z.output<typeof ManufacturerPolicySchema>[] {
  const out: z.output<typeof ManufacturerPolicySchema>[] = [];
  for (const m of [...k.manufacturers.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    const inForce = (k.policies.get(m.manufacturer_id) ?? []).filter((p) => p.effective_date <= asOf);
    if (inForce.length === 0) continue;
    const r = resolveAccess(k, { entity_type: 'DSH', manufacturer_id: m.manufacturer_id, has_in_house_pharmacy: false, as_of: asOf });
    // The version a hospital is under when one governs it (Sanofi's health-center rule is not), else the latest.
    const p = inForce.find((x) => x.policy_id === r.policy?.policy_id) ?? inForce.at(-1)!;
    out.push({
      id: m.manufacturer_id,
      manufacturer: m.name,
      citation: p.citation,
      contract_pharmacy_rule: p.contract_pharmacy_rule,
      data_submission_required: p.data_submission_required,
      effective_date: p.effective_date,
      entity_types_affected: p.entity_types_affected,
      entity_types_exempt: p.entity_types_exempt,
      drugs_in_scope: p.drugs_in_scope,
      rebate_model_drug: (k.rebateDrugs.get(m.manufacturer_id) ?? []).length > 0,
      status: r.policy_status === 'unknown' ? 'allowed' : r.policy_status,
      submission_platform: p.submission_platform,
      submission_scope: p.submission_scope,
      history: historyOf(k, m).filter((h) => h.date <= asOf).map(({ date, summary, citation }) => ({ date, summary, citation: citation! })),
    });
  }
  return out;
}

const policyItem = (m: ManufacturerRow, p: PolicyRow): ChangeItem => ({
  id: `policy:${m.manufacturer_id}:${p.policy_id}`,
  date: p.effective_date,
  kind: 'manufacturer_policy',
  summary: p.summary,
  manufacturers: [m.manufacturer_id],
  states: [],
  entity_types: p.entity_types_affected,
  citation: p.citation,
});

/** A manufacturer's dated changes, oldest first. */
function historyOf(k: Knowledge340b, m: ManufacturerRow): ChangeItem[] {
  const id = m.manufacturer_id;
  return [
    ...(k.policies.get(id) ?? []).map((p) => policyItem(m, p)),
    ...(k.exemptions.get(id) ?? []).map((e): ChangeItem => ({
      id: `exemption:${id}:${e.state}:${e.effective_date}`,
      date: e.effective_date,
      kind: 'state_exemption',
      summary: e.summary,
      manufacturers: [id],
      states: [e.state],
      entity_types: e.entity_types,
      citation: e.citation,
    })),
    ...(k.carveOuts.get(id) ?? []).map((c): ChangeItem => ({
      id: `carve_out:${id}:${c.drug}:${c.effective_date}`,
      date: c.effective_date,
      kind: 'drug_carve_out',
      summary: c.summary,
      manufacturers: [id],
      states: [],
      entity_types: [],
      citation: c.citation,
    })),
  ].sort((a, b) => a.date.localeCompare(b.date) || a.id.localeCompare(b.id));
}

/**
 * The whole 340B change feed, newest first: the curated history (policies, exemptions, carve-outs,
 * the rebate pilot's status, state-law events) and the dataset's own release records.
 */
export function changeFeed(k: Knowledge340b, releases: ChangeRecord[]): ChangeItem[] {
  const pilotMakers = [...k.rebateDrugs.keys()].sort();
  const items: ChangeItem[] = [
    ...[...k.manufacturers.values()].flatMap((m) => historyOf(k, m)),
    ...k.rebatePilot.map((r): ChangeItem => ({
      id: `rebate_pilot:${r.date}:${r.status}`,
      date: r.date,
      kind: 'rebate_pilot',
      summary: r.summary,
      manufacturers: pilotMakers,
      states: [],
      entity_types: [],
      citation: r.citation,
    })),
    ...[...k.stateLaws.values()].flatMap((l) =>
      l.history.map((h, i): ChangeItem => ({
        id: `state_law:${l.state}:${h.date}:${i}`,
        date: h.date,
        kind: 'state_law',
        summary: `${l.state} ${l.law}: ${h.summary}`,
        manufacturers: [],
        states: [l.state],
        entity_types: l.entity_types_protected,
        citation: h.citation,
      })),
    ),
    ...releases
      .filter((c) => c.dataset === 'manufacturer_340b')
      .map((c): ChangeItem => ({
        id: `release:${c.id}`,
        date: c.effective_date ?? c.created_at.slice(0, 10),
        kind: 'dataset_release',
        summary: `manufacturer_340b ${c.from_version ?? '(first load)'} -> ${c.to_version}: ${c.summary}`,
        manufacturers: [],
        states: [],
        entity_types: [],
        citation: null,
      })),
  ];
  return items.sort((a, b) => b.date.localeCompare(a.date) || a.id.localeCompare(b.id));
}

/** What a feed filter follows; an empty list follows everything on that axis. */
export interface FeedFilter {
  manufacturers: string[];
  states: string[];
  entity_types: string[];
  /** Only items dated on or after this day. */
  since?: string;
}

/** The filter a watch stands for: its NDCs followed through the manufacturers' labeler codes, from its creation day on. */
export function watchFilter(k: Knowledge340b, w: Watch): FeedFilter {
  const viaNdc = w.ndcs.map((n) => k.labelers.get(labelerOf(n))).filter((m): m is string => m !== undefined);
  return { manufacturers: [...new Set([...w.manufacturers, ...viaNdc])], states: w.states, entity_types: w.entity_types, since: w.created_at.slice(0, 10) };
}

/**
 * Whether an item concerns what a filter follows: on each axis the filter names, the item either
 * applies to everything on it (a state law concerns every manufacturer, a manufacturer's policy
 * every state) or names one of the filter's values.
 */
export function feedMatches(item: ChangeItem, f: FeedFilter): boolean {
  if (f.since !== undefined && item.date < f.since) return false;
  const axis = (have: string[], want: string[]) => want.length === 0 || have.length === 0 || have.some((h) => want.includes(h));
  const types = f.entity_types.length === 0 || item.entity_types.length === 0 || f.entity_types.some((t) => scopeIncludes(item.entity_types as never, t, false));
  return axis(item.manufacturers, f.manufacturers) && axis(item.states, f.states) && types;
}

/** Resolves manufacturer references to ids; each unknown one is an issue at `loc` + its index. */
export function manufacturerIds(k: Knowledge340b | null, refs: string[], loc: (string | number)[], indexed: boolean) {
  const ids: string[] = [];
  const issues = [];
  for (const [i, ref] of refs.entries()) {
    const id = k ? findManufacturer(k, ref) : null;
    if (id) ids.push(id);
    else issues.push({ loc: indexed ? [...loc, i] : loc, msg: `no manufacturer of the 340B dataset is named "${ref}" alone (ids: ${k ? [...k.manufacturers.keys()].sort().join(', ') : 'dataset not loaded'})`, type: 'value_error', input: ref });
  }
  return { ids, issues };
}
