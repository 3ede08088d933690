import type { z } from 'zod';
import type { Issue } from '../../warehouse/errors.js';
import { dataRecords, normHeader } from '../_shared/header.js';
import { IngestError } from '../_shared/issue.js';
import { readRecords, type FileSample, type SourceFile, type SourceRecord } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { isWorkbook, xlsxCellText } from '../_shared/workbook.js';
import type { ParsedItem, VersionInfo } from '../types.js';

/**
 * The Medi-Cal DRG sheets (DHCS's APR-DRG table, hospital list and payment parameters), read by
 * header through one declared table per sheet: a DHCS workbook whose headers differ from the
 * documented layout is a change to a `HeaderColumn` (its `header` or `aliases`), never to the
 * calculator. A sheet arrives as a CSV export or inside an `.xlsx` workbook (every sheet of the
 * workbook is read; sheets matching no declared table, such as instructions, are skipped).
 */

/** How a cell is read: text, a decimal (`$7,000.00`, `62%` -> 0.62), an integer, or a Y/N flag. */
export type CellKind = 'text' | 'number' | 'integer' | 'flag';

/** One column of a sheet: the header it is found by, the row field it fills and how it is read. */
export interface HeaderColumn {
  /** The header as the documented layout prints it (matched normalised: case, spaces, `*`). */
  header: string;
  /** Other spellings DHCS has used or may use for the same column. */
  aliases?: string[];
  field: string;
  kind: CellKind;
  /** A column a sheet must have (optional ones may be absent; their cells are then null/false). */
  required?: boolean;
  min?: number;
  max?: number;
  /** Greater than this (a weight or length of stay of 0 would price nothing or divide by zero). */
  above?: number;
  pattern?: RegExp;
  /** Where the header is documented; absent: the header is inferred (the dataset README says so). */
  cited?: string;
}

/** One declared sheet: the table it loads and its columns by header. */
export interface SheetLayout {
  table: string;
  /** The table's row schema: a row's fields are stored in its order. */
  schema: z.ZodObject;
  columns: HeaderColumn[];
  /** Checks a converted row beyond its cells (issues reject the row). */
  check?(row: Record<string, unknown>, line: number): Issue[];
}

/** A preamble line saying the figures are not DHCS's (the repository's seeds carry one). */
export const ILLUSTRATIVE_MARK = /\bILLUSTRATIVE\b/i;

const SFY_RE = /(?:SFY|State\s+Fiscal\s+Year|FY)[\s_-]*(20\d{2})\s*[-–/]\s*(\d{2}|20\d{2})\b/i;
const BARE_SFY_RE = /\b(20\d{2})-(\d{2})\b/;

/** `2025-26` for an SFY that starts in 2025 (SFY runs July 1 to June 30). */
export function sfyLabel(startYear: number): string {
  return `${startYear}-${String((startYear + 1) % 100).padStart(2, '0')}`;
}

/** The state fiscal year a date falls in: `2026-03-02` -> `2025-26`, `2026-07-01` -> `2026-27`. */
export function fiscalYearOf(isoDate: string): string {
  const y = Number(isoDate.slice(0, 4));
  return sfyLabel(Number(isoDate.slice(5, 7)) >= 7 ? y : y - 1);
}

/** The SFY a title (`State Fiscal Year 2025-26`, `SFY 2025-26`) or file name names; undefined if none. */
export function sfyIn(text: string, bare = false): VersionInfo | undefined {
  const m = SFY_RE.exec(text) ?? (bare ? BARE_SFY_RE.exec(text) : null);
  if (!m) return undefined;
  const start = Number(m[1]);
  const end = m[2]!.length === 4 ? Number(m[2]) : Math.floor(start / 100) * 100 + Number(m[2]);
  if (end !== start + 1) return undefined;
  return { label: sfyLabel(start), effective_date: `${start}-07-01` };
}

/** The version of a set of sheets: the SFY of a title line, else of a file name. */
export function sfyVersion(samples: FileSample[]): VersionInfo | undefined {
  for (const s of samples) {
    const v = s.text.startsWith('PK\u0003\u0004') ? undefined : sfyIn(s.lines.slice(0, 10).join('\n'));
    if (v) return v;
  }
  for (const s of samples) {
    const v = sfyIn(s.name, true);
    if (v) return v;
  }
  return undefined;
}

const norm = (s: string) => normHeader(s).replace(/[‐-―]/g, '-');

const namesOf = (c: HeaderColumn) => [c.header, ...(c.aliases ?? [])].map(norm);

/** The position of each column of `layout` in `header` (-1 when absent), or null when a required one is missing. */
export function columnPositions(layout: SheetLayout, header: string[]): Map<string, number> | null {
  const x = header.map(norm);
  const out = new Map<string, number>();
  for (const c of layout.columns) {
    const names = namesOf(c);
    const i = x.findIndex((h) => names.includes(h));
    if (i < 0 && c.required) return null;
    out.set(c.field, i);
  }
  return out;
}

/** The layout whose required headers a record carries. */
export function layoutOf(layouts: SheetLayout[], fields: string[]): SheetLayout | undefined {
  return layouts.find((l) => columnPositions(l, fields) !== null);
}

