import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MedicaidMueListSchema, MedicareMueListSchema, AocLookupSchema } from './schemas.js';
import { TestClock } from '../../testing/clock.js';
import { startTestServer, useTestServer, type TestServer } from '../../testing/harness.js';
import { mueWhenExceeded } from './validate.js';
import { aocApplies } from '../../datasets/ncci_aoc/queries.js';
import { illustrativeIn, otherWarnings } from '../../testing/illustrative.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('GET /v1/ncci/mue/{code}', () => {
  it('returns practitioner, hosp-op and dme rows with value, indicator number and words, rationale and version', async () => {
    const r = await t.request('/v1/ncci/mue/J9035?date_of_service=2026-08-15');
    expect(r.status).toBe(200);
    expect(() => MedicareMueListSchema.parse(r.body)).not.toThrow();
    expect(r.body.proc_cd).toBe('J9035');
    expect(r.body.results.map((x: any) => [x.mue_type, x.mue_value, x.mue_adj_ind])).toEqual([
      ['practitioner', 200, 3],
      ['hosp-op', 200, 3],
      ['dme', 0, 3],
    ]);
    expect(r.body.results[0]).toMatchObject({
      program: 'medicare',
      mue_adj_ind_label: 'Date of Service Edit: Clinical',
      mue_rationale: 'Clinical: Data',
      version: '2026Q3',
      version_effective_dt: '2026-07-01',
      source_file: 'MCR_MUE_PractitionerServices_Eff_07-01-2026.csv',
    });
    // The quarter covers the date: the only caveat is the illustrative seeds the rows were read from.
    expect(illustrativeIn(r.body.reliability.warnings)).toEqual(['ncci_mue_dme', 'ncci_mue_hosp', 'ncci_mue_prac']);
    expect(otherWarnings(r.body.reliability.warnings)).toEqual([]);
    expect(r.body.reliability.dataset_versions).toEqual({ ncci_mue_prac: '2026Q3', ncci_mue_hosp: '2026Q3', ncci_mue_dme: '2026Q3' });
    // MAI 3, a date of service edit: over the value, every unit of the code on the claim for the date is denied.
    // Denied first, then what an appeal may pay: for MAI 3 units above the MUE, with documentation.
    expect(r.body.results[0].when_exceeded).toMatch(/^date of service edit: .* all units of the code on the claim are denied, not only the excess; on appeal, units above the MUE may be paid with documentation of medical necessity$/);
    expect(r.body.results[0].when_exceeded_citation.url).toContain('faqId=11344');
  });

  it('says what CMS denies for each indicator, then what an appeal may pay: the whole line (MAI 1); all the day\'s units, none above the MUE on appeal (MAI 2) or those above it with documentation (MAI 3)', async () => {
    expect(mueWhenExceeded(1)).toMatch(/^claim line edit: a line whose units exceed the MUE is denied in full \(all its units, not only the units above the MUE\)/);
    expect(mueWhenExceeded(2)).toMatch(/all units of the code on the claim are denied, not only the excess; the MUE is an absolute policy limit: units above it are not payable, on appeal either$/);
    expect(mueWhenExceeded(3)).toMatch(/all units of the code on the claim are denied, not only the excess; on appeal, units above the MUE may be paid with documentation of medical necessity$/);
    // Never "all denied" inside a parenthesis that then pays "units above it" as if nothing was denied.
    for (const mai of [2, 3] as const) expect(mueWhenExceeded(mai)).not.toMatch(/\(units above it may be paid on appeal/);
  });

  it('selects the quarter by date of service (36415: 1 in 2026Q2, 2 in 2026Q3)', async () => {
    const q2 = await t.request('/v1/ncci/mue/36415?date_of_service=2026-06-30');
    const prac2 = q2.body.results.find((x: any) => x.mue_type === 'practitioner');
    expect(prac2).toMatchObject({ mue_value: 1, version: '2026Q2', version_effective_dt: '2026-04-01' });
    expect(q2.body.reliability.dataset_versions.ncci_mue_prac).toBe('2026Q2');
    const q3 = await t.request('/v1/ncci/mue/36415?date_of_service=2026-07-01');
    expect(q3.body.results.find((x: any) => x.mue_type === 'practitioner')).toMatchObject({ mue_value: 2, version: '2026Q3' });
  });

  it('answers 404 naming the quarter and each table\'s nearest version when no table has a quarter covering the date', async () => {
    const r = await t.request('/v1/ncci/mue/99213?date_of_service=2027-01-15');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      code: 'not_found',
      detail: 'no ncci_mue_prac, ncci_mue_hosp or ncci_mue_dme version loaded covers date of service 2027-01-15 (2027Q1); the nearest loaded are ncci_mue_prac 2026Q3 (effective 2026-07-01); ncci_mue_hosp 2026Q3 (effective 2026-07-01); ncci_mue_dme 2026Q3 (effective 2026-07-01)',
    });
  });

  it('answers a quarter only some tables cover from the covering ones, and the others from their nearest version, degraded', async () => {
    // 2026Q2: the practitioner table has it, the hospital and DME tables only 2026Q3.
    const r = await t.request('/v1/ncci/mue/99213?date_of_service=2026-05-15');
    expect(r.status).toBe(200);
    expect(r.body.results.find((x: any) => x.mue_type === 'practitioner')).toMatchObject({ version: '2026Q2' });
    expect(r.body.reliability.degraded).toBe(true);
    expect(otherWarnings(r.body.reliability.warnings).join(' ')).toMatch(/no ncci_mue_hosp version loaded covers date of service 2026-05-15; answered from the nearest version 2026Q3/);
  });

  it('returns an empty list for a well-formed code with no MUE', async () => {
    const r = await t.request('/v1/ncci/mue/99499');
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([]);
  });

  it('accepts a lower-case code', async () => {
    const r = await t.request('/v1/ncci/mue/j9035');
    expect(r.body.proc_cd).toBe('J9035');
    expect(r.body.results).toHaveLength(3);
  });

  it('returns 422 for a code of the wrong shape and for a malformed date', async () => {
    const bad = await t.request('/v1/ncci/mue/ABCDE');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['path', 'code']);
    const short = await t.request('/v1/ncci/mue/9921');
    expect(short.status).toBe(422);
    const date = await t.request('/v1/ncci/mue/99213?date_of_service=2026-02-30');
    expect(date.status).toBe(422);
    expect(date.body.detail[0].loc).toEqual(['query', 'date_of_service']);
    const fmt = await t.request('/v1/ncci/mue/99213?date_of_service=07/01/2026');
    expect(fmt.status).toBe(422);
  });
});

