import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AocRow } from '../../datasets/ncci_aoc/dataset.js';
import type { PtpRow } from '../../datasets/_ncci_ptp/row.js';
import { ptpEditStatus, type PtpLookup } from '../../datasets/_ncci_ptp/queries.js';
import { bypassRule, checkClaim, isEmCode, medicareFindings, type ClaimLookups, type MedicareCodeFacts, type MueFound } from './validate.js';
import type { ClaimLine } from './schemas.js';
import { TestClock } from '../../testing/clock.js';
import { startTestServer, useTestServer, type TestServer } from '../../testing/harness.js';
import { openTestSnapshot, REPO_ROOT, withoutIndex } from '../../testing/datasets.js';
import { ncciPtpPrac } from '../../datasets/ncci_ptp_prac/dataset.js';
import { lookupPtpEdit, ptpPairFinder } from '../../datasets/_ncci_ptp/queries.js';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { otherWarnings } from '../../testing/illustrative.js';

const DOS = '2026-08-01';
const line = (id: string, code: string, modifiers: string[] = [], units = 1, dos = DOS): ClaimLine => ({ line_id: id, code, modifiers, units, date_of_service: dos });
const ptpRow = (c1: string, c2: string, ind: '0' | '1' | '9', o: Partial<PtpRow> = {}): PtpRow => ({
  column1: c1, column2: c2, in_existence_prior_1996: false, effective_date: '2020-01-01', deletion_date: null, modifier_indicator: ind, rationale: 'Mutually exclusive procedures', ...o,
});
const aoc = (addon: string, primary: string, type: number): AocRow => ({
  addon_code: addon, primary_code: primary, aoc_edit_type: type, aoc_edit_eff_dt: '2020-01-01', aoc_edit_del_dt: null, addon_eff_dt: null, addon_del_dt: null, primary_eff_dt: null, primary_del_dt: null, special_instruction_notes: null,
});

/** Lookups over in-memory edits: the checker's rules are tested without a snapshot. */
function fake(o: { ptp?: PtpRow[]; mue?: Record<string, { value: number; mai: 1 | 2 | 3 | null }>; aoc?: AocRow[]; unknown?: string[] }): ClaimLookups {
  const choice = { version: { version: '32.2', effective_date: '2026-07-01' }, covered: true } as PtpLookup['choice'];
  return {
    day: async (_codes, dos) => ({
      known: (code) => !(o.unknown ?? []).includes(code),
      ptp: (a, b) => {
        const row = (o.ptp ?? []).find((r) => (r.column1 === a && r.column2 === b) || (r.column1 === b && r.column2 === a)) ?? null;
        return { dataset: 'ncci_ptp_prac', choice, row, status: row ? ptpEditStatus(row, dos) : 'no_edit' };
      },
      mue: (code): MueFound => {
        const m = o.mue?.[code];
        return { dataset: 'ncci_mue_prac', version: '2026Q3', row: m ? { mue_value: m.value, mue_adj_ind: m.mai, mue_adj_ind_label: null, mue_rationale: 'Clinical: Data' } : null };
      },
      aoc: (code) => ({ dataset: 'ncci_aoc', version: '2026Q3', as_addon: (o.aoc ?? []).filter((r) => r.addon_code === code) }),
    }),
  };
}

const ptpFinding = async (ind: '0' | '1' | '9', a: ClaimLine, b: ClaimLine, row: Partial<PtpRow> = {}) => {
  const r = await checkClaim([a, b], fake({ ptp: [ptpRow(a.code, b.code, ind, row)] }));
  return r.findings.find((f) => f.kind === 'ptp');
};

