import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDenialCode } from './service.js';
import { scoreName } from './search.js';
import { editDistance } from '../text_match.js';
import { LIVE_HOST, startTestServer, type TestServer } from '../../testing/harness.js';

// Expected figures are the seeds' own rows (seeds/payers/*.yaml), each checked against its citation
// in the seed file: 42 CFR 424.44 (12 months), 42 CFR 405.942 (120 days, 5-day receipt), etc.

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ now: () => new Date('2026-04-01T12:00:00Z') });
});
afterAll(async () => t.close());

describe('payer search', () => {
  it('is typo tolerant and ranked: an exact alias first, typos and prefixes after', async () => {
    const r = await t.request('/v1/payers/search?q=united%20helthcare');
    expect(r.status).toBe(200);
    expect(r.body[0]).toMatchObject({ slug: 'uhc', name: 'UnitedHealthcare', payer_type: 'commercial', matched_on: 'alias' });
    // A bare array (the spec's shape) names the dataset it read in a header.
    expect(r.headers['x-dataset-versions']).toMatch(/^payers=\S+$/);
    const medicare = await t.request('/v1/payers/search?q=medicare&limit=2');
    expect(medicare.body.map((x: { slug: string }) => x.slug)).toEqual(['medicare_ffs', expect.any(String)]);
    expect(medicare.body[0]).toMatchObject({ score: 1, matched_on: 'alias', matched_text: 'medicare' });
    const blue = await t.request('/v1/payers/search?q=blue%20cross');
    expect(blue.body.map((x: { slug: string }) => x.slug)).toEqual(expect.arrayContaining(['bcbs_ma', 'bcbs_il', 'bcbs_tx', 'anthem']));
    expect((await t.request('/v1/payers/search?q=zzzz')).body).toEqual([]);
  });

  it('refuses a one-letter query and an out-of-range limit with every issue', async () => {
    const r = await t.request('/v1/payers/search?q=u&limit=500');
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['query.limit', 'query.q']);
  });

  it('scores words with small typos, never single letters', () => {
    expect(editDistance('helthcare', 'healthcare')).toBe(1);
    expect(editDistance('cigan', 'cigna')).toBe(1);
    expect(scoreName('aetna', 'aetna')).toBe(1);
    expect(scoreName('x', 'aetna')).toBe(0);
    expect(scoreName('cigan', 'cigna healthcare')).toBeGreaterThan(0.5);
  });
});