describe('GET /v1/ncci/medicaid/mue/{code}', () => {
  it('returns the spec MedicaidMUEListResponse with mue_adj_ind null, a note and the Medicare value beside it', async () => {
    const r = await t.request('/v1/ncci/medicaid/mue/99213');
    expect(r.status).toBe(200);
    expect(() => MedicaidMueListSchema.parse(r.body)).not.toThrow();
    expect(r.body.proc_cd).toBe('99213');
    expect(r.body.program).toBe('medicaid');
    const prac = r.body.results.find((x: any) => x.mue_type === 'practitioner');
    // The Medicaid seed differs from Medicare for 99213 practitioner (3 vs 2) so the pairing is visible.
    expect(prac).toMatchObject({ proc_cd: '99213', program: 'medicaid', mue_value: 3, mue_adj_ind: null, medicare_mue_value: 2, mue_rationale: 'Clinical: Data' });
    expect(prac.source_file).toBe('MCD_MUE_Practitioner_Services_2026Q3.csv');
    expect(prac.loaded_at).toEqual(expect.any(String));
    expect(prac.note).toMatch(/no MUE Adjudication Indicator/);
    expect(prac.note).toMatch(/state Medicaid program/);
    const hosp = r.body.results.find((x: any) => x.mue_type === 'hosp-op');
    expect(hosp).toMatchObject({ mue_value: 1, medicare_mue_value: 1 });
    expect(Object.keys(prac).sort()).toEqual(
      ['proc_cd', 'mue_type', 'note', 'program', 'mue_value', 'mue_adj_ind', 'mue_rationale', 'medicare_mue_value', 'loaded_at', 'source_file'].sort(),
    );
  });

  it('returns dme for a DME code with the Medicare DME value', async () => {
    const r = await t.request('/v1/ncci/medicaid/mue/E0110');
    expect(r.body.results.map((x: any) => [x.mue_type, x.mue_value, x.medicare_mue_value])).toEqual([
      ['practitioner', 1, 1],
      ['dme', 1, 1],
    ]);
  });

  it('returns an empty list for an unknown code and 422 for a bad one', async () => {
    const r = await t.request('/v1/ncci/medicaid/mue/0099U');
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([]);
    expect((await t.request('/v1/ncci/medicaid/mue/99-13')).status).toBe(422);
  });
});