describe('PTP pairs', () => {
  it('indicator 0 fails whatever the modifiers; indicator 1 fails without one', async () => {
    expect((await ptpFinding('0', line('1', '20610'), line('2', '20604', ['59'])))!).toMatchObject({ status: 'fail', rule: 'modifier indicator 0', line_ids: ['1', '2'] });
    expect((await ptpFinding('1', line('1', '11042'), line('2', '97597')))!).toMatchObject({ status: 'fail', rule: 'modifier indicator 1' });
  });

  it('indicator 9 and edits not in force on the date pass, with the edit row they used', async () => {
    expect((await ptpFinding('9', line('1', '11042'), line('2', '97597')))!).toMatchObject({ status: 'pass', rule: 'modifier indicator 9', edit: { modifier_indicator: '9' } });
    expect((await ptpFinding('1', line('1', '11042'), line('2', '97597'), { deletion_date: '2026-06-30' }))!.status).toBe('pass');
    // The deletion date is the last day the edit applies.
    expect((await ptpFinding('1', line('1', '11042', [], 1, '2026-06-30'), line('2', '97597', [], 1, '2026-06-30'), { deletion_date: '2026-06-30' }))!.status).toBe('fail');
    expect((await ptpFinding('1', line('1', '11042'), line('2', '97597'), { effective_date: '2026-10-01' }))!.status).toBe('pass');
  });

  it('reports the pair in CMS column order whatever the line order', async () => {
    const f = await checkClaim([line('a', '97597'), line('b', '11042')], fake({ ptp: [ptpRow('11042', '97597', '1')] }));
    expect(f.findings[0]).toMatchObject({ line_ids: ['b', 'a'], codes: ['11042', '97597'], edit: { column1: '11042', column2: '97597' } });
  });

  it('lines on different dates are not paired', async () => {
    const r = await checkClaim([line('1', '11042'), line('2', '97597', [], 1, '2026-08-02')], fake({ ptp: [ptpRow('11042', '97597', '0')] }));
    expect(r.pairs_checked).toBe(0);
    expect(r.findings).toEqual([]);
  });

  for (const m of ['59', 'XE', 'XP', 'XS', 'XU', '27', '91', '58', '78', '79']) {
    it(`modifier ${m} on either line bypasses indicator 1`, async () => {
      expect((await ptpFinding('1', line('1', '11042', [m]), line('2', '97597')))!.status).toBe('bypassed');
      expect((await ptpFinding('1', line('1', '11042'), line('2', '97597', [m])))!).toMatchObject({ status: 'bypassed', rule: expect.stringContaining(`modifier ${m}`) });
    });
  }

  for (const m of ['24', '25', '57']) {
    it(`modifier ${m} bypasses only on the E/M line`, async () => {
      expect((await ptpFinding('1', line('1', '11042'), line('2', '99213', [m])))!.status).toBe('bypassed');
      expect((await ptpFinding('1', line('1', '11042', [m]), line('2', '99213')))!.status).toBe('fail');
    });
  }

  it('anatomic modifiers bypass only when the two lines name different sites', async () => {
    expect((await ptpFinding('1', line('1', '20610', ['RT']), line('2', '20605', ['LT'])))!.status).toBe('bypassed');
    expect((await ptpFinding('1', line('1', '26055', ['F1']), line('2', '26035', ['F2'])))!.status).toBe('bypassed');
    expect((await ptpFinding('1', line('1', '20610', ['RT']), line('2', '20605', ['RT'])))!.status).toBe('fail');
    expect((await ptpFinding('1', line('1', '20610', ['RT']), line('2', '20605')))!.status).toBe('fail');
    expect((await ptpFinding('1', line('1', '67820', ['E1']), line('2', '67825', ['E1', 'E2'])))!.status).toBe('fail');
  });

  it('names each distinct-service modifier by its own meaning (CMS MLN MM8863, CR 8863), 59 as the distinct procedural service', () => {
    const rule = (m: string) => bypassRule(line('1', '11042', [m]), line('2', '97597'));
    expect(rule('59')).toBe('modifier 59 (distinct procedural service)');
    expect(rule('XE')).toBe('modifier XE (separate encounter: distinct because it occurred during a separate encounter; CMS MLN MM8863, CR 8863)');
    expect(rule('XS')).toBe('modifier XS (separate structure: distinct because it was performed on a separate organ or structure; CMS MLN MM8863, CR 8863)');
    expect(rule('XP')).toBe('modifier XP (separate practitioner: distinct because it was performed by a different practitioner; CMS MLN MM8863, CR 8863)');
    expect(rule('XU')).toBe('modifier XU (unusual non-overlapping service: distinct because it does not overlap the usual components of the main service; CMS MLN MM8863, CR 8863)');
  });

  it('bypassRule and isEmCode agree with the manual on the edges', () => {
    expect(isEmCode('99202')).toBe(true);
    expect(isEmCode('99499')).toBe(true);
    expect(isEmCode('99500')).toBe(false);
    expect(isEmCode('99100')).toBe(false);
    expect(bypassRule(line('1', '11042', ['GT']), line('2', '97597', ['KX']))).toBeNull();
  });
});

