import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFiles } from '../../ingest/pipeline.js';
import { REPO_ROOT } from '../../testing/datasets.js';
import { LIVE_HOST, startTestServer, waitForSnapshot, type TestServer } from '../../testing/harness.js';
import { tempDir } from '../../testing/temp_dirs.js';
import { claim837 } from '../../testing/x12.js';

// Seeded world: NCCI PTP 32.2 and the practitioner MUE and add-on files of 2026Q3 (illustrative),
// ICD-10-CM seed rows (M54.16 billable, M54 a category), the illustrative MCD export (A99001 lists
// 64493 and covers M47.812 and M47.816), Medicare's curated filing rule (12 months, 42 CFR 424.44),
// the ZIP 10032 in locality 13202-01. The seeds' RVU release is CY2025's; a CY2026 release with the
// same rows (the seed file relabelled, so the RVUs are the seed's) lets a 2026 date be priced.

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ now: () => new Date('2026-08-20T12:00:00Z') });
  const dir = await tempDir('rcm-claims-');
  const rvu = (await readFile(join(REPO_ROOT, 'seeds/mpfs_rvu/PPRRVU2025_Oct.csv'), 'latin1')).replace(/\b2025 National Physician Fee Schedule/g, '2026 National Physician Fee Schedule');
  await writeFile(join(dir, 'PPRRVU2026_Jul.csv'), rvu, 'latin1');
  const s = await ingestFiles(t.wh, { dataset: 'mpfs_rvu', files: [join(dir, 'PPRRVU2026_Jul.csv')] });
  await waitForSnapshot(t, s.snapshot_id);
});
afterAll(async () => t.close());

const post = (body: string, q = '', headers: Record<string, string> = {}) => t.request(`/v1/claims/check${q}`, { method: 'POST', body, headers: { 'content-type': 'application/edi-x12', ...headers } });

type Finding = { kind: string; status: string; fix: string | null; if_sent: { rejected: boolean; group: string | null; carc: string | null; rarc: string[]; remedy: { remedy: string } | null } | null; message: string; citations: { title: string }[] };
const lineFindings = (body: any, claim: number, line: number): Finding[] => body.claims[claim].lines[line].findings;
const failed = (fs: Finding[]) => fs.filter((f) => f.status === 'fail' || f.status === 'warn');

