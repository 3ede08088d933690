import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SqliteStateStore } from '../../warehouse/state.js';
import { LIVE_HOST, startTestServer, type TestServer } from '../../testing/harness.js';

// Seeded world (seeds/): facilities 050454 (UCSF, CA acute care), 011300 (AL critical access),
// 330101 (NY acute care), 013300 (AL children's); Medicare FFS with the CMS OPD prior-auth list;
// illustrative coverage rows (A99001/L99001 list 64490, A99003/L99003 15823); real RVU rows.

const D = '2026-03-02';
let t: TestServer;
let keyB: string;
beforeAll(async () => {
  t = await startTestServer({ now: () => new Date(`${D}T12:00:00Z`) });
  const b = await t.srv.state.admin.createTenant('tenant-b');
  keyB = await t.newKey('test', ['knowledge'], b.name);
});
afterAll(async () => t.close());

type Json = Record<string, any>;
const resolve = (body: Json, key?: string) => t.request('/v1/knowledge/resolve', { method: 'POST', body, ...(key ? { key } : {}) });
const send = (path: string, method: string, body?: Json, key?: string) => t.request(path, { method, ...(body ? { body } : {}), ...(key ? { key } : {}) });
const without = <T extends Json>(o: T, ...keys: string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

describe('POST /v1/knowledge/resolve: the six layers', () => {
  it('answers every layer for a facet joint injection for Medicare at a California hospital', async () => {
    const r = await resolve({ ccn: '050454', cpt: '64490', payer: 'medicare', date_of_service: D, dx_codes: ['M47812', 'Z00.00'] });
    expect(r.status).toBe(200);
    const { L1_location: l1, L2_facility_type: l2, L3_care_setting: l3, L4_payer_rules: l4, L5_service_group: l5, L6_payment: l6 } = r.body.layers;
    expect(r.body).toMatchObject({ ccn: '050454', cpt: '64490', payer_slug: 'medicare_ffs', date_of_service: D });
    expect(l1).toMatchObject({ state: 'CA', county: 'SAN FRANCISCO', zip: '94143', locality: expect.any(String), wage_index: expect.any(Number) });
    expect(l1.mac_jurisdictions.map((j: Json) => j.jurisdiction).sort()).toEqual(['DME D', 'JE']);
    expect(l1.dataset_versions).toMatchObject({ facilities: expect.any(String), mac_jurisdictions: '2026-12-06' });
    expect(l2).toMatchObject({
      status: 'resolved',
      facility_type: 'acute_care_hospital',
      ccn_category: { range: '0001-0879', category: 'short-term (general and specialty) hospital' },
      payment_system: 'opps',
      billing_form: { facility_claim: 'UB-04 (CMS-1450), 837I', professional_claim: 'CMS-1500, 837P' },
      registered: false,
      overrides: [],
    });
    expect(l3).toMatchObject({ status: 'resolved', place_of_service: '22', place_of_service_source: 'facility_default', pe_setting: 'facility', type_of_bill: '013x' });
    expect(l4.payer).toMatchObject({ slug: 'medicare_ffs', payer_type: 'medicare' });
    expect(l4.filing_rules[0]).toMatchObject({ limit_value: 12, limit_unit: 'months', deadline_date: '2027-03-02' });
    expect(l4.appeal_levels).toHaveLength(5);
    expect(l4.roster).toBeNull();
    // 64490 is a facet joint intervention: on the CMS OPD list, so required at an OPD place of service.
    expect(l4.prior_auth).toMatchObject({ resolution_tier: 'national', pa_required: true, ccn: '050454', place_of_service: '22' });
    expect(l4.policy_rules.map((x: Json) => [x.doc_id, x.discovery_depth])).toEqual([
      ['A99001', 0],
      ['L99001', 1],
    ]);
    expect(l4.diagnosis_coverage).toEqual([{ doc_id: 'A99001', covered_dx_codes: ['M47.812'], verdict: 'covered' }]);
    expect(l5).toMatchObject({ status: 'resolved', code: '64490', description: 'Inj paravert f jnt c/t 1 lev', status_code: 'A', global_days: '000', lab: false, dme: false });
    expect(l6).toMatchObject({ status: 'resolved', modifier: null, units: 1 });
    expect(l6.composition.facility).toMatchObject({ ccn: '050454', pos_code: '22' });
    expect(l6.estimated_payment_total).toBe(l6.composition.estimated_payment);
    for (const l of Object.values<Json>(r.body.layers)) {
      expect(l.status).toMatch(/^(resolved|partial|unavailable)$/);
      for (const [d, v] of Object.entries(l.dataset_versions)) expect(r.body.reliability.dataset_versions[d]).toBe(v);
      for (const c of l.citations) expect(c.publisher.length).toBeGreaterThan(2);
    }
    expect(r.body.reliability.warnings.join(' ')).toMatch(/illustrative seeds/);
  });

  it('says not covered when no given diagnosis is on the article\'s list', async () => {
    const r = await resolve({ ccn: '050454', cpt: '64490', payer: 'medicare_ffs', date_of_service: D, dx_codes: ['Z00.00'] });
    expect(r.body.layers.L4_payer_rules.diagnosis_coverage).toEqual([{ doc_id: 'A99001', covered_dx_codes: [], verdict: 'not_covered' }]);
    const none = await resolve({ ccn: '050454', cpt: '64490', payer: 'medicare_ffs', date_of_service: D });
    expect(none.body.layers.L4_payer_rules.diagnosis_coverage).toBeNull();
  });

  it('prices the modifiers as the payment route does (the first pricing one selects the row), names the others, and multiplies by the units to the cent', async () => {
    const r = await resolve({ ccn: '330101', cpt: '70450', payer: 'aetna', date_of_service: D, place_of_service: '11', modifiers: ['59', '26', 'TC'], units: 3 });
    const l6 = r.body.layers.L6_payment;
    expect(l6.modifier).toBe('26');
    expect(l6.composition.physician.rvu_row).toBe('26');
    expect(l6.warnings.join(' ')).toMatch(/modifiers 26, TC each select an RVU row; 26 was priced/);
    expect(l6.warnings.join(' ')).toMatch(/modifier 59 does not select a separate RVU row/);
    expect(l6.units).toBe(3);
    expect(Math.round(l6.composition.estimated_payment * 300)).toBe(Math.round(l6.estimated_payment_total * 100));
  });

  // Seeds: PPRRVU2025_Oct.csv 99213 work 1.30, facility PE 0.57, MP 0.10; 70450-26 work 0.85,
  // facility PE 0.31, MP 0.04; GPCI2026.csv locality 01112-05 (050454, San Francisco) 1.095 / 1.410 /
  // 0.425; CY2026 CF 33.4009; Addendum B 70450 Q3 $145.53, wage index 1.9315, labor share 60%.
  it('for a payer other than Medicare, L6 is the Medicare fee schedule as a reference: partial, with a warning, never resolved', async () => {
    // 1.30 x 1.095 + 0.57 x 1.410 + 0.10 x 0.425 = 2.2697 RVUs; x 33.4009 = 75.8100 -> 75.81.
    const uhc = (await resolve({ ccn: '050454', cpt: '99213', payer: 'uhc', date_of_service: D })).body.layers.L6_payment;
    expect(uhc).toMatchObject({ status: 'partial', amount_basis: 'medicare_reference', total_blocks: ['physician'], estimated_payment_total: 75.81 });
    expect(uhc.warnings.join(' ')).toMatch(/uhc \(commercial\): no fee schedule of this payer is loaded; the amounts are the Medicare fee schedule, shown as a reference/);
    const mcal = (await resolve({ ccn: '050454', cpt: '99213', payer: 'medi_cal', date_of_service: D })).body.layers.L6_payment;
    expect(mcal).toMatchObject({ status: 'partial', amount_basis: 'medicare_reference' });
    const mcr = (await resolve({ ccn: '050454', cpt: '99213', payer: 'medicare_ffs', date_of_service: D })).body.layers.L6_payment;
    expect(mcr).toMatchObject({ status: 'resolved', amount_basis: 'medicare_payment', estimated_payment_total: 75.81 });
    expect(mcr.warnings.join(' ')).not.toMatch(/reference/);
  });

  it('-26 with 2 units at an OPPS hospital: the professional line is paid the physician block only, from the composition', async () => {
    // 0.85 x 1.095 + 0.31 x 1.410 + 0.04 x 0.425 = 1.38485; x 33.4009 = 46.2552 -> 46.26; x 2 = 92.52.
    // The hospital's OPPS block, 145.53 x (0.6 x 1.9315 + 0.4) = 226.87, is its own claim: not 2 x (46.26 + 226.87) = 546.26.
    // The composition itself leaves it out (the professional_only_line payment rule): L6 reads its blocks.
    const l6 = (await resolve({ ccn: '050454', cpt: '70450', payer: 'medicare_ffs', date_of_service: D, modifiers: ['26'], units: 2 })).body.layers.L6_payment;
    expect(l6.composition).toMatchObject({ applicable_blocks: ['physician'], estimated_payment: 46.26, physician: { allowed_phy_payment: 46.26, rvu_row: '26' }, outpatient_facility: { allowed_fac_payment: 226.87, informational: true } });
    expect(l6).toMatchObject({ status: 'resolved', units: 2, total_blocks: ['physician'], estimated_payment_total: 92.52 });
    expect(l6.warnings.join(' ')).toMatch(/modifier 26 \(professional component\): the claim line bills the professional service only/);
    // Without a modifier the line is paid every applicable block (the composition's estimated_payment).
    const global = (await resolve({ ccn: '050454', cpt: '70450', payer: 'medicare_ffs', date_of_service: D, units: 2 })).body.layers.L6_payment;
    expect(global.total_blocks).toEqual(global.composition.applicable_blocks);
    expect(Math.round(global.estimated_payment_total * 100)).toBe(Math.round(global.composition.estimated_payment * 200));
  });

  it('a critical access hospital bills 085x and is paid at cost: L2, L3 and L6 agree', async () => {
    const r = await resolve({ ccn: '011300', cpt: 'G0463', payer: 'medicare_ffs', date_of_service: D });
    expect(r.body.layers.L2_facility_type).toMatchObject({ payment_system: 'cah_cost', ccn_category: { category: 'critical access hospital' } });
    expect(r.body.layers.L3_care_setting.type_of_bill).toBe('085x');
    expect(r.body.layers.L6_payment.composition.outpatient_facility?.informational ?? true).toBe(true);
  });

  it('an unknown code is a 200 whose code and payment layers are unavailable, with the reason', async () => {
    const r = await resolve({ ccn: '050454', cpt: 'ZZZZZ', payer: 'medicare_ffs', date_of_service: D });
    expect(r.status).toBe(200);
    expect(r.body.layers.L5_service_group.status).toBe('unavailable');
    expect(r.body.layers.L6_payment).toMatchObject({ status: 'unavailable', composition: null, estimated_payment_total: null });
    expect(r.body.layers.L6_payment.warnings.join(' ')).toMatch(/not in any loaded fee schedule/);
  });

  it('a CCN only registered by the tenant: location partial from its state, no payment (no geography)', async () => {
    expect((await send('/v1/facilities/05Z999', 'PUT', { name: 'Clinic of our own', state: 'CA', facility_type: 'clinic' })).status).toBe(201);
    const r = await resolve({ ccn: '05Z999', cpt: '99213', payer: 'medicare_ffs', date_of_service: D });
    expect(r.status).toBe(200);
    expect(r.body.layers.L1_location).toMatchObject({ status: 'partial', state: 'CA', locality: null });
    expect(r.body.layers.L2_facility_type).toMatchObject({ facility_type: 'clinic', payment_system: 'non_hospital', ccn_category: null, billing_form: { facility_claim: null }, registered: true });
    expect(r.body.layers.L3_care_setting).toMatchObject({ status: 'partial', place_of_service: null, pe_setting: 'non_facility', type_of_bill: null });
    expect(r.body.layers.L6_payment.status).toBe('unavailable');
  });

  it('answers 404 for a CCN neither in the reference data nor registered', async () => {
    const r = await resolve({ ccn: '999999', cpt: '99213', payer: 'medicare_ffs' });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });

  it('answers 422 with every issue at once, never a 500', async () => {
    const r = await resolve({ ccn: '12', cpt: '9', payer: 'nobody', units: 0, dx_codes: ['not a code'], modifiers: ['26', 'TC', '53', '59', '25'], place_of_service: 'office', colour: 'red' });
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { loc: (string | number)[] }) => d.loc.join('.')).sort()).toEqual(
      ['body.colour', 'body.ccn', 'body.cpt', 'body.dx_codes.0', 'body.modifiers', 'body.payer', 'body.place_of_service', 'body.units'].sort(),
    );
    const bad = await t.request('/v1/knowledge/resolve', { method: 'POST', body: '{"ccn": ', headers: { 'Content-Type': 'application/json' } });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
    const missing = await resolve({});
    expect(missing.status).toBe(422);
    expect(missing.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['body.ccn', 'body.cpt', 'body.payer']);
  });
});

