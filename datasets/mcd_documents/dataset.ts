import { z } from 'zod';
import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { IngestError } from '../_shared/issue.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

const date = z.string().nullable().describe('YYYY-MM-DD');

/** The contract types the listing names after a contractor (`MAC - Part A`, `DME MAC`, `HHH MAC`). */
export const CONTRACT_TYPES = ['MAC - Part A', 'MAC - Part B', 'DME MAC', 'HHH MAC'] as const;

export const ContractorSchema = z.object({
  name: z.string().describe('the contractor as the MCD prints it, e.g. `Noridian Healthcare Solutions, LLC`'),
  types: z.array(z.enum(CONTRACT_TYPES)).describe('the contracts the document was issued under'),
});
export type Contractor = z.infer<typeof ContractorSchema>;

/** One version of one LCD or billing article in the MCD listing. */
export const McdDocumentRowSchema = z.object({
  document_display_id: z.string().describe('`L36668` (LCD) or `A58364` (article)'),
  document_id: z.int(),
  document_type: z.enum(['lcd', 'article']),
  document_version: z.int(),
  contractors: z.array(ContractorSchema).describe('who issued it; a DME LCD names every DME MAC (one LCD, several contractors)'),
  effective_date: date,
  retirement_date: date.describe('YYYY-MM-DD; null while in force (the listing prints N/A)'),
  note: z.string().nullable().describe('the listing\'s status note: `Future`, `Retired`, `(Notice Ended MM/DD/YYYY)` ...'),
  title: z.string(),
  updated_on: date,
  url: z.string().describe('the document\'s page in the Medicare Coverage Database'),
});
export type McdDocumentRow = z.infer<typeof McdDocumentRowSchema>;

const COLUMNS = ['CONTRACTOR_NAME_TYPE', 'DOCUMENT_DISPLAY_ID', 'DOCUMENT_ID', 'DOCUMENT_TYPE', 'DOCUMENT_VERSION', 'EFFECTIVE_DATE', 'RETIREMENT_DATE', 'TITLE', 'URL'];
const isHeader = (f: string[]) => {
  const h = new Set(f.map(normHeader));
  return COLUMNS.every((c) => h.has(c));
};

/**
 * The listing's contractor cell: one block per contractor, blocks separated by a blank line,
 * each `Name` then `(type, type)` on the next line (documents_latest.csv, 2025-08-17: 141 DME
 * LCDs name `CGS Administrators, LLC (DME MAC)` and `Noridian Healthcare Solutions, LLC (DME
 * MAC)` in one cell). Undefined when a block is not of that shape or names an unknown type.
 */
export function parseContractors(cell: string): Contractor[] | undefined {
  const blocks = cell.replace(/\r\n?/g, '\n').split(/\n\s*\n/).map((b) => b.trim()).filter(Boolean);
  if (blocks.length === 0) return undefined;
  const out: Contractor[] = [];
  for (const b of blocks) {
    const m = /^([^\n]+?)\s*\n?\s*\(([^)]*)\)$/.exec(b);
    if (!m) return undefined;
    const types = m[2]!.split(',').map((t) => t.trim());
    if (!types.every((t): t is Contractor['types'][number] => (CONTRACT_TYPES as readonly string[]).includes(t))) return undefined;
    out.push({ name: m[1]!.trim(), types });
  }
  return out;
}

/**
 * The listing's release label: the latest `updated_on` of the sampled rows (the file's first
 * 64 KB), read from `updated_on_sort` (`YYYYMMDDhhmmss`). The harvest carries no date of its own
 * (SOURCE.md); for documents_latest.csv of 2025-08-17 this gives 2025-08-06, though a row further
 * down was updated 2025-08-08. `--version` names a release otherwise.
 */
function versionOf(samples: FileSample[]): VersionInfo | undefined {
  const stamps = samples.flatMap((s) => [...s.text.matchAll(/,(20\d{2})(\d{2})(\d{2})\d{6},https?:/g)].map((m) => `${m[1]}-${m[2]}-${m[3]}`)).sort();
  const latest = stamps.at(-1);
  return latest ? { label: latest, effective_date: latest } : undefined;
}

