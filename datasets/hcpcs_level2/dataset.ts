import { z } from 'zod';
import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { IngestError } from '../_shared/issue.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { isWorkbook, workbookRecords } from '../_shared/workbook.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One HCPCS Level II code or modifier as the CMS alpha-numeric file lists it. */
export const HcpcsLevel2RowSchema = z.object({
  code: z.string().describe('HCPC, trimmed: a procedure code (a letter and 4 digits, `A0021`) or a 2-character modifier (`A1`, `JG`).'),
  record_kind: z.enum(['procedure', 'modifier']).describe('RECID 3 (a procedure line; 4 continues its description) or 7 (a modifier).'),
  long_description: z.string().describe('LONG DESCRIPTION (continuation records joined).'),
  short_description: z.string().describe('SHORT DESCRIPTION (28 characters at most).'),
  pricing_indicators: z.array(z.string()).describe('PRICE1-PRICE4, the non-empty ones in order (`11`, `46`, …).'),
  multiple_pricing_indicator: z.string().nullable().describe('MULT_PI.'),
  coverage_code: z.string().nullable().describe('COV: C carrier judgment, D special coverage instructions, I not payable by Medicare, M non-covered, S non-covered by statute.'),
  betos: z.string().nullable().describe('BETOS classification.'),
  type_of_service: z.array(z.string()).describe('TOS1-TOS5, the non-empty ones in order.'),
  asc_group: z.string().nullable().describe('ASC_GRP.'),
  asc_date: z.string().nullable().describe('ASC_DT, ISO.'),
  opps_status_indicator: z.string().nullable().describe('OPPS: the OPPS status indicator of the release (OPPS_PI, the payment indicator, and OPPS_DT are not kept).'),
  anesthesia_base_units: z.number().nullable().describe('ANEST_BU.'),
  added_date: z.string().nullable().describe('ADD DT: the day the code was added, ISO.'),
  action_effective_date: z.string().nullable().describe('ACT EFF DT: the day the latest action (ACTION CD) took effect, ISO.'),
  termination_date: z.string().nullable().describe('TERM DT: the last day the code is valid, ISO; null while in force.'),
  action_code: z.string().nullable().describe('ACTION CD: A added, B/C/F/P/S/T changed, D discontinued, N no maintenance, R reactivated.'),
});
/** One HCPCS Level II code or modifier. */
export type HcpcsLevel2Row = z.infer<typeof HcpcsLevel2RowSchema>;

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/**
 * `HCPC2026_OCT_ANWEB…` -> `2026-10`, effective 2026-10-01: CMS names the quarterly release (JAN, APR,
 * JUL, OCT) in the file name only; the rows carry no release date.
 */
export function hcpcsVersionOf(name: string): VersionInfo | undefined {
  const m = /HCPC(20\d{2})_([A-Z]{3})/i.exec(name);
  const i = m ? MONTHS.indexOf(m[2]!.toUpperCase()) : -1;
  if (!m || i < 0) return undefined;
  const mm = String(i + 1).padStart(2, '0');
  return { label: `${m[1]}-${mm}`, effective_date: `${m[1]}-${mm}-01` };
}

/** Column positions by header name (48 columns; the xlsx and its CSV export use the same names). */
interface Layout {
  get(name: string): number;
}

const h = (s: string): string => normHeader(s).replace(/[\s_]+/g, ' ');

/** The header: `HCPC,SEQNUM,RECID,LONG DESCRIPTION,SHORT DESCRIPTION,…,ADD DT,ACT EFF DT,TERM DT,ACTION CD`. */
export const isHcpcsHeader = (f: string[]): boolean => {
  const x = f.map(h);
  return x[0] === 'HCPC' && x.includes('RECID') && x.includes('LONG DESCRIPTION') && x.includes('TERM DT');
};

const REQUIRED = ['HCPC', 'SEQNUM', 'RECID', 'LONG DESCRIPTION', 'SHORT DESCRIPTION', 'ADD DT', 'ACT EFF DT', 'TERM DT', 'ACTION CD'];

function layoutOf(header: string[], file: string, line: number): Layout {
  const x = header.map(h);
  for (const name of REQUIRED) if (!x.includes(name)) throw new IngestError(`header has no ${name} column`, file, line, name);
  return { get: (name) => x.indexOf(h(name)) };
}

const PROCEDURE = /^[A-Z]\d{4}$/;
const MODIFIER = /^[A-Z0-9]{2}$/;

