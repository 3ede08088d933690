import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_HOST, startTestServer, type TestServer } from '../../testing/harness.js';

let t: TestServer;
/** The server's clock: watches made "now" follow changes dated from 2024-06-01 on. */
const NOW = new Date('2024-06-01T12:00:00Z');
let liveA: string;
let liveB: string;

beforeAll(async () => {
  t = await startTestServer({ now: () => NOW });
  liveA = await t.newKey('live', ['knowledge']);
  const other = await t.srv.state.admin.createTenant(`other-${Math.random().toString(36).slice(2, 8)}`);
  liveB = await t.newKey('live', ['knowledge'], other.name);
});
afterAll(async () => {
  await t.close();
});

const live = (key: string) => ({ key, host: LIVE_HOST });
const ids = (body: { changes: { id: string }[] }) => body.changes.map((c) => c.id);

describe('GET /v1/340b/manufacturers', () => {
  it('answers the policy in force on as_of, from the history', async () => {
    const on = async (d: string) => (await t.request(`/v1/340b/manufacturers?manufacturer=AbbVie&as_of=${d}`)).body;
    const early = await on('2023-01-01');
    expect(early.manufacturers.map((m: any) => [m.id, m.contract_pharmacy_rule, m.effective_date, m.history.length])).toEqual([['abbvie', 'single_contract_pharmacy', '2022-02-01', 1]]);
    const later = await on('2024-09-01');
    expect(later.manufacturers[0]).toMatchObject({ contract_pharmacy_rule: 'single_contract_pharmacy_within_40_miles', effective_date: '2023-04-17', status: 'conditional' });
    expect(later.manufacturers[0].history.map((h: any) => h.date)).toEqual(['2022-02-01', '2023-04-17', '2024-05-01', '2024-07-01', '2024-08-28']);
    expect((await on('2021-06-01')).manufacturers).toEqual([]);
    expect(later.as_of).toBe('2024-09-01T00:00:00.000Z');
  });

  it('refuses an unknown manufacturer and status with every issue (422)', async () => {
    const r = await t.request('/v1/340b/manufacturers?status=maybe&as_of=2024-02-30');
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: any) => d.loc.join('.')).sort()).toEqual(['query.as_of', 'query.status']);
    expect((await t.request('/v1/340b/manufacturers?manufacturer=Acme%20Pharma')).status).toBe(422);
  });
});

