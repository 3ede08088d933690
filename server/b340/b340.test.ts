import { describe, expect, it } from 'vitest';
import type { Knowledge340b } from '../../datasets/manufacturer_340b/queries.js';
import type { Citation340b, ManufacturerRow, PolicyRow, RebateDrugRow, RebatePilotRow, StateLawRow } from '../../datasets/manufacturer_340b/schema.js';
import { FDA_NDC_WARNING, labelerOf, resolveAccess, type ResolveInput } from './resolve.js';

const cite = (title: string): Citation340b => ({ title, url: `https://example.com/${encodeURIComponent(title)}`, published: '2024-01-01' });

const maker = (id: string, labeler_codes: string[] = []): ManufacturerRow => ({ manufacturer_id: id, name: id.toUpperCase(), aliases: [`${id} inc`], labeler_codes, review_status: 'unverified', citation: cite(id) });
const policy = (id: string, effective_date: string, over: Partial<PolicyRow> = {}): PolicyRow => ({
  manufacturer_id: id,
  policy_id: effective_date,
  effective_date,
  summary: `${id} policy of ${effective_date}`,
  contract_pharmacy_rule: 'single_contract_pharmacy_within_40_miles',
  max_distance_miles: 40,
  designation_requires_no_in_house_pharmacy: true,
  entity_types_affected: [],
  entity_types_exempt: [],
  drugs_in_scope: [],
  data_submission_required: false,
  data_submission_unlocks: null,
  submission_platform: null,
  submission_scope: [],
  data_submission_effective_date: null,
  citation: cite(`${id} ${effective_date}`),
  ...over,
});
const law = (state: string, effective_date: string | null): StateLawRow => ({
  state,
  law: `Act of ${state}`,
  statute: null,
  effective_date,
  enjoined_date: null,
  entity_types_protected: [],
  bars: ['restricting_contract_pharmacy_delivery'],
  litigation_status: null,
  history: [],
  citation: cite(`law ${state}`),
});

/** A knowledge object of hand-made rows: each rule's test sees only what it needs. */
function knowledge(o: { makers: ManufacturerRow[]; policies?: PolicyRow[]; laws?: StateLawRow[]; rebateDrugs?: RebateDrugRow[]; pilot?: RebatePilotRow[] }): Knowledge340b {
  const group = <R extends { manufacturer_id: string }>(rows: R[]) => {
    const m = new Map<string, R[]>();
    for (const r of rows) m.set(r.manufacturer_id, [...(m.get(r.manufacturer_id) ?? []), r]);
    return m;
  };
  const names = new Map<string, string[]>();
  for (const m of o.makers) for (const n of [m.manufacturer_id, m.name.toLowerCase(), ...m.aliases]) names.set(n, [m.manufacturer_id]);
  return {
    version: 'test',
    manufacturers: new Map(o.makers.map((m) => [m.manufacturer_id, m])),
    names,
    labelers: new Map(o.makers.flatMap((m) => m.labeler_codes.map((c) => [c, m.manufacturer_id] as const))),
    policies: group(o.policies ?? []),
    exemptions: new Map(),
    carveOuts: new Map(),
    rebateDrugs: group(o.rebateDrugs ?? []),
    rebatePilot: o.pilot ?? [],
    stateLaws: new Map((o.laws ?? []).map((l) => [l.state, l])),
  };
}

const ask = (k: Knowledge340b, q: Partial<ResolveInput>) => resolveAccess(k, { entity_type: 'DSH', manufacturer: 'acme', as_of: '2024-06-01', ...q });

