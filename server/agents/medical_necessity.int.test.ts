import { writeFile } from 'node:fs/promises';
import { tempDir } from '../../testing/temp_dirs.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFiles } from '../../ingest/pipeline.js';
import { startTestServer, waitForSnapshot, type TestServer } from '../../testing/harness.js';

// Seeded world: icd10cm is the seed excerpt of the FY2026 order file (A00-A06, M54.*); facilities
// 330101 (NY, JK: National Government Services) and 050454 (CA, JE: Noridian); the illustrative
// mcd_coverage seed (A99001 lists 64493, covers M47.812 and M47.816). The jurisdiction tests then
// load an MCD download in its real headers with one facet-injection LCD and article per contractor.

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ now: () => new Date('2026-03-02T12:00:00Z') });
});
afterAll(async () => t.close());

type Result = Record<string, any>;
async function run(body: Record<string, unknown>): Promise<Result> {
  const r = await t.request('/v1/agents/medical-necessity', { method: 'POST', body });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  await t.srv.runner.settle();
  const job = (await t.request(`/v1/agents/jobs/${r.body.job_id}`)).body;
  expect(job.status, JSON.stringify(job.error)).toBe('completed');
  return job.result;
}

/** A CSV with the download's header line (names joined by ", " as MCD-EXPORT-LAYOUT.md writes them) and rows by column name. */
function csvOf(headerLine: string, rows: Record<string, string>[]): string {
  const names = headerLine.split(', ');
  const cell = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  return [names.join(','), ...rows.map((r) => names.map((n) => cell(r[n] ?? '')).join(','))].join('\r\n') + '\r\n';
}