/** One record as a row, or its issues; RECID 4 records are continuations (see `parse`). */
function toRow(fields: string[], line: number, L: Layout): { recid: string; seq: string; row: HcpcsLevel2Row; issues: RowReader['issues'] } {
  const r = new RowReader(line);
  const cell = (name: string): string | undefined => {
    const i = L.get(name);
    return i >= 0 ? fields[i] : undefined;
  };
  const opt = (name: string): string | null => clean(cell(name)) || null;
  const list = (names: string[]): string[] => names.map((n) => clean(cell(n))).filter((v) => v !== '');
  const recid = r.text('RECID', cell('RECID'), { required: true, pattern: /^[347]$/ });
  const code = r.text('HCPC', cell('HCPC'), { required: true, pattern: recid === '7' ? MODIFIER : PROCEDURE });
  const row: HcpcsLevel2Row = {
    code,
    record_kind: recid === '7' ? 'modifier' : 'procedure',
    long_description: clean(cell('LONG DESCRIPTION')),
    short_description: clean(cell('SHORT DESCRIPTION')),
    pricing_indicators: list(['PRICE1', 'PRICE2', 'PRICE3', 'PRICE4']),
    multiple_pricing_indicator: opt('MULT_PI'),
    coverage_code: r.text('COV', cell('COV'), { pattern: /^[A-Z]$/ }) || null,
    betos: opt('BETOS'),
    type_of_service: list(['TOS1', 'TOS2', 'TOS3', 'TOS4', 'TOS5']),
    asc_group: opt('ASC_GRP'),
    asc_date: r.date('ASC_DT', cell('ASC_DT')),
    opps_status_indicator: opt('OPPS'),
    anesthesia_base_units: r.number('ANEST_BU', cell('ANEST_BU'), { min: 0 }),
    added_date: r.date('ADD DT', cell('ADD DT')),
    action_effective_date: r.date('ACT EFF DT', cell('ACT EFF DT')),
    termination_date: r.date('TERM DT', cell('TERM DT')),
    action_code: r.text('ACTION CD', cell('ACTION CD'), { pattern: /^[A-Z]$/ }) || null,
  };
  return { recid, seq: clean(cell('SEQNUM')), row, issues: r.issues };
}

/**
 * CMS HCPCS Level II alpha-numeric file (`HCPC2026_OCT_ANWEB.xlsx`, or a CSV export of it): one
 * row per code, 48 columns. Modifiers are right-justified in the 5-character HCPC field (`   A1`,
 * RECID 7); procedure codes are RECID 3, and a RECID 4 record (the fixed-width file splits long
 * descriptions that way) continues the description of the code above it. Dates `YYYYMMDD`.
 */
export const hcpcsLevel2 = defineDataset({
  id: 'hcpcs_level2',
  title: 'HCPCS Level II codes and modifiers: descriptors, coverage, BETOS, added, action and termination dates',
  publisher: 'CMS HCPCS Level II quarterly alpha-numeric file',
  formats: [
    'HCPC<YYYY>_<MON>_ANWEB*.csv (CSV export of the CMS workbook: header HCPC, SEQNUM, RECID, LONG DESCRIPTION, …, ADD DT, ACT EFF DT, TERM DT, ACTION CD)',
    'HCPC<YYYY>_<MON>_ANWEB*.xlsx (the CMS workbook, first sheet, same columns)',
  ],
  row: HcpcsLevel2RowSchema,
  key: ['code'],
  detect: (s) =>
    s.lines.slice(0, 20).some((l) => isHcpcsHeader(l.replace(/"/g, '').split(','))) ||
    // A workbook's sheet XML is deflated: the zip signature and the CMS file name admit it, parse() checks the header.
    (s.text.startsWith('PK\u0003\u0004') && /\.xlsx$/i.test(s.name) && /HCPC20\d{2}_[A-Z]{3}/i.test(s.name)),
  version: (samples: FileSample[]) => samples.map((s) => hcpcsVersionOf(s.name)).find((v) => v !== undefined),
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<HcpcsLevel2Row>> {
    const records = ((await isWorkbook(file)) ? workbookRecords(file, ctx.onBytes) : readRecords(file, { onBytes: ctx.onBytes }))[Symbol.asyncIterator]();
    const { header } = await findHeader(records, file, isHcpcsHeader, 'HCPC, SEQNUM, RECID, LONG DESCRIPTION, …, TERM DT, ACTION CD', 20);
    const layout = layoutOf(header.fields, file.name, header.line);
    const seen = new Set<string>();
    // A code's row is held until the next code: RECID 4 records after it extend its long description.
    let held: { line: number; row: HcpcsLevel2Row } | null = null;
    for await (const { line, fields } of dataRecords(records)) {
      const { recid, row, issues } = toRow(fields, line, layout);
      if (issues.length === 0 && recid === '4') {
        if (held && held.row.code === row.code) {
          held.row.long_description = `${held.row.long_description} ${row.long_description}`.trim();
          continue;
        }
        yield { line, issues: [{ loc: ['row', line, 'RECID'], msg: `continuation record of ${row.code} without its first record`, type: 'value_error', input: recid }] };
        continue;
      }
      if (issues.length === 0 && (seen.has(row.code) || held?.row.code === row.code)) {
        issues.push({ loc: ['row', line, 'HCPC'], msg: `duplicate code ${row.code}`, type: 'duplicate_key', input: row.code });
      }
      if (issues.length > 0) {
        yield { line, issues };
        continue;
      }
      if (held) yield held;
      seen.add(row.code);
      held = { line, row };
    }
    if (held) yield held;
  },
});
