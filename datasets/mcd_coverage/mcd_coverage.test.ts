import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFiles } from '../../ingest/pipeline.js';
import { Warehouse } from '../../warehouse/store.js';
import { detectFile, openTestSnapshot, parseAll, parseItems, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { codesNamed, mcdCoverage, mcdDate, plainText, UNUSED_MCD_TABLES } from './dataset.js';
import { coverageIndex, findArticlesForCode } from './queries.js';

const SEEDS = join(REPO_ROOT, 'seeds/mcd_coverage');
/** article_x_icd10_covered rows in the older seed layout (icd10_code_group): an undotted code and a non-numeric article id. */
const UGLY = join(REPO_ROOT, 'test/fixtures/mcd_coverage/article_x_icd10_covered.csv');

/**
 * The header line of every CSV of a full MCD download, as ../shared/data/lcd-ncd/MCD-EXPORT-LAYOUT.md
 * records it (contractor.csv's 23 names from the migration manifest that file was transcribed from,
 * where the layout abbreviates them; lcd_x_requestor_letters.csv has no header row in the CMS file).
 */
const LAYOUT: Record<string, string> = {
  'article.csv': 'article_id, article_version, article_type, title, article_pub_date, article_eff_date, article_end_date, description, other_comments, sad_url, status, last_updated, history_exp, key_article, icd9_covered_para, icd9_noncovered_para, revenue_para, thirty_percent, article_rev_end_date, source_article_id, date_retired, keywords, icd10_doc, add_icd10_info, cms_cov_policy, display_id, reference_article',
  'article_x_hcpc_code.csv': 'article_id, article_version, hcpc_code_id, hcpc_code_version, hcpc_code_group, range, last_updated, long_description, short_description',
  'article_x_hcpc_code_group.csv': 'article_id, article_version, hcpc_code_group, paragraph, last_updated',
  'article_x_icd10_covered.csv': 'article_id, article_version, icd10_code_id, icd10_code_version, icd10_covered_group, range, last_updated, sort_order, description, asterisk',
  'article_x_icd10_covered_group.csv': 'article_id, article_version, icd10_covered_group, paragraph, last_updated, icd10_covered_ast',
  'article_x_icd10_noncovered.csv': 'article_id, article_version, icd10_code_id, icd10_code_version, icd10_noncovered_group, range, last_updated, sort_order, description',
  'article_x_hcpc_modifier.csv': 'article_id, article_version, hcpc_modifier_code_id, hcpc_modifier_code_version, hcpc_modifier_group, last_updated, description',
  'article_x_revenue_code.csv': 'article_id, article_version, revenue_code_id, revenue_code_version, range, last_updated, description',
  'article_x_bill_code.csv': 'article_id, article_version, bill_code_id, bill_code_version, last_updated, description',
  'article_related_documents.csv': 'article_id, article_version, related_num, r_article_id, r_article_version, r_lcd_id, r_lcd_version, r_contractor_id, last_updated',
  'article_x_contractor.csv': 'article_id, article_version, article_type, contractor_id, contractor_type_id, contractor_version, last_updated',
  'lcd.csv': 'lcd_id, lcd_version, title, determination_number, orig_det_eff_date, ent_det_end_date, rev_eff_date, rev_end_date, indication, diagnoses_support, icd9_dont_support_para, icd9_dont_support_ast, diagnoses_dont_support, coding_guidelines, doc_reqs, appendices, util_guide, source_info, adv_meeting, comment_start_dt, comment_end_dt, notice_start_dt, rev_hist_num, history_exp, last_reviewed_on, status, last_updated, cms_cov_policy, display_id, draft_contact, revenue_para, thirty_percent, keywords, associated_info, notice_end_dt, date_retired, draft_released_date, source_lcd_id, add_icd10_info, icd10_doc, synopsis_changes, bibliography, summary_of_evidence, analysis_of_evidence, mcd_publish_date, issue, issue_change, mac_initiated',
  'lcd_related_documents.csv': 'lcd_id, lcd_version, related_num, r_article_id, r_article_version, r_lcd_id, r_lcd_version, r_contractor_id, last_updated',
  'lcd_x_hcpc_code.csv': 'lcd_id, lcd_version, hcpc_code_id, hcpc_code_version, hcpc_code_group, range, last_updated, long_description, short_description',
  'lcd_x_hcpc_code_group.csv': 'lcd_id, lcd_version, hcpc_code_group, paragraph, last_updated',
  'lcd_x_contractor.csv': 'lcd_id, lcd_version, contractor_id, contractor_type_id, contractor_version, last_updated',
  'ncd_trkg.csv': 'NCD_id, NCD_vrsn_num, natl_cvrg_type, cvrg_lvl_cd, NCD_mnl_sect, NCD_mnl_sect_title, NCD_efctv_dt, NCD_impltn_dt, NCD_trmntn_dt, itm_srvc_desc, indctn_lmtn, xref_txt, othr_txt, trnsmtl_num, trnsmtl_issnc_dt, trnsmtl_url, chg_rqst_num, pblctn_cd, rev_hstry, under_rvw, creatd_tmstmp, last_updt_tmstmp, last_clrnc_tmstmp, NCD_lab, ncd_keyword, NCD_AMA',
  'contractor.csv': 'contractor_id, contractor_type_id, contractor_version, contractor_bus_name, contractor_number, dmerc_rgn, address1, address2, address3, city, state_id, zipcode, phone, fax, status, last_updated, url, email, ignore, status_flag, cmd_name, cmd_title, contractor_subtype_id',
  'state_lookup.csv': 'state_id, state_abbrev, description',
};
/** Tables of the same download that the layout file does not list (the manifest it was transcribed from names them). */
const MORE: Record<string, string> = {
  'contractor_jurisdiction.csv': 'contractor_id, contractor_type_id, contractor_version, state_id, last_updated, active_date, term_date',
  'lcd_related_ncd_documents.csv': 'lcd_id, lcd_version, related_num, r_ncd_id, r_ncd_version, last_updated',
  'article_related_ncd_documents.csv': 'article_id, article_version, related_num, r_ncd_id, r_ncd_version, last_updated',
};

/** Rows by column name; a column a row leaves out is an empty cell. */
const ROWS: Record<string, Record<string, string>[]> = {
  'article.csv': [
    { article_id: '90001', article_version: '2', article_type: '1', title: 'Billing and Coding: Lumbar facet joint injections', article_eff_date: '10/01/2025', status: 'A', last_updated: '09/15/2025 10:22:31', display_id: 'A90001', description: '<p>Text, with a comma</p>' },
    { article_id: '90002', article_version: '1', article_type: '1', title: 'Billing and Coding: Facet joint injections, New York', article_eff_date: '2025-10-01 00:00:00', last_updated: '2025-09-20 08:00:00', display_id: '90002' },
  ],
  'article_x_hcpc_code.csv': [
    { article_id: '90001', article_version: '2', hcpc_code_id: '64493', hcpc_code_group: '1', long_description: 'Njx paravert f jnt l/s 1 lev', last_updated: '09/15/2025' },
    { article_id: '90002', article_version: '1', hcpc_code_id: '64493', hcpc_code_group: '1', last_updated: '09/15/2025' },
  ],
  'article_x_hcpc_code_group.csv': [{ article_id: '90001', article_version: '2', hcpc_code_group: '1', paragraph: '<p>Group 1 codes</p>', last_updated: '09/15/2025' }],
  'article_x_icd10_covered.csv': [
    { article_id: '90001', article_version: '2', icd10_code_id: 'M54.16', icd10_code_version: '1', icd10_covered_group: '1', sort_order: '1', description: 'Radiculopathy, lumbar region', last_updated: '09/15/2025' },
    { article_id: '90002', article_version: '1', icd10_code_id: 'M5450', icd10_code_version: '1', icd10_covered_group: '1', sort_order: '1', description: 'Low back pain, unspecified', last_updated: '09/15/2025' },
  ],
  'article_x_icd10_covered_group.csv': [{ article_id: '90001', article_version: '2', icd10_covered_group: '1', paragraph: '<p>Covered</p>', last_updated: '09/15/2025' }],
  'article_x_icd10_noncovered.csv': [{ article_id: '90001', article_version: '2', icd10_code_id: 'A00.0', icd10_noncovered_group: '1', last_updated: '09/15/2025' }],
  'article_x_hcpc_modifier.csv': [{ article_id: '90001', article_version: '2', hcpc_modifier_code_id: '50', hcpc_modifier_group: '1', last_updated: '09/15/2025' }],
  'article_x_revenue_code.csv': [{ article_id: '90001', article_version: '2', revenue_code_id: '0360', last_updated: '09/15/2025' }],
  'article_x_bill_code.csv': [{ article_id: '90001', article_version: '2', bill_code_id: '13X', last_updated: '09/15/2025' }],
  'article_related_documents.csv': [
    { article_id: '90002', article_version: '1', related_num: '1', r_lcd_id: '90002', r_lcd_version: '1', last_updated: '09/15/2025' },
    { article_id: '90002', article_version: '1', related_num: '2', r_contractor_id: '2', last_updated: '09/15/2025' },
  ],
  'article_x_contractor.csv': [
    { article_id: '90001', article_version: '2', article_type: '1', contractor_id: '1', contractor_type_id: '2', contractor_version: '1', last_updated: '09/15/2025' },
    { article_id: '90002', article_version: '1', article_type: '1', contractor_id: '2', contractor_type_id: '2', contractor_version: '1', last_updated: '09/15/2025' },
  ],
  'lcd.csv': [
    { lcd_id: '90001', lcd_version: '4', title: 'Facet Joint Interventions (Noridian)', orig_det_eff_date: '04/25/2021', rev_eff_date: '10/01/2025', doc_reqs: '<p>Pain for <b>3 months</b> &amp; a diagnostic block.</p>', status: 'A', last_updated: '09/15/2025', display_id: 'L90001' },
    { lcd_id: '90002', lcd_version: '1', title: 'Facet Joint Interventions (NGS)', orig_det_eff_date: '10/01/2025', rev_eff_date: '10/01/2025', doc_reqs: '<p>Imaging within 12 months.</p>', last_updated: '09/15/2025', display_id: '90002' },
  ],
  'lcd_related_documents.csv': [
    { lcd_id: '90001', lcd_version: '4', related_num: '1', r_article_id: '90001', r_article_version: '2', last_updated: '09/15/2025' },
    { lcd_id: '90001', lcd_version: '4', related_num: '2', r_lcd_id: '90002', r_lcd_version: '1', last_updated: '09/15/2025' },
  ],
  'lcd_x_hcpc_code.csv': [{ lcd_id: '90001', lcd_version: '4', hcpc_code_id: '64635', hcpc_code_group: '1', last_updated: '09/15/2025' }],
  'lcd_x_hcpc_code_group.csv': [{ lcd_id: '90001', lcd_version: '4', hcpc_code_group: '1', paragraph: 'x', last_updated: '09/15/2025' }],
  'lcd_x_contractor.csv': [
    { lcd_id: '90001', lcd_version: '4', contractor_id: '1', contractor_type_id: '2', contractor_version: '1', last_updated: '09/15/2025' },
    { lcd_id: '90002', lcd_version: '1', contractor_id: '2', contractor_type_id: '2', contractor_version: '1', last_updated: '09/15/2025' },
  ],
  'ncd_trkg.csv': [
    { NCD_id: '350', NCD_vrsn_num: '2', NCD_mnl_sect: '150.13', NCD_mnl_sect_title: 'Percutaneous Image-guided Lumbar Decompression', NCD_efctv_dt: '12/07/2016', itm_srvc_desc: '<p>PILD, billed with <strong>G0276</strong>.</p>', indctn_lmtn: '<p>Covered only in an approved study.</p>', last_updt_tmstmp: '01/10/2017 09:00:00' },
  ],
  'contractor.csv': [
    { contractor_id: '1', contractor_type_id: '2', contractor_version: '1', contractor_bus_name: 'Noridian Healthcare Solutions, LLC', contractor_number: '01112', last_updated: '01/01/2025' },
    { contractor_id: '2', contractor_type_id: '2', contractor_version: '1', contractor_bus_name: 'National Government Services, Inc.', contractor_number: '13202', last_updated: '01/01/2025' },
  ],
  'state_lookup.csv': [
    { state_id: '5', state_abbrev: 'CA', description: 'California' },
    { state_id: '33', state_abbrev: 'NY', description: 'New York' },
  ],
  'contractor_jurisdiction.csv': [
    { contractor_id: '1', contractor_type_id: '2', contractor_version: '1', state_id: '5', last_updated: '01/01/2025', active_date: '01/01/2019' },
    { contractor_id: '2', contractor_type_id: '2', contractor_version: '1', state_id: '33', last_updated: '01/01/2025', active_date: '01/01/2019' },
  ],
  'lcd_related_ncd_documents.csv': [{ lcd_id: '90001', lcd_version: '4', related_num: '1', r_ncd_id: '350', r_ncd_version: '2', last_updated: '09/15/2025' }],
  'article_related_ncd_documents.csv': [{ article_id: '90002', article_version: '1', related_num: '1', r_ncd_id: '350', r_ncd_version: '2', last_updated: '09/15/2025' }],
};

const cellOf = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
/** A CSV with a header line as the layout writes it (names joined by ", ") and rows by column name. */
function csvOf(headerLine: string, rows: Record<string, string>[]): string {
  const names = headerLine.split(', ');
  for (const r of rows) for (const k of Object.keys(r)) if (!names.includes(k)) throw new Error(`${k} is not a column of ${headerLine}`);
  return [names.join(','), ...rows.map((r) => names.map((n) => cellOf(r[n] ?? '')).join(','))].join('\r\n') + '\r\n';
}

let dir: string;
const files: Record<string, string> = {};
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcd-download-'));
  for (const [name, header] of Object.entries({ ...LAYOUT, ...MORE })) {
    files[name] = join(dir, name);
    await writeFile(files[name], csvOf(header, ROWS[name] ?? []));
  }
  // The CMS file carries no header row.
  files['lcd_x_requestor_letters.csv'] = join(dir, 'lcd_x_requestor_letters.csv');
  await writeFile(files['lcd_x_requestor_letters.csv'], '90001,4,1,"A. Requestor","/letters/1.pdf",1024,1,09/15/2025\r\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('mcd_coverage parser (seed MCD download tables, real headers)', () => {
  it('finds each table from its header and labels the release with the latest last_updated', async () => {
    expect(await detectFile(mcdCoverage, join(SEEDS, 'article.csv'))).toEqual({ detected: true, version: { label: '2025-10-01', effective_date: '2025-10-01' } });
    const tables = await Promise.all(['lcd.csv', 'article.csv', 'lcd_related_documents.csv', 'article_x_hcpc_code.csv', 'article_x_icd10_covered.csv', 'ncd_trkg.csv'].map(async (f) => (await parseItems(mcdCoverage, join(SEEDS, f)))[0]?.table));
    expect(tables).toEqual(['lcd', 'article', 'lcd_related_documents', 'article_x_hcpc_code', 'article_x_icd10_covered', 'ncd']);
  });

  it('reads articles with integer ids, ISO dates and an empty retirement date as null', async () => {
    const { rows, rejects } = await parseAll(mcdCoverage, join(SEEDS, 'article.csv'));
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual({ article_id: 99001, article_version: 4, display_id: 'A99001', article_type: null, title: 'Illustrative billing and coding: Facet Joint Interventions for Pain Management', article_eff_date: '2025-10-01', date_retired: null, doc_reqs: null });
  });

  it('keeps covered ICD-10-CM codes in the dotted form the MCD prints, in icd10_covered_group', async () => {
    const { rows } = await parseAll(mcdCoverage, join(SEEDS, 'article_x_icd10_covered.csv'));
    expect(rows.filter((r) => r.article_id === 99001).map((r) => [r.icd10_code_id, r.icd10_covered_group])).toEqual([
      ['M47.812', 1],
      ['M47.816', 1],
    ]);
  });

  it('reads the LCD documentation requirements as plain text (the download prints HTML)', async () => {
    const { rows } = await parseAll(mcdCoverage, join(SEEDS, 'lcd.csv'));
    expect(rows[0]).toMatchObject({ display_id: 'L99001', status: 'A', doc_reqs: 'Records must show moderate to severe axial pain for at least 3 months, failed conservative care, and the diagnostic block response.' });
  });
});