describe('MUE', () => {
  it('MAI 1 compares each line: two lines within the value pass even when their sum exceeds it', async () => {
    const lk = fake({ mue: { J9035: { value: 2, mai: 1 } } });
    const ok = await checkClaim([line('1', 'J9035', [], 2), line('2', 'J9035', [], 2)], lk);
    expect(ok.findings.map((f) => [f.line_ids.join(), f.status, f.rule])).toEqual([
      ['1', 'pass', 'MAI 1'],
      ['2', 'pass', 'MAI 1'],
    ]);
    const over = await checkClaim([line('1', 'J9035', [], 3)], lk);
    expect(over.findings[0]).toMatchObject({ status: 'fail', message: expect.stringContaining('MAI 1 (line edit)') });
  });

  it('MAI 1 over the value denies the whole line, every unit, not only the excess (CMS FAQ 11344)', async () => {
    const lk = fake({ mue: { J9035: { value: 2, mai: 1 } } });
    const r = await checkClaim([line('1', 'J9035', [], 5), line('2', 'J9035', ['59'], 1)], lk);
    expect(r.findings[0]).toMatchObject({ status: 'fail', line_ids: ['1'], denied_units: 5, citation: { url: expect.stringContaining('faqId=11344') } });
    expect(r.findings[0]!.message).toContain('CMS denies the whole line, all 5 units, not only the 3 above it');
    // The other line is adjudicated on its own and denies nothing.
    expect(r.findings[1]).toMatchObject({ status: 'pass', line_ids: ['2'] });
    expect(r.findings[1]!.denied_units).toBeUndefined();
  });

  for (const mai of [2, 3] as const) {
    it(`MAI ${mai} sums the code's units across lines for the date`, async () => {
      const lk = fake({ mue: { '99213': { value: 2, mai } } });
      const sum = await checkClaim([line('1', '99213'), line('2', '99213', [], 2)], lk);
      expect(sum.findings).toHaveLength(1);
      expect(sum.findings[0]).toMatchObject({ kind: 'mue', status: 'fail', line_ids: ['1', '2'], rule: `MAI ${mai}` });
      expect(sum.findings[0]!.message).toContain(mai === 2 ? 'absolute limit' : 'on appeal');
      // A date of service edit over the value denies every unit of the code for the date on the claim.
      expect(sum.findings[0]).toMatchObject({ denied_units: 3, citation: { url: expect.stringContaining('faqId=11344') } });
      expect(sum.findings[0]!.message).toContain('CMS denies all 3 units of 99213 for the date on this claim, not only the 1 above it');
      const split = await checkClaim([line('1', '99213'), line('2', '99213', [], 1, '2026-08-02')], lk);
      expect(split.findings.map((f) => f.status)).toEqual(['pass', 'pass']);
    });
  }

  it('Medicaid rows (no MAI) fail per line and warn when the lines together exceed the value', async () => {
    const r = await checkClaim([line('1', '99213', [], 2), line('2', '99213', [], 1)], fake({ mue: { '99213': { value: 2, mai: null } } }));
    expect(r.findings.map((f) => f.status)).toEqual(['pass', 'pass', 'warn']);
  });
});

describe('add-on codes and unknown codes', () => {
  const edits = [aoc('99417', '99205', 1), aoc('99417', '99215', 1), aoc('99100', 'CCCCC', 2), aoc('99153', '99152', 3)];
  it('type 1 without a primary fails; with one it passes', async () => {
    expect((await checkClaim([line('1', '99417')], fake({ aoc: edits }))).findings[0]).toMatchObject({ kind: 'aoc', status: 'fail', rule: 'AOC type 1' });
    const ok = await checkClaim([line('1', '99215'), line('2', '99417')], fake({ aoc: edits }));
    expect(ok.findings[0]).toMatchObject({ status: 'pass', line_ids: ['2', '1'] });
    // A primary on another date does not count.
    expect((await checkClaim([line('1', '99215', [], 1, '2026-07-31'), line('2', '99417')], fake({ aoc: edits }))).findings[0]!.status).toBe('fail');
  });

  it('an add-on whose code fails the Medicare code check fails its add-on check too, never passes beside it (99417, PFS status I, with 99215)', async () => {
    // A Medicare claim: the day's lookups carry the fee schedules' facts (99417 is status I in PPRRVU2025_Oct.csv).
    const lk = fake({ aoc: edits });
    const day = lk.day.bind(lk);
    lk.day = async (codes, dos) => ({ ...(await day(codes, dos)), medicare: (code: string) => facts({ status_code: code === '99417' ? 'I' : 'A' }) });
    const r = await checkClaim([line('1', '99215'), line('2', '99417')], lk);
    const code = r.findings.find((f) => f.kind === 'code')!;
    const addOn = r.findings.find((f) => f.kind === 'aoc')!;
    expect(code).toMatchObject({ status: 'fail', line_ids: ['2'], rule: 'PFS status I' });
    expect(addOn).toMatchObject({ status: 'fail', line_ids: ['2', '1'], rule: 'AOC type 1', citation: code.citation });
    expect(addOn.message).toBe('add-on 99417 (line 2) fails the Medicare code check (PFS status I); its primary 99215 (line 1) is on the claim, but a code Medicare does not pay is not paid as an add-on either');
    // A Medicaid claim (no Medicare facts) keeps the NCCI answer: the primary is there, the edit passes.
    expect((await checkClaim([line('1', '99215'), line('2', '99417')], fake({ aoc: edits }))).findings[0]).toMatchObject({ kind: 'aoc', status: 'pass' });
  });

  it('types 2 and 3 without a listed primary warn', async () => {
    const r = await checkClaim([line('1', '99100'), line('2', '99153')], fake({ aoc: edits }));
    expect(r.findings.map((f) => [f.codes[0], f.status, f.rule])).toEqual([
      ['99100', 'warn', 'AOC type 2'],
      ['99153', 'warn', 'AOC type 3'],
    ]);
  });

  it('a code no file knows is no_data, never a silent pass, and its edits are not checked', async () => {
    const r = await checkClaim([line('1', 'ZZZZZ'), line('2', '11042')], fake({ unknown: ['ZZZZZ'], ptp: [ptpRow('11042', 'ZZZZZ', '0')] }));
    expect(r.findings).toEqual([expect.objectContaining({ kind: 'code', status: 'no_data', line_ids: ['1'] })]);
  });
});