describe('POST /v1/claims/check: what each check predicts, worked by hand from the seeds', () => {
  it('an NCCI pair without a bypass modifier: the column 2 line is denied CO-97 M80; add 59 (indicator 1) and it passes', async () => {
    // ccipra-v322r0-f1.txt: 11042 / 97597, effective 20110101, no deletion, modifier indicator 1.
    const r = await post(claim837([{ pcn: 'PTP1', lines: [{ code: '11042' }, { code: '97597' }] }]));
    expect(r.status).toBe(200);
    const [f] = failed(lineFindings(r.body, 0, 1));
    expect(f).toMatchObject({ kind: 'ptp', status: 'fail', fix: 'add_modifier', if_sent: { rejected: false, group: 'CO', carc: '97', rarc: ['M80'] } });
    expect(f!.if_sent!.remedy!.remedy).not.toBe('review');
    expect(failed(lineFindings(r.body, 0, 0)).filter((x) => x.kind === 'ptp')).toEqual([]);
    const ok = await post(claim837([{ pcn: 'PTP2', lines: [{ code: '11042' }, { code: '97597', mods: ['59'] }] }]));
    expect(failed(lineFindings(ok.body, 0, 1)).filter((x) => x.kind === 'ptp')).toEqual([]);
    expect(lineFindings(ok.body, 0, 1).find((x) => x.kind === 'ptp')).toMatchObject({ status: 'pass' });
  });

  it('a pair whose edit allows no modifier (indicator 0): remove the line', async () => {
    // ccipra-v322r0-f4.txt: 93000 / 93010, in existence before 1996, modifier indicator 0.
    const r = await post(claim837([{ pcn: 'PTP0', lines: [{ code: '93000' }, { code: '93010', mods: ['59'] }] }]));
    expect(failed(lineFindings(r.body, 0, 1)).find((f) => f.kind === 'ptp')).toMatchObject({ status: 'fail', fix: 'remove_line', if_sent: { carc: '97' } });
  });

  it('units over the MUE: CO-151 N362, reduce or split the units', async () => {
    // MCR_MUE_PractitionerServices_Eff_07-01-2026.csv: 99213 MUE 2.
    const r = await post(claim837([{ pcn: 'MUE1', lines: [{ code: '99213', units: 3, charge: '300' }] }]));
    expect(failed(lineFindings(r.body, 0, 0)).find((f) => f.kind === 'mue')).toMatchObject({ status: 'fail', fix: 'reduce_or_split_units', if_sent: { group: 'CO', carc: '151', rarc: ['N362'] } });
  });

  it('a diagnosis the LCD article does not cover: CO-50 N115; repoint to a covered diagnosis of the claim, else an ABN; with GA the patient is liable (PR-50)', async () => {
    // mcd_coverage seed: A99001 lists 64493 and covers M47.812 and M47.816 (NY is in its jurisdiction).
    const none = await post(claim837([{ pcn: 'COV1', lines: [{ code: '64493' }] }]));
    const f = failed(lineFindings(none.body, 0, 0)).find((x) => x.kind === 'coverage')!;
    expect(f).toMatchObject({ status: 'fail', fix: 'obtain_abn', if_sent: { group: 'CO', carc: '50', rarc: ['N115'] } });
    expect(f.message).toMatch(/M54\.16 is not on the covered list of A99001/);
    expect(f.citations.map((c) => c.title).join(' ')).toMatch(/A99001 v\d+/);
    const repoint = await post(claim837([{ pcn: 'COV2', dx: ['M5416', 'M47816'], lines: [{ code: '64493', pointers: '1' }] }]));
    expect(failed(lineFindings(repoint.body, 0, 0)).find((x) => x.kind === 'coverage')).toMatchObject({ fix: 'add_or_repoint_diagnosis' });
    const pointedRight = await post(claim837([{ pcn: 'COV3', dx: ['M5416', 'M47816'], lines: [{ code: '64493', pointers: '2' }] }]));
    expect(lineFindings(pointedRight.body, 0, 0).find((x) => x.kind === 'coverage')).toMatchObject({ status: 'pass' });
    const ga = await post(claim837([{ pcn: 'COV4', lines: [{ code: '64493', mods: ['GA'] }] }]));
    expect(failed(lineFindings(ga.body, 0, 0)).find((x) => x.kind === 'coverage')).toMatchObject({ status: 'warn', if_sent: { group: 'PR', carc: '50' } });
  });

  it('answers the coverage of a line with the words POST /v1/ncci/validate answers for the same claim in JSON', async () => {
    const cases: [string[], string, string[]][] = [[['M5416'], '1', []], [['M5416', 'M47816'], '1', []], [['M5416', 'M47816'], '2', []], [['M5416'], '1', ['GA']]];
    for (const [dx, pointers, mods] of cases) {
      const x12 = await post(claim837([{ pcn: 'AGREE', dx, lines: [{ code: '64493', pointers, mods }] }]));
      const fromX12 = x12.body.claims[0].lines[0].findings.find((f: Finding) => f.kind === 'coverage');
      const json = await t.request('/v1/ncci/validate', {
        method: 'POST',
        body: JSON.stringify({ date_of_service: '2026-08-01', setting: 'prac', state: 'NY', diagnoses: dx, lines: [{ code: '64493', modifiers: mods, diagnosis_pointers: pointers.split(':').map(Number) }] }),
        headers: { 'content-type': 'application/json' },
      });
      expect(json.status).toBe(200);
      const fromJson = json.body.findings.find((f: { kind: string }) => f.kind === 'coverage');
      expect(fromJson.message, dx.join()).toBe(fromX12.message);
      expect(fromJson.status).toBe(fromX12.status);
    }
  });

  it('an unbalanced claim, a pointer at no diagnosis and a bad NPI check digit: rejected before adjudication, correct the structure', async () => {
    const r = await post(claim837([{ pcn: 'BAL1', total: '250.00', npi: '1234567890', lines: [{ code: '99213', charge: '100' }, { code: '36415', charge: '20', pointers: '3' }] }]));
    const claim = r.body.claims[0];
    const msgs = claim.findings.map((f: Finding) => f.message).join(' | ');
    expect(msgs).toContain('CLM02 (total claim charge) is 250.00 but the lines\' charges add up to 120');
    expect(msgs).toMatch(/billing provider \(2010AA\) NPI is not valid: its check digit should be 3/);
    expect(lineFindings(r.body, 0, 1).find((f) => f.kind === 'structure')!.message).toBe('line 2 points at diagnosis 3, but the claim has 1 diagnosis code');
    for (const f of claim.findings.filter((x: Finding) => x.kind === 'structure')) expect(f).toMatchObject({ status: 'fail', fix: 'correct_structure', if_sent: { rejected: true, group: null, carc: null } });
    expect(claim.status).toBe('issues');
    expect(r.body.summary.predicted.rejected).toBeGreaterThanOrEqual(3);
  });

  it('a duplicate line on a claim and the same service on two claims of the file: OA-18, remove the line', async () => {
    const r = await post(claim837([{ pcn: 'DUP1', lines: [{ code: '99213' }, { code: '99213' }] }, { pcn: 'DUP2', lines: [{ code: '99213' }] }]));
    expect(failed(lineFindings(r.body, 0, 1)).find((f) => f.kind === 'duplicate')).toMatchObject({ status: 'fail', fix: 'remove_line', if_sent: { group: 'OA', carc: '18' } });
    expect(r.body.cross_claim_findings).toHaveLength(1);
    expect(r.body.cross_claim_findings[0].claims.map((c: { patient_control_number: string }) => c.patient_control_number)).toEqual(['DUP1', 'DUP2']);
    // Another patient's same service is no duplicate.
    const other = await post(claim837([{ pcn: 'DUP3', lines: [{ code: '99213' }] }, { pcn: 'DUP4', member: '9ZZ9ZZ9ZZ99', lines: [{ code: '99213' }] }]));
    expect(other.body.cross_claim_findings).toEqual([]);
  });

  it('a visit in a procedure\'s global period without 24 or 57: CO-97 M144, across the file\'s claims in either order', async () => {
    // PPRRVU (the seed's rows): 27447 GLOB DAYS 090. The visit after it (2026-08-20) lacks 24; the one the day before lacks 57.
    const r = await post(claim837([
      { pcn: 'VISIT1', lines: [{ code: '99213', date: '2026-08-20' }] },
      { pcn: 'SURG1', lines: [{ code: '27447', charge: '2000', date: '2026-08-01' }] },
      { pcn: 'VISIT2', lines: [{ code: '99214', date: '2026-07-31' }] },
      { pcn: 'VISIT3', lines: [{ code: '99213', mods: ['24'], date: '2026-08-21' }] },
      { pcn: 'VISIT4', lines: [{ code: '99213', date: '2026-11-15' }] },
    ]));
    const global = r.body.cross_claim_findings.filter((f: { kind: string }) => f.kind === 'global_surgery');
    expect(global.map((f: { claims: { patient_control_number: string }[] }) => f.claims.map((c) => c.patient_control_number))).toEqual([
      ['SURG1', 'VISIT1'],
      ['SURG1', 'VISIT2'],
    ]);
    expect(global[0]).toMatchObject({ status: 'fail', fix: 'add_modifier', if_sent: { group: 'CO', carc: '97', rarc: ['M144'] } });
    expect(global[0].message).toMatch(/inside the 90-day global period of 27447 on 2026-08-01 .* unless it is unrelated \(24\)/);
    expect(global[1].message).toMatch(/decision for surgery \(57\)/);
  });

  it('a drug line\'s NDC against the ASP crosswalk: billed under another HCPCS is CO-16 M119; its own passes; a malformed one is a structure fix', async () => {
    // seeds/asp_crosswalk (illustrative): 55513-0710-01 (PROLIA) under J0897.
    const r = await post(claim837([{ pcn: 'NDC1', lines: [{ code: 'J0897', ndc: '55513071001' }, { code: 'J0129', ndc: '55513071001', charge: '90' }, { code: 'J0897', ndc: '5551307', charge: '80' }] }]));
    const ndc = (i: number) => lineFindings(r.body, 0, i).filter((f) => f.kind === 'ndc');
    expect(ndc(0).find((f) => f.status === 'pass')!.message).toMatch(/^NDC 55513071001 is billed under J0897/);
    expect(ndc(1).find((f) => f.status === 'fail')).toMatchObject({ fix: 'review', if_sent: { group: 'CO', carc: '16', rarc: ['M119'] } });
    expect(ndc(1).find((f) => f.status === 'fail')!.message).toMatch(/is billed under J0897, not J0129/);
    expect(ndc(2)[0]).toMatchObject({ status: 'fail', fix: 'correct_structure' });
  });

  it('a clean claim: every check ran and passed, and its expected_allowed is the payment route\'s to the cent', async () => {
    const r = await post(claim837([{ pcn: 'CLEAN1', lines: [{ code: '99213' }] }]));
    const claim = r.body.claims[0];
    expect(claim.unchecked).toEqual([]);
    expect(claim.status).toBe('clean');
    const pay = await t.request('/v1/codes/99213/payment?locality=1320201&date_of_service=2026-08-01&place_of_service=11');
    expect(pay.status).toBe(200);
    expect(claim.lines[0].expected_allowed).toBe(pay.body.physician.allowed_phy_payment);
    expect(claim.expected_allowed).toBe(pay.body.physician.allowed_phy_payment);
    expect(claim.expected_payment).toBe(pay.body.beneficiary_cost_sharing.program_payment);
    // Two units: twice the amount, exactly.
    const two = await post(claim837([{ pcn: 'CLEAN2', lines: [{ code: '99213', units: 2, charge: '200' }] }]));
    expect(two.body.claims[0].lines[0].expected_allowed).toBe(Math.round(pay.body.physician.allowed_phy_payment * 200) / 100);
    // 12 months from 2026-08-01 is Sunday 2027-08-01: the curated Medicare rule carries it to the next business day.
    expect(claim.submit_by).toMatchObject({ date: '2027-08-02', rule_id: expect.any(String) });
  });

  it('a claim past the payer\'s filing limit: CO-29, which Medicare gives no appeal', async () => {
    const r = await post(claim837([{ pcn: 'OLD1', lines: [{ code: '99213', date: '2025-06-02' }] }]));
    const f = r.body.claims[0].findings.find((x: Finding) => x.kind === 'timely_filing');
    expect(f).toMatchObject({ status: 'fail', if_sent: { group: 'CO', carc: '29', remedy: { remedy: 'not_appealable' } } });
    expect(r.body.claims[0].submit_by.date).toBe('2026-06-02');
  });

  it('a commercial claim gets Medicare\'s edits as warnings, and no Medicare price', async () => {
    const r = await post(claim837([{ pcn: 'COM1', filing: 'CI', payer: 'SOME COMMERCIAL PLAN', payerId: '99999', lines: [{ code: '11042' }, { code: '97597' }] }]));
    const claim = r.body.claims[0];
    expect(failed(claim.lines[1].findings).find((f: Finding) => f.kind === 'ptp')).toMatchObject({ status: 'warn' });
    expect(claim.expected_allowed).toBeNull();
    expect(claim.unchecked.map((u: { check: string }) => u.check)).toEqual(expect.arrayContaining(['pricing', 'timely_filing', 'prior_auth']));
  });

  it('a date no NCCI file covers decides nothing: incomplete, naming the check and why', async () => {
    const r = await post(claim837([{ pcn: 'NODATA', lines: [{ code: '99213', date: '2026-01-15' }] }]));
    expect(r.body.claims[0].unchecked.find((u: { check: string }) => u.check === 'ncci').reason).toMatch(/^no ncci_ptp_prac, ncci_mue_prac or ncci_aoc version loaded covers date of service 2026-01-15/);
  });

  it('decides nothing by a file read from a version not in force: the add-on file of 2026Q3 on a 2026Q2 date', async () => {
    // 2026-05-15: PTP 32.1 and the practitioner MUE of 2026Q2 are in force; the add-on file is 2026Q3 only.
    const r = await post(claim837([{ pcn: 'Q2', lines: [{ code: '11042', date: '2026-05-15' }, { code: '97597', date: '2026-05-15' }, { code: '99417', date: '2026-05-15' }] }]));
    const claim = r.body.claims[0];
    expect(claim.unchecked).toContainEqual({ check: 'ncci', reason: "no ncci_aoc version in force on the claim's dates is loaded: its edits were not applied" });
    expect(failed(claim.lines[1].findings).find((f: Finding) => f.kind === 'ptp')).toMatchObject({ status: 'fail', if_sent: { carc: '97' } });
    const aoc = claim.lines.flatMap((l: { findings: Finding[] }) => l.findings.filter((x) => x.kind === 'aoc'));
    expect(aoc.length).toBeGreaterThan(0);
    for (const f of aoc) expect(f.status).toBe('no_data');
  });

  it('answers the findings as CSV, one row per finding, cells safe in a spreadsheet', async () => {
    const r = await post(claim837([{ pcn: '=PTP1', lines: [{ code: '11042' }, { code: '97597' }] }]), '?format=csv');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/csv/);
    const rows = String(r.text).trim().split('\n');
    expect(rows[0]).toBe('file,patient_control_number,line_number,kind,status,predicted,fix,message,segment');
    expect(rows.some((x) => x.startsWith(',"\'=PTP1",2,ptp,fail,CO-97,add_modifier,'))).toBe(true);
  });

  it('refuses an 835 and a file cut short with 422 naming what it is, never echoing the file', async () => {
    const remit = 'ISA*00*          *00*          *ZZ*A              *ZZ*B              *260105*1200*^*00501*000000001*0*T*:~GS*HP*A*B*20260105*1200*1*X*005010X221A1~ST*835*0001~BPR*I*0*C*NON************20260105~TRN*1*1*1~SE*4*0001~GE*1*1~IEA*1*000000001~';
    const r = await post(remit);
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body)).toMatch(/835/);
    const cut = claim837([{ pcn: 'SECRETPCN', lines: [{ code: '99213' }] }]).split('SE*')[0]!;
    const c = await post(cut);
    expect(c.status).toBe(422);
    expect(JSON.stringify(c.body)).not.toContain('SECRETPCN');
  });
});

