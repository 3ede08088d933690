import { z } from 'zod';
import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { table, type TableSpec } from '../_shared/table.js';
import { RowReader, clean } from '../_shared/values.js';
import { defineMultiTableDataset, type ParsedItem, type VersionInfo } from '../types.js';

const date = z.string().nullable().describe('YYYY-MM-DD');

export const LcdRowSchema = z.object({
  lcd_id: z.int(),
  lcd_version: z.int(),
  display_id: z.string(),
  title: z.string(),
  status: z.string(),
  orig_det_eff_date: date,
  rev_eff_date: date,
  date_retired: date,
  doc_reqs: z.string().nullable().describe('Documentation Requirements section'),
});
export const ArticleRowSchema = z.object({
  article_id: z.int(),
  article_version: z.int(),
  display_id: z.string(),
  article_type: z.string(),
  title: z.string(),
  article_eff_date: date,
  date_retired: date,
  doc_reqs: z.string().nullable(),
});
export const LcdArticleRowSchema = z.object({ lcd_id: z.int(), lcd_version: z.int(), r_article_id: z.int(), r_article_version: z.int() });
export const ArticleHcpcRowSchema = z.object({ article_id: z.int(), article_version: z.int(), hcpc_code_id: z.string(), hcpc_code_group: z.int(), long_description: z.string().nullable() });
export const ArticleIcd10RowSchema = z.object({ article_id: z.int(), article_version: z.int(), icd10_code_id: z.string().describe('as the MCD prints it, with the dot'), icd10_code_group: z.int(), description: z.string().nullable() });
export const NcdRowSchema = z.object({
  ncd_id: z.string(),
  ncd_vrsn_num: z.int(),
  ncd_mnl_sect: z.string().describe('NCD manual section, e.g. 150.3'),
  ncd_mnl_sect_title: z.string(),
  ncd_efctv_dt: date,
  ncd_trmntn_dt: date,
});

export type LcdRow = z.infer<typeof LcdRowSchema>;
export type ArticleRow = z.infer<typeof ArticleRowSchema>;
export type LcdArticleRow = z.infer<typeof LcdArticleRowSchema>;
export type ArticleHcpcRow = z.infer<typeof ArticleHcpcRowSchema>;
export type ArticleIcd10Row = z.infer<typeof ArticleIcd10RowSchema>;
export type NcdRow = z.infer<typeof NcdRowSchema>;

export const MCD_TABLES = {
  lcd: table('lcd', LcdRowSchema, ['lcd_id', 'lcd_version']),
  article: table('article', ArticleRowSchema, ['article_id', 'article_version']),
  lcd_related_documents: table('lcd_related_documents', LcdArticleRowSchema, ['lcd_id', 'lcd_version', 'r_article_id', 'r_article_version']),
  article_x_hcpc_code: table('article_x_hcpc_code', ArticleHcpcRowSchema, ['article_id', 'article_version', 'hcpc_code_id', 'hcpc_code_group']),
  article_x_icd10_covered: table('article_x_icd10_covered', ArticleIcd10RowSchema, ['article_id', 'article_version', 'icd10_code_id', 'icd10_code_group']),
  ncd: table('ncd', NcdRowSchema, ['ncd_id', 'ncd_vrsn_num']),
} satisfies Record<string, TableSpec>;
type McdTable = keyof typeof MCD_TABLES;

/** Which table a file holds: its header names the MCD export's columns (lower case, any order). */
function tableOf(fields: string[]): McdTable | undefined {
  const names = new Set(fields.map((f) => normHeader(f).toLowerCase()));
  for (const [name, t] of Object.entries(MCD_TABLES) as [McdTable, TableSpec][]) {
    if (t.columns.every((c) => names.has(c.name))) return name;
  }
  return undefined;
}

const INT = new Set(['lcd_id', 'lcd_version', 'article_id', 'article_version', 'r_article_id', 'r_article_version', 'hcpc_code_group', 'icd10_code_group', 'ncd_vrsn_num']);
const DATES = /(_date|_dt|date_retired)$/;

/**
 * The CMS Medicare Coverage Database (MCD) export: one CSV per table (`lcd.csv`, `article.csv`,
 * `lcd_related_documents.csv`, `article_x_hcpc_code.csv`, `article_x_icd10_covered.csv`,
 * `ncd.csv`), each with a header of the MCD's column names; the table is found from the header,
 * extra columns are ignored. The release label is the latest effective date in the files (or
 * `--version`).
 */
export const mcdCoverage = defineMultiTableDataset({
  id: 'mcd_coverage',
  title: 'Medicare coverage: LCDs, billing articles with their HCPCS and covered ICD-10-CM codes, NCDs (MCD export layout)',
  publisher: 'CMS Medicare Coverage Database',
  formats: ['MCD export CSVs: lcd.csv, article.csv, lcd_related_documents.csv, article_x_hcpc_code.csv, article_x_icd10_covered.csv, ncd.csv'],
  tables: Object.values(MCD_TABLES),
  detect: (s) => tableOf((s.lines[0] ?? '').split(',')) !== undefined,
  version(samples: FileSample[]): VersionInfo | undefined {
    const dates = samples.flatMap((s) => [...s.text.matchAll(/\b(20\d{2}-\d{2}-\d{2})\b/g)].map((m) => m[1]!)).sort();
    const latest = dates.at(-1);
    return latest ? { label: latest, effective_date: latest } : undefined;
  },
  async *parse(file: SourceFile): AsyncIterable<ParsedItem<Record<string, unknown>>> {
    const records = readRecords(file)[Symbol.asyncIterator]();
    const { header } = await findHeader(records, file, (f) => tableOf(f) !== undefined, 'the column names of an MCD export table', 3);
    const name = tableOf(header.fields)!;
    const t = MCD_TABLES[name];
    const index = new Map(header.fields.map((f, i) => [normHeader(f).toLowerCase(), i]));
    const nullable = new Set(t.columns.filter((c) => (t.row.shape as Record<string, z.ZodType>)[c.name]!.safeParse(null).success).map((c) => c.name));
    for await (const { line, fields } of dataRecords(records)) {
      const r = new RowReader(line);
      const row: Record<string, unknown> = {};
      for (const c of t.columns) {
        const raw = fields[index.get(c.name)!];
        if (INT.has(c.name)) row[c.name] = r.integer(c.name, raw, { required: true, min: 0 });
        else if (DATES.test(c.name)) row[c.name] = r.date(c.name, raw, { required: false });
        else row[c.name] = nullable.has(c.name) ? clean(raw) || null : r.text(c.name, raw, { required: true });
      }
      if (name === 'article_x_icd10_covered' && !/^[A-Z][0-9A-Z]{2}(\.[0-9A-Z]{1,4})?$/.test(String(row.icd10_code_id))) {
        yield { line, table: name, issues: [{ loc: ['row', line, 'icd10_code_id'], msg: 'not an ICD-10-CM code (A00.0 form)', type: 'value_error', input: row.icd10_code_id }] };
        continue;
      }
      yield r.ok ? { line, table: name, row } : { line, table: name, issues: r.issues };
    }
  },
});