const facts = (o: Partial<MedicareCodeFacts> = {}): MedicareCodeFacts => ({ rvu_version: '2025D', status_code: 'A', outside_release: null, opps: null, clfs: false, dmepos: false, asp: false, ...o });

describe('what Medicare pays (medicareFindings)', () => {
  it('a deleted code and a code not yet effective fail on the date, by the RVU release in force', () => {
    expect(medicareFindings(line('1', '0001F'), 'prac', facts({ status_code: 'D' }))).toEqual([expect.objectContaining({ kind: 'code', status: 'fail', rule: 'PFS status D' })]);
    expect(medicareFindings(line('1', '99999'), 'hosp', facts({ status_code: null, outside_release: { state: 'deleted', other_version: '2024D' } }))[0]).toMatchObject({ status: 'fail', rule: 'code deleted' });
    const later = medicareFindings(line('1', '99999'), 'prac', facts({ status_code: null, outside_release: { state: 'not_yet_effective', other_version: '2027A' } }));
    expect(later[0]).toMatchObject({ status: 'fail', rule: 'code not yet effective' });
    expect(later[0]!.message).toMatch(/first appears in RVU release 2027A/);
  });

  it('status X and E codes paid under another loaded schedule (CLFS, DMEPOS, ASP) are not findings; status A is not', () => {
    expect(medicareFindings(line('1', '80053'), 'prac', facts({ status_code: 'X', clfs: true }))).toEqual([]);
    expect(medicareFindings(line('1', 'J9035'), 'prac', facts({ status_code: 'E', asp: true }))).toEqual([]);
    expect(medicareFindings(line('1', 'J9035'), 'prac', facts({ status_code: 'E' }))[0]).toMatchObject({ rule: 'PFS status E' });
    expect(medicareFindings(line('1', '99213'), 'prac', facts())).toEqual([]);
    for (const s of ['B', 'N']) expect(medicareFindings(line('1', '99999'), 'prac', facts({ status_code: s }))[0]).toMatchObject({ status: 'fail', rule: `PFS status ${s}` });
  });

  it('on an outpatient claim the OPPS status indicator decides, not the PFS status', () => {
    const opps = (si: string) => facts({ status_code: 'X', opps: { version: '2026-01', status_indicator: si, payment_rate: si === 'J2' ? 146.92 : null } });
    expect(medicareFindings(line('1', 'G0463'), 'hosp', opps('J2'))).toEqual([]);
    expect(medicareFindings(line('1', 'X0000'), 'hosp', opps('E2'))[0]).toMatchObject({ rule: 'OPPS status indicator E2' });
  });

  it('XE, XP, XS and XU on an E/M line fail; on a procedure line they are the bypass they are meant to be', async () => {
    for (const m of ['XE', 'XP', 'XS', 'XU']) expect(medicareFindings(line('1', '99213', [m]), 'prac', undefined)[0]).toMatchObject({ kind: 'modifier', rule: `modifier ${m} on an E/M code` });
    expect(medicareFindings(line('1', '11042', ['59']), 'prac', undefined)).toEqual([]);
    expect(bypassRule(line('1', '99213', ['59']), line('2', '11042'))).toBeNull();
    expect(bypassRule(line('1', '99213'), line('2', '11042', ['59']))).toMatch(/59/);
  });

  it('a date no loaded version covers makes the whole check degraded, with the version pick\'s warning', async () => {
    const lk = fake({});
    const day = lk.day.bind(lk);
    lk.day = async (codes, dos) => ({ ...(await day(codes, dos)), coverage: [{ dataset: 'ncci_mue_prac', version: '2026Q2', covered: false, warning: 'no ncci_mue_prac version loaded covers date of service 2025-11-03' }] });
    const r = await checkClaim([line('1', '99213', [], 1, '2025-11-03')], lk);
    expect(r).toMatchObject({ degraded: true, warnings: ['no ncci_mue_prac version loaded covers date of service 2025-11-03'] });
    expect((await checkClaim([line('1', '99213')], fake({}))).degraded).toBe(false);
  });
});

