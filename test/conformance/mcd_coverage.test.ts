import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { macJurisdictions } from '../../datasets/mac_jurisdictions/dataset.js';
import { mcdCoverage } from '../../datasets/mcd_coverage/dataset.js';
import { coverageIndex } from '../../datasets/mcd_coverage/queries.js';
import { ingestFiles } from '../../ingest/pipeline.js';
import { coverageForCode, findPolicies, policyIndex } from '../../server/policies/service.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';
import { Warehouse } from '../../warehouse/store.js';
import { REPO_ROOT } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

// The header line of every CSV of a full Medicare Coverage Database download, read straight from
// ../shared/data/lcd-ncd/MCD-EXPORT-LAYOUT.md (no data rows of the download are public offline):
// each file is written with that header and a row or two, the whole set is ingested, and the
// query layer must serve what the rows say.
const REL = 'lcd-ncd/MCD-EXPORT-LAYOUT.md';
const present = requireShared(REL);

interface LayoutFile {
  name: string;
  rows: number;
  cols: number;
  header: string[];
  /** The layout says the CMS file has no header row. */
  headerless: boolean;
  /** The layout abbreviates the header (`address1 ... contractor_subtype_id`). */
  abbreviated: boolean;
}

/** The table of MCD-EXPORT-LAYOUT.md: file, rows, columns and the header in file order (notes after it dropped). */
function parseLayout(md: string): LayoutFile[] {
  const out: LayoutFile[] = [];
  for (const line of md.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 6 || !/\.csv/.test(cells[1]!)) continue;
    const name = /([a-z0-9_]+\.csv)/.exec(cells[1]!)![1]!;
    const raw = cells[4]!.replace(/\*\*/g, '');
    const headerless = /no header row/.test(raw);
    const text = raw.split(/ \(| —/)[0]!;
    const abbreviated = text.includes('...');
    const header = text.split(/, | \.\.\. /).map((h) => h.trim()).filter(Boolean);
    out.push({ name, rows: Number(cells[2]!.replace(/,/g, '')), cols: Number(cells[3]), header, headerless, abbreviated });
  }
  return out;
}

const D = '09/15/2025';
/** Rows for the tables the service reads (ids 90001-90002: no real documents); the other tables get a filler row. */
const ROWS: Record<string, Record<string, string>[]> = {
  'lcd.csv': [{ lcd_id: '90001', lcd_version: '4', title: 'Facet Joint Interventions (test)', orig_det_eff_date: '04/25/2021', rev_eff_date: '10/01/2025', doc_reqs: '<p>Pain for 3 months.</p>', status: 'A', last_updated: D, display_id: 'L90001' }],
  'article.csv': [{ article_id: '90001', article_version: '2', article_type: '1', title: 'Billing and Coding: Facet Joint Interventions (test)', article_eff_date: '10/01/2025', last_updated: D, display_id: 'A90001' }],
  'lcd_related_documents.csv': [
    { lcd_id: '90001', lcd_version: '4', related_num: '1', r_article_id: '90001', r_article_version: '2', last_updated: D },
    { lcd_id: '90001', lcd_version: '4', related_num: '2', r_lcd_id: '90002', r_lcd_version: '1', last_updated: D },
  ],
  'article_related_documents.csv': [{ article_id: '90001', article_version: '2', related_num: '1', r_lcd_id: '90001', r_lcd_version: '4', last_updated: D }],
  'article_x_hcpc_code.csv': [
    { article_id: '90001', article_version: '2', hcpc_code_id: '64493', hcpc_code_version: '1', hcpc_code_group: '1', long_description: 'Inj paravert f jnt l/s 1 lev', last_updated: D },
    { article_id: '90001', article_version: '2', hcpc_code_id: '64494', hcpc_code_version: '1', hcpc_code_group: '1', last_updated: D },
  ],
  'lcd_x_hcpc_code.csv': [{ lcd_id: '90001', lcd_version: '4', hcpc_code_id: '64635', hcpc_code_version: '1', hcpc_code_group: '1', last_updated: D }],
  'article_x_icd10_covered.csv': [
    { article_id: '90001', article_version: '2', icd10_code_id: 'M54.16', icd10_code_version: '1', icd10_covered_group: '1', sort_order: '1', description: 'Radiculopathy, lumbar region', last_updated: D },
    { article_id: '90001', article_version: '2', icd10_code_id: 'M54.50', icd10_code_version: '1', icd10_covered_group: '1', sort_order: '2', description: 'Low back pain, unspecified', last_updated: D },
  ],
  'lcd_x_contractor.csv': [{ lcd_id: '90001', lcd_version: '4', contractor_id: '1', contractor_type_id: '2', contractor_version: '1', last_updated: D }],
  'article_x_contractor.csv': [{ article_id: '90001', article_version: '2', article_type: '1', contractor_id: '1', contractor_type_id: '2', contractor_version: '1', last_updated: D }],
  'contractor.csv': [{ contractor_id: '1', contractor_type_id: '2', contractor_version: '1', contractor_bus_name: 'CGS Administrators, LLC', contractor_number: '15202' }],
  'state_lookup.csv': [{ state_id: '39', state_abbrev: 'OH', description: 'Ohio' }],
  'ncd_trkg.csv': [{ NCD_id: '350', NCD_vrsn_num: '2', NCD_mnl_sect: '150.13', NCD_mnl_sect_title: 'Percutaneous Image-guided Lumbar Decompression (test)', NCD_efctv_dt: '12/07/2016', itm_srvc_desc: '<p>Billed with G0276.</p>', last_updt_tmstmp: D }],
};

