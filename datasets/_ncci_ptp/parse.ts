import { dataRecords } from '../_shared/header.js';
import { IngestError } from '../_shared/issue.js';
import { type Issue } from '../../warehouse/errors.js';
import { readRecords, type SourceFile } from '../_shared/source.js';
import { toIsoDate } from '../_shared/values.js';
import type { ParsedItem, ParseContext } from '../types.js';
import { cells, isContinuation, isEmptyLine, isHeaderStart, layoutWidth, locatePtpLayout, type PtpLayout } from './layout.js';
import type { PtpFlavor } from './names.js';
import { CODE_RE, type PtpRow } from './row.js';

// Row validation and the JS parser (the SQL path in native.ts applies the same rules).

/**
 * Converts one data line's cells into a row or the issues that reject it. Cells are taken as
 * written (CMS PTP files are not padded; a padded code is rejected, not silently fixed), and the
 * rules are exactly the SQL of `loadNative`, so both paths accept the same rows.
 */
export function toPtpRow(fields: string[], layout: PtpLayout, line: number, program: 'medicare' | 'medicaid'): ParsedItem<PtpRow> {
  const issues: Issue[] = [];
  const fail = (field: string, msg: string, type: string, input: unknown) => issues.push({ loc: ['row', line, field], msg, type, input });
  const at = (k: number | undefined) => (k === undefined ? '' : (fields[k] ?? ''));
  const code = (field: string, v: string) => {
    if (v === '') fail(field, 'Field required', 'missing', v);
    else if (!CODE_RE.test(v)) fail(field, `String should match pattern '${CODE_RE.source}'`, 'string_pattern_mismatch', v);
    return v;
  };
  const date8 = (field: string, v: string) => {
    const iso = /^\d{8}$/.test(v) ? toIsoDate(v) : null;
    if (!iso) fail(field, 'Input should be a valid date (YYYYMMDD)', 'date_parsing', v);
    return iso;
  };
  const column1 = code('column1', at(layout.col1));
  const column2 = code('column2', at(layout.col2));
  const prior = at(layout.prior1996);
  if (prior !== '' && prior !== '*') fail('in_existence_prior_1996', "Input should be '' or '*'", 'literal_error', prior);
  const effRaw = at(layout.effective);
  let effective_date: string | null = null;
  if (effRaw === '') {
    if (program === 'medicare') fail('effective_date', 'Field required', 'missing', effRaw);
  } else effective_date = date8('effective_date', effRaw);
  const delRaw = at(layout.deletion);
  let deletion_date: string | null = null;
  if (delRaw === '') {
    if (program === 'medicare') fail('deletion_date', "Field required ('*' when active)", 'missing', delRaw);
  } else if (delRaw !== '*') deletion_date = date8('deletion_date', delRaw);
  const mod = at(layout.modifier);
  if (mod !== '0' && mod !== '1' && mod !== '9') fail('modifier_indicator', "Input should be '0', '1' or '9'", 'literal_error', mod);
  const width = layoutWidth(layout);
  if (fields.length > width) fail('row', `Expected ${width} fields, found ${fields.length}`, 'extra_fields', fields.length);
  if (issues.length) return { line, issues };
  return {
    line,
    row: {
      column1,
      column2,
      in_existence_prior_1996: prior === '*',
      effective_date,
      deletion_date,
      modifier_indicator: mod as PtpRow['modifier_indicator'],
      rationale: at(layout.rationale),
    },
  };
}

/**
 * Reads one part. With `reportEmpty`, lines of only tabs (which DuckDB reads as an all-NULL row,
 * while truly blank lines are skipped by both) come back as `'empty'` so the native loader can
 * account for them.
 */
export async function* parsePtpFile(flavor: PtpFlavor, file: SourceFile, ctx: ParseContext, reportEmpty = false): AsyncGenerator<ParsedItem<PtpRow> | 'empty'> {
  const records = readRecords(file, { delimiter: '\t', quote: false, onBytes: ctx.onBytes })[Symbol.asyncIterator]();
  const head: string[] = [];
  let layout: PtpLayout | undefined;
  // Blank lines are read too: the header search counts them, and `isEmptyLine` decides below.
  for await (const { line, fields } of dataRecords(records, { keepBlank: true })) {
    if (!layout) {
      head.push(fields.join('\t'));
      const start = head.findIndex((l) => isHeaderStart(cells(l)));
      if (start < 0) {
        if (head.length > 200) break;
        continue;
      }
      if (isContinuation(fields) || head.length - 1 === start) continue;
      layout = locatePtpLayout(head, file.name, flavor.program);
    }
    if (isEmptyLine(fields)) {
      if (reportEmpty && fields.length > 1) yield 'empty';
      continue;
    }
    yield toPtpRow(fields, layout, line, flavor.program);
  }
  if (!layout) {
    if (head.length === 0) throw new IngestError('file is empty', file.name, 1);
    locatePtpLayout(head, file.name, flavor.program); // throws the precise header error
    throw new IngestError('PTP header found but no data lines', file.name, head.length);
  }
}