describe('GET /v1/340b/restrictions/resolve', () => {
  it('resolves an NDC through the FDA NDC directory: labeler code and brand from fda_ndc, in any NDC form', async () => {
    const ask = async (ndc: string) => (await t.request(`/v1/340b/restrictions/resolve?entity_type=CH&ndc=${ndc}&has_in_house_pharmacy=true&as_of=2023-06-01`)).body;
    // Strattera (0002-3229-30, seeded in fda_ndc): Lilly's labeler 0002, padded to 00002.
    for (const form of ['0002-3229-30', '00002-3229-30', '00002322930']) {
      const r = await ask(form);
      expect(r, form).toMatchObject({ manufacturer_id: 'eli_lilly', drug: 'Strattera', access_status: 'conditional', policy: { policy_id: '2021-12-16' } });
      expect(r.reliability.dataset_versions).toHaveProperty('fda_ndc');
      expect(r.reliability.warnings.some((w: string) => w.includes('needs the fda_ndc dataset') || w.includes('not in the FDA NDC directory')), form).toBe(false);
      expect(r.disclaimer).toMatch(/^Informational use only/);
    }
    // Viagra (0069-4200-30): FDA names the labeler, and no curated manufacturer has it: unknown, never allowed.
    const pfizer = await ask('0069-4200-30');
    expect(pfizer).toMatchObject({ access_status: 'unknown', manufacturer_id: null });
    expect(pfizer.conditions[0]).toMatch(/^labeler code 00069 \(Pfizer.*\) of NDC 0069-4200-30 is not among the curated manufacturers$/);
  });

  it('matches an NDC FDA does not list by its own labeler segment, and says so', async () => {
    const r = await t.request('/v1/340b/restrictions/resolve?entity_type=CH&ndc=0002-1402-71&has_in_house_pharmacy=true&as_of=2023-06-01');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ manufacturer_id: 'eli_lilly', access_status: 'conditional', policy: { policy_id: '2021-12-16' } });
    expect(r.body.reliability.warnings).toContainEqual(expect.stringMatching(/^NDC 0002-1402-71 is not in the FDA NDC directory \(fda_ndc .+\): matched by its own labeler segment only$/));
  });

  /** A hospital with its own pharmacy: AbbVie's and AstraZeneca's policies restrict it, so only a state law makes it allowed. */
  const hospital = async (manufacturer: string, state: string, asOf: string) =>
    (await t.request(`/v1/340b/restrictions/resolve?entity_type=DSH&manufacturer=${manufacturer}&state=${state}&has_in_house_pharmacy=true&as_of=${asOf}`)).body;

  it('applies Louisiana, Maryland and Mississippi laws from their cited effective dates, and says before that when they start', async () => {
    const cases: [string, string, string, string][] = [
      ['LA', '2023-07-31', '2023-08-01', 'https://legis.la.gov/Legis/Law.aspx?d=206415'],
      ['MD', '2024-06-30', '2024-07-01', 'https://beckershospitalreview.com/pharmacy/novartis-sues-maryland-over-law-prohibiting-restrictions-on-340b-drugs.html'],
      ['MS', '2024-06-30', '2024-07-01', 'http://print.casetext.com/case/abbvie-inc-v-fitch'],
    ];
    for (const [state, dayBefore, effective, dateSource] of cases) {
      const before = await hospital('abbvie', state, dayBefore);
      expect(before, state).toMatchObject({ access_status: 'restricted', policy_status: 'restricted', state_law_override: { applies: false, state, effective_date: effective } });
      expect(before.reliability.warnings.some((w: string) => w.startsWith(`${state} `) && w.endsWith(`takes effect on ${effective}, after ${dayBefore}`)), state).toBe(true);
      const after = await hospital('abbvie', state, effective);
      expect(after, state).toMatchObject({ access_status: 'allowed', policy_status: 'restricted', state_law_override: { applies: true, state, effective_date: effective } });
      expect(after.state_law_override.litigation_status, state).toEqual(expect.any(String));
      expect(after.citations.map((c: any) => c.url), state).toContain(dateSource);
      expect(after.conditions[0], state).toMatch(new RegExp(`bars this restriction in ${state} since ${effective}`));
    }
  });

  it('names the Minnesota and Kansas laws but does not apply them: no effective date is cited', async () => {
    for (const state of ['MN', 'KS']) {
      const r = await hospital('astrazeneca', state, '2025-06-01');
      expect(r, state).toMatchObject({ access_status: 'restricted', state_law_override: { applies: false, state, effective_date: null, law: expect.any(String) } });
      expect(r.reliability.warnings, state).toContainEqual(expect.stringMatching(new RegExp(`^${state} .+: no effective date is cited in the dataset, so it is not applied by date$`)));
      expect(r.citations.length, state).toBeGreaterThan(1);
    }
  });

  it('stops applying the West Virginia law from the 2024-12-17 injunction, citing the order', async () => {
    expect(await hospital('abbvie', 'WV', '2024-12-16')).toMatchObject({ access_status: 'allowed', state_law_override: { applies: true } });
    const r = await hospital('abbvie', 'WV', '2024-12-17');
    expect(r).toMatchObject({ access_status: 'restricted', state_law_override: { applies: false, effective_date: '2024-06-06' } });
    expect(r.reliability.warnings).toContainEqual(expect.stringMatching(/^WV SB 325 \(2024\): a court order of 2024-12-17 bars its enforcement/));
    expect(r.citations.map((c: any) => c.url)).toContain('https://print.casetext.com/case/pharm-research-manufacturers-of-am-v-morrisey');
  });

  it("answers Novartis' ENTRESTO as an HRSA rebate-pilot drug, paused from noon on 2025-12-31, citing HRSA's page", async () => {
    const ask = async (asOf: string) => (await t.request(`/v1/340b/restrictions/resolve?entity_type=DSH&manufacturer=Novartis%20Pharmaceuticals%20Corporation&drug=Entresto&as_of=${asOf}`)).body;
    const hrsa = 'https://www.hrsa.gov/opa/340b-model-pilot-program';
    const after = await ask('2026-01-15');
    expect(after).toMatchObject({ manufacturer_id: 'novartis', access_status: 'unknown', rebate_model: { in_scope: false, effective_date: null, program: 'hrsa_rebate_pilot', pilot_status: 'paused', drugs: ['ENTRESTO'] } });
    expect(after.citations.map((c: any) => c.url)).toContain(hrsa);
    expect(after.reliability.warnings).toContainEqual(expect.stringMatching(/^HRSA's 340B rebate pilot is paused since 2025-12-31 12:00 \(As of noon on December 31, 2025, .*No\. 25-cv-600 \(D\. Me\.\).*\): ENTRESTO keeps the upfront 340B price$/));
    const sameDay = await ask('2025-12-31');
    expect(sameDay.rebate_model.pilot_status).toBe('enjoined');
    expect(sameDay.reliability.warnings).toContain("HRSA's 340B rebate pilot becomes paused at 12:00 on 2025-12-31 (the source names no time zone): this answer gives its status at the start of the day");
  });

  it('is 422 with every issue: an unknown entity type, and neither manufacturer nor ndc', async () => {
    const r = await t.request('/v1/340b/restrictions/resolve?entity_type=XYZ&has_in_house_pharmacy=maybe');
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: any) => d.loc.join('.')).sort()).toEqual(['query.entity_type', 'query.has_in_house_pharmacy', 'query.manufacturer']);
  });
});