/** A filler value for a column of a table the service does not read. */
const filler = (col: string) => (/(date|_dt|last_updated|tmstmp)$/i.test(col) ? D : '1');
const cell = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

describe.skipIf(!present)('mcd_coverage on the headers of a real MCD download (MCD-EXPORT-LAYOUT.md)', () => {
  let layout: LayoutFile[];
  let dir: string;
  let wh: Warehouse;
  let snap: MountedSnapshot;
  let summary: Awaited<ReturnType<typeof ingestFiles>>;
  beforeAll(async () => {
    layout = parseLayout(await readFile(join(sharedDataDir(), REL), 'utf8'));
    dir = await mkdtemp(join(tmpdir(), 'mcd-layout-'));
    const files: string[] = [];
    for (const f of layout) {
      const rows = ROWS[f.name] ?? [Object.fromEntries(f.header.map((h) => [h, filler(h)]))];
      for (const r of rows) for (const k of Object.keys(r)) if (!f.header.includes(k)) throw new Error(`${k} is not in the layout's header of ${f.name}`);
      const lines = rows.map((r) => f.header.map((h) => cell(r[h] ?? '')).join(','));
      const path = join(dir, f.name);
      await writeFile(path, [...(f.headerless ? [] : [f.header.join(',')]), ...lines].join('\r\n') + '\r\n');
      files.push(path);
    }
    wh = new Warehouse(join(dir, 'var'));
    await ingestFiles(wh, { dataset: macJurisdictions, files: [join(REPO_ROOT, 'seeds/mac_jurisdictions/mac_jurisdictions.yaml')] });
    summary = await ingestFiles(wh, { dataset: mcdCoverage, files });
    snap = await MountedSnapshot.open(wh, (await wh.current())!, { connections: 1, threads: 1 });
  });
  afterAll(async () => {
    snap?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reads the layout: 20 CSVs, each header as long as the layout counts it (contractor.csv abbreviated there)', () => {
    expect(layout.map((f) => f.name)).toEqual(expect.arrayContaining(['article.csv', 'article_x_icd10_covered.csv', 'lcd.csv', 'ncd_trkg.csv', 'contractor.csv', 'lcd_x_requestor_letters.csv']));
    expect(layout).toHaveLength(20);
    for (const f of layout.filter((x) => !x.abbreviated)) expect(f.header.length, f.name).toBe(f.cols);
    expect(layout.find((f) => f.name === 'article_x_icd10_covered.csv')!.header).toContain('icd10_covered_group');
    expect(layout.find((f) => f.name === 'article.csv')!.header).not.toContain('doc_reqs');
    expect(layout.find((f) => f.name === 'lcd_x_requestor_letters.csv')!.headerless).toBe(true);
  });

  it('ingests every file without a reject: the kept tables filled, the others read and left out', () => {
    expect(summary).toMatchObject({ version: '2025-09-15', rejects: 0 });
    expect(summary.files).toHaveLength(20);
    const tables = snap.versions('mcd_coverage')[0]!.tables!;
    expect(tables).toMatchObject({ lcd: 1, article: 1, lcd_related_documents: 1, article_related_documents: 1, article_x_hcpc_code: 2, lcd_x_hcpc_code: 1, article_x_icd10_covered: 2, lcd_x_contractor: 1, article_x_contractor: 1, contractor: 1, state_lookup: 1, ncd: 1 });
  });

  it('serves the article with its LCD, covered diagnoses and contractor, placed in its MAC jurisdiction', async () => {
    const cov = (await coverageIndex(snap))!;
    expect(cov.covered.get(90001)!.map((c) => [c.icd10_code_id, c.icd10_covered_group])).toEqual([
      ['M54.16', 1],
      ['M54.50', 1],
    ]);
    const idx = await policyIndex(snap);
    const { documents } = findPolicies(idx, { code: '64493', state: 'OH' }, '2026-01-15');
    expect(documents.map((d) => [d.doc_id, d.codes, d.contractors, d.jurisdictions, d.jurisdiction_resolved])).toEqual([
      ['L90001', ['64493', '64494', '64635'], ['CGS Administrators, LLC'], ['J15'], true],
      ['A90001', ['64493', '64494'], ['CGS Administrators, LLC'], ['J15'], true],
    ]);
    expect(idx.medicare.get('L90001')!.coverage!.doc_reqs).toBe('Pain for 3 months.');
    // CGS's A/B documents are not Florida's.
    expect(findPolicies(idx, { code: '64493', state: 'FL' }, '2026-01-15').documents).toEqual([]);
  });

  it('finds the LCD that lists a code itself and the NCD whose text names one', async () => {
    const idx = await policyIndex(snap);
    expect(coverageForCode(idx, '64635', '2026-01-15', { state: 'OH' }).lcds.map((h) => h.doc.doc_id)).toEqual(['L90001']);
    const g = coverageForCode(idx, 'G0276', '2026-01-15', { state: 'OH' });
    expect(g.ncds.map((h) => [h.doc.doc_id, h.via])).toEqual([['NCD 150.13', []]]);
  });
});