describe('public directory (no key)', () => {
  it('lists payers by name in pages, with a cursor that walks to the end', async () => {
    const first = await t.request('/v1/directory/payers?limit=5', { key: null });
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(12);
    expect(first.body.results).toHaveLength(5);
    const seen = [...first.body.results];
    let cursor = first.body.next_cursor as string | null;
    for (let i = 0; cursor && i < 5; i++) {
      const page = await t.request(`/v1/directory/payers?limit=5&cursor=${cursor}`, { key: null });
      seen.push(...page.body.results);
      cursor = page.body.next_cursor;
    }
    expect(cursor).toBeNull();
    expect(seen.map((p) => p.slug)).toHaveLength(12);
    expect(new Set(seen.map((p) => p.slug)).size).toBe(12);
    const names = seen.map((p) => p.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
  });

  it('filters by payer_type, refuses a forged cursor, and is limited per client IP', async () => {
    const m = await t.request('/v1/directory/payers?payer_type=medicaid', { key: null });
    expect(m.body.results.map((p: { slug: string }) => p.slug).sort()).toEqual(['masshealth', 'medi_cal', 'medicaid']);
    const bad = await t.request('/v1/directory/payers?cursor=bm9wZQ', { key: null });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'cursor']);
    const limited = await startTestServer({ publicRateLimitPerMin: 2 });
    try {
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push((await limited.request('/v1/directory/payers', { key: null })).status);
      expect(codes).toEqual([200, 200, 429]);
    } finally {
      await limited.close();
    }
  });

  it('answers a profile by alias with cited filing and appeal rules, on the production host too', async () => {
    const r = await t.request('/v1/directory/payers/Medicare', { key: null, host: LIVE_HOST });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ slug: 'medicare_ffs', payer_type: 'medicare', ncci_edit_set: 'medicare' });
    expect(r.body.filing_rules[0]).toMatchObject({ limit_value: 12, limit_unit: 'months', citation: { url: expect.stringContaining('section-424.44') } });
    expect(r.body.appeal_levels.map((l: { deadline_days: number }) => l.deadline_days)).toEqual([120, 180, 60, 60, 60]);
    for (const l of r.body.appeal_levels) expect(l.citation.url).toMatch(/^https:\/\//);
    expect(r.body.reliability.dataset_versions).toEqual({ payers: '2026-11-27' });
    expect(r.body.reliability.warnings.join(' ')).toMatch(/not yet re-verified/);
  });

  it('answers 404 with suggestions for an unknown payer and for an alias several payers share', async () => {
    const shared = await t.request('/v1/directory/payers/bcbs', { key: null });
    expect(shared.status).toBe(404);
    expect(shared.body.suggestions.map((s: { slug: string }) => s.slug).sort()).toEqual(['bcbs_il', 'bcbs_ma', 'bcbs_tx']);
    const typo = await t.request('/v1/directory/payers/medicar', { key: null });
    expect(typo.status).toBe(404);
    expect(typo.body.detail).toMatch(/did you mean medicare_ffs/);
    expect(typo.body.suggestions.length).toBeLessThanOrEqual(3);
    expect(typo.body.suggestions[0]).toEqual({ slug: 'medicare_ffs', name: 'Medicare Fee-for-Service (Original Medicare)' });
  });

  it('keeps denial patterns behind a key', async () => {
    expect((await t.request('/v1/directory/payers/medicare_ffs/denial-patterns', { key: null })).status).toBe(401);
    const r = await t.request('/v1/directory/payers/medicare_ffs/denial-patterns');
    expect(r.status).toBe(200);
    expect(r.headers['x-dataset-versions']).toMatch(/^payers=\S+$/);
    expect(r.body.map((d: { denial_code: string }) => d.denial_code)).toContain('CO-50');
    for (const d of r.body) expect(d.citation.url).toMatch(/^https:\/\//);
  });
});

