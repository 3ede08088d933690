import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_HOST, startTestServer, type TestServer } from './helpers/harness.js';

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
    expect(r.body.detail.map((d: any) => d.loc.join('.')).sort()).toEqual(['body.color', 'body.manufacturers.1', 'body.states.0']);
  });
});

const ids_ = (body: { watches: { id: string }[] }) => body.watches.map((w) => w.id);