describe('one answer never contradicts the routes it summarises', () => {
  beforeAll(async () => {
    // Tenant state that changes both summarised routes: a registration (place of service and type), a roster entry, overrides.
    await send('/v1/facilities/330101', 'PUT', { place_of_service: '19' });
    await send('/v1/facilities/330101/payers', 'POST', { payer_slug: 'uhc', network_status: 'in_network' });
    await send('/v1/facilities/050454', 'PUT', {});
    await send('/v1/facilities/050454/pa-overrides', 'POST', { payer_slug: 'uhc', code: '70450', pa_required: true });
    await send('/v1/facilities/050454/pa-overrides', 'POST', { code: '15823', pa_required: false, reason: 'facility contract' });
  });

  const codes = ['64490', '15823', '99213', '70450', 'G0463', '36475'];
  const ccns = ['050454', '011300', '330101', '013300'];
  const payers = ['medicare_ffs', 'uhc', 'aetna', 'medi_cal'];
  const variants: Json[] = [{}, { place_of_service: '11', modifiers: ['26'] }, { date_of_service: D, modifiers: ['TC', '59'] }];

  it(`L4 prior auth equals GET /v1/prior-auth/check and L6 equals GET /v1/codes/{cpt}/payment over ${codes.length} codes x ${ccns.length} CCNs x ${payers.length} payers`, async () => {
    let compared = 0;
    for (const cpt of codes) {
      for (const ccn of ccns) {
        for (const [i, payer] of payers.entries()) {
          const v = variants[(codes.indexOf(cpt) + i) % variants.length]!;
          const r = await resolve({ ccn, cpt, payer, ...v });
          expect(r.status, `${cpt} ${ccn} ${payer}`).toBe(200);
          const q = new URLSearchParams({ payer, code: cpt, ccn, persist: 'false', ...(v.place_of_service ? { place_of_service: v.place_of_service } : {}), ...(v.date_of_service ? { date_of_service: v.date_of_service } : {}) });
          const pa = await t.request(`/v1/prior-auth/check?${q}`);
          expect(pa.status).toBe(200);
          expect(r.body.layers.L4_payer_rules.prior_auth, `${cpt} ${ccn} ${payer}`).toEqual(without(pa.body, 'reliability', 'determination_id'));
          // L6 passes every modifier to the payment composition, as the payment route takes them.
          const pq = new URLSearchParams({ ccn, ...(v.modifiers?.length ? { modifier: v.modifiers.join(',') } : {}), ...(v.place_of_service ? { place_of_service: v.place_of_service } : {}), ...(v.date_of_service ? { date_of_service: v.date_of_service } : {}) });
          const pay = await t.request(`/v1/codes/${cpt}/payment?${pq}`);
          const l6 = r.body.layers.L6_payment;
          if (pay.status === 200) {
            expect(l6.composition, `${cpt} ${ccn} ${payer} ${pq}`).toEqual(without(pay.body, 'reliability'));
            expect(l6.dataset_versions).toEqual(pay.body.reliability.dataset_versions);
            // L6 adds only its note on another payer's reference amount.
            expect(l6.warnings.filter((w: string) => !/shown as a reference/.test(w))).toEqual([...new Set(pay.body.reliability.warnings as string[])]);
            expect(l6.amount_basis, `${cpt} ${ccn} ${payer}`).toBe(payer === 'medicare_ffs' ? 'medicare_payment' : 'medicare_reference');
            if (payer !== 'medicare_ffs') expect(l6.status).not.toBe('resolved');
          } else {
            expect(pay.status).toBe(404);
            expect(l6).toMatchObject({ status: 'unavailable', composition: null });
          }
          compared++;
        }
      }
    }
    expect(compared).toBe(codes.length * ccns.length * payers.length);
  });
});

