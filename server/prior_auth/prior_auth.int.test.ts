import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFiles } from '../../ingest/pipeline.js';
import type { PayerRow, PriorAuthRuleRow } from '../../datasets/payers/schema.js';
import { FEDERAL_TURNAROUND, TIER_CONFIDENCE, inForce, resolvePriorAuth, type PaQuery } from './resolve.js';
import type { PaOverride } from '../../warehouse/facilities.js';
import { REPO_ROOT } from '../../testing/datasets.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';

// Medicare FFS expectations come from the seeded CMS OPD list (seeds/payers/medicare_ffs.yaml and
// service_categories.yaml, cited there): 64490 is a facet joint intervention, 36475 vein ablation,
// both on the list at OPD places of service 19/22. Tier 1-3 answers use the fixture payer
// test/fixtures/payers_tiers/tier_health.yaml, loaded beside the seeds.

const CCN = '050454';
const D = '2026-03-02';
let t: TestServer;
let keyB: string;

beforeAll(async () => {
  t = await startTestServer({ now: () => new Date('2026-03-02T12:00:00Z') });
  const seeds = join(REPO_ROOT, 'seeds/payers');
  const files = (await readdir(seeds)).filter((f) => f.endsWith('.yaml')).map((f) => join(seeds, f));
  await ingestFiles(t.wh, { dataset: 'payers', files: [...files, join(REPO_ROOT, 'test/fixtures/payers_tiers/tier_health.yaml')] });
  for (let i = 0; i < 100; i++) {
    if ((await t.request('/v1/payers/search?q=tier%20health')).body[0]?.slug === 'tier_health') break;
    await new Promise((r) => setTimeout(r, 30));
  }
  const tb = await t.srv.state.admin.createTenant('tenant-b');
  keyB = await t.newKey('test', ['knowledge', 'audit'], tb.name);
});
afterAll(async () => t.close());

const check = (q: Record<string, string>, key?: string) => t.request(`/v1/prior-auth/check?${new URLSearchParams({ date_of_service: D, ...q })}`, key ? { key } : {});
const post = (path: string, body: unknown, key?: string) => t.request(path, { method: 'POST', body, ...(key ? { key } : {}) });