describe('mcd_coverage on every table of a download, by its real header', () => {
  it('detects every CSV of the layout, the headerless requestor letters by name', async () => {
    for (const name of Object.keys(files)) expect((await detectFile(mcdCoverage, files[name]!)).detected, name).toBe(true);
    expect(Object.keys(UNUSED_MCD_TABLES)).toEqual(expect.arrayContaining(['article_x_hcpc_code_group', 'article_x_icd10_covered_group', 'article_x_icd10_noncovered', 'article_x_hcpc_modifier', 'article_x_revenue_code', 'article_x_bill_code', 'lcd_x_hcpc_code_group', 'lcd_x_requestor_letters']));
  });

  it('reads the kept tables row by row, without a reject, and leaves the others out', async () => {
    const kept: Record<string, string> = {};
    for (const [name, path] of Object.entries(files)) {
      const items = await parseItems(mcdCoverage, path);
      expect(items.filter((i) => i.issues), name).toEqual([]);
      kept[name] = [...new Set(items.map((i) => i.table))].join(',');
    }
    expect(kept).toEqual({
      'article.csv': 'article',
      'article_x_hcpc_code.csv': 'article_x_hcpc_code',
      'article_x_hcpc_code_group.csv': '',
      'article_x_icd10_covered.csv': 'article_x_icd10_covered',
      'article_x_icd10_covered_group.csv': '',
      'article_x_icd10_noncovered.csv': '',
      'article_x_hcpc_modifier.csv': '',
      'article_x_revenue_code.csv': '',
      'article_x_bill_code.csv': '',
      'article_related_documents.csv': 'article_related_documents',
      'article_x_contractor.csv': 'article_x_contractor',
      'lcd.csv': 'lcd',
      'lcd_related_documents.csv': 'lcd_related_documents',
      'lcd_x_hcpc_code.csv': 'lcd_x_hcpc_code',
      'lcd_x_hcpc_code_group.csv': '',
      'lcd_x_contractor.csv': 'lcd_x_contractor',
      'ncd_trkg.csv': 'ncd',
      'contractor.csv': 'contractor',
      'state_lookup.csv': 'state_lookup',
      'contractor_jurisdiction.csv': 'contractor_jurisdiction',
      'lcd_related_ncd_documents.csv': 'lcd_related_ncd_documents',
      'article_related_ncd_documents.csv': 'article_related_ncd_documents',
      'lcd_x_requestor_letters.csv': '',
    });
  });

  it('reads icd10_covered_group, MM/DD/YYYY dates and timestamps, and dots an undotted code', async () => {
    const { rows: icd } = await parseAll(mcdCoverage, files['article_x_icd10_covered.csv']!);
    expect(icd).toEqual([
      { article_id: 90001, article_version: 2, icd10_code_id: 'M54.16', icd10_covered_group: 1, description: 'Radiculopathy, lumbar region' },
      { article_id: 90002, article_version: 1, icd10_code_id: 'M54.50', icd10_covered_group: 1, description: 'Low back pain, unspecified' },
    ]);
    const { rows: art } = await parseAll(mcdCoverage, files['article.csv']!);
    expect(art.map((r) => [r.display_id, r.article_eff_date])).toEqual([
      ['A90001', '2025-10-01'],
      ['A90002', '2025-10-01'],
    ]);
  });

  it('prefixes a display id printed as a number, and strips the HTML of doc_reqs', async () => {
    const { rows } = await parseAll(mcdCoverage, files['lcd.csv']!);
    expect(rows.map((r) => [r.display_id, r.doc_reqs])).toEqual([
      ['L90001', 'Pain for 3 months & a diagnostic block.'],
      ['L90002', 'Imaging within 12 months.'],
    ]);
  });

  it("keeps a related-documents row only when it names the other kind of document (not a contractor's or an LCD's)", async () => {
    expect((await parseAll(mcdCoverage, files['lcd_related_documents.csv']!)).rows).toEqual([{ lcd_id: 90001, lcd_version: 4, r_article_id: 90001, r_article_version: 2 }]);
    expect((await parseAll(mcdCoverage, files['article_related_documents.csv']!)).rows).toEqual([{ article_id: 90002, article_version: 1, r_lcd_id: 90002, r_lcd_version: 1 }]);
  });

  it('reads an NCD from ncd_trkg.csv (mixed-case header) with the codes its text names', async () => {
    const { rows } = await parseAll(mcdCoverage, files['ncd_trkg.csv']!);
    expect(rows).toEqual([{ ncd_id: '350', ncd_vrsn_num: 2, ncd_mnl_sect: '150.13', ncd_mnl_sect_title: 'Percutaneous Image-guided Lumbar Decompression', ncd_efctv_dt: '2016-12-07', ncd_trmntn_dt: null, codes_named: ['G0276'] }]);
  });

  it('loads the whole download as CSVs: contractors placed in their states, LCD and article codes, NCD links', async () => {
    const snap = await openTestSnapshot([{ dataset: mcdCoverage, files: Object.values(files) }]);
    try {
      expect(snap.versions('mcd_coverage').map((v) => [v.version, v.rejects])).toEqual([['2025-09-20', 0]]);
      const idx = (await coverageIndex(snap))!;
      expect(findArticlesForCode(idx, '64493', '2026-01-01').map((a) => [a.article.display_id, a.lcds.map((l) => l.display_id), a.covered.map((c) => c.icd10_code_id)])).toEqual([
        ['A90001', ['L90001'], ['M54.16']],
        ['A90002', ['L90002'], ['M54.50']],
      ]);
      expect(idx.contractorsOfArticle.get(90001)).toEqual([{ contractor_id: 1, contractor_type_id: 2, contractor_version: 1, name: 'Noridian Healthcare Solutions, LLC', number: '01112', dme_region: null, states: ['CA'] }]);
      expect(idx.contractorsOfLcd.get(90002)?.map((c) => c.states)).toEqual([['NY']]);
      expect(idx.lcdsByCode.get('64635')).toEqual([90001]);
      expect(idx.ncdsOfLcd.get(90001)).toEqual(['350']);
      expect(idx.ncdsOfArticle.get(90002)).toEqual(['350']);
      expect(idx.ncdById.get('350')?.codes_named).toEqual(['G0276']);
    } finally {
      snap.close();
    }
  });

  it('loads the three zips of a download (nested zips as CMS ships them), the tables both carry once', async () => {
    const zipOf = async (name: string, members: string[]) => {
      const inner = new yazl.ZipFile();
      for (const m of members) inner.addBuffer(await readFile(files[m]!), m);
      inner.end();
      const innerBytes = await streamBytes(inner.outputStream);
      const outer = new yazl.ZipFile();
      outer.addBuffer(innerBytes, `${name}_csv.zip`);
      outer.end();
      const path = join(dir, `${name}.zip`);
      await writeFile(path, await streamBytes(outer.outputStream));
      return path;
    };
    const shared = ['contractor.csv', 'state_lookup.csv', 'contractor_jurisdiction.csv'];
    const article = await zipOf('current_article', [...Object.keys(files).filter((f) => f.startsWith('article')), ...shared]);
    const lcd = await zipOf('current_lcd', [...Object.keys(files).filter((f) => f.startsWith('lcd')), ...shared]);
    const ncd = await zipOf('ncd', ['ncd_trkg.csv']);
    const wh = new Warehouse(await mkdtemp(join(tmpdir(), 'mcd-zip-')));
    try {
      const s = await ingestFiles(wh, { dataset: mcdCoverage, files: [article, lcd, ncd] });
      expect(s.rejects).toBe(0);
      expect(s.skipped).toEqual([]);
      const tables = (await wh.current())!.datasets.mcd_coverage![0]!.tables!;
      expect(tables).toMatchObject({ contractor: 2, state_lookup: 2, contractor_jurisdiction: 2, lcd: 2, article: 2, ncd: 1, article_x_icd10_covered: 2 });
    } finally {
      await rm(wh.dir, { recursive: true, force: true });
    }
  });
});