describe('340B access resolution, one test per rule', () => {
  const k = knowledge({ makers: [maker('acme', ['12345'])], policies: [policy('acme', '2023-04-17', { entity_types_exempt: ['grantees'] })], laws: [law('AR', '2021-07-26'), law('LA', null)] });

  it('in-house pharmacy: restricted with one, conditional (one contract pharmacy within 40 miles) without', () => {
    const withPharmacy = ask(k, { has_in_house_pharmacy: true });
    expect(withPharmacy.access_status).toBe('restricted');
    const without = ask(k, { has_in_house_pharmacy: false });
    expect(without.access_status).toBe('conditional');
    expect(without.conditions).toEqual(['one designated contract pharmacy within 40 miles of the parent site']);
    expect(without.policy).toMatchObject({ policy_id: '2023-04-17', contract_pharmacy_rule: 'single_contract_pharmacy_within_40_miles' });
    // Not saying whether it has one: conditional on not having one, with a warning.
    const unsaid = ask(k, {});
    expect(unsaid.access_status).toBe('conditional');
    expect(unsaid.conditions[0]).toBe('the entity has no in-house pharmacy');
  });

  it('in-house pharmacy: claims data opening any number of contract pharmacies makes it conditional, not restricted', () => {
    const k2 = knowledge({ makers: [maker('acme')], policies: [policy('acme', '2022-08-01', { contract_pharmacy_rule: 'single_contract_pharmacy', max_distance_miles: null, data_submission_unlocks: 'multiple_contract_pharmacies', submission_platform: '340B ESP' })] });
    const r = ask(k2, { has_in_house_pharmacy: true });
    expect(r.access_status).toBe('conditional');
    expect(r.conditions).toEqual(['claims data submitted through 340B ESP (opens any number of contract pharmacies)']);
    expect(r.data_submission).toEqual({ required: false, effective_date: null, platform: '340B ESP', scope: [] });
  });

  it('grantee exemption: a health center (CH) is allowed where a hospital is restricted', () => {
    expect(ask(k, { entity_type: 'CH', has_in_house_pharmacy: true })).toMatchObject({ access_status: 'allowed', conditions: ["CH is exempt from ACME's policy of 2023-04-17"] });
    expect(ask(k, { entity_type: 'DSH', has_in_house_pharmacy: true }).access_status).toBe('restricted');
  });

  it('state law: not applied the day before it takes effect, overrides the restriction from its effective date', () => {
    const k3 = knowledge({ makers: [maker('acme')], policies: [policy('acme', '2021-01-01')], laws: [law('AR', '2021-07-26')] });
    const dayBefore = ask(k3, { state: 'AR', has_in_house_pharmacy: true, as_of: '2021-07-25' });
    expect(dayBefore).toMatchObject({ access_status: 'restricted', policy_status: 'restricted', state_law_override: { applies: false, state: 'AR', effective_date: '2021-07-26' } });
    expect(dayBefore.warnings).toContain('AR Act of AR takes effect on 2021-07-26, after 2021-07-25');
    const onTheDay = ask(k3, { state: 'AR', has_in_house_pharmacy: true, as_of: '2021-07-26' });
    expect(onTheDay).toMatchObject({ access_status: 'allowed', policy_status: 'restricted', state_law_override: { applies: true, state: 'AR', law: 'Act of AR' } });
    expect(onTheDay.conditions[0]).toMatch(/^Act of AR bars this restriction in AR since 2021-07-26/);
    expect(onTheDay.citations.map((c) => c.title)).toEqual(['law AR', 'acme', 'acme 2021-01-01']);
  });

  it('state law: one without a cited effective date is never applied, and the answer says so', () => {
    const r = ask(k, { state: 'LA', has_in_house_pharmacy: true });
    expect(r).toMatchObject({ access_status: 'restricted', state_law_override: { applies: false, state: 'LA', law: 'Act of LA', effective_date: null } });
    expect(r.warnings).toContain('LA Act of LA: no effective date is cited in the dataset, so it is not applied by date');
  });

  it('rebate pilot: a pilot drug is in scope after its start while approved, out of scope once a court order pauses it', () => {
    const k4 = knowledge({
      makers: [maker('acme')],
      policies: [policy('acme', '2020-01-01')],
      rebateDrugs: [{ manufacturer_id: 'acme', drug: 'Widgetol', labeler_name: 'Acme', program: 'hrsa_rebate_pilot', effective_date: '2026-01-01', citation: cite('pilot drugs') }],
      pilot: [
        { date: '2025-10-30', time: null, status: 'approved', summary: 'HRSA approves the plans.', citation: cite('approved') },
        { date: '2026-02-01', time: null, status: 'enjoined', summary: 'A court enjoins the pilot.', citation: cite('enjoined') },
      ],
    });
    expect(ask(k4, { drug: 'Widgetol', as_of: '2025-12-31' }).rebate_model).toMatchObject({ in_scope: false, pilot_status: 'approved', effective_date: '2026-01-01' });
    expect(ask(k4, { drug: 'widgetol', as_of: '2026-01-15' }).rebate_model).toEqual({ in_scope: true, effective_date: '2026-01-01', program: 'hrsa_rebate_pilot', pilot_status: 'approved', drugs: ['Widgetol'] });
    const paused = ask(k4, { drug: 'Widgetol', as_of: '2026-02-02' });
    expect(paused.rebate_model).toMatchObject({ in_scope: false, pilot_status: 'enjoined' });
    expect(paused.warnings.some((w) => w.startsWith("HRSA's 340B rebate pilot is enjoined since 2026-02-01"))).toBe(true);
    expect(paused.citations.map((c) => c.title)).toContain('enjoined');
  });

  it('state law: the answer cites the source of the effective date, before and after it', () => {
    const dated: StateLawRow = { ...law('MS', '2024-07-01'), history: [{ date: '2024-07-01', summary: 'The act takes effect.', citation: cite('takes effect') }] };
    const k5 = knowledge({ makers: [maker('acme')], policies: [policy('acme', '2021-01-01')], laws: [dated] });
    const before = ask(k5, { state: 'MS', has_in_house_pharmacy: true, as_of: '2024-06-30' });
    expect(before).toMatchObject({ access_status: 'restricted', state_law_override: { applies: false, effective_date: '2024-07-01' } });
    expect(before.citations.map((c) => c.title)).toEqual(['law MS', 'takes effect', 'acme', 'acme 2021-01-01']);
    const after = ask(k5, { state: 'MS', has_in_house_pharmacy: true, as_of: '2024-07-01' });
    expect(after).toMatchObject({ access_status: 'allowed', state_law_override: { applies: true, effective_date: '2024-07-01' } });
    expect(after.citations.map((c) => c.title)).toContain('takes effect');
  });

  it('state law: not applied from the day a cited court order bars its enforcement, and the answer says so', () => {
    const enjoined: StateLawRow = {
      ...law('WV', '2024-06-06'),
      enjoined_date: '2024-12-17',
      litigation_status: 'preliminarily enjoined on 2024-12-17',
      history: [{ date: '2024-12-17', summary: 'A court enjoins enforcement.', citation: cite('injunction') }],
    };
    const k6 = knowledge({ makers: [maker('acme')], policies: [policy('acme', '2021-01-01')], laws: [enjoined] });
    expect(ask(k6, { state: 'WV', has_in_house_pharmacy: true, as_of: '2024-12-16' })).toMatchObject({ access_status: 'allowed', state_law_override: { applies: true } });
    const r = ask(k6, { state: 'WV', has_in_house_pharmacy: true, as_of: '2024-12-17' });
    expect(r).toMatchObject({ access_status: 'restricted', state_law_override: { applies: false, litigation_status: 'preliminarily enjoined on 2024-12-17' } });
    expect(r.warnings).toContain('WV Act of WV: a court order of 2024-12-17 bars its enforcement, so it is not applied (preliminarily enjoined on 2024-12-17)');
    expect(r.citations.map((c) => c.title)).toContain('injunction');
  });

  it('rebate pilot: a status taking effect at a time of day holds from the next day, and its own day says when it starts', () => {
    const k7 = knowledge({
      makers: [maker('acme')],
      policies: [policy('acme', '2020-01-01')],
      rebateDrugs: [{ manufacturer_id: 'acme', drug: 'WIDGETOL', labeler_name: 'Acme', program: 'hrsa_rebate_pilot', effective_date: '2026-01-01', citation: cite('pilot drugs') }],
      pilot: [
        { date: '2025-10-30', time: null, status: 'approved', summary: 'HRSA approves the plans.', citation: cite('approved') },
        { date: '2025-12-31', time: '12:00', status: 'paused', summary: 'HRSA pauses the pilot at noon.', citation: cite('pause notice') },
      ],
    });
    const sameDay = ask(k7, { drug: 'Widgetol', as_of: '2025-12-31' });
    expect(sameDay.rebate_model).toMatchObject({ in_scope: false, pilot_status: 'approved' });
    expect(sameDay.warnings).toContain("HRSA's 340B rebate pilot becomes paused at 12:00 on 2025-12-31 (the source names no time zone): this answer gives its status at the start of the day");
    expect(sameDay.citations.map((c) => c.title)).toContain('pause notice');
    const next = ask(k7, { drug: 'widgetol', as_of: '2026-01-01' });
    expect(next.rebate_model).toMatchObject({ in_scope: false, pilot_status: 'paused', effective_date: '2026-01-01' });
    expect(next.warnings.some((w) => w.startsWith("HRSA's 340B rebate pilot is paused since 2025-12-31 12:00 (HRSA pauses the pilot at noon.)"))).toBe(true);
  });

  it('rebate pilot: a pilot drug without a cited implementation date is never in scope, and the answer says so', () => {
    const k8 = knowledge({
      makers: [maker('acme')],
      rebateDrugs: [{ manufacturer_id: 'acme', drug: 'WIDGETOL', labeler_name: 'Acme', program: 'hrsa_rebate_pilot', effective_date: null, citation: cite('pilot drugs') }],
      pilot: [{ date: '2025-10-30', time: null, status: 'approved', summary: 'HRSA approves the plans.', citation: cite('approved') }],
    });
    const r = ask(k8, { drug: 'Widgetol', as_of: '2026-03-01' });
    expect(r.rebate_model).toEqual({ in_scope: false, effective_date: null, program: 'hrsa_rebate_pilot', pilot_status: 'approved', drugs: ['WIDGETOL'] });
    expect(r.warnings).toContain("WIDGETOL: no implementation date of its rebate plan is cited in the dataset, so it is never in the rebate model's scope");
  });

  it('unknown manufacturer or NDC: unknown, never allowed, even where a state law is in force', () => {
    const r = ask(k, { manufacturer: 'Nobody Pharma', state: 'AR' });
    expect(r).toMatchObject({ access_status: 'unknown', manufacturer_id: null, conditions: ['manufacturer "Nobody Pharma" is not in the curated 340B dataset (or names several manufacturers)'] });
    const ndc = ask(k, { manufacturer: undefined, ndc: '99999-0001-01' });
    expect(ndc.access_status).toBe('unknown');
    expect(ndc.warnings).toContain(FDA_NDC_WARNING);
    // A manufacturer the dataset knows but has no policy for is unknown too.
    expect(ask(knowledge({ makers: [maker('acme')] }), {}).access_status).toBe('unknown');
  });

  it("NDC: resolves through the manufacturer files' labeler codes, in every NDC layout", () => {
    expect(['12345-678-90', '12345-6789-0', '12345678901', '12345-6789-01'].map(labelerOf)).toEqual(['12345', '12345', '12345', '12345']);
    expect(labelerOf('0002-1402-71')).toBe('00002');
    const r = ask(k, { manufacturer: undefined, ndc: '12345-6789-01', has_in_house_pharmacy: false });
    expect(r).toMatchObject({ access_status: 'conditional', manufacturer_id: 'acme' });
    expect(r.warnings).toContain(FDA_NDC_WARNING);
  });
});