describe('prior-auth tiers over HTTP', () => {
  it('tier 1 payer_code: the payer rule naming the code, with vendor, documents and turnaround', async () => {
    const r = await check({ payer: 'tier health', code: '70553' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      payer_slug: 'tier_health',
      resolution_tier: 'payer_code',
      determination: 'required',
      pa_required: true,
      confidence: TIER_CONFIDENCE.payer_code,
      delegation_vendor: 'Imaging Vendor Inc',
      delegation_vendor_phone: '800-555-0100',
      delegation_vendor_portal: 'https://example.org/imaging',
      standard_turnaround_days: 15,
      urgent_turnaround_hours: 96,
      required_documents: ['order', 'clinical notes'],
      submission_info: { fax: '800-555-0101' },
      source: { kind: 'payer_rule', id: 'mri_brain' },
    });
    expect(r.body.rationale_chain.map((s: { tier: number; matched: boolean }) => [s.tier, s.matched])).toEqual([
      [0, false],
      [1, true],
    ]);
    expect(r.body.determination_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("claim intelligence lists the payer's prior-auth rule with its portal_url (the vendor's portal)", async () => {
    const r = await t.request('/v1/payers/tier_health/claim-intelligence?code=70553');
    expect(r.status).toBe(200);
    expect(r.body.prior_auth_rules.find((x: { rule_id: string }) => x.rule_id === 'mri_brain')).toMatchObject({ portal_url: 'https://example.org/imaging' });
  });

  it('tier 1 with a visit threshold: conditional below it, required at it', async () => {
    const below = await check({ payer: 'tier_health', code: '97110', visit_count: '5' });
    expect(below.body).toMatchObject({ determination: 'conditional', pa_threshold: 12, visit_count: 5, threshold_remaining: 7 });
    const at = await check({ payer: 'tier_health', code: '97110', visit_count: '12' });
    expect(at.body).toMatchObject({ determination: 'required', threshold_remaining: 0, pa_required: true });
    const unknown = await check({ payer: 'tier_health', code: '97110' });
    expect(unknown.body).toMatchObject({ determination: 'conditional', threshold_remaining: null });
  });

  it('tier 2 payer_category: the code falls in a category the payer has a rule for', async () => {
    const r = await check({ payer: 'tier_health', code: '36475' });
    expect(r.body).toMatchObject({ resolution_tier: 'payer_category', determination: 'required', service_category: 'vein_ablation', confidence: TIER_CONFIDENCE.payer_category });
    expect(r.body.rationale_chain[1]).toMatchObject({ tier: 1, matched: false });
    expect(r.body.rationale_chain[2]).toMatchObject({ tier: 2, matched: true });
  });

  it('tier 3 payer_default: the plan-type default applies only to that plan type', async () => {
    const hmo = await check({ payer: 'tier_health', code: '99213', plan_type: 'hmo' });
    expect(hmo.body).toMatchObject({ resolution_tier: 'payer_default', determination: 'required', plan_type: 'hmo', source: { id: 'hmo_default' } });
    const ppo = await check({ payer: 'tier_health', code: '99213', plan_type: 'ppo' });
    expect(ppo.body.resolution_tier).toBe('none');
  });

  it('an expired rule does not apply after its expiration date, and does on it', async () => {
    expect((await check({ payer: 'tier_health', code: '99214' })).body.resolution_tier).toBe('none');
    expect((await check({ payer: 'tier_health', code: '99214', date_of_service: '2025-12-31' })).body.resolution_tier).toBe('payer_code');
  });

  it('impacted payers (a Medicare Advantage plan from 2026) get at most 72 hours / 7 calendar days', async () => {
    const ma = await check({ payer: 'tier_health', code: '99213', plan_type: 'medicare_advantage' });
    expect(ma.body).toMatchObject({ resolution_tier: 'payer_default', standard_turnaround_days: FEDERAL_TURNAROUND.standard_days, standard_turnaround_unit: 'calendar_days', urgent_turnaround_hours: 72 });
    expect(ma.body.rationale_chain.at(-1).detail).toContain('CMS-0057-F');
    const before = await check({ payer: 'tier_health', code: '99213', plan_type: 'medicare_advantage', date_of_service: '2025-12-31' });
    expect(before.body).toMatchObject({ standard_turnaround_days: 14, urgent_turnaround_hours: null });
  });

  it('tier 4 national: Medicare FFS OPD list at an OPD place of service; conditional without one', async () => {
    const opd = await check({ payer: 'medicare', code: '64490', place_of_service: '22' });
    expect(opd.body).toMatchObject({
      payer_slug: 'medicare_ffs',
      resolution_tier: 'national',
      determination: 'required',
      service_category: 'facet_joint_intervention',
      // CMS OPD page, Update 11/14/2024: 7 calendar days for requests from 2025-01-01 (was 10 business days).
      standard_turnaround_days: 7,
      standard_turnaround_unit: 'calendar_days',
      urgent_turnaround_days: 2,
    });
    expect(opd.body.source.citation.section).toMatch(/7 calendar days for requests submitted on or after January 1, 2025/);
    expect(opd.body.source.citation.url).toMatch(/^https:\/\/www\.cms\.gov\//);
    // Unverified seed rows count 0.1 less than the tier's base.
    expect(opd.body.confidence).toBe(TIER_CONFIDENCE.national - 0.1);
    // The OPD program covers hospital outpatient departments: in an office it is a firm "not required".
    const office = await check({ payer: 'medicare', code: '64490', place_of_service: '11' });
    expect(office.body).toMatchObject({ resolution_tier: 'national', determination: 'not_required', pa_required: false });
    expect(office.body.rationale_chain.at(-1)).toMatchObject({ tier: 4, matched: false, detail: expect.stringContaining('not place of service 11') });
    // A critical access hospital is not paid under the OPPS: the program does not cover it either.
    const cah = await check({ payer: 'medicare', code: '64490', ccn: '051300' });
    expect(cah.body).toMatchObject({ resolution_tier: 'national', determination: 'not_required', place_of_service: '22' });
    expect(cah.body.rationale_chain.at(-1).detail).toContain('critical access hospital');
    const noPos = await check({ payer: 'medicare', code: '64490' });
    expect(noPos.body).toMatchObject({ resolution_tier: 'national', determination: 'conditional' });
    expect(noPos.body.reliability.warnings.join(' ')).toContain('place_of_service');
    // Before the facet joint program began (2023-07-01) the list did not name it.
    expect((await check({ payer: 'medicare', code: '64490', place_of_service: '22', date_of_service: '2023-06-30' })).body.resolution_tier).toBe('none');
  });

  it('the OPD list in full: every category answers at an OPD, the drug codes and rhinoplasty grafts included, codes CMS removed do not', async () => {
    // One code per category and the codes that answered unknown before (J0585-J0588, 20912, 21210).
    const listed: [string, string][] = [
      ['15823', 'blepharoplasty'], ['67908', 'blepharoplasty'], ['64612', 'botulinum_toxin_injection'], ['J0585', 'botulinum_toxin_injection'],
      ['J0586', 'botulinum_toxin_injection'], ['J0587', 'botulinum_toxin_injection'], ['J0588', 'botulinum_toxin_injection'], ['30400', 'rhinoplasty'],
      ['20912', 'rhinoplasty'], ['21210', 'rhinoplasty'], ['30520', 'rhinoplasty'], ['15830', 'panniculectomy'], ['36475', 'vein_ablation'],
      ['22551', 'cervical_fusion_with_disc_removal'], ['63650', 'implanted_spinal_neurostimulator'], ['64635', 'facet_joint_intervention'],
    ];
    for (const [code, category] of listed) {
      const r = await check({ payer: 'medicare', code, place_of_service: '22' });
      expect(r.body, code).toMatchObject({ resolution_tier: 'national', pa_required: true, service_category: category, standard_turnaround_days: 7 });
      expect(r.body.determination, code).toBe(category === 'botulinum_toxin_injection' ? 'conditional' : 'required');
    }
    // Botulinum toxin: only a listed drug code with 64612 or 64615 needs authorization, and the answer says so.
    const botox = await check({ payer: 'medicare', code: 'J0585', place_of_service: '22' });
    expect(botox.body.reliability.warnings.join(' ')).toMatch(/J0585, J0586, J0587 or J0588\) is billed with an injection code on the list \(64612 or 64615\)/);
    // Taken off the list: 63685/63688 (before the category began), 64492/64495 (from the 2024-08-05 update).
    for (const code of ['63685', '63688', '64492', '64495']) expect((await check({ payer: 'medicare', code, place_of_service: '22' })).body.determination, code).toBe('unknown');
    const y2024 = await check({ payer: 'medicare', code: '64492', place_of_service: '22', date_of_service: '2024-03-01' });
    expect(y2024.body).toMatchObject({ determination: 'required', source: { id: 'opd_facet_joint_three_four_levels' }, standard_turnaround_days: 10, standard_turnaround_unit: 'business_days' });
  });

  it("tier 5 none: unknown, pa_required false, low confidence and a warning, never 'not required'", async () => {
    const r = await check({ payer: 'aetna', code: '99213' });
    expect(r.body).toMatchObject({ resolution_tier: 'none', determination: 'unknown', pa_required: false });
    expect(r.body.confidence).toBeLessThanOrEqual(0.2);
    expect(r.body.rationale_chain.map((s: { tier: number }) => s.tier)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(r.body.reliability.warnings.some((w: string) => w.startsWith('no prior-auth rule found for aetna'))).toBe(true);
  });

  it('422 with every issue: unknown payer, no code or category, bad visit count, unknown parameter', async () => {
    const r = await t.request('/v1/prior-auth/check?payer=nobody%20at%20all&visit_count=-1&colour=red');
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['query.code', 'query.colour', 'query.payer', 'query.visit_count']);
  });
});

describe('facilities: registration, roster, overrides and tier 0', () => {
  it('registers a CCN (201 then 200), merges it into the profile and into payment', async () => {
    const first = await t.request(`/v1/facilities/${CCN}`, { method: 'PUT', body: { name: 'Our Hospital', place_of_service: '19' } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ ccn: CCN, name: 'Our Hospital', place_of_service: '19', registered: true, is_active: true });
    const again = await t.request(`/v1/facilities/${CCN}`, { method: 'PUT', body: { name: 'Our Hospital' } });
    expect(again.status).toBe(200);
    expect(again.body.place_of_service).toBe('22'); // the body replaces the registration: back to the hospital default
    expect((await t.request(`/v1/facilities/${CCN}`, { key: keyB })).body).toMatchObject({ registered: false, is_active: null });
    const pay = await t.request(`/v1/codes/99213/payment?ccn=${CCN}&date_of_service=${D}`);
    expect(pay.body.facility.registered).toBe(true);
    const payB = await t.request(`/v1/codes/99213/payment?ccn=${CCN}&date_of_service=${D}`, { key: keyB });
    expect(payB.body.facility.registered).toBe(false);
    const list = await t.request('/v1/facilities');
    expect(list.body.facilities.map((f: { ccn: string }) => f.ccn)).toContain(CCN);
    expect((await t.request('/v1/facilities', { key: keyB })).body).toMatchObject({ facilities: [], total: 0 });
  });

  it('a CCN outside the reference data needs name and state; with them it registers', async () => {
    expect((await t.request('/v1/facilities/88888X', { method: 'PUT', body: { name: 'New clinic' } })).status).toBe(404);
    const r = await t.request('/v1/facilities/88888X', { method: 'PUT', body: { name: 'New clinic', state: 'tx', facility_type: 'ambulatory_surgical_center' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ source_layout: 'tenant', state: 'TX', locality: null, is_rural: null, registered: true });
    expect(r.body.reliability.warnings.join(' ')).toContain('not in the facility reference data');
  });

  it('roster upsert is idempotent on facility and payer: alias stored as slug, same id, 201 then 200', async () => {
    const a = await post(`/v1/facilities/${CCN}/payers`, { payer_slug: 'United Healthcare', network_status: 'in_network', plan_types: ['hmo', 'hmo'], effective_date: '2026-01-01' });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ payer_slug: 'uhc', payer_name: 'UnitedHealthcare', network_status: 'in_network', plan_types: ['hmo'], effective_date: '2026-01-01T00:00:00.000Z', is_active: true });
    const b = await post(`/v1/facilities/${CCN}/payers`, { payer_slug: 'uhc', network_status: 'out_of_network' });
    expect(b.status).toBe(200);
    expect(b.body.id).toBe(a.body.id);
    const list = await t.request(`/v1/facilities/${CCN}/payers`);
    expect(list.body.total).toBe(1);
    expect(list.body.payers[0]).toMatchObject({ id: a.body.id, network_status: 'out_of_network', plan_types: [] });
    const bad = await post(`/v1/facilities/${CCN}/payers`, { payer_slug: 'unitd helthcare inc', network_status: 'maybe', notes: 'x'.repeat(2001) });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['body.network_status', 'body.notes', 'body.payer_slug']);
  });

  it('20 parallel upserts of the same payer leave one roster row', async () => {
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => post(`/v1/facilities/${CCN}/payers`, { payer_slug: 'cigna', notes: `n${i}` })));
    expect(rs.filter((r) => r.status === 201)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 200)).toHaveLength(19);
    expect(new Set(rs.map((r) => r.body.id)).size).toBe(1);
    const list = await t.request(`/v1/facilities/${CCN}/payers`);
    expect(list.body.payers.filter((p: { payer_slug: string }) => p.payer_slug === 'cigna')).toHaveLength(1);
  });

  it('tier 0: the facility override decides ahead of the payer rules, most specific first; ccn fills the place of service', async () => {
    // Without an override Medicare FFS needs PA for a facet joint injection at this hospital (POS 22 by default).
    const before = await check({ payer: 'medicare_ffs', code: '64490', ccn: CCN });
    expect(before.body).toMatchObject({ resolution_tier: 'national', determination: 'required', place_of_service: '22', state: 'CA' });
    const cat = await post(`/v1/facilities/${CCN}/pa-overrides`, { payer_slug: 'medicare', service_category: 'facet_joint_intervention', pa_required: false, reason: 'exempted (affirmation rate)' });
    expect(cat.status).toBe(201);
    const byCategory = await check({ payer: 'medicare_ffs', code: '64490', ccn: CCN });
    expect(byCategory.body).toMatchObject({ resolution_tier: 'facility_override', determination: 'not_required', pa_required: false, confidence: TIER_CONFIDENCE.facility_override });
    expect(byCategory.body.rationale_chain).toEqual([expect.objectContaining({ tier: 0, matched: true })]);
    expect(byCategory.body.rationale_chain[0].detail).toContain('exempted (affirmation rate)');
    const code = await post(`/v1/facilities/${CCN}/pa-overrides`, { code: '64490', pa_required: true, delegation_vendor: 'Vendor X' });
    const byCode = await check({ payer: 'medicare_ffs', code: '64490', ccn: CCN });
    expect(byCode.body).toMatchObject({ resolution_tier: 'facility_override', determination: 'required', delegation_vendor: 'Vendor X', source: { kind: 'facility_override', id: code.body.id } });
    // Tenant B, same CCN: no overrides, the national answer.
    const asB = await check({ payer: 'medicare_ffs', code: '64490', ccn: CCN }, keyB);
    expect(asB.body.resolution_tier).toBe('national');
    expect((await t.request(`/v1/facilities/${CCN}/pa-overrides`, { key: keyB })).body).toEqual({ ccn: CCN, overrides: [], total: 0 });
    // Removing the code override brings the category one back (the cached answer is not reused).
    const del = await t.request(`/v1/facilities/${CCN}/pa-overrides/${code.body.id}`, { method: 'DELETE' });
    expect(del.body).toEqual({ ccn: CCN, id: code.body.id, deleted: true });
    expect((await check({ payer: 'medicare_ffs', code: '64490', ccn: CCN })).body.determination).toBe('not_required');
    expect((await t.request(`/v1/facilities/${CCN}/pa-overrides/${code.body.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it("another tenant can neither see nor change A's roster, overrides or registration, cached answers included", async () => {
    const rosterA = await t.request(`/v1/facilities/${CCN}/payers`);
    const overridesA = await t.request(`/v1/facilities/${CCN}/pa-overrides`);
    expect(rosterA.body.total).toBeGreaterThan(0);
    expect(overridesA.body.total).toBeGreaterThan(0);
    // B reads nothing of A's, though A's answers are in the cache now.
    expect((await t.request(`/v1/facilities/${CCN}/payers`, { key: keyB })).body).toEqual({ ccn: CCN, payers: [], total: 0 });
    expect((await t.request(`/v1/facilities/${CCN}/pa-overrides`, { key: keyB })).body).toEqual({ ccn: CCN, overrides: [], total: 0 });
    // B cannot delete A's override by id, nor A's registration.
    const id = overridesA.body.overrides[0].id;
    expect((await t.request(`/v1/facilities/${CCN}/pa-overrides/${id}`, { method: 'DELETE', key: keyB })).status).toBe(404);
    expect((await t.request(`/v1/facilities/${CCN}?hard=true`, { method: 'DELETE', key: keyB })).status).toBe(404);
    // B's own writes on the same CCN stay B's: its roster entry gets its own id, A's is unchanged.
    const bEntry = await post(`/v1/facilities/${CCN}/payers`, { payer_slug: 'uhc', network_status: 'unknown' }, keyB);
    expect(bEntry.status).toBe(201);
    expect(rosterA.body.payers.map((p: { id: string }) => p.id)).not.toContain(bEntry.body.id);
    expect((await t.request(`/v1/facilities/${CCN}/payers`)).body).toEqual(rosterA.body);
    expect((await t.request(`/v1/facilities/${CCN}/pa-overrides`)).body).toEqual(overridesA.body);
    expect((await t.request(`/v1/facilities/${CCN}`)).body).toMatchObject({ registered: true, is_active: true, name: 'Our Hospital' });
    // Clean up B so later tests see B as unregistered.
    expect((await t.request(`/v1/facilities/${CCN}?hard=true`, { method: 'DELETE', key: keyB })).status).toBe(200);
  });

  it('determinations are stored per tenant, immutable, and outlive soft and hard deletes', async () => {
    const r = await check({ payer: 'medicare_ffs', code: '64490', ccn: CCN });
    const id = r.body.determination_id as string;
    const stored = await t.request(`/v1/prior-auth/determinations/${id}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ determination_id: id, inputs: { payer: 'medicare_ffs', code: '64490', ccn: CCN, date_of_service: D }, dataset_versions: r.body.reliability.dataset_versions });
    expect(stored.body.determination).toEqual(r.body);
    // Another tenant: 404, even knowing the id.
    expect((await t.request(`/v1/prior-auth/determinations/${id}`, { key: keyB })).status).toBe(404);
    // Two identical checks are two records (the resolution may come from the cache, the record never does).
    const again = await check({ payer: 'medicare_ffs', code: '64490', ccn: CCN });
    expect(again.body.determination_id).not.toBe(id);
    // persist=false: the same answer, no record.
    const preview = await check({ payer: 'medicare_ffs', code: '64490', ccn: CCN, persist: 'false' });
    expect(preview.body.determination_id).toBeUndefined();
    expect(preview.body.resolution_tier).toBe(r.body.resolution_tier);

    const soft = await t.request(`/v1/facilities/${CCN}`, { method: 'DELETE' });
    expect(soft.body).toEqual({ ccn: CCN, deleted: true, hard: false, is_active: false });
    expect((await t.request(`/v1/facilities/${CCN}`)).body).toMatchObject({ registered: true, is_active: false });
    // Inactive: overrides no longer apply, and payment no longer says registered.
    const inactive = await check({ payer: 'medicare_ffs', code: '64490', ccn: CCN });
    expect(inactive.body.resolution_tier).toBe('national');
    expect(inactive.body.rationale_chain[0].detail).toContain('inactive');
    expect((await t.request(`/v1/codes/99213/payment?ccn=${CCN}&date_of_service=${D}`)).body.facility.registered).toBe(false);
    expect((await t.request(`/v1/prior-auth/determinations/${id}`)).body.determination.resolution_tier).toBe('facility_override');

    const hard = await t.request(`/v1/facilities/${CCN}?hard=true`, { method: 'DELETE' });
    expect(hard.body).toEqual({ ccn: CCN, deleted: true, hard: true, is_active: false });
    expect((await t.request(`/v1/facilities/${CCN}`)).body).toMatchObject({ registered: false });
    expect((await t.request(`/v1/facilities/${CCN}/payers`)).body.total).toBe(0);
    expect((await t.request(`/v1/facilities/${CCN}/pa-overrides`)).body.total).toBe(0);
    expect((await t.request(`/v1/prior-auth/determinations/${id}`)).status).toBe(200);
    expect((await t.request(`/v1/facilities/${CCN}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('writes need the knowledge scope; determinations need audit', async () => {
    const agentsOnly = await t.newKey('test', ['agents']);
    expect((await t.request(`/v1/facilities/${CCN}`, { method: 'PUT', body: {}, key: agentsOnly })).status).toBe(403);
    const knowledgeOnly = await t.newKey('test', ['knowledge']);
    const r = await check({ payer: 'medicare_ffs', code: '64490' }, knowledgeOnly);
    expect((await t.request(`/v1/prior-auth/determinations/${r.body.determination_id}`, { key: knowledgeOnly })).status).toBe(403);
  });
});

describe('resolvePriorAuth (pure)', () => {
  const payer = { slug: 'p', name: 'P', payer_type: 'commercial', review_status: 'verified', knowledge_depth: 'full' } as PayerRow;
  const rule = (o: Partial<PriorAuthRuleRow>): PriorAuthRuleRow =>
    ({
      payer_slug: 'p', rule_id: 'r', codes: [], code_range_start: null, code_range_end: null, service_category: null, plan_type: null, state: null,
      place_of_service: [], scope: 'payer', pa_required: true, pa_threshold: null, auth_type: null, delegation_vendor: null, vendor_phone: null,
      vendor_portal: null, turnaround_standard_days: null, turnaround_standard_unit: null, turnaround_urgent_hours: null, turnaround_urgent_days: null,
      required_documents: [], gold_card_eligible: false, effective_date: null, expiration_date: null, submission_info: {},
      citation: { title: 'c', url: 'https://example.org', retrieved: '2026-01-01' }, ...o,
    }) as PriorAuthRuleRow;
  const q = (o: Partial<PaQuery> = {}): PaQuery => ({ code: '27447', date_of_service: '2026-03-02', ...o });
  const ov = (o: Partial<PaOverride>): PaOverride =>
    ({ id: 'o', ccn: CCN, payer_slug: null, payer_name: null, code: null, code_type: null, service_category: null, pa_required: true, auth_type: null,
      delegation_vendor: null, reason: null, source_document: null, effective_date: null, expiration_date: null, is_active: true, created_at: '', ...o }) as PaOverride;
  const run = (rules: PriorAuthRuleRow[], query = q(), overrides: PaOverride[] | null = null, cats: string[] = []) =>
    resolvePriorAuth({ payer, rules, code_categories: cats, query, facility: overrides ? { ccn: CCN, payment_system: 'opps', registered: true, active_registration: true, overrides, roster: null } : null });

  it('a code range rule matches codes of the same length inside it only', () => {
    const rules = [rule({ rule_id: 'knees', code_range_start: '27440', code_range_end: '27447' })];
    expect(run(rules).resolution_tier).toBe('payer_code');
    expect(run(rules, q({ code: '27448' })).resolution_tier).toBe('none');
  });

  it('a plan-type or state specific rule wins over a general one in the same tier', () => {
    const rules = [rule({ rule_id: 'all', pa_required: false, codes: ['27447'] }), rule({ rule_id: 'tx', state: 'TX', codes: ['27447'] })];
    expect(run(rules, q({ state: 'TX' })).source!.id).toBe('tx');
    expect(run(rules, q({ state: 'CA' })).source!.id).toBe('all');
    expect(run(rules, q({ state: 'CA' })).determination).toBe('not_required');
  });

  it('tier 0 prefers a code override to a category one, and a named payer to every payer; inactive or expired ones are skipped', () => {
    const overrides = [
      ov({ id: 'any-payer', code: '27447', pa_required: false }),
      ov({ id: 'cat', payer_slug: 'p', service_category: 'joints' }),
      ov({ id: 'named', payer_slug: 'p', code: '27447' }),
      ov({ id: 'off', payer_slug: 'p', code: '27447', is_active: false }),
    ];
    expect(run([], q(), overrides, ['joints']).source!.id).toBe('named');
    expect(run([], q(), overrides.slice(0, 2), ['joints']).source!.id).toBe('any-payer');
    expect(run([], q(), [ov({ id: 'old', code: '27447', expiration_date: '2026-03-01T00:00:00.000Z' })]).resolution_tier).toBe('none');
    expect(run([], q(), [ov({ id: 'other', payer_slug: 'someone_else', code: '27447' })]).resolution_tier).toBe('none');
  });

  it('in force: both ends inclusive, open ends', () => {
    expect(inForce({ effective_date: '2026-03-02', expiration_date: null }, '2026-03-02')).toBe(true);
    expect(inForce({ effective_date: '2026-03-03', expiration_date: null }, '2026-03-02')).toBe(false);
    expect(inForce({ effective_date: null, expiration_date: '2026-03-02T00:00:00.000Z' }, '2026-03-02')).toBe(true);
    expect(inForce({ effective_date: null, expiration_date: '2026-03-01' }, '2026-03-02')).toBe(false);
  });

  it('a rule with a condition answers conditional, naming the condition', () => {
    const r = run([rule({ rule_id: 'paired', codes: ['27447'], condition: 'only when billed with 27448' })]);
    expect(r).toMatchObject({ determination: 'conditional', pa_required: true });
    expect(r.warnings).toContain('rule paired: only when billed with 27448');
    expect(r.rationale_chain.find((c) => c.matched)!.detail).toContain('(conditional: only when billed with 27448)');
    expect(run([rule({ rule_id: 'plain', codes: ['27447'] })]).determination).toBe('required');
  });

  it('a Medicaid payer gets the federal turnaround from 2026-01-01 even with no rule found', () => {
    const medicaid = { ...payer, payer_type: 'medicaid' } as PayerRow;
    const r = resolvePriorAuth({ payer: medicaid, rules: [], code_categories: [], query: q(), facility: null });
    expect(r).toMatchObject({ resolution_tier: 'none', urgent_turnaround_hours: 72, standard_turnaround_days: 7 });
    const r2025 = resolvePriorAuth({ payer: medicaid, rules: [], code_categories: [], query: q({ date_of_service: '2025-12-31' }), facility: null });
    expect(r2025.urgent_turnaround_hours).toBeNull();
  });
});