describe('POST /v1/claims/check on the remittance threads', () => {
  it('refuses a file past RCM_REMIT_MAX_CLAIMS with 413 naming the limit and the command that takes any size', async () => {
    const s = await startTestServer({ remittances: { pool: { maxClaims: 2 } } });
    try {
      const r = await s.request('/v1/claims/check', { method: 'POST', body: claim837([1, 2, 3].map((i) => ({ pcn: `L${i}`, lines: [{ code: '99213' }] }))), headers: { 'content-type': 'application/edi-x12' } });
      expect(r.status).toBe(413);
      expect(r.body.detail).toBe('the file has 3 claims; one request checks at most 2 (RCM_REMIT_MAX_CLAIMS): split it, or check it with rcm claim check');
      const ok = await s.request('/v1/claims/check', { method: 'POST', body: claim837([{ pcn: 'L1', lines: [{ code: '99213' }] }]), headers: { 'content-type': 'application/edi-x12' } });
      expect(ok.status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('POST /v1/claims/check holds nothing between calls, tenants or modes', () => {
  it('answers the same claim alike for another tenant and the live mode, no call remembering another\'s claims', async () => {
    const body = claim837([{ pcn: 'ISO1', lines: [{ code: '99213' }] }]);
    const url = '/v1/claims/check?locality=1320201';
    const send = (key?: string, host?: string) => t.request(url, { method: 'POST', body, headers: { 'content-type': 'application/edi-x12' }, ...(key ? { key } : {}), ...(host ? { host } : {}) });
    const a = await send();
    const again = await send();
    const other = await send(await t.newKey('test', ['knowledge'], (await t.srv.state.admin.createTenant('claims-other-tenant')).name));
    const live = await send(await t.newKey('live', ['knowledge']), LIVE_HOST);
    for (const r of [a, again, other, live]) {
      expect(r.status).toBe(200);
      // A claim sent before, by this tenant or another, is no duplicate of this one: nothing is kept between calls.
      expect(r.body.cross_claim_findings).toEqual([]);
      expect({ claims: r.body.claims, summary: r.body.summary }).toEqual({ claims: a.body.claims, summary: a.body.summary });
    }
  });

  it('reads the reference facility of a ccn, never a tenant\'s registration of it', async () => {
    const reg = await t.request('/v1/facilities/330101', { method: 'PUT', body: { facility_type: 'ambulatory_surgical_center' } });
    expect(reg.status).toBeLessThan(300);
    const body = claim837([{ pcn: 'ISO2', lines: [{ code: '99213' }] }]).replace('*11:B:1*', '*22:B:1*');
    for (const key of [undefined, await t.newKey('test', ['knowledge'], (await t.srv.state.admin.createTenant('claims-third-tenant')).name)]) {
      const r = await t.request('/v1/claims/check?ccn=330101', { method: 'POST', body, headers: { 'content-type': 'application/edi-x12' }, ...(key ? { key } : {}) });
      expect(r.status).toBe(200);
      expect(r.body.claims[0].lines[0].findings.filter((f: Finding) => f.kind === 'place_of_service')).toEqual([]);
    }
  });
});