describe('ptpPairFinder', () => {
  it('answers every pair of the seeded codes exactly as the per-code DuckDB path does, on dates across both quarters', async () => {
    const loads = await Promise.all(
      ['32.1', '32.2'].map(async (v) => {
        const d = join(REPO_ROOT, 'seeds/ncci_ptp_prac', v);
        return { dataset: ncciPtpPrac, files: (await readdir(d)).map((f) => join(d, f)) };
      }),
    );
    const snap = await openTestSnapshot(loads);
    try {
      const rows = await snap.all<{ c: string }>('SELECT column1 AS c FROM ncci_ptp_prac UNION SELECT column2 FROM ncci_ptp_prac');
      const codes = [...rows.map((r) => r.c), 'ZZZZZ'];
      const plain = withoutIndex(snap);
      let compared = 0;
      for (const dos of ['2022-01-01', '2023-12-31', '2026-04-15', '2026-06-30', '2026-07-01', '2026-08-01']) {
        const find = await ptpPairFinder(snap, 'ncci_ptp_prac', codes, dos);
        for (const a of codes) {
          for (const b of codes) {
            expect(find(a, b), `${a}/${b} ${dos}`).toEqual(await lookupPtpEdit(plain, 'ncci_ptp_prac', a, b, dos));
            compared++;
          }
        }
      }
      expect(compared).toBeGreaterThan(1000);
    } finally {
      snap.close();
    }
  });
});