async function streamBytes(s: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('mcd_coverage values', () => {
  it('reads MCD dates in either form, with or without a time', () => {
    expect([mcdDate('2025-10-01'), mcdDate('10/01/2025'), mcdDate('2025-10-01 00:00:00'), mcdDate('10/1/2025 3:04:05 PM'), mcdDate(''), mcdDate('Oct 1')]).toEqual(['2025-10-01', '2025-10-01', '2025-10-01', '2025-10-01', null, undefined]);
  });

  it('names the CPT/HCPCS codes of an HTML text, and turns HTML into plain text', () => {
    expect(codesNamed('<p>Use G0276 or 0275T; see 42 CFR 410.32 and 2016</p><li>99213</li>')).toEqual(['0275T', '99213', 'G0276']);
    expect(plainText('<p>a&nbsp;&lt;b&gt; &#233;</p><p>c</p>')).toBe('a <b> é\nc');
  });
});

describe('mcd_coverage bad input', () => {
  it('reads the older seed layout (icd10_code_group): dots an undotted code, rejects a non-numeric article id', async () => {
    const { rows, rejects } = await parseAll(mcdCoverage, UGLY);
    expect(rows).toEqual([
      { article_id: 1, article_version: 1, icd10_code_id: 'M47.816', icd10_covered_group: 1, description: 'ok' },
      { article_id: 1, article_version: 1, icd10_code_id: 'M47.816X', icd10_covered_group: 1, description: 'no dot and too long' },
    ]);
    expect(rejects).toEqual([{ line: 4, issues: [expect.objectContaining({ loc: ['row', 4, 'article_id'], type: 'float_parsing', input: 'x' })] }]);
  });

  it('rejects a code that is no ICD-10-CM code and a date that is no date', async () => {
    const p = await writeTempFile('article_x_icd10_covered.csv', 'article_id,article_version,icd10_code_id,icd10_covered_group\r\n1,1,12345,1\r\n');
    expect((await parseAll(mcdCoverage, p)).rejects).toEqual([{ line: 2, issues: [{ loc: ['row', 2, 'icd10_code_id'], msg: 'not an ICD-10-CM code (A00.0 or A000 form)', type: 'value_error', input: '12345' }] }]);
    const d = await writeTempFile('article.csv', 'article_id,article_version,title,article_eff_date,date_retired\r\n1,1,T,someday,\r\n');
    expect((await parseAll(mcdCoverage, d)).rejects).toEqual([{ line: 2, issues: [{ loc: ['row', 2, 'article_eff_date'], msg: 'Input should be a valid date', type: 'date_parsing', input: 'someday' }] }]);
  });

  it('throws on a CSV that is no MCD table', async () => {
    await expect(parseAll(mcdCoverage, await writeTempFile('lcd.csv', 'id,title\r\n1,x\r\n'))).rejects.toThrow(/no header row found/);
  });
});