const HEADERS: Record<string, string> = {
  'lcd.csv': 'lcd_id, lcd_version, title, determination_number, orig_det_eff_date, ent_det_end_date, rev_eff_date, rev_end_date, indication, diagnoses_support, icd9_dont_support_para, icd9_dont_support_ast, diagnoses_dont_support, coding_guidelines, doc_reqs, appendices, util_guide, source_info, adv_meeting, comment_start_dt, comment_end_dt, notice_start_dt, rev_hist_num, history_exp, last_reviewed_on, status, last_updated, cms_cov_policy, display_id, draft_contact, revenue_para, thirty_percent, keywords, associated_info, notice_end_dt, date_retired, draft_released_date, source_lcd_id, add_icd10_info, icd10_doc, synopsis_changes, bibliography, summary_of_evidence, analysis_of_evidence, mcd_publish_date, issue, issue_change, mac_initiated',
  'article.csv': 'article_id, article_version, article_type, title, article_pub_date, article_eff_date, article_end_date, description, other_comments, sad_url, status, last_updated, history_exp, key_article, icd9_covered_para, icd9_noncovered_para, revenue_para, thirty_percent, article_rev_end_date, source_article_id, date_retired, keywords, icd10_doc, add_icd10_info, cms_cov_policy, display_id, reference_article',
  'lcd_related_documents.csv': 'lcd_id, lcd_version, related_num, r_article_id, r_article_version, r_lcd_id, r_lcd_version, r_contractor_id, last_updated',
  'article_x_hcpc_code.csv': 'article_id, article_version, hcpc_code_id, hcpc_code_version, hcpc_code_group, range, last_updated, long_description, short_description',
  'article_x_icd10_covered.csv': 'article_id, article_version, icd10_code_id, icd10_code_version, icd10_covered_group, range, last_updated, sort_order, description, asterisk',
  'lcd_x_contractor.csv': 'lcd_id, lcd_version, contractor_id, contractor_type_id, contractor_version, last_updated',
  'article_x_contractor.csv': 'article_id, article_version, article_type, contractor_id, contractor_type_id, contractor_version, last_updated',
  'contractor.csv': 'contractor_id, contractor_type_id, contractor_version, contractor_bus_name, contractor_number, dmerc_rgn, address1, address2, address3, city, state_id, zipcode, phone, fax, status, last_updated, url, email, ignore, status_flag, cmd_name, cmd_title, contractor_subtype_id',
  'contractor_jurisdiction.csv': 'contractor_id, contractor_type_id, contractor_version, state_id, last_updated, active_date, term_date',
  'state_lookup.csv': 'state_id, state_abbrev, description',
  'lcd_related_ncd_documents.csv': 'lcd_id, lcd_version, related_num, r_ncd_id, r_ncd_version, last_updated',
  'ncd_trkg.csv': 'NCD_id, NCD_vrsn_num, natl_cvrg_type, cvrg_lvl_cd, NCD_mnl_sect, NCD_mnl_sect_title, NCD_efctv_dt, NCD_impltn_dt, NCD_trmntn_dt, itm_srvc_desc, indctn_lmtn, xref_txt, othr_txt, trnsmtl_num, trnsmtl_issnc_dt, trnsmtl_url, chg_rqst_num, pblctn_cd, rev_hstry, under_rvw, creatd_tmstmp, last_updt_tmstmp, last_clrnc_tmstmp, NCD_lab, ncd_keyword, NCD_AMA',
};
const U = '01/15/2026';
/** Illustrative rows (ids 90001-90002 are no real documents): the same code, one LCD and article per contractor, different covered diagnoses. */
const ROWS: Record<string, Record<string, string>[]> = {
  'lcd.csv': [
    { lcd_id: '90001', lcd_version: '4', title: 'Facet Joint Interventions (Noridian JE, test)', orig_det_eff_date: '04/25/2021', rev_eff_date: '10/01/2025', doc_reqs: '<p>Radicular pain for 3 months.</p>', last_updated: U, display_id: 'L90001' },
    { lcd_id: '90002', lcd_version: '1', title: 'Facet Joint Interventions (NGS JK, test)', orig_det_eff_date: '10/01/2025', rev_eff_date: '10/01/2025', doc_reqs: '<p>Axial low back pain for 3 months.</p>', last_updated: U, display_id: 'L90002' },
  ],
  'article.csv': [
    { article_id: '90001', article_version: '2', title: 'Billing and Coding: Facet Joint Interventions (Noridian JE, test)', article_eff_date: '10/01/2025', last_updated: U, display_id: 'A90001' },
    { article_id: '90002', article_version: '1', title: 'Billing and Coding: Facet Joint Interventions (NGS JK, test)', article_eff_date: '10/01/2025', last_updated: U, display_id: 'A90002' },
  ],
  'lcd_related_documents.csv': [
    { lcd_id: '90001', lcd_version: '4', related_num: '1', r_article_id: '90001', r_article_version: '2', last_updated: U },
    { lcd_id: '90002', lcd_version: '1', related_num: '1', r_article_id: '90002', r_article_version: '1', last_updated: U },
  ],
  'article_x_hcpc_code.csv': [
    { article_id: '90001', article_version: '2', hcpc_code_id: '64493', hcpc_code_group: '1', last_updated: U },
    { article_id: '90002', article_version: '1', hcpc_code_id: '64493', hcpc_code_group: '1', last_updated: U },
  ],
  'article_x_icd10_covered.csv': [
    { article_id: '90001', article_version: '2', icd10_code_id: 'M54.16', icd10_covered_group: '1', description: 'Radiculopathy, lumbar region', last_updated: U },
    { article_id: '90002', article_version: '1', icd10_code_id: 'M54.50', icd10_covered_group: '1', description: 'Low back pain, unspecified', last_updated: U },
  ],
  'lcd_x_contractor.csv': [
    { lcd_id: '90001', lcd_version: '4', contractor_id: '1', contractor_type_id: '2', contractor_version: '1', last_updated: U },
    { lcd_id: '90002', lcd_version: '1', contractor_id: '2', contractor_type_id: '2', contractor_version: '1', last_updated: U },
  ],
  'article_x_contractor.csv': [
    { article_id: '90001', article_version: '2', contractor_id: '1', contractor_type_id: '2', contractor_version: '1', last_updated: U },
    { article_id: '90002', article_version: '1', contractor_id: '2', contractor_type_id: '2', contractor_version: '1', last_updated: U },
  ],
  'contractor.csv': [
    { contractor_id: '1', contractor_type_id: '2', contractor_version: '1', contractor_bus_name: 'Noridian Healthcare Solutions, LLC', contractor_number: '01112', last_updated: U },
    { contractor_id: '2', contractor_type_id: '2', contractor_version: '1', contractor_bus_name: 'National Government Services, Inc.', contractor_number: '13202', last_updated: U },
  ],
  'contractor_jurisdiction.csv': [
    { contractor_id: '1', contractor_type_id: '2', contractor_version: '1', state_id: '5', active_date: '01/01/2019', last_updated: U },
    { contractor_id: '2', contractor_type_id: '2', contractor_version: '1', state_id: '33', active_date: '01/01/2019', last_updated: U },
  ],
  'state_lookup.csv': [
    { state_id: '5', state_abbrev: 'CA', description: 'California' },
    { state_id: '33', state_abbrev: 'NY', description: 'New York' },
  ],
  'lcd_related_ncd_documents.csv': [{ lcd_id: '90001', lcd_version: '4', related_num: '1', r_ncd_id: '350', r_ncd_version: '2', last_updated: U }],
  'ncd_trkg.csv': [
    { NCD_id: '350', NCD_vrsn_num: '2', NCD_mnl_sect: '150.13', NCD_mnl_sect_title: 'Percutaneous Image-guided Lumbar Decompression (test)', NCD_efctv_dt: '12/07/2016', itm_srvc_desc: '<p>PILD, billed with G0276.</p>', indctn_lmtn: '<p>Covered in an approved study.</p>', last_updt_tmstmp: U },
  ],
};