describe('GET /v1/ncci/aoc/{code}', () => {
  it('lists the primary codes of an add-on with edit type and dates', async () => {
    const r = await t.request('/v1/ncci/aoc/99417?date_of_service=2026-08-01');
    expect(r.status).toBe(200);
    expect(() => AocLookupSchema.parse(r.body)).not.toThrow();
    expect(r.body).toMatchObject({ code: '99417', is_add_on: true, version: '2026Q3', version_effective_dt: '2026-07-01' });
    expect(r.body.primary_codes.map((p: any) => [p.primary_code, p.aoc_edit_type, p.aoc_edit_eff_dt, p.aoc_edit_del_dt])).toEqual([
      ['99205', 1, '2021-01-01', null],
      ['99215', 1, '2021-01-01', null],
    ]);
    expect(r.body.add_on_codes).toEqual([]);
  });

  it('lists the add-ons that name a primary code, only those in force on the date', async () => {
    const before = await t.request('/v1/ncci/aoc/99205?date_of_service=2026-07-01');
    expect(before.body.is_add_on).toBe(false);
    expect(before.body.add_on_codes.map((a: any) => a.addon_code)).toEqual(['99417', '99418']);
    const r = await t.request('/v1/ncci/aoc/99418?date_of_service=2026-07-01');
    expect(r.body.primary_codes.map((p: any) => p.primary_code)).toEqual(['99205', '99223', '99233']);
  });

  it('drops an edit deleted before the date of service and keeps it through its deletion date', async () => {
    // 11001 with primary 11005 is deleted 20251231 (AOC_V2026Q3-MCR.csv line 4): it applies on that day,
    // not the day after. No loaded quarter covers 2025-12-31, so the route answers 404 there.
    const row = { aoc_edit_eff_dt: '2011-01-01', aoc_edit_del_dt: '2025-12-31', addon_eff_dt: null, addon_del_dt: null, primary_eff_dt: null, primary_del_dt: null };
    expect([aocApplies(row as never, '2025-12-31'), aocApplies(row as never, '2026-01-01')]).toEqual([true, false]);
    expect((await t.request('/v1/ncci/aoc/11001?date_of_service=2025-12-31')).status).toBe(404);
    const after = await t.request('/v1/ncci/aoc/11001?date_of_service=2026-07-02');
    expect(after.body.primary_codes.map((p: any) => p.primary_code)).toEqual(['11000', '11004']);
    expect(otherWarnings(after.body.reliability.warnings)).toEqual([]);
    expect(illustrativeIn(after.body.reliability.warnings)).toEqual(['ncci_aoc']);
  });

  it('reports a Type 2 add-on as any primary', async () => {
    const r = await t.request('/v1/ncci/aoc/99100');
    expect(r.body.primary_codes).toEqual([
      expect.objectContaining({ primary_code: null, any_primary: true, aoc_edit_type: 2, aoc_edit_type_description: expect.stringMatching(/^Type 2/) }),
    ]);
  });

  it('returns empty lists for a code with no add-on edits, and 422 for a bad date', async () => {
    const r = await t.request('/v1/ncci/aoc/93000');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ is_add_on: false, primary_codes: [], add_on_codes: [] });
    expect((await t.request('/v1/ncci/aoc/99417?date_of_service=2026-13-01')).status).toBe(422);
  });
});