describe('denial code lookup', () => {
  it('reads CO-50, CO50, co 50 and 50 as the same CARC, and says how it matched', async () => {
    for (const [code, as] of [
      ['CO-50', 'group+carc'],
      ['CO50', 'group+carc'],
      ['co%2050', 'group+carc'],
      ['50', 'carc'],
    ] as const) {
      const r = await t.request(`/v1/payers/denial-codes/${code}`);
      expect(r.status, code).toBe(200);
      expect(r.body).toMatchObject({ matched_as: as, code: '50', payer_count: 1, total_results: 2 });
      expect(r.body.x12_master[0]).toMatchObject({ code_type: 'carc', carc_code: '50', effective_date: '1995-01-01' });
      expect(r.body.x12_master[0].carc_description).toMatch(/^These are non-covered services because this is not deemed a 'medical necessity'/);
    }
    const co = await t.request('/v1/payers/denial-codes/CO-50');
    expect(co.body.x12_master[0]).toMatchObject({ group_code: 'CO', group_description: 'Contractual Obligations' });
    // A pattern recorded under CO does not answer PR-50.
    expect((await t.request('/v1/payers/denial-codes/PR-50')).body.total_results).toBe(0);
  });

  it('reads a RARC as a remark code, and warns when a code is not in the loaded (partial) lists', async () => {
    const r = await t.request('/v1/payers/denial-codes/MA130');
    expect(r.body).toMatchObject({ matched_as: 'rarc', code: 'MA130', total_results: 1 });
    expect(r.body.results[0]).toMatchObject({ denial_code: 'CO-16', remark_code: 'MA130', payer_slug: 'medicare_ffs' });
    expect(r.body.x12_master[0]).toMatchObject({ code_type: 'rarc', rarc_code: 'MA130' });
    const missing = await t.request('/v1/payers/denial-codes/CO-B7');
    expect(missing.status).toBe(200);
    expect(missing.body.x12_master).toEqual([]);
    expect(missing.body.reliability.warnings.join(' ')).toMatch(/CARC B7 is not in the loaded X12 code lists/);
  });

  it('answers a code as of the remittance date: a deactivated CARC is valid before its stop date and flagged after it', async () => {
    // CARC 42 (seeds/x12_codes, from the 2026-08-17 list): Start 01/01/1995, Stop 06/01/2007.
    const before = await t.request('/v1/payers/denial-codes/CO-42?as_of=2006-05-01');
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ as_of: '2006-05-01' });
    expect(before.body.x12_master[0]).toMatchObject({ carc_code: '42', status: 'active', effective_date: '1995-01-01', stop_date: '2007-06-01' });
    expect(before.body.reliability.warnings.join(' ')).not.toMatch(/deactivated on/);
    // Default as_of: today (the injected clock, 2026-04-01).
    const after = await t.request('/v1/payers/denial-codes/CO-42');
    expect(after.body).toMatchObject({ as_of: '2026-04-01' });
    expect(after.body.x12_master[0]).toMatchObject({ status: 'deactivated', stop_date: '2007-06-01' });
    expect(after.body.reliability.warnings).toContain('CARC 42 was deactivated on 2007-06-01 (its stop date): a remittance dated 2026-04-01 should not use it; it was valid from 1995-01-01 until then');
    // CARC 251 starts 2012-09-30.
    expect((await t.request('/v1/payers/denial-codes/251?as_of=2012-01-01')).body.x12_master[0]).toMatchObject({ status: 'not_yet_active', effective_date: '2012-09-30' });
    expect((await t.request('/v1/payers/denial-codes/251?as_of=2012-31-01')).status).toBe(422);
  });

  it('every code seen in the sample remittances is in the seed lists (a limited excerpt of X12\'s)', async () => {
    // shared/data/x12-codes/SOURCE.md: the 21 CARCs and 7 RARCs the sample 835s use.
    for (const code of ['1', '2', '3', '16', '18', '22', '23', '24', '29', '42', '45', '59', '94', '104', '131', '141', '165', '204', '251', 'A2', 'A7', 'MA02', 'MA92', 'N1', 'N14', 'N20', 'N36', 'N206']) {
      expect((await t.request(`/v1/payers/denial-codes/${code}?as_of=2010-01-01`)).body.x12_master, code).toHaveLength(1);
    }
  });

  it("the code's remedy and each payer pattern's come from the one table: CO-97 without its NCCI edit is review in both, never a guessed resubmission", async () => {
    const r = await t.request('/v1/payers/denial-codes/CO-97');
    expect(r.body.remedy).toMatchObject({ remedy: 'review', appeal_rights: 'conditional', rule_id: 'review' });
    // Medicare's pattern (M15) reads the code as bundling at Medicare: the edit's indicator would decide, and a code alone has none.
    expect(r.body.results.map((p: { remedy: { remedy: string; rule_id: string } }) => [p.remedy.remedy, p.remedy.rule_id])).toEqual([['review', 'payer:medicare_ffs:CO-97/M15 > review']]);
    const pr1 = await t.request('/v1/payers/denial-codes/PR-1');
    expect(pr1.body.remedy).toMatchObject({ remedy: 'bill_patient', responsibility: 'patient', rule_id: 'patient_share' });
    // OA-23 depends on the claim's position (secondary: nothing to do; primary: the other payer's remittance).
    const oa23 = await t.request('/v1/payers/denial-codes/OA-23');
    expect(oa23.body.remedy).toMatchObject({ remedy: 'review', rule_id: 'other_payer.prior_payer_unclear' });
  });

  it('parses the forms billers write and refuses anything else', () => {
    expect(parseDenialCode('OA-18')).toEqual({ matched_as: 'group+carc', group_code: 'OA', code: '18' });
    expect(parseDenialCode('n290')).toEqual({ matched_as: 'rarc', group_code: null, code: 'N290' });
    expect(parseDenialCode('M15')).toEqual({ matched_as: 'rarc', group_code: null, code: 'M15' });
    expect(parseDenialCode('A1')).toEqual({ matched_as: 'carc', group_code: null, code: 'A1' });
    expect(parseDenialCode('CO-097')).toEqual({ matched_as: 'group+carc', group_code: 'CO', code: '97' });
    expect(() => parseDenialCode('XX-ABC')).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ loc: ['path', 'code'], msg: expect.stringMatching(/^not a denial code/) })] }));
  });
});