describe('POST /v1/ncci/validate over the seeds', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => t.close());
  const validate = (body: unknown) => t.request('/v1/ncci/validate', { method: 'POST', body });

  it('checks a claim: PTP fail and bypass, MUE, add-on, no_data, with a summary', async () => {
    const r = await validate({
      date_of_service: DOS,
      setting: 'prac',
      lines: [
        { line_id: 'A', code: '11042', units: 1 },
        { line_id: 'B', code: '97597', modifiers: ['xs'], units: 1 },
        { line_id: 'C', code: '20610', units: 1 },
        { line_id: 'D', code: '20604', modifiers: ['59'], units: 1 },
        { line_id: 'E', code: '99213', units: 3 },
        { line_id: 'F', code: 'ZZZZZ' },
      ],
    });
    expect(r.status).toBe(200);
    const by = (ids: string) => r.body.findings.find((f: { line_ids: string[] }) => f.line_ids.join() === ids);
    expect(by('A,B')).toMatchObject({ kind: 'ptp', status: 'bypassed', rule: expect.stringContaining('XS'), edit: { dataset: 'ncci_ptp_prac', version: '32.2', modifier_indicator: '1' } });
    expect(by('C,D')).toMatchObject({ kind: 'ptp', status: 'fail', rule: 'modifier indicator 0' });
    expect(by('E')).toMatchObject({ kind: 'mue', status: 'fail', edit: { mue_value: 2, mue_adj_ind: 3 } });
    expect(by('F')).toMatchObject({ kind: 'code', status: 'no_data' });
    expect(r.body.summary).toMatchObject({ clean: false, lines: 6, pairs_checked: 10, fail: 2, bypassed: 1, no_data: 1 });
    expect(r.body.summary.ncci_versions).toMatchObject({ ncci_ptp_prac: '32.2', ncci_mue_prac: '2026Q3' });
    expect(r.body.summary.policy.url).toMatch(/^https:\/\/www\.cms\.gov\//);
    expect(r.body.reliability.dataset_versions.ncci_ptp_prac).toBe('32.2');
  });

  it('a clean claim is clean', async () => {
    const r = await validate({ date_of_service: DOS, setting: 'prac', lines: [{ code: '99205' }, { code: '71046' }] });
    expect(r.body.summary).toMatchObject({ clean: true, fail: 0, no_data: 0 });
  });

  // Seed rows: PPRRVU2025_Oct.csv 99417 status I, G0463 status X; Addendum B (January 2026) G0463 J2
  // APC 5012 $146.92, A9270 E1 (no RVU row), 93000 M, 99213 B, 70450 Q3 APC 5522 $145.53.
  it('a Medicare professional claim fails codes the PFS does not pay, a hospital code, and an excluded code, each with its rule cited', async () => {
    const r = await validate({ date_of_service: DOS, setting: 'prac', lines: [{ code: '99417' }, { code: 'G0463' }, { code: 'A9270' }] });
    const code = (id: string) => r.body.findings.find((f: { kind: string; line_ids: string[] }) => f.kind === 'code' && f.line_ids.join() === id);
    expect(code('1')).toMatchObject({ status: 'fail', rule: 'PFS status I', citation: { title: expect.stringMatching(/Status Code/) } });
    expect(code('1').message).toMatch(/not valid for Medicare purposes/);
    expect(code('2')).toMatchObject({ status: 'fail', rule: 'invalid in the setting: PFS status X, paid under the OPPS' });
    expect(code('2').message).toMatch(/OPPS status indicator J2/);
    expect(code('3')).toMatchObject({ status: 'fail', rule: 'OPPS status indicator E1', citation: { title: expect.stringMatching(/Addendum D1/) } });
    expect(r.body.summary.clean).toBe(false);
    expect(r.body.reliability.dataset_versions).toMatchObject({ mpfs_rvu: expect.any(String), opps_addendum_b: expect.any(String) });
  });

  it('one answer never has 99417 fail the code check and pass the add-on check: with its primary 99215 both fail', async () => {
    // Seeds: 99417 status I (PPRRVU2025_Oct.csv); ncci_aoc 2026Q3 lists 99417 with primary 99215, type 1.
    const r = await validate({ date_of_service: DOS, setting: 'prac', lines: [{ code: '99215' }, { code: '99417' }] });
    const of = (kind: string) => r.body.findings.filter((f: { kind: string; line_ids: string[] }) => f.kind === kind && f.line_ids[0] === '2');
    expect(of('code')).toEqual([expect.objectContaining({ status: 'fail', rule: 'PFS status I' })]);
    expect(of('aoc')).toEqual([expect.objectContaining({ status: 'fail', rule: 'AOC type 1', message: expect.stringMatching(/fails the Medicare code check \(PFS status I\); its primary 99215 \(line 1\) is on the claim/) })]);
  });

  it('a Medicare outpatient claim fails OPPS status indicators B, E1 and M; a paid code passes', async () => {
    const r = await validate({ date_of_service: DOS, setting: 'hosp', lines: [{ code: '93000' }, { code: '99213' }, { code: 'A9270' }, { code: '70450' }] });
    const rules = r.body.findings.filter((f: { kind: string }) => f.kind === 'code').map((f: { line_ids: string[]; rule: string; status: string }) => [f.line_ids.join(), f.status, f.rule]);
    expect(rules).toEqual([
      ['1', 'fail', 'OPPS status indicator M'],
      ['2', 'fail', 'OPPS status indicator B'],
      ['3', 'fail', 'OPPS status indicator E1'],
    ]);
  });

  it('the Medicare payment rules apply to Medicare claims only: a Medicaid claim is checked against its NCCI files', async () => {
    const r = await validate({ date_of_service: DOS, setting: 'prac', payer: 'medicaid', lines: [{ code: '99417' }, { code: 'G0463' }] });
    expect(r.body.findings.filter((f: { kind: string; status: string }) => f.kind === 'code' && f.status === 'fail')).toEqual([]);
  });

  it('59 on an E/M line fails as a modifier that does not apply, and bypasses no edit', async () => {
    const r = await validate({ date_of_service: DOS, setting: 'prac', lines: [{ code: '99214' }, { code: '99213', modifiers: ['59'] }] });
    expect(r.body.findings.find((f: { kind: string }) => f.kind === 'modifier')).toMatchObject({ status: 'fail', line_ids: ['2'], rule: 'modifier 59 on an E/M code', citation: { title: expect.stringMatching(/NCCI Policy Manual/) } });
    // 32.2: 99214/99213 modifier indicator 0 (fails whatever the modifier).
    expect(r.body.findings.find((f: { kind: string }) => f.kind === 'ptp')).toMatchObject({ status: 'fail' });
  });

  it('a claim and the single-code routes read the same versions by the one date rule', async () => {
    // Seeds: ncci_mue_prac 2026Q2 and 2026Q3, ncci_ptp_prac 32.1 (2026Q2) and 32.2 (2026Q3), ncci_aoc 2026Q3: nothing
    // covers 2025-11-03 (404 everywhere); 2026-05-15 is in 2026Q2 of the PTP and MUE tables but not of the add-on file;
    // 2026-08-01 is in 2026Q3 of all three. Every NCCI seed is illustrative, so every answer is degraded by that
    // (server/trace.ts); the version rule shows in the other warnings.
    const ncci = (ws: string[]) => otherWarnings(ws).filter((w) => /ncci_/.test(w));
    for (const path of ['/v1/ncci/mue/99213', '/v1/ncci/ptp/prac?column1=99214&column2=99213', '/v1/ncci/aoc/99213']) {
      expect((await t.request(`${path}${path.includes('?') ? '&' : '?'}date_of_service=2025-11-03`)).status, path).toBe(404);
    }
    for (const payer of [undefined, 'medicaid']) {
      const r = await validate({ date_of_service: '2025-11-03', setting: 'prac', ...(payer ? { payer } : {}), lines: [{ code: '99213' }] });
      expect(r.status, payer).toBe(404);
      expect(r.body.detail, payer).toMatch(/^no (ncci|medicaid)_ptp_prac, (ncci|medicaid)_mue_prac or ncci_aoc version loaded covers date of service 2025-11-03 \(2025Q4\); the nearest loaded are /);
    }
    // 2026-05-15: the PTP and MUE tables of the quarter answer; the add-on file, of another quarter, answers from its nearest version, said.
    const partial = await validate({ date_of_service: '2026-05-15', setting: 'prac', lines: [{ code: '99213' }] });
    expect(partial.status).toBe(200);
    expect(partial.body.summary.ncci_versions).toMatchObject({ ncci_mue_prac: '2026Q2' });
    expect(ncci(partial.body.reliability.warnings)).toEqual(['no ncci_aoc version loaded covers date of service 2026-05-15; answered from the nearest version 2026Q3 (effective 2026-07-01); loaded: 2026Q3 (from 2026-07-01)']);
    expect((await t.request('/v1/ncci/aoc/99213?date_of_service=2026-05-15')).status).toBe(404);
    expect(ncci((await t.request('/v1/ncci/mue/99213?date_of_service=2026-05-15')).body.reliability.warnings).filter((w) => w.includes('ncci_mue_prac'))).toEqual([]);
    // 2026-08-01: every file of the quarter, no NCCI warning on the claim or the routes.
    const medicare = await validate({ date_of_service: '2026-08-01', setting: 'prac', lines: [{ code: '99213' }] });
    expect(medicare.body.summary.no_data).toBe(0);
    expect(ncci(medicare.body.reliability.warnings)).toEqual([]);
    for (const path of ['/v1/ncci/mue/99213', '/v1/ncci/ptp/prac?column1=99214&column2=99213', '/v1/ncci/aoc/99213']) {
      expect(ncci((await t.request(`${path}${path.includes('?') ? '&' : '?'}date_of_service=2026-08-01`)).body.reliability.warnings), path).toEqual([]);
    }
    // It also reads PFS status codes from the RVU file by the year rule: only the 2025 release is seeded.
    expect(medicare.body.reliability.degraded).toBe(true);
    expect(medicare.body.reliability.warnings).toContain('no mpfs_rvu release of 2026 is loaded for date of service 2026-08-01; answered from the nearest release 2025D (2025, effective 2025-10-01)');
  });

  it('answers a code by its edit set, setting and date however often it was asked before (per-code answers are remembered)', async () => {
    const mueOf = async (body: Record<string, unknown>) => {
      const r = await validate({ date_of_service: DOS, setting: 'prac', lines: [{ line_id: 'E', code: '99213', units: 3 }], ...body });
      expect(r.status).toBe(200);
      const f = r.body.findings.find((x: { kind: string }) => x.kind === 'mue');
      return `${f.edit?.dataset}:${f.edit?.version}:${f.status}`;
    };
    for (let round = 0; round < 2; round++) {
      expect(await mueOf({})).toBe('ncci_mue_prac:2026Q3:fail');
      expect(await mueOf({ payer: 'medicaid' })).toMatch(/^medicaid_mue_prac:/);
      expect(await mueOf({ setting: 'hosp' })).toMatch(/^ncci_mue_hosp:/);
      expect(await mueOf({ date_of_service: '2026-05-15' })).toMatch(/^ncci_mue_prac:2026Q2:/);
    }
  });

  it('the Medicaid payer selects the Medicaid files', async () => {
    const r = await validate({ date_of_service: DOS, setting: 'prac', payer: 'Medi-Cal', lines: [{ code: '11042' }, { code: '97597' }] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ program: 'medicaid', payer: 'medi_cal' });
    expect(Object.keys(r.body.summary.ncci_versions).some((k: string) => k.startsWith('medicaid_ptp'))).toBe(true);
  });

  it('422 with every issue: no lines, bad modifier, unknown payer, unknown field; then duplicate line ids', async () => {
    const none = await validate({ date_of_service: DOS, setting: 'prac', lines: [] });
    expect(none.status).toBe(422);
    const bad = await validate({ date_of_service: '2026-02-30', setting: 'office', payer: 'nobody known', extra: 1, lines: [{ line_id: 'x', code: '99213', modifiers: ['2'] }, { line_id: 'x', code: '99214', units: 0 }] });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: (string | number)[] }) => d.loc.join('.')).sort()).toEqual(
      ['body.extra', 'body.date_of_service', 'body.lines.0.modifiers.0', 'body.lines.1.units', 'body.payer', 'body.setting'].sort(),
    );
    // Duplicate line ids are reported once the lines are otherwise valid (refinements run on valid shapes).
    const dup = await validate({ date_of_service: DOS, setting: 'prac', lines: [{ line_id: 'x', code: '99213' }, { line_id: 'x', code: '99214' }] });
    expect(dup.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'lines', 1, 'line_id'], msg: 'line_id x is used twice' })]);
    const many = await validate({ date_of_service: DOS, setting: 'prac', lines: Array.from({ length: 101 }, () => ({ code: '99213' })) });
    expect(many.body.detail[0]).toMatchObject({ loc: ['body', 'lines'] });
  });
});