/**
 * The Medicare Coverage Database's listing of LCDs and billing articles (the CMS Coverage API's
 * report fields as CSV: `documents_latest.csv`): one row per document version, with contractor,
 * effective and retirement dates, title and MCD URL. It names no codes (mcd_coverage holds the
 * code tables) and no jurisdiction (mac_jurisdictions maps contractors to states).
 */
export const mcdDocuments = defineDataset({
  id: 'mcd_documents',
  title: 'Medicare LCD and billing article listing: document versions, contractors, dates, titles, MCD URLs',
  publisher: 'CMS Medicare Coverage Database (Coverage API report fields)',
  formats: ['documents_latest.csv: contractor_name_type, document_display_id, document_id, document_type, document_version, effective_date, note, retirement_date, title, updated_on, updated_on_sort, url (MM/DD/YYYY dates, N/A for none, multi-line quoted contractor cells)'],
  row: McdDocumentRowSchema,
  key: ['document_display_id', 'document_version'],
  detect: (s) => isHeader((s.lines[0] ?? '').split(',')),
  version: versionOf,
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<McdDocumentRow>> {
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    const { header } = await findHeader(records, file, isHeader, COLUMNS.join(', ').toLowerCase(), 3);
    const index = new Map(header.fields.map((f, i) => [normHeader(f), i]));
    const cell = (fields: string[], name: string) => fields[index.get(name)!];
    if (!index.has('NOTE') || !index.has('UPDATED_ON')) throw new IngestError('expected the note and updated_on columns of the listing', file.name, header.line);
    for await (const { line, fields } of dataRecords(records)) {
      const r = new RowReader(line);
      const display = r.text('document_display_id', cell(fields, 'DOCUMENT_DISPLAY_ID'), { required: true, pattern: /^[LA]\d{5}$/ });
      const id = r.integer('document_id', cell(fields, 'DOCUMENT_ID'), { required: true, min: 1 });
      const type = r.text('document_type', cell(fields, 'DOCUMENT_TYPE'), { required: true, pattern: /^(LCD|Article)$/ });
      const version = r.integer('document_version', cell(fields, 'DOCUMENT_VERSION'), { required: true, min: 0 });
      const effective = r.date('effective_date', cell(fields, 'EFFECTIVE_DATE'), { required: true });
      // `N/A` while the document is in force.
      const retiredRaw = clean(cell(fields, 'RETIREMENT_DATE'));
      const retired = retiredRaw === 'N/A' ? null : r.date('retirement_date', retiredRaw);
      const updated = r.date('updated_on', cell(fields, 'UPDATED_ON'));
      const title = r.text('title', cell(fields, 'TITLE'), { required: true });
      const url = r.text('url', cell(fields, 'URL'), { required: true, pattern: /^https:\/\/www\.cms\.gov\/medicare-coverage-database\// });
      const contractorCell = cell(fields, 'CONTRACTOR_NAME_TYPE') ?? '';
      const contractors = parseContractors(contractorCell);
      if (!contractors) r.issues.push({ loc: ['row', line, 'contractor_name_type'], msg: 'expected "Name" then "(MAC - Part A, ...)" per contractor', type: 'value_error', input: contractorCell });
      if (display && id !== null && display.slice(1) !== String(id)) {
        r.issues.push({ loc: ['row', line, 'document_display_id'], msg: `display id ${display} does not carry document id ${id}`, type: 'value_error', input: display });
      }
      if (display && type && display[0] !== (type === 'LCD' ? 'L' : 'A')) {
        r.issues.push({ loc: ['row', line, 'document_type'], msg: `a ${type} display id starts with ${type === 'LCD' ? 'L' : 'A'}`, type: 'value_error', input: type });
      }
      const row: McdDocumentRow = {
        document_display_id: display,
        document_id: id!,
        document_type: type === 'LCD' ? 'lcd' : 'article',
        document_version: version!,
        contractors: contractors ?? [],
        effective_date: effective,
        retirement_date: retired,
        note: clean(cell(fields, 'NOTE')) || null,
        title,
        updated_on: updated,
        url,
      };
      yield r.ok ? { line, row } : { line, issues: r.issues };
    }
  },
});