describe('GET /v1/340b/changes', () => {
  it('lists changes newest first and pages them with next_cursor, no item twice or lost', async () => {
    const whole = (await t.request('/v1/340b/changes?limit=200')).body;
    expect(whole.next_cursor).toBeNull();
    const dates = whole.changes.map((c: any) => c.date);
    expect(dates).toEqual([...dates].sort().reverse());
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = (await t.request(`/v1/340b/changes?limit=7${cursor ? `&cursor=${cursor}` : ''}`)).body;
      expect(page.changes.length).toBeLessThanOrEqual(7);
      paged.push(...ids(page));
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged).toEqual(ids(whole));
    expect(paged.length).toBeGreaterThan(20);
  });

  it('keeps what concerns a manufacturer and a state: its own changes and laws, not other manufacturers or states', async () => {
    const got = ids((await t.request('/v1/340b/changes?manufacturer=amgen&state=MO&limit=200')).body);
    expect(got).toContain('exemption:amgen:MO:2024-08-28');
    expect(got).toContain('state_law:MO:2024-08-28:0');
    expect(got).toContain('policy:amgen:2023-04-11');
    expect(got).not.toContain('exemption:abbvie:MO:2024-08-28');
    expect(got).not.toContain('state_law:AR:2021-07-26:0');
  });
});