/*
 * The one date rule on a claim, the clock fixed: every date of service a claim or a line gives is
 * checked (404 when none of the claim's PTP, MUE and add-on files has its quarter); lines without
 * one are dated today and read today's quarter, else the newest loaded, degraded.
 */
describe('POST /v1/ncci/validate: the date rule', () => {
  const clock = new TestClock('2026-08-01T12:00:00Z');
  const server = useTestServer({ now: clock.now });
  const validate = (body: unknown) => server().request('/v1/ncci/validate', { method: 'POST', body });
  const ncci = (ws: string[]) => otherWarnings(ws).filter((w) => /ncci_/.test(w));

  it('answers 404 for a line whose date no quarter of the claim\'s files covers, naming the quarter and the nearest loaded', async () => {
    const r = await validate({ date_of_service: '2026-08-01', setting: 'hosp', lines: [{ code: '99213' }, { code: '11042', date_of_service: '2026-05-15' }] });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      code: 'not_found',
      detail: 'no ncci_ptp_hosp, ncci_mue_hosp or ncci_aoc version loaded covers date of service 2026-05-15 (2026Q2); the nearest loaded are ncci_ptp_hosp 32.2 (2026Q3, effective 2026-07-01); ncci_mue_hosp 2026Q3 (effective 2026-07-01); ncci_aoc 2026Q3 (effective 2026-07-01)',
    });
  });

  it("dates a claim sent without a date today and reads today's quarter, with no date warning, when it is loaded", async () => {
    clock.set('2026-08-01T12:00:00Z');
    const r = await validate({ setting: 'prac', lines: [{ code: '99213' }, { code: '11042' }] });
    expect(r.status).toBe(200);
    expect(r.body.date_of_service).toBe('2026-08-01');
    expect(r.body.lines.map((l: ClaimLine) => l.date_of_service)).toEqual(['2026-08-01', '2026-08-01']);
    expect(r.body.summary.ncci_versions).toMatchObject({ ncci_ptp_prac: '32.2', ncci_mue_prac: '2026Q3' });
    expect(ncci(r.body.reliability.warnings)).toEqual([]);
  });

  it('reads the newest loaded quarter for a claim without a date when none covers today, degraded with a warning', async () => {
    clock.set('2026-12-06T12:00:00Z');
    const r = await validate({ setting: 'prac', lines: [{ code: '99213' }, { code: '11042' }] });
    expect(r.status).toBe(200);
    expect(r.body.date_of_service).toBe('2026-12-06');
    expect(r.body.summary.ncci_versions).toMatchObject({ ncci_ptp_prac: '32.2', ncci_mue_prac: '2026Q3' });
    expect(r.body.reliability.degraded).toBe(true);
    expect(ncci(r.body.reliability.warnings).sort()).toEqual([
      'no ncci_aoc version loaded covers today, 2026-12-06 (2026Q4); answered from the newest loaded, 2026Q3 (effective 2026-07-01)',
      'no ncci_mue_prac version loaded covers today, 2026-12-06 (2026Q4); answered from the newest loaded, 2026Q3 (effective 2026-07-01)',
      'no ncci_ptp_prac version loaded covers today, 2026-12-06 (2026Q4); answered from the newest loaded, 32.2 (2026Q3, effective 2026-07-01)',
    ]);
  });
});
