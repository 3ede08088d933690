import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ptpEditStatus } from '../../datasets/_ncci_ptp/queries.js';
import { PtpEditSchema } from './schemas.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { illustrativeIn, otherWarnings } from '../../testing/illustrative.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const prac = (q: string) => t.request(`/v1/ncci/ptp/prac?${q}`);
const hosp = (q: string) => t.request(`/v1/ncci/ptp/hosp?${q}`);

describe('GET /v1/ncci/ptp/prac', () => {
  it('returns an active edit with the version of the quarter containing the date of service', async () => {
    const r = await prac('column1=93000&column2=93010&date_of_service=2026-07-15');
    expect(r.status).toBe(200);
    expect(() => PtpEditSchema.parse(r.body)).not.toThrow();
    expect(r.body).toMatchObject({
      col1_proc_cd: '93000',
      col2_proc_cd: '93010',
      edit_exists: true,
      edit_in_effect: true,
      status: 'active',
      edit_scope: 'cms_medicare_national',
      program: 'medicare',
      modifier: '0',
      ptp_type: 'prac',
      version: '32.2',
      version_effective_dt: '2026-07-01',
      // The release does not state its posting day: null with the reason, never a made-up "".
      version_posted_dt: null,
      version_posted_note: expect.stringContaining('do not state the day their release was posted'),
      edit_effective_dt: '1996-01-01',
      edit_delete_dt: '',
      in_existence_prior_1996: true,
      ptp_edit_rationale: 'CPT Manual or CMS manual coding instruction',
      date_of_service: '2026-07-15',
      payer: 'medicare',
    });
    // The quarter covers the date: the only caveat is the illustrative seed the edit was read from.
    expect(r.body.reliability).toMatchObject({ degraded: true, dataset_versions: { ncci_ptp_prac: '32.2' } });
    expect(illustrativeIn(r.body.reliability.warnings)).toEqual(['ncci_ptp_prac']);
    expect(otherWarnings(r.body.reliability.warnings)).toEqual([]);
    expect(r.body.ai_summary).toBeUndefined();
  });

  it('answers codes given in either order in CMS column order, upper-casing them', async () => {
    const r = await prac('column1=93010&column2=93000&date_of_service=2026-07-15');
    expect(r.body).toMatchObject({ col1_proc_cd: '93000', col2_proc_cd: '93010', status: 'active' });
    const lower = await prac('column1=0001u&column2=0030u&date_of_service=2026-07-15');
    expect(lower.body).toMatchObject({ col1_proc_cd: '0001U', col2_proc_cd: '0030U', modifier: '1', status: 'active' });
  });

  it('selects 32.1 for a Q2 date and 32.2 for a Q3 date (0001U/0029U deleted by 32.2 through 2026-06-30)', async () => {
    const q2 = await prac('column1=0001U&column2=0029U&date_of_service=2026-05-15');
    expect(q2.body).toMatchObject({ version: '32.1', version_effective_dt: '2026-04-01', status: 'active', edit_delete_dt: '' });
    const q3 = await prac('column1=0001U&column2=0029U&date_of_service=2026-07-15');
    expect(q3.body).toMatchObject({ version: '32.2', status: 'deleted', edit_exists: true, edit_in_effect: false, edit_delete_dt: '2026-06-30' });
  });

  it('treats the deletion date as the last day the edit applies', async () => {
    // 99213/99212 is deleted in 32.1 with 20260331: in force on that day, not the day after. No
    // loaded quarter covers 2026-03-31 (the route answers 404 there), so the day itself is the row's.
    const after = await prac('column1=99213&column2=99212&date_of_service=2026-04-01');
    expect(after.body).toMatchObject({ version: '32.1', status: 'deleted', edit_delete_dt: '2026-03-31' });
    const row = { effective_date: '2020-01-01', deletion_date: after.body.edit_delete_dt, modifier_indicator: '1' as const };
    expect([ptpEditStatus(row, '2026-03-31'), ptpEditStatus(row, '2026-04-01')]).toEqual(['active', 'deleted']);
    expect((await prac('column1=99213&column2=99212&date_of_service=2026-03-31')).status).toBe(404);
  });

  it('shows an edit added in 32.2 only from its quarter on', async () => {
    expect((await prac('column1=93000&column2=93005&date_of_service=2026-06-01')).body).toMatchObject({ version: '32.1', status: 'no_edit', edit_exists: false });
    expect((await prac('column1=93000&column2=93005&date_of_service=2026-07-01')).body).toMatchObject({ version: '32.2', status: 'active', edit_effective_dt: '2026-07-01' });
  });

  it('answers "no edit" for a pair without an edit, distinct from missing data', async () => {
    const r = await prac('column1=99213&column2=36415&date_of_service=2026-07-15');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      col1_proc_cd: '99213',
      col2_proc_cd: '36415',
      edit_exists: false,
      edit_in_effect: false,
      status: 'no_edit',
      modifier: null,
      version: '32.2',
      edit_effective_dt: '',
      edit_delete_dt: '',
    });
    expect(r.body.message).toMatch(/no PTP edit pairs 99213 and 36415 in version 32.2/);
    expect(illustrativeIn(r.body.reliability.warnings)).toEqual(['ncci_ptp_prac']);
    expect(otherWarnings(r.body.reliability.warnings)).toEqual([]);
  });

  it('answers 404 naming the quarter and the nearest loaded version when no quarter covers the date', async () => {
    const r = await prac('column1=93000&column2=93010&date_of_service=2027-02-01');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: 'not_found', detail: 'no ncci_ptp_prac version loaded covers date of service 2027-02-01 (2027Q1); the nearest loaded is 32.2 (2026Q3, effective 2026-07-01)' });
  });

  it('reports modifier indicator 9 as an edit that never applied', async () => {
    const r = await prac('column1=0001A&column2=90473&date_of_service=2026-07-15');
    expect(r.body).toMatchObject({ modifier: '9', status: 'not_applicable', edit_in_effect: false, edit_delete_dt: '2022-01-01' });
  });

  it('adds a template summary and a clean sentinel verdict with include_summary', async () => {
    for (const flag of ['true', '1']) {
      const r = await prac(`column1=93000&column2=93010&date_of_service=2026-07-15&include_summary=${flag}`);
      expect(r.status).toBe(200);
      expect(r.body.ai_summary).toMatch(/Column 1 code 93000 and column 2 code 93010 are an active edit pair/);
      expect(r.body.ai_summary).toMatch(/modifier is not allowed/);
      expect(r.body.sentinel).toMatchObject({ trust_score: 1, escalation_required: false, audit: { tier: 'high', flags: [] } });
    }
    const off = await prac('column1=93000&column2=93010&include_summary=false');
    expect(off.body.sentinel).toBeUndefined();
  });

  it('defaults the date of service to today', async () => {
    const r = await prac('column1=93000&column2=93010');
    expect(r.status).toBe(200);
    expect(r.body.date_of_service).toBe(new Date().toISOString().slice(0, 10));
  });

  it('reads the Medicaid edit set for medicaid, masshealth and medi_cal', async () => {
    for (const payer of ['medicaid', 'masshealth', 'medi_cal']) {
      const r = await prac(`column1=97110&column2=97530&date_of_service=2026-08-01&payer=${payer}&state=ma`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ program: 'medicaid', edit_scope: 'cms_medicaid_national', status: 'active', version: '2026Q3', payer, state: 'MA' });
      expect(r.body.reliability.dataset_versions).toEqual({ medicaid_ptp_prac: '2026Q3' });
    }
    const medicare = await prac('column1=97110&column2=97530&date_of_service=2026-08-01&payer=medicare_ffs');
    expect(medicare.body).toMatchObject({ program: 'medicare', status: 'no_edit' });
  });
});