/** True when any of the first lines of a CSV sample is the header of one of `layouts`. */
export function detectSheet(layouts: SheetLayout[], sample: FileSample, workbookName: RegExp): boolean {
  if (sample.text.startsWith('PK\u0003\u0004')) return /\.xlsx$/i.test(sample.name) && workbookName.test(sample.name);
  return sample.lines.slice(0, 30).some((l) => {
    // Header cells of the documented layouts hold no commas, so quotes can simply be dropped.
    return layoutOf(layouts, l.replace(/"/g, '').split(',')) !== undefined;
  });
}

const YES = new Set(['Y', 'YES', 'TRUE', '1', 'X']);
const NO = new Set(['', 'N', 'NO', 'FALSE', '0']);

/** Converts one data record of a sheet to a row, collecting every bad cell (`loc: ['row', line, header]`). */
export function toSheetRow(layout: SheetLayout, positions: Map<string, number>, fields: string[], line: number): { row: Record<string, unknown>; issues: Issue[] } {
  const r = new RowReader(line);
  const row: Record<string, unknown> = {};
  for (const c of layout.columns) {
    const i = positions.get(c.field)!;
    const raw = i >= 0 ? fields[i] : undefined;
    switch (c.kind) {
      case 'text': {
        const v = r.text(c.header, raw, { required: c.required, pattern: c.pattern });
        row[c.field] = v === '' ? (c.required ? v : null) : v;
        break;
      }
      case 'number':
      case 'integer': {
        const v = c.kind === 'integer' ? r.integer(c.header, raw, { required: c.required, min: c.min, max: c.max }) : r.number(c.header, raw, { required: c.required, min: c.min, max: c.max });
        // A percent cell (`62%`) is the fraction 0.62: shares and percentages are fractions in the tables.
        const pct = v !== null && /%\s*$/.test(clean(raw)) ? Number((v / 100).toPrecision(12)) : v;
        if (pct !== null && c.above !== undefined && !(pct > c.above)) r.issues.push({ loc: ['row', line, c.header], msg: `Input should be greater than ${c.above}`, type: 'greater_than', input: raw, ctx: { gt: c.above } });
        row[c.field] = pct;
        break;
      }
      case 'flag': {
        const v = clean(raw).toUpperCase();
        if (!YES.has(v) && !NO.has(v)) r.issues.push({ loc: ['row', line, c.header], msg: 'Input should be Y or N', type: 'bool_parsing', input: raw });
        row[c.field] = YES.has(v);
        break;
      }
    }
  }
  if (r.ok && layout.check) r.issues.push(...layout.check(row, line));
  return { row, issues: r.issues };
}

/** The records of each sheet of a file: a CSV is one sheet; a workbook yields every sheet, rows numbered as the spreadsheet shows them. */
async function* sheetsOf(file: SourceFile): AsyncGenerator<{ name: string; records: AsyncIterator<SourceRecord> }> {
  if (!(await isWorkbook(file))) {
    yield { name: file.name, records: readRecords(file)[Symbol.asyncIterator]() };
    return;
  }
  const { default: readXlsxFile } = await import('read-excel-file/node');
  let sheets: { sheet: string; data: unknown[][] }[];
  try {
    sheets = (await readXlsxFile(file.path)) as { sheet: string; data: unknown[][] }[];
  } catch (e) {
    throw new IngestError(`unreadable workbook: ${(e as Error).message}`, file.name);
  }
  for (const s of sheets) {
    async function* records(): AsyncGenerator<SourceRecord> {
      for (const [i, row] of s.data.entries()) yield { line: i + 1, fields: row.map(xlsxCellText) };
    }
    yield { name: `${file.name} [${s.sheet}]`, records: records() };
  }
}

/** A row with its fields in the order of its table's schema (stored and golden rows read in that order). */
export function inSchemaOrder(schema: z.ZodObject, row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(schema.shape).map((k) => [k, row[k]]));
}

/** What the preamble above a sheet's header says: its SFY and whether its figures are illustrative. */
export interface SheetMeta {
  sheet: string;
  illustrative: boolean;
  sfy?: VersionInfo;
}

/**
 * Parses every sheet of a file that matches one of `layouts`: each data row becomes a row of the
 * layout's table (with `illustrative` from the preamble) or the issues that reject it; `finish`
 * sees each sheet's rows once it is read (a parameters sheet checks every required parameter is
 * there) and may throw an IngestError. A CSV matching no layout is an error naming what was expected.
 */
export async function* parseSheets(
  file: SourceFile,
  layouts: SheetLayout[],
  expected: string,
  finish?: (layout: SheetLayout, rows: Record<string, unknown>[], meta: SheetMeta) => void,
): AsyncIterable<ParsedItem<Record<string, unknown>>> {
  let matched = 0;
  for await (const { name, records } of sheetsOf(file)) {
    const above: string[] = [];
    let header: { layout: SheetLayout; positions: Map<string, number>; line: number } | undefined;
    while (!header) {
      const n = await records.next();
      if (n.done || n.value.line > 30) break;
      const fields = n.value.fields.map(clean);
      const layout = layoutOf(layouts, fields);
      if (layout) header = { layout, positions: columnPositions(layout, fields)!, line: n.value.line };
      else above.push(fields.join(' '));
    }
    if (!header) continue;
    matched++;
    const meta: SheetMeta = { sheet: name, illustrative: above.some((l) => ILLUSTRATIVE_MARK.test(l)), sfy: sfyIn(above.join('\n')) };
    const rows: Record<string, unknown>[] = [];
    for await (const { line, fields } of dataRecords(records)) {
      const { row, issues } = toSheetRow(header.layout, header.positions, fields, line);
      if (issues.length) {
        yield { line, table: header.layout.table, issues };
        continue;
      }
      const stored = inSchemaOrder(header.layout.schema, { ...row, illustrative: meta.illustrative });
      rows.push(stored);
      yield { line, table: header.layout.table, row: stored };
    }
    finish?.(header.layout, rows, meta);
  }
  if (matched === 0) throw new IngestError(`no sheet with the expected header (${expected})`, file.name, 1);
}