describe('340B watches (live data)', () => {
  it('returns only what the watch matches, dated on or after the day it was created', async () => {
    const w = await t.request('/v1/340b/watches', { method: 'POST', body: { manufacturers: ['AbbVie'], states: ['MO'] }, ...live(liveA) });
    expect(w.status).toBe(201);
    expect(w.headers.location).toBe(`/v1/340b/watches/${w.body.id}`);
    expect(w.body).toMatchObject({ manufacturers: ['abbvie'], states: ['MO'], created_at: NOW.toISOString() });
    const got = (await t.request(`/v1/340b/changes?watch=${w.body.id}&limit=200`, live(liveA))).body;
    expect(got.changes.every((c: any) => c.date >= '2024-06-01')).toBe(true);
    expect(ids(got)).toEqual(expect.arrayContaining(['exemption:abbvie:MO:2024-08-28', 'state_law:MO:2024-08-28:0', 'rebate_pilot:2025-12-29:enjoined']));
    for (const not of ['exemption:abbvie:MN:2024-07-01', 'exemption:amgen:MO:2024-08-28', 'state_law:WV:2024-06-06:1', 'policy:abbvie:2023-04-17-hospitals', 'policy:sanofi:2024-07-01-health-centers']) {
      expect(ids(got)).not.toContain(not);
    }
  });

  it("answers 404 for another tenant's watch id and for the id under a test key (test mode)", async () => {
    const w = (await t.request('/v1/340b/watches', { method: 'POST', body: { states: ['AR'] }, ...live(liveA) })).body;
    // A's answer is cached first: the same URL from B or from a test key must not be served from it.
    expect((await t.request(`/v1/340b/changes?watch=${w.id}`, live(liveA))).status).toBe(200);
    expect((await t.request(`/v1/340b/changes?watch=${w.id}`, live(liveB))).status).toBe(404);
    expect((await t.request(`/v1/340b/changes?watch=${w.id}`)).status).toBe(404);
    expect((await t.request(`/v1/340b/changes?watch=${w.id}`, live(liveA))).status).toBe(200);
  });

  it('keeps tenants apart: B neither lists, reads nor deletes A’s watch', async () => {
    const w = (await t.request('/v1/340b/watches', { method: 'POST', body: { entity_types: ['CH'] }, ...live(liveA) })).body;
    // A's list and watch are cached first; B's same URLs must not be served from A's entries.
    expect(ids_((await t.request('/v1/340b/watches', live(liveA))).body)).toContain(w.id);
    expect((await t.request(`/v1/340b/watches/${w.id}`, live(liveA))).status).toBe(200);
    expect(ids_((await t.request('/v1/340b/watches', live(liveB))).body)).not.toContain(w.id);
    expect((await t.request(`/v1/340b/watches/${w.id}`, live(liveB))).status).toBe(404);
    expect((await t.request(`/v1/340b/watches/${w.id}`, { method: 'DELETE', ...live(liveB) })).status).toBe(404);
    expect(ids_((await t.request('/v1/340b/watches', live(liveA))).body)).toContain(w.id);
    expect((await t.request(`/v1/340b/watches/${w.id}`, { method: 'DELETE', ...live(liveA) })).status).toBe(200);
    expect((await t.request(`/v1/340b/watches/${w.id}`, live(liveA))).status).toBe(404);
  });

  it('bounds a tenant at 100 watches (409, another tenant unaffected) and pages the list', async () => {
    const tenant = await t.srv.state.admin.createTenant('watch-bound');
    const key = await t.newKey('live', ['knowledge'], tenant.name);
    const mine = (init: object = {}) => ({ key, host: LIVE_HOST, ...init });
    for (let i = 0; i < 100; i++) expect((await t.request('/v1/340b/watches', { method: 'POST', body: { states: ['AR'] }, ...mine() })).status).toBe(201);
    const over = await t.request('/v1/340b/watches', { method: 'POST', body: { states: ['AR'] }, ...mine() });
    expect(over.status).toBe(409);
    expect(over.body.detail).toMatch(/at most 100 340B watches/);
    expect((await t.request('/v1/340b/watches', { method: 'POST', body: { states: ['MO'] }, ...live(liveB) })).status).toBe(201);
    const first = await t.request('/v1/340b/watches?limit=30', mine());
    expect(first.body.watches).toHaveLength(30);
    const seen = new Set(first.body.watches.map((w: { id: string }) => w.id));
    let cursor = first.body.next_cursor;
    while (cursor) {
      const next = await t.request(`/v1/340b/watches?limit=30&cursor=${encodeURIComponent(cursor)}`, mine());
      for (const w of next.body.watches) seen.add(w.id);
      cursor = next.body.next_cursor;
    }
    expect(seen.size).toBe(100);
  });

  it('refuses a test key with 403 on any host', async () => {
    const onTest = await t.request('/v1/340b/watches', { method: 'POST', body: { states: ['AR'] } });
    expect(onTest.status).toBe(403);
    expect(onTest.body.code).toBe('live_key_required');
    const onLive = await t.request('/v1/340b/watches', { method: 'POST', body: { states: ['AR'] }, host: LIVE_HOST });
    expect(onLive.status).toBe(403);
  });

  it('is 422 with every issue: an unknown manufacturer, a bad state, an unknown field', async () => {
    const r = await t.request('/v1/340b/watches', { method: 'POST', body: { manufacturers: ['sanofi', 'Acme Pharma'], states: ['Arkansas'], color: 'red' }, ...live(liveA) });
    expect(r.status).toBe(422);
    expect([...new Set(r.body.detail.map((d: any) => d.loc.join('.')))].sort()).toEqual(['body.color', 'body.manufacturers.1', 'body.states.0']);
  });
});

const ids_ = (body: { watches: { id: string }[] }) => body.watches.map((w) => w.id);