describe('deadlines through the API', () => {
  it('appeal deadline: Medicare presumes receipt 5 days after the notice and moves a Sunday to Monday', async () => {
    const r = await t.request('/v1/payers/medicare/appeal-deadline?denial_date=2026-03-02');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ payer_slug: 'medicare_ffs', denial_date: '2026-03-02', as_of: '2026-04-01' });
    expect(r.body.receipt_convention).toMatch(/presumed received 5 days after the date on it/);
    expect(r.body.appeal_levels[0]).toMatchObject({ appeal_level: 1, deadline_days: 120, deadline_date: '2026-07-06', days_remaining: 96, is_expired: false });
    expect(r.body.appeal_levels[0].business_day_adjustment).toEqual({ moved_from: '2026-07-05', reasons: ['2026-07-05 is a Sunday'] });
    expect(r.body.appeal_levels.slice(1).map((l: { deadline_date: string | null }) => l.deadline_date)).toEqual([null, null, null, null]);
    expect(r.body.appeal_levels[2]).toMatchObject({ amount_in_controversy: 200 });
    expect(r.body.appeal_levels[4]).toMatchObject({ amount_in_controversy: 1960 });
  });

  it('timely filing: a leap-day Medicare service is due 2025-02-28; MassHealth counts 90 days', async () => {
    const r = await t.request('/v1/payers/medicare_ffs/timely-filing?date_of_service=2024-02-29&as_of=2025-01-15');
    expect(r.body.deadlines[0]).toMatchObject({ deadline_date: '2025-02-28', days_remaining: 44, is_expired: false, limit_value: 12, limit_unit: 'months' });
    const mh = await t.request('/v1/payers/masshealth/timely-filing?date_of_service=2026-01-10');
    expect(mh.body.deadlines.map((d: { rule_id: string; deadline_date: string | null }) => [d.rule_id, d.deadline_date])).toEqual([
      ['initial_claim', '2026-04-10'],
      ['after_other_insurer', null],
    ]);
    // as_of defaults to today (the injected clock).
    expect(mh.body).toMatchObject({ as_of: '2026-04-01' });
    expect(mh.body.deadlines[0]).toMatchObject({ days_remaining: 9, is_expired: false });
    const none = await t.request('/v1/payers/uhc/timely-filing?date_of_service=2026-01-10');
    expect(none.body.deadlines).toEqual([]);
    expect(none.body.reliability.warnings.join(' ')).toMatch(/no filing rules are loaded for uhc/);
  });

  it('timely filing: a Medi-Cal claim in month 8 after the month of service is not expired, it is paid at 75%', async () => {
    const r = await t.request('/v1/payers/medi-cal/timely-filing?date_of_service=2026-02-10&as_of=2026-10-15');
    expect(r.status).toBe(200);
    expect(r.body.deadlines[0]).toMatchObject({
      rule_id: 'initial_claim',
      limit_value: 6,
      full_payment_deadline_date: '2026-08-31',
      deadline_date: '2027-02-28',
      is_expired: false,
      payment_percent_as_of: 75,
    });
    expect(r.body.deadlines[0].payment_schedule.map((w: { payment_percent: number }) => w.payment_percent)).toEqual([100, 75, 50]);
    expect(r.body.deadlines[0].citation.title).toMatch(/Welfare and Institutions Code section 14115/);
    // Medicare has no tiers: the fields are there, empty.
    const m = await t.request('/v1/payers/medicare_ffs/timely-filing?date_of_service=2026-02-10&as_of=2026-10-15');
    expect(m.body.deadlines[0]).toMatchObject({ full_payment_deadline_date: null, payment_schedule: [], payment_percent_as_of: null });
  });

  it('422 for a bad date, 404 for an unknown payer', async () => {
    const bad = await t.request('/v1/payers/medicare_ffs/appeal-deadline?denial_date=2026-02-30&state=california');
    expect(bad.status).toBe(422);
    expect([...new Set(bad.body.detail.map((d: { loc: string[] }) => d.loc.join('.')))].sort()).toEqual(['query.denial_date', 'query.state']);
    expect((await t.request('/v1/payers/acme/timely-filing?date_of_service=2026-01-01')).status).toBe(404);
  });
});

