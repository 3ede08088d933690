import { z } from 'zod';
import { readRecords, readText, normalizeNewlines, sampleFile, type FileSample, type SourceFile } from '../_shared/source.js';
import { normHeader } from '../_shared/header.js';
import { IngestError } from '../_shared/issue.js';
import type { Issue } from '../../warehouse/errors.js';
import { defineDataset, type ParsedItem, type VersionInfo } from '../types.js';

/**
 * X12 code lists used on remittances: Claim Adjustment Reason Codes (CARC), Remittance Advice
 * Remark Codes (RARC) and Claim Adjustment Group Codes. Two layouts are read:
 *
 * - the list page's: each code with its description followed by `Start: MM/DD/YYYY | Last
 *   Modified: MM/DD/YYYY | Stop: MM/DD/YYYY` and an optional `Notes:` line, as a two-column CSV
 *   (`Code,Description`) or as the HTML table rows of the page;
 * - a CSV with one column per field (`code,description,start_date,last_modified,stop_date,...,
 *   x12_notes`, ISO dates), as the merged lists in shared/data/x12-codes (2026-11-27) are laid out.
 *
 * The dates say when a payer may use a code on a remittance: a code is in use from its start
 * date and deactivated from its stop date (the lists keep deactivated codes with their dates).
 */
export const X12CodeRowSchema = z.object({
  list: z.enum(['carc', 'rarc', 'group']),
  code: z.string(),
  description: z.string(),
  start_date: z.string().nullable().describe('`YYYY-MM-DD`'),
  last_modified: z.string().nullable(),
  stop_date: z.string().nullable().describe('null while the code is in use'),
  notes: z.string().nullable(),
});
export type X12CodeRow = z.infer<typeof X12CodeRowSchema>;

type List = X12CodeRow['list'];
const LIST_OF_NAME: [RegExp, List][] = [
  [/claim[-_ ]adjustment[-_ ]reason|\bcarc/i, 'carc'],
  [/remittance[-_ ]advice[-_ ]remark|\brarc/i, 'rarc'],
  [/claim[-_ ]adjustment[-_ ]group|group[-_ ]codes/i, 'group'],
];
export const listOfName = (name: string): List | undefined => LIST_OF_NAME.find(([re]) => re.test(name))?.[1];

const CODE = { carc: /^(?:\d{1,3}|[A-Z]\d{1,2})$/, rarc: /^(?:MA\d{2,3}|[MN]\d{1,3})$/, group: /^(?:CO|CR|OA|PI|PR)$/ } as const;
const DATES = /Start:\s*(\d{2}\/\d{2}\/\d{4})(?:\s*\|\s*Last Modified:\s*(\d{2}\/\d{2}\/\d{4}))?(?:\s*\|\s*Stop:\s*(\d{2}\/\d{2}\/\d{4}))?/i;
/** X12's notes line, after the dates. */
const NOTES_AFTER = /\bNotes?:\s*([\s\S]*)$/i;
/**
 * Before the dates only the label `Notes:` (plural) starts notes: `Note:` is part of X12's own
 * wording in a description (CARC 156 "... Note: Use code 187.", D22 "(Note: To be used for
 * Workers' Compensation only) ..." in the 2026-08-17 list), so it stays in the description.
 */
const NOTES_BEFORE = /\bNotes:\s*([\s\S]*)$/;
const ISO = /^\d{4}-\d{2}-\d{2}$/;
const usDate = (s: string | undefined) => (s ? `${s.slice(6, 10)}-${s.slice(0, 2)}-${s.slice(3, 5)}` : null);

/** Splits a list page's description cell into the description, its dates and notes. */
export function splitDescription(cell: string): Pick<X12CodeRow, 'description' | 'start_date' | 'last_modified' | 'stop_date' | 'notes'> {
  const text = cell.replace(/\s+/g, ' ').trim();
  const d = DATES.exec(text);
  const before = d ? text.slice(0, d.index) : text;
  const after = d ? text.slice(d.index + d[0].length) : '';
  const inAfter = NOTES_AFTER.exec(after);
  const inBefore = inAfter ? null : NOTES_BEFORE.exec(before);
  const n = inAfter ?? inBefore;
  const description = (inBefore ? before.slice(0, inBefore.index) : before).trim();
  return {
    description,
    start_date: usDate(d?.[1]),
    last_modified: usDate(d?.[2]),
    stop_date: usDate(d?.[3]),
    notes: n?.[1]?.trim() || null,
  };
}