const FACET = { cpt_code: '64493', dx_codes: ['M54.16'], date_of_service: '2026-03-02' };

describe('medical necessity on the seeds: an ICD-10-CM seed excerpt validates nothing it lacks', () => {
  it('calls R51.9 unknown (not in the seed excerpt), never "not an ICD-10-CM code", and still checks a code the excerpt lacks against the covered list', async () => {
    const res = await run({ cpt_code: '64493', dx_codes: ['R51.9', 'M47.816', 'M54.50'], date_of_service: '2026-03-02' });
    expect(res.diagnoses.map((d: Result) => [d.code, d.status])).toEqual([
      ['R51.9', 'unknown'],
      ['M47.816', 'unknown'],
      ['M54.50', 'valid'],
    ]);
    expect(res.warnings).toContain('R51.9 is not in the loaded ICD-10-CM seed excerpt (FY2026); load the CMS/CDC release to validate');
    expect(res.warnings.join(' ')).not.toMatch(/not an ICD-10-CM code/);
    // A99001 covers M47.816: a code missing from the excerpt is not dropped from the check.
    expect(res).toMatchObject({ verdict: 'supported', policies: [expect.objectContaining({ article_id: 'A99001', covered_dx: ['M47.816'] })] });
  });
});

describe('medical necessity in the jurisdiction of the facility (ccn) or of the context', () => {
  beforeAll(async () => {
    const dir = await tempDir('mn-mcd-');
    const files: string[] = [];
    for (const [name, header] of Object.entries(HEADERS)) {
      const p = join(dir, name);
      await writeFile(p, csvOf(header, ROWS[name] ?? []));
      files.push(p);
    }
    const s = await ingestFiles(t.wh, { dataset: 'mcd_coverage', files });
    expect(s.version).toBe('2026-01-15');
    await waitForSnapshot(t, s.snapshot_id);
  });

  it('answers the same request differently with and without ccn: every contractor without, the facility\'s contractor with', async () => {
    const all = await run(FACET);
    expect(all.verdict).toBe('supported');
    expect(all.policies.map((p: Result) => p.article_id)).toEqual(['A90001', 'A90002']);
    expect(all.warnings).toContain('no ccn or context state/contractor: the coverage documents of every jurisdiction are checked');

    // New York: NGS (JK) applies, whose article does not cover M54.16.
    const ny = await run({ ...FACET, ccn: '330101' });
    expect(ny.verdict).toBe('not_supported');
    expect(ny.policies).toEqual([expect.objectContaining({ article_id: 'A90002', contractors: ['National Government Services, Inc.'], jurisdictions: ['JK'], placed: true, covered_dx: [], lcds: [expect.objectContaining({ lcd_id: 'L90002', doc_reqs: 'Axial low back pain for 3 months.' })] })]);
    expect(ny.jurisdiction).toMatchObject({ ccn: '330101', facility: 'NEW YORK-PRESBYTERIAN HOSPITAL', state: 'NY', state_source: 'ccn' });
    expect(ny.jurisdiction.mac_jurisdictions).toContainEqual({ jurisdiction: 'JK', kind: 'ab', contractor: 'National Government Services, Inc.' });
    expect(ny.out_of_jurisdiction).toEqual([{ doc_id: 'A90001', kind: 'article', contractors: ['Noridian Healthcare Solutions, LLC'], jurisdictions: ['JE'], states: ['CA'] }]);
    expect(ny.conclusion).toMatch(/^64493 \(JK, NY\): not supported: A90002/);
    expect(ny.documentation_required).toEqual(['Axial low back pain for 3 months.']);

    // California: Noridian (JE) applies, whose article covers M54.16.
    const ca = await run({ ...FACET, ccn: '050454' });
    expect(ca.verdict).toBe('supported');
    expect(ca.policies.map((p: Result) => [p.article_id, p.jurisdictions, p.covered_dx])).toEqual([['A90001', ['JE'], ['M54.16']]]);
    expect(ca.dataset_versions).toMatchObject({ mcd_coverage: '2026-01-15', facilities: expect.any(String), mac_jurisdictions: expect.any(String) });
  });

  it('cites each document used: the article, its LCD and the NCD the LCD names, each with its MCD page', async () => {
    const ca = await run({ ...FACET, ccn: '050454' });
    const docs = ca.citations.filter((c: Result) => c.document).map((c: Result) => [c.dataset, c.document.doc_id, c.document.url]);
    expect(docs).toEqual([
      ['mcd_coverage', 'A90001', 'https://www.cms.gov/medicare-coverage-database/view/article.aspx?articleid=90001&ver=2'],
      ['mcd_coverage', 'L90001', 'https://www.cms.gov/medicare-coverage-database/view/lcd.aspx?lcdid=90001&ver=4'],
      ['mcd_coverage', 'NCD 150.13', 'https://www.cms.gov/medicare-coverage-database/view/ncd.aspx?NCDId=350&ncdver=2'],
    ]);
    expect(ca.ncds).toEqual([expect.objectContaining({ ncd_id: 'NCD 150.13', found_by: 'related', via: ['L90001'] })]);
    // New York's documents name no NCD.
    expect((await run({ ...FACET, ccn: '330101' })).ncds).toEqual([]);
  });

  it('reads context.state, context.mac (a jurisdiction) and context.contractor (a contract number); names place_of_service as not used', async () => {
    const ny = await run({ ...FACET, context: { state: 'ny', place_of_service: '22' } });
    expect(ny).toMatchObject({ verdict: 'not_supported', context_used: { state: 'NY' }, context_ignored: ['place_of_service'] });
    expect(ny.jurisdiction).toMatchObject({ ccn: null, state: 'NY', state_source: 'context' });
    expect(ny.warnings.join(' ')).toMatch(/context\.place_of_service: .*changes no coverage document/);
    const je = await run({ ...FACET, context: { mac: 'JE' } });
    expect(je).toMatchObject({ verdict: 'supported', context_used: { mac: 'JE' } });
    expect(je.policies.map((p: Result) => p.article_id)).toEqual(['A90001']);
    const ngs = await run({ ...FACET, context: { contractor: '13202' } });
    expect(ngs.policies.map((p: Result) => p.article_id)).toEqual(['A90002']);
    expect(ngs.jurisdiction.contractor_filter).toBe('contract 13202');
    // A contract number sent as a JSON number (its leading zero lost).
    expect((await run({ ...FACET, context: { contractor: 1112 } })).policies.map((p: Result) => p.article_id)).toEqual(['A90001']);
  });

  it('takes the date of service from the context when the body has none', async () => {
    const res = await run({ cpt_code: '64493', dx_codes: ['M54.16'], context: { date_of_service: '2025-11-03' } });
    expect(res).toMatchObject({ date_of_service: '2025-11-03', context_used: { date_of_service: '2025-11-03' } });
  });

  it('answers for an unknown ccn with a warning, checking every jurisdiction', async () => {
    const res = await run({ ...FACET, ccn: '999999' });
    expect(res.verdict).toBe('supported');
    expect(res.policies).toHaveLength(2);
    expect(res.warnings).toContain('CCN 999999 is not in the facility reference data and not registered by this tenant: its jurisdiction is unknown, so the documents of every jurisdiction are checked');
  });

  it("gives the denial agent the documentation requirements of a real download's LCDs (its article table has none)", async () => {
    const r = await t.request('/v1/agents/denial-resolution', { method: 'POST', body: { denial_code: 'CO-50', payer: 'medicare_ffs', code: '64493', date_of_service: '2026-03-02', denial_date: '2026-04-01' } });
    expect(r.status).toBe(202);
    await t.srv.runner.settle();
    const res = (await t.request(`/v1/agents/jobs/${r.body.job_id}`)).body.result;
    expect(res.coverage).toContainEqual(expect.objectContaining({ article_id: 'A90001', documentation_requirements: 'Radicular pain for 3 months.' }));
  });

  it('finds a code only an NCD names, and says no covered-diagnosis list applies', async () => {
    const res = await run({ cpt_code: 'G0276', dx_codes: ['M54.50'], ccn: '330101', date_of_service: '2026-03-02' });
    expect(res).toMatchObject({ verdict: 'policy_without_dx_list', policies: [], lcds: [] });
    expect(res.ncds).toEqual([{ ncd_id: 'NCD 150.13', version: 2, title: 'Percutaneous Image-guided Lumbar Decompression (test)', url: 'https://www.cms.gov/medicare-coverage-database/view/ncd.aspx?NCDId=350&ncdver=2', found_by: 'text', via: [] }]);
    expect(res.conclusion).toMatch(/NCD 150\.13 apply without a covered-diagnosis list/);
    expect(res.evidence.find((e: Result) => e.kind === 'ncd').citation.document.doc_id).toBe('NCD 150.13');
  });
});

describe('medical necessity once a full ICD-10-CM release is loaded', () => {
  it('calls a code the release lacks invalid, and validates R51.9', async () => {
    const dir = await tempDir('mn-icd-');
    // The codes-only layout of the FY2026 billable codes (a few real codes of the 74,719).
    const file = join(dir, 'icd10cm_codes_2026.txt');
    await writeFile(file, ['M5416', 'M5450', 'R519', 'A000'].join('\n') + '\n');
    const s = await ingestFiles(t.wh, { dataset: 'icd10cm', files: [file] });
    await waitForSnapshot(t, s.snapshot_id);
    const res = await run({ cpt_code: '64493', dx_codes: ['R51.9', 'Z99.99'], date_of_service: '2026-03-02' });
    expect(res.diagnoses.map((d: Result) => [d.code, d.status])).toEqual([
      ['R51.9', 'valid'],
      ['Z99.99', 'invalid'],
    ]);
    expect(res.warnings).toContain('Z99.99 is not an ICD-10-CM code in FY2026');
    expect(res.warnings.join(' ')).not.toMatch(/seed excerpt/);
  });
});