describe('claim intelligence', () => {
  it('joins identity, the Medicare fee reference, denial patterns, appeals, filing and prior auth for a code', async () => {
    const r = await t.request('/v1/payers/medicare_ffs/claim-intelligence?code=15823');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ payer_slug: 'medicare_ffs', payer_type: 'medicare', code: '15823' });
    // The loaded MCD export (illustrative seeds) lists 15823 in billing article A99003, whose LCD is L99003.
    expect(r.body.policy_rules.map((x: { doc_id: string; kind: string; discovery_depth: number }) => [x.doc_id, x.kind, x.discovery_depth])).toEqual([
      ['A99003', 'article', 0],
      ['L99003', 'lcd', 1],
    ]);
    expect(r.body.policy_rules[0]).toMatchObject({
      code: '15823',
      source_key: 'cms_mcd',
      action: 'coverage_criteria',
      license_kind: 'public',
      pdf_uri: 'https://www.cms.gov/medicare-coverage-database/view/article.aspx?articleid=99003&ver=1',
      parent_doc_id: 'L99003',
      lineage_root_doc_id: 'A99003',
      effective_from: '2024-07-01',
      illustrative: true,
      jurisdiction_resolved: false,
    });
    expect(r.body.policy_rules[0].rule_text).toMatch(/^Illustrative billing and coding: Blepharoplasty\. Covered when billed with one of the 2 ICD-10-CM codes the article lists \(H02\.831, H02\.834\)/);
    // The deprecated alias is the Medicare subset of policy_rules, row for row.
    expect(r.body.coverage_determinations).toEqual(r.body.policy_rules.filter((x: { source_key: string }) => x.source_key === 'cms_mcd'));
    expect(r.body.reliability.dataset_versions.mcd_coverage).toBeTruthy();
    expect(r.body.prior_auth).toMatchObject({ pa_required: true, matched_rules: ['opd_blepharoplasty'] });
    expect(r.body.prior_auth_rules[0]).toMatchObject({ service_category: 'blepharoplasty', turnaround_standard_days: 7, turnaround_standard_unit: 'calendar_days' });
    expect(r.body.filing_rules[0]).toMatchObject({ standard_days: null, applied_limit: { value: 12, unit: 'months', override: null } });
    expect(r.body.appeal_rules).toHaveLength(5);
    expect(r.body.reliability.warnings.join(' ')).not.toMatch(/no NCD\/LCD coverage dataset is loaded/);
    expect(r.body.reliability.warnings.join(' ')).toMatch(/coverage rows are illustrative seeds/);
    // Where to submit: the payer's submission portal when no vendor has one (null when neither is curated).
    expect(r.body.prior_auth_rules[0]).toHaveProperty('portal_url');
  });

  it('prices a code with a payment-neutral modifier from its unmodified row, as payment does', async () => {
    const r = await t.request('/v1/payers/medicare_ffs/claim-intelligence?code=99213&modifier=25');
    expect(r.status).toBe(200);
    expect(r.body.fee).toMatchObject({ code: '99213', modifier: '', work_rvu: 1.3 });
    expect(r.body.reliability.warnings.join(' ')).toMatch(/modifier 25 does not select a separate RVU row/);
  });

  it('gives the RVU fee of the release in force, and says when a code has no prior-auth rule', async () => {
    const r = await t.request('/v1/payers/medicare_ffs/claim-intelligence?code=99213');
    expect(r.body.fee).toMatchObject({ code: '99213', modifier: '', work_rvu: 1.3, mp_rvu: 0.1 });
    expect(r.body.prior_auth.pa_required).toBeNull();
    expect(r.body.prior_auth.determination).toMatch(/that is not a statement that none is required/);
    expect(r.body.reliability.dataset_versions.mpfs_rvu).toBeDefined();
  });

  it("uses the conversion factor payment uses for the same code and day (the service year's, not the RVU file's)", async () => {
    const ci = await t.request('/v1/payers/medicare_ffs/claim-intelligence?code=99213');
    const pay = await t.request('/v1/codes/99213/payment');
    expect(ci.body.fee.conversion_factor).toBe(pay.body.conversion_factor);
    // The seeds carry the CY2025 RVU file (its own factor 32.3465); a service today is priced with its own year's.
    expect(ci.body.fee.conversion_factor).not.toBe(32.3465);
    expect(ci.body.fee.conversion_factor_source).toMatch(/^spec rule 1: CY\d{4} non-QPP constant|^CONV FACTOR of/);
  });

  it("takes a code of any length the spec allows (minimum 1): no fee and no rules for one nothing knows, not a 422", async () => {
    const r = await t.request('/v1/payers/medicare_ffs/claim-intelligence?code=0360');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ code: '0360', fee: null });
    expect(r.body.reliability.warnings.join(' ')).toMatch(/no Medicare physician fee schedule row for 0360/);
    expect((await t.request('/v1/payers/medicare_ffs/claim-intelligence?code=')).status).toBe(422);
  });

  it("returns a commercial payer's policy rules for the code and its group-plan appeal floor", async () => {
    const r = await t.request('/v1/payers/uhc/claim-intelligence?code=43644&plan_type=group');
    expect(r.body.edi_payer_ids).toEqual({ default: '87726' });
    expect(r.body.policy_rules).toHaveLength(1);
    expect(r.body.policy_rules[0]).toMatchObject({
      doc_id: '2025T0362PP',
      code: '43644',
      effective_from: '2025-05-01',
      kind: 'coverage',
      source_key: 'uhc-commercial-medical-policy',
      license_kind: 'payer_published_not_redistributable',
      payer_slug: 'uhc',
      rule_id: 'bariatric_43644',
      illustrative: false,
    });
    // CMS documents are for Medicare FFS only: a commercial payer's answer carries none.
    expect(r.body.coverage_determinations).toEqual([]);
    expect(r.body.appeal_rules[0]).toMatchObject({ plan_type: 'group', deadline_days: 180 });
    const other = await t.request('/v1/payers/uhc/claim-intelligence?code=99213');
    expect(other.body.policy_rules).toEqual([]);
  });
});

describe('NCCI payer selection reads the payers dataset', () => {
  it('an alias selects the payer, its ncci_edit_set the files; an unknown payer is a 422 with suggestions', async () => {
    const r = await t.request('/v1/ncci/ptp/prac?column1=97110&column2=97530&date_of_service=2026-08-01&payer=Medi-Cal');
    expect(r.body).toMatchObject({ program: 'medicaid', payer: 'medi_cal' });
    const uhc = await t.request('/v1/ncci/ptp/prac?column1=97110&column2=97530&date_of_service=2026-08-01&payer=united%20healthcare');
    expect(uhc.body).toMatchObject({ program: 'medicare', payer: 'uhc' });
    expect(uhc.body.reliability.warnings.join(' ')).toMatch(/not known to apply NCCI/);
    const bad = await t.request('/v1/ncci/ptp/prac?column1=97110&column2=975&payer=medicar');
    expect(bad.status).toBe(422);
    const payerIssue = bad.body.detail.find((d: { loc: string[] }) => d.loc[1] === 'payer');
    expect(payerIssue.msg).toMatch(/did you mean medicare_ffs/);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc[1]).sort()).toEqual(['column2', 'payer']);
  });
});