describe('GET /v1/ncci/ptp/hosp', () => {
  it('reads the hospital outpatient table, which differs from the practitioner one', async () => {
    const r = await hosp('column1=96374&column2=96372&date_of_service=2026-07-15');
    expect(r.body).toMatchObject({ ptp_type: 'hosp', status: 'active', modifier: '1', version: '32.2' });
    expect((await hosp('column1=99214&column2=99213&date_of_service=2026-07-15')).body.status).toBe('no_edit');
    expect((await prac('column1=99214&column2=99213&date_of_service=2026-07-15')).body.status).toBe('active');
  });

  it('answers from the Medicaid hospital file, which has no edit dates', async () => {
    const r = await hosp('column1=93000&column2=93010&date_of_service=2026-07-15&payer=medicaid');
    expect(r.body).toMatchObject({ program: 'medicaid', status: 'active', edit_effective_dt: '', edit_delete_dt: '', version: '2026Q3' });
  });
});

describe('PTP bad input', () => {
  it.each([
    ['a code of the wrong shape', 'column1=9300&column2=93010', ['query', 'column1']],
    ['a code with punctuation', 'column1=93000&column2=93-10', ['query', 'column2']],
    ['a missing code', 'column1=93000', ['query', 'column2']],
    ['a malformed date', 'column1=93000&column2=93010&date_of_service=07/15/2026', ['query', 'date_of_service']],
    ['an impossible date', 'column1=93000&column2=93010&date_of_service=2026-02-30', ['query', 'date_of_service']],
    ['an unknown payer', 'column1=93000&column2=93010&payer=acme_health', ['query', 'payer']],
    ['a bad boolean', 'column1=93000&column2=93010&include_summary=yes', ['query', 'include_summary']],
    ['a state that is not two letters', 'column1=93000&column2=93010&state=California', ['query', 'state']],
    ['a repeated code parameter', 'column1=93000&column1=93005&column2=93010', ['query', 'column1']],
    ['a very long code', `column1=${'9'.repeat(5000)}&column2=93010`, ['query', 'column1']],
    ['an injected SQL fragment', "column1=93000'%20OR%201=1--&column2=93010", ['query', 'column1']],
  ])('answers 422 for %s', async (_name, q, loc) => {
    const r = await prac(q);
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: any) => d.loc)).toContainEqual(loc);
  });

  it('reports every bad field at once', async () => {
    const r = await hosp('column1=x&column2=y&date_of_service=soon&payer=nobody');
    expect(r.status).toBe(422);
    expect([...new Set(r.body.detail.map((d: any) => d.loc[1]))].sort()).toEqual(['column1', 'column2', 'date_of_service', 'payer']);
  });

  it('needs the knowledge scope', async () => {
    const key = await t.newKey('test', ['agents']);
    const r = await t.request('/v1/ncci/ptp/prac?column1=93000&column2=93010', { key });
    expect(r.status).toBe(403);
  });
});