const isHtml = (text: string) => /<tr[\s>]/i.test(text);
const isCsvHeader = (fields: string[]) => normHeader(fields[0] ?? '') === 'CODE' && normHeader(fields[1] ?? '') === 'DESCRIPTION';
const stripTags = (s: string) =>
  s
    .replace(/<br\s*\/?>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");

export const x12Codes = defineDataset({
  id: 'x12_codes',
  title: 'X12 CARC, RARC and claim adjustment group codes',
  publisher: 'X12 (code lists maintained by the X12 external code list committees)',
  formats: [
    'claim-adjustment-reason-codes[_<YYYY-MM-DD>].csv|.html: Code,Description (description with Start/Last Modified/Stop and Notes)',
    'claim-adjustment-reason-codes.csv: code,description,start_date,last_modified,stop_date,...,x12_notes (ISO dates; pass --version when the name has no date)',
    'remittance-advice-remark-codes[_<YYYY-MM-DD>].csv|.html',
    'claim-adjustment-group-codes[_<YYYY-MM-DD>].csv|.html',
  ],
  row: X12CodeRowSchema,
  key: ['list', 'code'],
  detect: (s) => listOfName(s.name) !== undefined && (isHtml(s.text) || s.lines.slice(0, 5).some((l) => isCsvHeader(l.split(',')))),
  version(samples: FileSample[]): VersionInfo | undefined {
    const dates = samples.map((s) => /(\d{4})-(\d{2})(?:-(\d{2}))?/.exec(s.name));
    if (dates.some((d) => !d)) return undefined;
    const labels = new Set(dates.map((d) => `${d![1]}-${d![2]}-${d![3] ?? '01'}`));
    if (labels.size !== 1) return undefined;
    const label = [...labels][0]!;
    return { label, effective_date: label };
  },
  async *parse(file: SourceFile): AsyncIterable<ParsedItem<X12CodeRow>> {
    const list = listOfName(file.name);
    if (!list) throw new IngestError('the file name must say which list it is (claim-adjustment-reason-codes, remittance-advice-remark-codes, claim-adjustment-group-codes)', file.name);
    const check = (line: number, code: string, cell: string): ParsedItem<X12CodeRow> => {
      const c = code.trim().toUpperCase();
      if (!CODE[list].test(c)) return { line, issues: [{ loc: ['code'], msg: `not a ${list.toUpperCase()} code`, type: 'value_error', input: code }] };
      const rest = splitDescription(cell);
      if (!rest.description) return { line, issues: [{ loc: ['description'], msg: 'description is empty', type: 'missing' }] };
      return { line, row: { list, code: c, ...rest } };
    };
    // The list page (HTML) is read whole, as one document; the CSV layouts as a stream.
    if (isHtml((await sampleFile(file)).text)) {
      const { text } = await readText(file);
      const norm = normalizeNewlines(text);
      for (const m of norm.matchAll(/<tr[\s>][\s\S]*?<\/tr>/gi)) {
        const cells = [...m[0].matchAll(/<td[^>]*>([\s\S]*?)<\/td>/gi)].map((c) => stripTags(c[1]!).trim());
        if (cells.length < 2) continue;
        yield check(norm.slice(0, m.index).split('\n').length, cells[0]!, cells.slice(1).join(' '));
      }
      return;
    }
    // `Code,Description` (the list page's two columns) or one column per field (`code,description,
    // start_date,last_modified,stop_date,...,x12_notes`): cells are read by header name, never glued.
    let cols: Map<string, number> | null = null;
    for await (const { line, fields } of readRecords(file)) {
      if (!cols) {
        if (isCsvHeader(fields)) cols = new Map(fields.map((f, i) => [normHeader(f), i]));
        continue;
      }
      if (fields.every((f) => f.trim() === '')) continue;
      if (cols.size === 2) yield check(line, fields[0] ?? '', fields[1] ?? '');
      else yield named(line, cols, fields);
    }
    if (!cols) throw new IngestError('no `Code,Description` header row', file.name);

    /** A row of the one-column-per-field layout: dates already ISO, X12's notes in `x12_notes`. */
    function named(line: number, c: Map<string, number>, fields: string[]): ParsedItem<X12CodeRow> {
      const at = (name: string) => {
        const i = c.get(name);
        return i === undefined ? '' : (fields[i] ?? '').replace(/\s+/g, ' ').trim();
      };
      const code = at('CODE').toUpperCase();
      if (!CODE[list!].test(code)) return { line, issues: [{ loc: ['code'], msg: `not a ${list!.toUpperCase()} code`, type: 'value_error', input: at('CODE') }] };
      const description = at('DESCRIPTION');
      if (!description) return { line, issues: [{ loc: ['description'], msg: 'description is empty', type: 'missing' }] };
      const issues: Issue[] = [];
      const date = (name: 'start_date' | 'last_modified' | 'stop_date') => {
        const v = at(name.toUpperCase());
        if (v === '') return null;
        if (ISO.test(v)) return v;
        issues.push({ loc: [name], msg: 'a date as YYYY-MM-DD', type: 'value_error', input: v });
        return null;
      };
      const row = { list: list!, code, description, start_date: date('start_date'), last_modified: date('last_modified'), stop_date: date('stop_date'), notes: at('X12_NOTES') || null };
      return issues.length ? { line, issues } : { line, row };
    }
  },
});