/*
 * The one date rule on the NCCI lookups (PTP, MUE, Medicaid MUE, add-on codes), the clock fixed.
 * The seeds hold PTP 32.1 (2026Q2) and 32.2 (2026Q3), the practitioner MUE of 2026Q2 and 2026Q3
 * and every other NCCI table of 2026Q3 only.
 */
describe('the date rule of the NCCI lookups', () => {
  const clock = new TestClock('2026-08-01T12:00:00Z');
  const server = useTestServer({ now: clock.now });
  const LOOKUPS = ['/v1/ncci/ptp/prac?column1=93000&column2=93010', '/v1/ncci/mue/99213', '/v1/ncci/medicaid/mue/99213', '/v1/ncci/aoc/99417'];
  const withDate = (path: string, date: string) => `${path}${path.includes('?') ? '&' : '?'}date_of_service=${date}`;

  it('answers 404 for a date no loaded quarter covers, naming the quarter and the nearest loaded version', async () => {
    for (const path of LOOKUPS) {
      const r = await server().request(withDate(path, '2026-01-15'));
      expect(r.status, path).toBe(404);
      expect(r.body.detail, path).toMatch(/^no .* version loaded covers date of service 2026-01-15 \(2026Q1\); the nearest loaded (is|are) /);
    }
    expect((await server().request(withDate('/v1/ncci/medicaid/mue/99213', '2026-01-15'))).body.detail).toBe(
      'no medicaid_mue_prac, medicaid_mue_hosp or medicaid_mue_dme version loaded covers date of service 2026-01-15 (2026Q1); the nearest loaded are medicaid_mue_prac 2026Q3 (effective 2026-07-01); medicaid_mue_hosp 2026Q3 (effective 2026-07-01); medicaid_mue_dme 2026Q3 (effective 2026-07-01)',
    );
  });

  it("answers today's quarter without a date, with no date warning, when it is loaded", async () => {
    clock.set('2026-08-01T12:00:00Z');
    for (const path of LOOKUPS) {
      const r = await server().request(path);
      expect(r.status, path).toBe(200);
      expect(otherWarnings(r.body.reliability.warnings), path).toEqual([]);
    }
    expect((await server().request(LOOKUPS[0]!)).body).toMatchObject({ version: '32.2', date_of_service: '2026-08-01' });
  });

  it('answers the newest loaded quarter without a date, degraded with a warning, when none covers today', async () => {
    clock.set('2026-12-06T12:00:00Z');
    const ptp = await server().request(LOOKUPS[0]!);
    expect(ptp.body).toMatchObject({ version: '32.2', date_of_service: '2026-12-06' });
    expect(otherWarnings(ptp.body.reliability.warnings)).toEqual(['no ncci_ptp_prac version loaded covers today, 2026-12-06 (2026Q4); answered from the newest loaded, 32.2 (2026Q3, effective 2026-07-01)']);
    for (const path of LOOKUPS) {
      const r = await server().request(path);
      expect(r.status, path).toBe(200);
      expect(r.body.reliability.degraded, path).toBe(true);
      expect(otherWarnings(r.body.reliability.warnings).length, path).toBeGreaterThan(0);
      for (const w of otherWarnings(r.body.reliability.warnings)) expect(w, path).toMatch(/covers today, 2026-12-06 \(2026Q4\); answered from the newest loaded, /);
    }
  });
});
