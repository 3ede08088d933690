import { z } from 'zod';
import { dataRecords, findHeader } from '../_shared/header.js';
import { readRecords, textRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { table, type TableSpec } from '../_shared/table.js';
import { RowReader, clean, toIsoDate } from '../_shared/values.js';
import type { Issue } from '../../warehouse/errors.js';
import { defineMultiTableDataset, type ParsedItem, type VersionInfo } from '../types.js';

const date = z.string().nullable().describe('YYYY-MM-DD');

export const LcdRowSchema = z.object({
  lcd_id: z.int(),
  lcd_version: z.int(),
  display_id: z.string().describe('L12345 (`L` and the LCD id when the file prints the number alone)'),
  title: z.string(),
  status: z.string().nullable(),
  orig_det_eff_date: date,
  rev_eff_date: date,
  date_retired: date,
  doc_reqs: z.string().nullable().describe('Documentation Requirements section, as plain text (the MCD prints HTML)'),
});
export const ArticleRowSchema = z.object({
  article_id: z.int(),
  article_version: z.int(),
  display_id: z.string().describe('A12345 (`A` and the article id when the file prints the number alone)'),
  article_type: z.string().nullable().describe('the MCD article type (an id in the download, e.g. a billing and coding article)'),
  title: z.string(),
  article_eff_date: date,
  date_retired: date,
  doc_reqs: z.string().nullable().describe('documentation requirements: only older seed layouts carry them; the download\'s article table has none (its LCDs\' doc_reqs hold them)'),
});
export const LcdArticleRowSchema = z.object({ lcd_id: z.int(), lcd_version: z.int(), r_article_id: z.int(), r_article_version: z.int() });
export const ArticleLcdRowSchema = z.object({ article_id: z.int(), article_version: z.int(), r_lcd_id: z.int(), r_lcd_version: z.int() });
export const LcdNcdRowSchema = z.object({ lcd_id: z.int(), lcd_version: z.int(), r_ncd_id: z.string(), r_ncd_version: z.int() });
export const ArticleNcdRowSchema = z.object({ article_id: z.int(), article_version: z.int(), r_ncd_id: z.string(), r_ncd_version: z.int() });
export const ArticleHcpcRowSchema = z.object({ article_id: z.int(), article_version: z.int(), hcpc_code_id: z.string(), hcpc_code_group: z.int(), long_description: z.string().nullable() });
export const LcdHcpcRowSchema = z.object({ lcd_id: z.int(), lcd_version: z.int(), hcpc_code_id: z.string(), hcpc_code_group: z.int(), long_description: z.string().nullable() });
export const ArticleIcd10RowSchema = z.object({
  article_id: z.int(),
  article_version: z.int(),
  icd10_code_id: z.string().describe('with the dot (A00.0); an undotted code in the file is dotted'),
  icd10_covered_group: z.int().describe('the covered-code group of the article (older files: icd10_code_group)'),
  description: z.string().nullable(),
});
const contractorKey = { contractor_id: z.int(), contractor_type_id: z.int(), contractor_version: z.int() };
export const LcdContractorRowSchema = z.object({ lcd_id: z.int(), lcd_version: z.int(), ...contractorKey });
export const ArticleContractorRowSchema = z.object({ article_id: z.int(), article_version: z.int(), ...contractorKey });
export const ContractorRowSchema = z.object({
  ...contractorKey,
  contractor_bus_name: z.string().describe('the name it does business under, as the MCD listing prints it'),
  contractor_number: z.string().nullable().describe('the contract number (01112: Noridian JE Part B)'),
  dmerc_rgn: z.string().nullable().describe('the DME MAC region (A-D) of a DME contract; empty for A/B'),
});
export const ContractorJurisdictionRowSchema = z.object({ ...contractorKey, state_id: z.int(), active_date: date, term_date: date });
export const StateRowSchema = z.object({ state_id: z.int(), state_abbrev: z.string(), description: z.string().nullable() });
export const NcdRowSchema = z.object({
  ncd_id: z.string(),
  ncd_vrsn_num: z.int(),
  ncd_mnl_sect: z.string().describe('NCD manual section, e.g. 150.3'),
  ncd_mnl_sect_title: z.string(),
  ncd_efctv_dt: date,
  ncd_trmntn_dt: date,
  codes_named: z.array(z.string()).describe('CPT/HCPCS codes its item/service description, indications and keywords name (the NCD tables list no codes)'),
});

export type LcdRow = z.infer<typeof LcdRowSchema>;
export type ArticleRow = z.infer<typeof ArticleRowSchema>;
export type LcdArticleRow = z.infer<typeof LcdArticleRowSchema>;
export type ArticleLcdRow = z.infer<typeof ArticleLcdRowSchema>;
export type LcdNcdRow = z.infer<typeof LcdNcdRowSchema>;
export type ArticleNcdRow = z.infer<typeof ArticleNcdRowSchema>;
export type ArticleHcpcRow = z.infer<typeof ArticleHcpcRowSchema>;
export type LcdHcpcRow = z.infer<typeof LcdHcpcRowSchema>;
export type ArticleIcd10Row = z.infer<typeof ArticleIcd10RowSchema>;
export type LcdContractorRow = z.infer<typeof LcdContractorRowSchema>;
export type ArticleContractorRow = z.infer<typeof ArticleContractorRowSchema>;
export type ContractorRow = z.infer<typeof ContractorRowSchema>;
export type ContractorJurisdictionRow = z.infer<typeof ContractorJurisdictionRowSchema>;
export type StateRow = z.infer<typeof StateRowSchema>;
export type NcdRow = z.infer<typeof NcdRowSchema>;

const CONTRACTOR_KEY = ['contractor_id', 'contractor_type_id', 'contractor_version'] as const;

export const MCD_TABLES = {
  lcd: table('lcd', LcdRowSchema, ['lcd_id', 'lcd_version']),
  article: table('article', ArticleRowSchema, ['article_id', 'article_version']),
  lcd_related_documents: table('lcd_related_documents', LcdArticleRowSchema, ['lcd_id', 'lcd_version', 'r_article_id', 'r_article_version']),
  article_related_documents: table('article_related_documents', ArticleLcdRowSchema, ['article_id', 'article_version', 'r_lcd_id', 'r_lcd_version']),
  lcd_related_ncd_documents: table('lcd_related_ncd_documents', LcdNcdRowSchema, ['lcd_id', 'lcd_version', 'r_ncd_id', 'r_ncd_version']),
  article_related_ncd_documents: table('article_related_ncd_documents', ArticleNcdRowSchema, ['article_id', 'article_version', 'r_ncd_id', 'r_ncd_version']),
  article_x_hcpc_code: table('article_x_hcpc_code', ArticleHcpcRowSchema, ['article_id', 'article_version', 'hcpc_code_id', 'hcpc_code_group']),
  lcd_x_hcpc_code: table('lcd_x_hcpc_code', LcdHcpcRowSchema, ['lcd_id', 'lcd_version', 'hcpc_code_id', 'hcpc_code_group']),
  article_x_icd10_covered: table('article_x_icd10_covered', ArticleIcd10RowSchema, ['article_id', 'article_version', 'icd10_code_id', 'icd10_covered_group']),
  lcd_x_contractor: table('lcd_x_contractor', LcdContractorRowSchema, ['lcd_id', 'lcd_version', ...CONTRACTOR_KEY]),
  article_x_contractor: table('article_x_contractor', ArticleContractorRowSchema, ['article_id', 'article_version', ...CONTRACTOR_KEY]),
  contractor: table('contractor', ContractorRowSchema, [...CONTRACTOR_KEY]),
  contractor_jurisdiction: table('contractor_jurisdiction', ContractorJurisdictionRowSchema, [...CONTRACTOR_KEY, 'state_id']),
  state_lookup: table('state_lookup', StateRowSchema, ['state_id']),
  ncd: table('ncd', NcdRowSchema, ['ncd_id', 'ncd_vrsn_num']),
} satisfies Record<string, TableSpec>;
export type McdTable = keyof typeof MCD_TABLES;

/** Tables both the article and the LCD zip ship (`contractor.csv` ...): loading both zips loads them twice. */
const SHARED_TABLES: McdTable[] = ['contractor', 'contractor_jurisdiction', 'state_lookup'];

/**
 * How a cell becomes a value: `int`, `text` (required), `text?`, `date` (ISO, `MM/DD/YYYY`, with or
 * without a time), `html?` (tags stripped), `icd10` (dotted), `hcpcs`, `display` (an L/A id),
 * `codes` (the CPT/HCPCS codes named in the text cells listed).
 */
type CellKind = 'int' | 'text' | 'text?' | 'date' | 'html?' | 'icd10' | 'hcpcs' | 'display';

interface ColumnRule {
  /** Header names accepted, the real MCD name first, older names (aliases) after it. */
  from: string[];
  kind: CellKind;
  /** The file may lack the column (an older seed layout): the value is null. */
  optional?: true;
}

interface McdSource {
  table: McdTable;
  columns: Record<string, ColumnRule>;
  /** A row of the file this table does not keep (an LCD's link to another LCD), not a reject. */
  keep?: (fields: (name: string) => string) => boolean;
}

const col = (kind: CellKind, ...from: string[]): ColumnRule => ({ kind, from });
const opt = (kind: CellKind, ...from: string[]): ColumnRule => ({ kind, from, optional: true });
const ids = (prefix: 'lcd' | 'article') => ({ [`${prefix}_id`]: col('int', `${prefix}_id`), [`${prefix}_version`]: col('int', `${prefix}_version`) });
const contractorIds = { contractor_id: col('int', 'contractor_id'), contractor_type_id: col('int', 'contractor_type_id'), contractor_version: col('int', 'contractor_version') };

/**
 * The MCD download's tables this dataset keeps, with the header names each column is read from
 * (the download's names; `../shared/data/lcd-ncd/MCD-EXPORT-LAYOUT.md`). NCD rows come from
 * `ncd_trkg.csv`, whose header is mixed case (`NCD_id`): names match without case.
 */
const SOURCES: McdSource[] = [
  {
    table: 'lcd',
    columns: {
      ...ids('lcd'),
      display_id: opt('display', 'display_id'),
      title: col('text', 'title'),
      status: opt('text?', 'status'),
      orig_det_eff_date: col('date', 'orig_det_eff_date'),
      rev_eff_date: col('date', 'rev_eff_date'),
      date_retired: col('date', 'date_retired'),
      doc_reqs: col('html?', 'doc_reqs'),
    },
  },
  {
    table: 'article',
    columns: {
      ...ids('article'),
      display_id: opt('display', 'display_id'),
      article_type: opt('text?', 'article_type'),
      title: col('text', 'title'),
      article_eff_date: col('date', 'article_eff_date'),
      date_retired: col('date', 'date_retired'),
      doc_reqs: opt('html?', 'doc_reqs'),
    },
  },
  // lcd_related_documents / article_related_documents relate a document to articles, LCDs and
  // contractors in one table: a row is kept when it names the other kind of document.
  { table: 'lcd_related_documents', columns: { ...ids('lcd'), r_article_id: col('int', 'r_article_id'), r_article_version: col('int', 'r_article_version') }, keep: (f) => clean(f('r_article_id')) !== '' },
  { table: 'article_related_documents', columns: { ...ids('article'), r_lcd_id: col('int', 'r_lcd_id'), r_lcd_version: col('int', 'r_lcd_version') }, keep: (f) => clean(f('r_lcd_id')) !== '' },
  { table: 'lcd_related_ncd_documents', columns: { ...ids('lcd'), r_ncd_id: col('text', 'r_ncd_id'), r_ncd_version: col('int', 'r_ncd_version') } },
  { table: 'article_related_ncd_documents', columns: { ...ids('article'), r_ncd_id: col('text', 'r_ncd_id'), r_ncd_version: col('int', 'r_ncd_version') } },
  { table: 'article_x_hcpc_code', columns: { ...ids('article'), hcpc_code_id: col('hcpcs', 'hcpc_code_id'), hcpc_code_group: col('int', 'hcpc_code_group'), long_description: opt('text?', 'long_description') } },
  { table: 'lcd_x_hcpc_code', columns: { ...ids('lcd'), hcpc_code_id: col('hcpcs', 'hcpc_code_id'), hcpc_code_group: col('int', 'hcpc_code_group'), long_description: opt('text?', 'long_description') } },
  {
    table: 'article_x_icd10_covered',
    columns: {
      ...ids('article'),
      icd10_code_id: col('icd10', 'icd10_code_id'),
      // The download's name; seeds written before 2026-12 used icd10_code_group.
      icd10_covered_group: col('int', 'icd10_covered_group', 'icd10_code_group'),
      description: opt('text?', 'description'),
    },
  },
  { table: 'lcd_x_contractor', columns: { ...ids('lcd'), ...contractorIds } },
  { table: 'article_x_contractor', columns: { ...ids('article'), ...contractorIds } },
  {
    table: 'contractor',
    columns: { ...contractorIds, contractor_bus_name: col('text', 'contractor_bus_name'), contractor_number: opt('text?', 'contractor_number'), dmerc_rgn: opt('text?', 'dmerc_rgn') },
  },
  { table: 'contractor_jurisdiction', columns: { ...contractorIds, state_id: col('int', 'state_id'), active_date: opt('date', 'active_date'), term_date: opt('date', 'term_date') } },
  { table: 'state_lookup', columns: { state_id: col('int', 'state_id'), state_abbrev: col('text', 'state_abbrev'), description: opt('text?', 'description') } },
  {
    table: 'ncd',
    columns: {
      ncd_id: col('text', 'ncd_id'),
      ncd_vrsn_num: col('int', 'ncd_vrsn_num'),
      ncd_mnl_sect: col('text', 'ncd_mnl_sect'),
      ncd_mnl_sect_title: col('text', 'ncd_mnl_sect_title'),
      ncd_efctv_dt: col('date', 'ncd_efctv_dt'),
      ncd_trmntn_dt: col('date', 'ncd_trmntn_dt'),
    },
  },
];

/**
 * The download's other tables, by their header (MCD-EXPORT-LAYOUT.md and the manifest of the
 * third-party migration it was transcribed from): read and left out, so a whole download loads.
 * Why each is not kept is in the dataset README.
 */
export const UNUSED_MCD_TABLES: Record<string, { header: string[]; reason: string }> = (() => {
  const paragraphs = 'a code group\'s instructions (paragraph text); the codes themselves are read';
  const notUsed = 'not used by any answer';
  const t = (reason: string, ...header: string[]) => ({ header, reason });
  return {
    article_future_retire: t('retirements already announced; the article table\'s date_retired is read', 'article_id', 'retire_dt'),
    lcd_future_retire: t('retirements already announced; the lcd table\'s date_retired is read', 'lcd_id', 'retire_dt'),
    article_related_source_icd9: t('ICD-9 history', 'article_id', 'article_version', 'related_num', 'source_article_id', 'last_updated'),
    lcd_related_source_icd9: t('ICD-9 history', 'lcd_id', 'lcd_version', 'related_num', 'source_lcd_id', 'last_updated'),
    article_type_lookup: t(notUsed, 'article_type_id', 'description', 'last_updated'),
    article_url_type_lookup: t(notUsed, 'url_type_id', 'description', 'sort_order', 'last_updated'),
    lcd_url_type_lookup: t(notUsed, 'url_type_id', 'description', 'sort_order', 'last_updated'),
    article_x_bill_code: t('type-of-bill codes: no answer filters by bill type', 'article_id', 'article_version', 'bill_code_id', 'bill_code_version', 'last_updated', 'description'),
    article_x_code_table: t('drug code tables (brand names): not used', 'article_id', 'article_version', 'article_type', 'code_table_row', 'brand_name', 'eff_date', 'end_date', 'comments', 'hcpc_code_id', 'hcpc_code_version', 'last_updated', 'short_description', 'long_description'),
    article_x_hcpc_code_group: t(paragraphs, 'article_id', 'article_version', 'hcpc_code_group', 'paragraph', 'last_updated'),
    lcd_x_hcpc_code_group: t(paragraphs, 'lcd_id', 'lcd_version', 'hcpc_code_group', 'paragraph', 'last_updated'),
    article_x_hcpc_modifier: t('modifier lists: no answer checks modifiers against articles', 'article_id', 'article_version', 'hcpc_modifier_code_id', 'hcpc_modifier_code_version', 'hcpc_modifier_group', 'last_updated', 'description'),
    article_x_hcpc_modifier_group: t(paragraphs, 'article_id', 'article_version', 'hcpc_modifier_group', 'paragraph', 'last_updated'),
    article_x_icd10_covered_group: t(paragraphs, 'article_id', 'article_version', 'icd10_covered_group', 'paragraph', 'last_updated', 'icd10_covered_ast'),
    article_x_icd10_noncovered: t('non-covered diagnoses: a verdict rests on the covered list only', 'article_id', 'article_version', 'icd10_code_id', 'icd10_code_version', 'icd10_noncovered_group', 'range', 'last_updated', 'sort_order', 'description'),
    article_x_icd10_noncovered_group: t(paragraphs, 'article_id', 'article_version', 'icd10_noncovered_group', 'paragraph', 'last_updated'),
    article_x_icd10_pcs_code: t('ICD-10-PCS procedure codes: inpatient, not used', 'article_id', 'article_version', 'range', 'last_updated', 'sort_order', 'icd10_pcs_code_id', 'icd10_pcs_code_version', 'icd10_pcs_code_group', 'description'),
    article_x_icd10_pcs_code_group: t(paragraphs, 'article_id', 'article_version', 'last_updated', 'icd10_pcs_code_group', 'paragraph'),
    article_x_other_coding_group: t(paragraphs, 'article_id', 'article_version', 'other_coding_group', 'paragraph', 'codes', 'last_updated'),
    article_x_primary_jurisdiction: t('placement comes from the contractors (contractor_jurisdiction)', 'article_id', 'article_version', 'state_id', 'last_updated'),
    lcd_x_primary_jurisdiction: t('placement comes from the contractors (contractor_jurisdiction)', 'lcd_id', 'lcd_version', 'state_id', 'last_updated'),
    article_x_response_to_comment: t(notUsed, 'article_id', 'article_version', 'rtc_num', 'comment', 'response', 'last_updated'),
    article_x_revenue_code: t('revenue codes: no answer filters by revenue code', 'article_id', 'article_version', 'revenue_code_id', 'revenue_code_version', 'range', 'last_updated', 'description'),
    article_x_revision_history: t('revision history text', 'article_id', 'article_version', 'rev_hist_num', 'rev_hist_date', 'rev_hist_exp', 'last_updated'),
    lcd_x_revision_history: t('revision history text', 'lcd_id', 'lcd_version', 'rev_hist_num', 'rev_hist_date', 'rev_hist_exp', 'last_updated'),
    article_x_sticky_note: t(notUsed, 'article_id', 'article_version', 'sticky_note_version', 'sticky_note', 'sticky_note_dt', 'sticky_note_posting_dt'),
    lcd_x_sticky_note: t(notUsed, 'lcd_id', 'lcd_version', 'sticky_note_version', 'sticky_note', 'sticky_note_dt', 'sticky_note_posting_dt'),
    article_x_urls: t(notUsed, 'article_id', 'article_version', 'url_type_id', 'url_id', 'url', 'url_name', 'sort_order', 'last_updated', 'url_description'),
    lcd_x_urls: t(notUsed, 'lcd_id', 'lcd_version', 'url_type_id', 'url_id', 'url', 'url_name', 'sort_order', 'last_updated', 'url_description'),
    contractor_oversight: t(notUsed, 'contractor_id', 'contractor_type_id', 'contractor_version', 'region_id', 'last_updated'),
    contractor_subtype_lookup: t(notUsed, 'contractor_subtype_id', 'description'),
    contractor_type_lookup: t('contract types: a DME contract is told by its dmerc_rgn', 'contractor_type_id', 'description'),
    dmerc_region_lookup: t(notUsed, 'region_id', 'description', 'psc_description', 'mac_description', 'super_mac_description'),
    region_lookup: t(notUsed, 'region_id', 'description'),
    state_x_region: t(notUsed, 'state_id', 'region_id'),
    update_period: t(notUsed, 'period_id', 'begin_date', 'dis_end_date'),
    draft_contact_lookup: t('contacts for draft LCDs: not used (personal data)', 'contact_id', 'email_address', 'first_name', 'middle_initial', 'last_name', 'phone', 'address1', 'address2', 'address3', 'city', 'state_id', 'zipcode', 'last_updated', 'p_ext'),
    lcd_x_advisory_committee: t(notUsed, 'lcd_id', 'lcd_version', 'meeting_id', 'meeting_date', 'meeting_info', 'sort_order', 'last_updated'),
    lcd_x_reason_change: t(notUsed, 'lcd_id', 'lcd_version', 'reason_change_id', 'reason_change_version', 'last_updated', 'reason_change_other'),
    reason_change_lookup: t(notUsed, 'reason_change_id', 'reason_change_version', 'description', 'last_updated', 'sort_order'),
    lcd_x_synopsis_changes_fields: t(notUsed, 'lcd_id', 'lcd_version', 'synopsis_changes_field_id', 'last_updated'),
    synopsis_changes_fields_lookup: t(notUsed, 'synopsis_changes_field_id', 'field_name', 'field_anchor', 'mcd_field_name', 'mcd_field_anchor'),
    lcd_x_requestor_letters: t('reconsideration request letters; the CMS file has no header row (found by its name)', 'lcd_id', 'lcd_version', 'letter_id', 'requestor_name', 'letter_path', 'size', 'sort_order', 'last_updated'),
    ncd_bnft_ctgry_ref: t(notUsed, 'bnft_ctgry_cd', 'bnft_ctgry_desc'),
    ncd_pblctn_ref: t(notUsed, 'pblctn_cd', 'pblctn_num', 'pblctn_title'),
    ncd_trkg_bnft_xref: t(notUsed, 'ncd_id', 'ncd_vrsn_num', 'bnft_ctgry_cd', 'creatd_tmstmp', 'last_updt_tmstmp'),
  };
})();

/** `lcd_x_requestor_letters.csv` is the one table CMS ships without a header row (MCD-EXPORT-LAYOUT.md). */
const HEADERLESS = /(^|[\\/])lcd_x_requestor_letters\.csv$/i;

/** A header cell as matched: lower case, trimmed (the NCD file's `NCD_id` is `ncd_id`). */
const headerName = (f: string): string => clean(f).replace(/^\ufeff/, '').toLowerCase();

/** The text an NCD's codes are read from (its item/service description, indications and keywords). */
const NCD_TEXT = ['itm_srvc_desc', 'indctn_lmtn', 'ncd_keyword'];

type Match = { kind: 'used'; source: McdSource; index: Map<string, number> } | { kind: 'unused'; name: string; reason: string };

/** The table a header names: a kept table whose required columns are all there (the one naming most columns), else one of the download's other tables. */
function matchHeader(fields: string[]): Match | undefined {
  const names = fields.map(headerName);
  const index = new Map<string, number>();
  names.forEach((n, i) => {
    if (!index.has(n)) index.set(n, i);
  });
  let best: { source: McdSource; score: number } | undefined;
  for (const source of SOURCES) {
    const rules = Object.values(source.columns);
    if (!rules.every((r) => r.optional || r.from.some((n) => index.has(n)))) continue;
    const score = rules.filter((r) => r.from.some((n) => index.has(n))).length;
    if (!best || score > best.score) best = { source, score };
  }
  if (best) return { kind: 'used', source: best.source, index };
  for (const [name, t] of Object.entries(UNUSED_MCD_TABLES)) {
    if (t.header.every((h) => index.has(h)) && names.length <= t.header.length + 2) return { kind: 'unused', name, reason: t.reason };
  }
  return undefined;
}

/** The first record of a sample (quotes honoured). */
function firstRecord(s: FileSample): string[] {
  for (const r of textRecords(s.lines[0] ?? '', { name: s.name, size: 0 })) return r.fields;
  return [];
}

/**
 * An MCD date cell as `YYYY-MM-DD`: ISO or `MM/DD/YYYY`, with a time after it or not (the layout
 * does not record which the download prints); undefined when it is no date.
 */
export function mcdDate(raw: string | undefined): string | null | undefined {
  const v = clean(raw);
  if (v === '') return null;
  const day = /^(\d{4}-\d{2}-\d{2}|\d{1,2}\/\d{1,2}\/\d{4}|\d{8})(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s*[AaPp][Mm])?(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(v);
  return day ? (toIsoDate(day[1]!) ?? undefined) : undefined;
}

/** HTML of an MCD text section as plain text: tags dropped, common entities decoded, spaces collapsed. */
export function plainText(html: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return html
    .replace(/<(br|\/p|\/li|\/div|\/h\d)\s*\/?>/gi, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
      return named[e.toLowerCase()] ?? m;
    })
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .trim();
}

/** CPT (5 digits, or 4 and F/T/U) and HCPCS Level II (letter A-V and 4 digits) codes named in a text. */
export function codesNamed(text: string): string[] {
  return [...new Set([...plainText(text).toUpperCase().matchAll(/\b(\d{4}[0-9FTU]|[A-V]\d{4})\b/g)].map((m) => m[1]!))].sort();
}

const ICD10 = /^([A-Z][0-9][0-9A-Z])\.?([0-9A-Z]{1,4})?$/;
const HCPCS = /^[0-9A-Z]{5}$/;

/** The latest date of the `last_updated` column of a sample's records (the download's timestamp), or undefined. */
function lastUpdated(s: FileSample): string[] {
  const out: string[] = [];
  let at = -1;
  try {
    for (const r of textRecords(s.text, { name: s.name, size: 0 })) {
      if (at < 0) {
        at = r.fields.map(headerName).findIndex((n) => n === 'last_updated' || n === 'last_updt_tmstmp');
        if (at < 0) return out;
        continue;
      }
      const d = mcdDate(r.fields[at]);
      if (d) out.push(d);
    }
  } catch {
    // The sample ends inside a quoted cell: the records before it are what it has.
  }
  return out;
}

/**
 * The CMS Medicare Coverage Database (MCD) download: the CSVs of `current_lcd.zip`,
 * `current_article.zip` and `ncd.zip` (or the zips themselves), each table found from its header
 * (the download's column names, any order, extra columns ignored; older seed names accepted as
 * aliases). Tables no answer uses are read and left out. The release label is the latest
 * `last_updated` in the files (the latest date in them when no file has that column), or `--version`.
 */
export const mcdCoverage = defineMultiTableDataset({
  id: 'mcd_coverage',
  title: 'Medicare coverage: LCDs, billing articles with their HCPCS and covered ICD-10-CM codes, contractors and their states, NCDs (MCD download)',
  publisher: 'CMS Medicare Coverage Database',
  formats: [
    'MCD download CSVs (current_lcd, current_article and ncd zips, or the zips): lcd.csv, article.csv, lcd_related_documents.csv, article_related_documents.csv, lcd_related_ncd_documents.csv, article_related_ncd_documents.csv, article_x_hcpc_code.csv, lcd_x_hcpc_code.csv, article_x_icd10_covered.csv, lcd_x_contractor.csv, article_x_contractor.csv, contractor.csv, contractor_jurisdiction.csv, state_lookup.csv, ncd_trkg.csv; the download\'s other tables are read and left out',
  ],
  tables: Object.values(MCD_TABLES),
  detect: (s) => HEADERLESS.test(s.name) || matchHeader(firstRecord(s)) !== undefined,
  // A download may carry a table with no rows (and every unused table yields none).
  mayBeEmpty: () => true,
  version(samples: FileSample[]): VersionInfo | undefined {
    const stamps = samples.flatMap(lastUpdated);
    const any = samples.flatMap((s) => [...s.text.matchAll(/\b(20\d{2}-\d{2}-\d{2}|\d{1,2}\/\d{1,2}\/20\d{2})\b/g)].map((m) => toIsoDate(m[1]!)).filter((d): d is string => d !== null));
    const latest = (stamps.length ? stamps : any).sort().at(-1);
    return latest ? { label: latest, effective_date: latest } : undefined;
  },
  /** The tables both zips ship are read once each: identical rows loaded twice are one row. */
  async finalize(run) {
    for (const t of SHARED_TABLES) await run(`CREATE OR REPLACE TABLE "${t}" AS SELECT DISTINCT * FROM "${t}"`);
  },
  async *parse(file: SourceFile): AsyncIterable<ParsedItem<Record<string, unknown>>> {
    if (HEADERLESS.test(file.name)) return;
    const records = readRecords(file)[Symbol.asyncIterator]();
    const { header } = await findHeader(records, file, (f) => matchHeader(f) !== undefined, 'the column names of an MCD download table', 3);
    const m = matchHeader(header.fields)!;
    if (m.kind === 'unused') return;
    const { source, index } = m;
    const name = source.table;
    const at = (names: string[]) => names.map((n) => index.get(n)).find((i) => i !== undefined);
    const ncdText = NCD_TEXT.map((n) => index.get(n)).filter((i): i is number => i !== undefined);
    for await (const { line, fields } of dataRecords(records)) {
      const cell = (n: string) => fields[index.get(n) ?? -1] ?? '';
      if (source.keep && !source.keep(cell)) continue;
      const r = new RowReader(line);
      const issues: Issue[] = r.issues;
      const row: Record<string, unknown> = {};
      for (const [c, rule] of Object.entries(source.columns)) {
        const i = at(rule.from);
        const raw = i === undefined ? undefined : fields[i];
        switch (rule.kind) {
          case 'int':
            row[c] = r.integer(c, raw, { required: true, min: 0 });
            break;
          case 'text':
            row[c] = r.text(c, raw, { required: true });
            break;
          case 'text?':
            row[c] = clean(raw) || null;
            break;
          case 'html?':
            row[c] = clean(raw) ? plainText(clean(raw)) || null : null;
            break;
          case 'date': {
            const d = mcdDate(raw);
            if (d === undefined) issues.push({ loc: ['row', line, c], msg: 'Input should be a valid date', type: 'date_parsing', input: raw });
            row[c] = d ?? null;
            break;
          }
          case 'hcpcs': {
            const v = clean(raw).toUpperCase();
            if (!HCPCS.test(v)) issues.push({ loc: ['row', line, c], msg: 'not a CPT/HCPCS code (5 letters or digits)', type: 'value_error', input: raw });
            row[c] = v;
            break;
          }
          case 'icd10': {
            const v = clean(raw).toUpperCase();
            const mt = ICD10.exec(v);
            if (!mt) issues.push({ loc: ['row', line, c], msg: 'not an ICD-10-CM code (A00.0 or A000 form)', type: 'value_error', input: raw });
            row[c] = mt ? (mt[2] ? `${mt[1]}.${mt[2]}` : mt[1]) : v;
            break;
          }
          case 'display':
            row[c] = clean(raw);
            break;
        }
      }
      if (name === 'lcd' || name === 'article') {
        // The download may print the number alone (the Coverage API types an LCD's display_id as an integer).
        const letter = name === 'lcd' ? 'L' : 'A';
        const id = row[`${name}_id`];
        const shown = String(row.display_id ?? '');
        row.display_id = /^\d+$/.test(shown) ? `${letter}${shown}` : shown || (typeof id === 'number' ? `${letter}${id}` : '');
      }
      if (name === 'ncd') row.codes_named = codesNamed(ncdText.map((i) => fields[i] ?? '').join('\n'));
      yield issues.length === 0 ? { line, table: name, row } : { line, table: name, issues };
    }
  },
});