describe('tenant state in L2-L4: isolation, writes seen at once, cached layers cascading', () => {
  const body = { ccn: '013300', cpt: '99213', payer: 'uhc', date_of_service: D };

  it("another tenant's registration, roster and overrides never reach this tenant's layers", async () => {
    await send('/v1/facilities/013300', 'PUT', { facility_type: 'clinic', place_of_service: '11' }, keyB);
    await send('/v1/facilities/013300/payers', 'POST', { payer_slug: 'uhc', network_status: 'out_of_network' }, keyB);
    await send('/v1/facilities/013300/pa-overrides', 'POST', { payer_slug: 'uhc', code: '99213', pa_required: true }, keyB);
    const b = await resolve(body, keyB);
    expect(b.body.layers.L2_facility_type).toMatchObject({ facility_type: 'clinic', registered: true });
    expect(b.body.layers.L2_facility_type.overrides).toHaveLength(1);
    expect(b.body.layers.L4_payer_rules.roster).toMatchObject({ network_status: 'out_of_network' });
    expect(b.body.layers.L4_payer_rules.prior_auth).toMatchObject({ resolution_tier: 'facility_override', pa_required: true });
    const a = await resolve(body);
    expect(a.body.layers.L2_facility_type).toMatchObject({ facility_type: 'childrens_hospital', registered: false, registration: null, overrides: [] });
    expect(a.body.layers.L3_care_setting.place_of_service).toBe('22');
    expect(a.body.layers.L4_payer_rules.roster).toBeNull();
    expect(a.body.layers.L4_payer_rules.prior_auth.resolution_tier).not.toBe('facility_override');
    expect(JSON.stringify(a.body)).not.toContain('out_of_network');
  });

  it("the same tenant's live world and test world stay apart in L2-L4, cached answers included", async () => {
    const live = await t.newKey('live', ['knowledge']);
    const asLive = (path: string, method: string, body?: Json) => t.request(path, { method, ...(body ? { body } : {}), key: live, host: LIVE_HOST });
    const q = { ccn: '013300', cpt: '99213', payer: 'uhc', date_of_service: D };
    const before = await resolve(q);
    expect(before.body.layers.L2_facility_type.registered).toBe(false);
    expect((await asLive('/v1/facilities/013300', 'PUT', { facility_type: 'clinic' })).status).toBeLessThan(300);
    expect((await asLive('/v1/facilities/013300/payers', 'POST', { payer_slug: 'uhc', network_status: 'out_of_network' })).status).toBeLessThan(300);
    expect((await asLive('/v1/facilities/013300/pa-overrides', 'POST', { payer_slug: 'uhc', code: '99213', pa_required: true })).status).toBeLessThan(300);
    const inLive = await asLive('/v1/knowledge/resolve', 'POST', q);
    expect(inLive.body.layers.L2_facility_type).toMatchObject({ registered: true, facility_type: 'clinic' });
    expect(inLive.body.layers.L4_payer_rules.roster).toMatchObject({ network_status: 'out_of_network' });
    // The test world asks the same question again: its cached answer and layers, none of the live rows.
    const inTest = await resolve(q);
    expect(inTest.body.layers.L2_facility_type).toMatchObject({ registered: false, overrides: [] });
    expect(inTest.body.layers.L4_payer_rules.roster).toBeNull();
    expect(JSON.stringify(inTest.body)).not.toContain('out_of_network');
  });

  it('caches each layer by what it depends on: another question at the facility reuses L1-L3, a tenant write recomputes the tenant layers only', async () => {
    const snap = t.srv.snapshots.snapshot!;
    const memo = snap.memo.bind(snap);
    const computed: string[] = [];
    const spy = vi.spyOn(snap, 'memo').mockImplementation(((key: string, compute: () => Promise<unknown>, opts?: { pin?: boolean }) =>
      memo(key, () => {
        if (key.startsWith('knowledge:')) computed.push(key.split(':')[1]!);
        return compute();
      }, opts)) as typeof snap.memo);
    const ask = async (extra: Json) => {
      computed.length = 0;
      // A date of service no earlier test asked about: nothing of it is cached yet.
      expect((await resolve({ ...body, date_of_service: '2026-03-03', ...extra })).status).toBe(200);
      return [...computed].sort();
    };
    try {
      expect(await ask({ dx_codes: ['J45.909'] })).toEqual(['L1-3', 'L4', 'L5', 'L6']);
      // Other diagnoses: a new answer (the answer cache misses), every layer from its cache.
      expect(await ask({ dx_codes: ['J45.901'] })).toEqual([]);
      // Another code at the same facility and date: the facility layers are reused.
      expect(await ask({ cpt: '99214' })).toEqual(['L4', 'L5', 'L6']);
      // A roster write bumps the tenant's generation: its layers are computed again, the code's (L5) are not.
      await send('/v1/facilities/013300', 'PUT', {});
      await send('/v1/facilities/013300/payers', 'POST', { payer_slug: 'uhc', network_status: 'in_network', plan_types: ['group'] });
      expect(await ask({ dx_codes: ['J45.909'] })).toEqual(['L1-3', 'L4', 'L6']);
    } finally {
      spy.mockRestore();
    }
    const after = await resolve(body);
    expect(after.body.layers.L2_facility_type.registered).toBe(true);
    expect(after.body.layers.L4_payer_rules.roster).toMatchObject({ network_status: 'in_network', plan_types: ['group'] });
  });

  it('an override and a registration change reach L2-L4 at once; a hard delete drops them (cached layers cascade)', async () => {
    const o = await send('/v1/facilities/013300/pa-overrides', 'POST', { payer_slug: 'uhc', code: '99213', pa_required: false, reason: 'contract' });
    expect(o.status).toBe(201);
    let r = await resolve(body);
    expect(r.body.layers.L2_facility_type.overrides.map((x: Json) => x.id)).toEqual([o.body.id]);
    expect(r.body.layers.L4_payer_rules.prior_auth).toMatchObject({ resolution_tier: 'facility_override', pa_required: false });
    await send('/v1/facilities/013300', 'PUT', { place_of_service: '19' });
    r = await resolve(body);
    expect(r.body.layers.L3_care_setting).toMatchObject({ place_of_service: '19', place_of_service_source: 'registration', type_of_bill: '013x' });
    expect(r.body.layers.L6_payment.composition.facility.pos_code).toBe('19');
    expect((await send('/v1/facilities/013300?hard=true', 'DELETE')).status).toBe(200);
    r = await resolve(body);
    expect(r.body.layers.L2_facility_type).toMatchObject({ registered: false, registration: null, overrides: [] });
    expect(r.body.layers.L3_care_setting.place_of_service_source).toBe('facility_default');
    expect(r.body.layers.L4_payer_rules.roster).toBeNull();
    expect(r.body.layers.L4_payer_rules.prior_auth.resolution_tier).not.toBe('facility_override');
  });

  it('never stores a prior-auth determination', async () => {
    const db = (t.srv.state as SqliteStateStore).db;
    const count = () => (db.prepare('SELECT count(*) AS n FROM pa_determinations').get() as { n: number }).n;
    const before = count();
    for (const cpt of ['64490', '15823', '99213']) expect((await resolve({ ccn: '050454', cpt, payer: 'medicare_ffs', date_of_service: D })).status).toBe(200);
    expect(count()).toBe(before);
    await t.request(`/v1/prior-auth/check?payer=medicare_ffs&code=64490&ccn=050454`);
    expect(count()).toBe(before + 1);
  });
});
