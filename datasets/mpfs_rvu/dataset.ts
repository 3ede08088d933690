import { IngestError } from '../_shared/issue.js';
import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { readLines, readRecords, sampleFile, type FileSample, type SourceFile, type SourceRecord } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { z } from 'zod';
import { columnsOf } from '../_shared/table.js';
import { loadRvuNative } from './native.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One PPRRVU row: RVUs and payment indicators of a HCPCS code (with modifier) for one release. */
export const MpfsRvuRowSchema = z.object({
  hcpcs: z.string(),
  modifier: z.string(),
  description: z.string(),
  status_code: z.string(),
  work_rvu: z.number().nullable(),
  non_fac_pe_rvu: z.number().nullable(),
  non_fac_na_indicator: z.string(),
  facility_pe_rvu: z.number().nullable(),
  facility_na_indicator: z.string(),
  mp_rvu: z.number().nullable(),
  non_facility_total: z.number().nullable(),
  facility_total: z.number().nullable(),
  pctc_indicator: z.string(),
  global_days: z.string(),
  pre_op: z.number().nullable(),
  intra_op: z.number().nullable(),
  post_op: z.number().nullable(),
  mult_proc: z.string(),
  bilat_surg: z.string(),
  asst_surg: z.string(),
  co_surg: z.string(),
  team_surg: z.string(),
  pricing_indicator: z.string().nullable().describe('2026+ only (`PRIC IND`); null for 31-column files.'),
  endo_base: z.string(),
  conv_factor: z.number().nullable(),
  phys_supervision: z.string(),
  calculation_flag: z.string(),
  diag_imaging_family: z.string(),
  non_fac_pe_opps: z.number().nullable(),
  fac_pe_opps: z.number().nullable(),
  mp_opps: z.number().nullable(),
  year: z.int(),
  quarter: z.int(),
  conv_factor_qpp: z.number().nullable().describe('Conversion factor of the QPP file (2026+), null when only one factor applies or was loaded.'),
  cf_variant: z.string().describe('Files the row came from: `all` (one factor, before 2026), `nonQPP`, `QPP` or `QPP+nonQPP`.'),
});
export type MpfsRvuRow = z.infer<typeof MpfsRvuRowSchema>;

/** Each field is found by its stacked caption name (caption rows + header row), not by position. */
export const FIELDS: { name: keyof MpfsRvuRow; match: RegExp; optional?: boolean }[] = [
  { name: 'hcpcs', match: /^HCPCS$/ },
  { name: 'modifier', match: /^MOD$/ },
  { name: 'description', match: /DESCRIPTION$/ },
  { name: 'status_code', match: /STATUS CODE$/ },
  { name: 'work_rvu', match: /^WORK RVU$/ },
  { name: 'non_fac_pe_rvu', match: /^NON-FAC PE RVU$/ },
  { name: 'non_fac_na_indicator', match: /^NON-FAC NA INDICATOR$/ },
  { name: 'facility_pe_rvu', match: /^FACILITY PE RVU$/ },
  { name: 'facility_na_indicator', match: /^FACILITY NA INDICATOR$/ },
  { name: 'mp_rvu', match: /^MP RVU$/ },
  { name: 'non_facility_total', match: /^NON-FACILITY TOTAL$/ },
  { name: 'facility_total', match: /^FACILITY TOTAL$/ },
  { name: 'pctc_indicator', match: /^PCTC IND$/ },
  { name: 'global_days', match: /^GLOB DAYS$/ },
  { name: 'pre_op', match: /^PRE OP$/ },
  { name: 'intra_op', match: /^INTRA OP$/ },
  { name: 'post_op', match: /^POST OP$/ },
  { name: 'mult_proc', match: /^MULT PROC$/ },
  { name: 'bilat_surg', match: /^BILAT SURG$/ },
  { name: 'asst_surg', match: /^ASST SURG$/ },
  { name: 'co_surg', match: /^CO- ?SURG$/ },
  { name: 'team_surg', match: /^TEAM SURG$/ },
  { name: 'pricing_indicator', match: /^PRIC IND$/, optional: true },
  { name: 'endo_base', match: /^ENDO BASE$/ },
  { name: 'conv_factor', match: /^CONV FACTOR$/ },
  { name: 'phys_supervision', match: /SUPERVISION OF DIAGNOSTIC PROCEDURES$/ },
  { name: 'calculation_flag', match: /^CALCULATION FLAG$/ },
  { name: 'diag_imaging_family', match: /IMAGING FAMILY INDICATOR$/ },
  { name: 'non_fac_pe_opps', match: /^NON-FACILITY PE USED FOR OPPS/ },
  { name: 'fac_pe_opps', match: /^FACILITY PE USED FOR OPPS/ },
  { name: 'mp_opps', match: /^MP USED FOR OPPS/ },
];

const MONTHS: Record<string, number> = { JAN: 1, APR: 2, JUL: 3, OCT: 4, JANUARY: 1, APRIL: 2, JULY: 3, OCTOBER: 4 };

const isRvuHeader = (f: string[]) => f[0] === 'HCPCS' && f[1] === 'MOD' && f[2] === 'DESCRIPTION' && f.length >= 30;

/** Builds each column's full name from the caption rows stacked above the header row. */
export function stackedNames(header: SourceRecord, above: SourceRecord[]): string[] {
  const captions = above.slice(-4);
  return header.fields.map((h, i) => {
    const parts = i < 3 ? [] : captions.map((r) => normHeader(r.fields[i] ?? ''));
    return [...parts, normHeader(h)].filter(Boolean).join(' ');
  });
}

/** Release (year, quarter) from `PPRRVU2026_Jul_nonQPP.csv` or the title `... File July Release`. */
function releaseOf(sample: FileSample): { year: number; quarter: number } | undefined {
  const n = /PPRRVU(\d{4})_([A-Za-z]{3})/i.exec(sample.name);
  if (n && MONTHS[n[2]!.toUpperCase()]) return { year: Number(n[1]), quarter: MONTHS[n[2]!.toUpperCase()]! };
  for (const line of sample.lines.slice(0, 10)) {
    const t = /(20\d{2}) National Physician Fee Schedule Relative Value File (January|April|July|October) Release/i.exec(line);
    if (t) return { year: Number(t[1]), quarter: MONTHS[t[2]!.toUpperCase()]! };
  }
  return undefined;
}

function variantOf(name: string): string {
  if (/_nonQPP/i.test(name)) return 'nonQPP';
  if (/_QPP/i.test(name)) return 'QPP';
  return 'all';
}

/** Where a file's fields are: the header record, each field's column, the release and QPP variant. */
export interface RvuLayout {
  header: SourceRecord;
  index: Map<keyof MpfsRvuRow, number>;
  rel: { year: number; quarter: number };
  variant: string;
}

/** Reads records up to the header and maps every field by its stacked caption name. */
export async function rvuLayout(records: AsyncIterator<SourceRecord>, file: Pick<SourceFile, 'name'> & Partial<SourceFile>): Promise<RvuLayout> {
  const { header, above } = await findHeader(records, file as SourceFile, isRvuHeader, 'HCPCS,MOD,DESCRIPTION,... with stacked caption rows');
  const names = stackedNames(header, above);
  const index = new Map<keyof MpfsRvuRow, number>();
  for (const f of FIELDS) {
    const i = names.findIndex((n) => f.match.test(n));
    if (i < 0 && !f.optional) {
      throw new IngestError(`column ${f.name} not found in the header (${f.match.source})`, file.name, header.line, f.name);
    }
    if (i >= 0) index.set(f.name, i);
  }
  const sampleText = above.map((r) => r.fields.join(',')).join('\n');
  const rel = releaseOf({ name: file.name, text: sampleText, lines: sampleText.split('\n') });
  if (!rel) throw new IngestError('release year/quarter not found in the file name or title line', file.name, 1);
  return { header, index, rel, variant: variantOf(file.name) };
}

/** Fields read as numbers (DOUBLE columns of the row schema). */
export const NUMERIC = new Set(columnsOf(MpfsRvuRowSchema).filter((c) => c.type === 'DOUBLE').map((c) => c.name));

/**
 * The fixed-width twin of the 2025 file (`PPRRVU2025_Oct.txt`, RVU25D): `HDR` copyright lines, then
 * one 171-character line a code holding the CSV's 31 fields in their order, each at these
 * [start, end) columns (right-aligned numbers, `NA` indicators in two columns). Checked field by
 * field against the CSV twin on all 19,090 rows (conformance suite).
 */
const TXT_2025: readonly [number, number][] = [
  [0, 5], [5, 7], [7, 57], [57, 58], [58, 59], [59, 65], [65, 72], [72, 74], [74, 81], [81, 83], [83, 89], [89, 96], [96, 102],
  [102, 103], [103, 106], [106, 109], [109, 112], [112, 115], [115, 116], [116, 117], [117, 118], [118, 119], [119, 120], [120, 133],
  [133, 140], [140, 143], [143, 144], [144, 147], [147, 157], [157, 164], [164, 171],
];
const TXT_WIDTH = 171;

/** True for the fixed-width twin: `HDR` lines first, then lines of the 2025 layout's width. */
export const isFixedWidthRvu = (s: Pick<FileSample, 'lines'>): boolean => !!s.lines[0]?.startsWith('HDR ') && s.lines.slice(0, 40).some((l) => !l.startsWith('HDR') && l.length >= TXT_WIDTH - 2);

/** One row of either twin from its fields, by the index of each field. */
function rowOf(line: number, fields: readonly (string | undefined)[], index: ReadonlyMap<keyof MpfsRvuRow, number>, rel: { year: number; quarter: number }, variant: string): ParsedItem<MpfsRvuRow> {
  const r = new RowReader(line);
  const row = { year: rel.year, quarter: rel.quarter, cf_variant: variant, pricing_indicator: null, conv_factor_qpp: null } as unknown as Record<string, unknown>;
  for (const f of FIELDS) {
    const i = index.get(f.name);
    if (i === undefined) continue;
    const raw = fields[i];
    if (NUMERIC.has(f.name)) row[f.name] = r.number(f.name, raw, { min: 0 });
    else row[f.name] = clean(raw);
  }
  r.text('hcpcs', fields[index.get('hcpcs')!], { required: true, pattern: /^[A-Z0-9]{5}$/ });
  r.text('modifier', fields[index.get('modifier')!], { pattern: /^[A-Z0-9]{2}$/ });
  r.text('status_code', fields[index.get('status_code')!], { required: true, pattern: /^[A-Z]$/ });
  return r.ok ? { line, row: row as unknown as MpfsRvuRow } : { line, issues: r.issues };
}

/** The fixed-width twin's rows: each line cut at the layout's columns, then read as a CSV row is. */
async function* parseFixedWidth(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<MpfsRvuRow>> {
  const rel = releaseOf({ name: file.name, text: '', lines: [] });
  if (!rel) throw new IngestError('release year/quarter not found in the file name (PPRRVU<YEAR>_<Mon>.txt)', file.name, 1);
  // The 2025 columns in order: FIELDS without PRIC IND (2026's), and column 4 (NOT USED FOR MEDICARE PAYMENT) read by none.
  const index = new Map(FIELDS.filter((f) => f.name !== 'pricing_indicator').map((f, k) => [f.name, k < 4 ? k : k + 1] as const));
  for await (const { line, text } of readLines(file, { onBytes: ctx.onBytes })) {
    if (text.startsWith('HDR') || !text.trim()) continue;
    if (text.length < TXT_WIDTH - 2 || text.length > TXT_WIDTH) {
      yield { line, issues: [{ loc: ['row', line], msg: `a line of ${text.length} characters: the 2025 fixed-width layout has ${TXT_WIDTH} (load the CSV twin of another layout)`, type: 'row_length' }] };
      continue;
    }
    // The pre-, intra- and post-operative shares print without their leading zero (`.00`).
    yield rowOf(line, TXT_2025.map(([a, b]) => text.slice(a, b).trim().replace(/^\./, '0.')), index, rel, variantOf(file.name));
  }
}

/**
 * CMS PFS national RVU file (PPRRVU). 2025 has 31 columns, 2026 inserts `PRIC IND` (32 columns)
 * and ships QPP and non-QPP files with different conversion factors; both are mapped by the
 * stacked caption rows above the header, so a layout change moves no value into the wrong field.
 */
export const mpfsRvu = defineDataset({
  id: 'mpfs_rvu',
  title: 'Medicare Physician Fee Schedule national RVUs (PPRRVU)',
  publisher: 'CMS Medicare Physician Fee Schedule',
  formats: [
    'PPRRVU<YEAR>_<Mon>.csv (2025: 31 columns)',
    'PPRRVU<YEAR>_<Mon>_QPP.csv / _nonQPP.csv (2026: 32 columns with PRIC IND)',
    'PPRRVU2025_<Mon>.txt (the 2025 fixed-width twin: HDR lines, 171-character rows)',
  ],
  row: MpfsRvuRowSchema,
  key: ['hcpcs', 'modifier'],
  // Release metadata, the same on every row of a release: a diff does not count a row changed for it.
  meta: ['year', 'quarter', 'conv_factor', 'conv_factor_qpp', 'cf_variant'],
  detect: (s) => s.lines.slice(0, 30).some((l) => l.startsWith('HCPCS,MOD,DESCRIPTION,')) || isFixedWidthRvu(s),
  version(samples): VersionInfo | undefined {
    const rel = samples.map(releaseOf).find(Boolean);
    if (!rel) return undefined;
    const month = String((rel.quarter - 1) * 3 + 1).padStart(2, '0');
    return { label: `${rel.year}${'ABCD'[rel.quarter - 1]}`, effective_date: `${rel.year}-${month}-01` };
  },
  /** QPP and non-QPP files of one release carry the same RVUs: keep one row with both factors. */
  async finalize(run, t) {
    await run(`UPDATE ${t} SET conv_factor_qpp = q.conv_factor, cf_variant = 'QPP+nonQPP'
      FROM (SELECT hcpcs, modifier, conv_factor FROM ${t} WHERE cf_variant = 'QPP') q
      WHERE ${t}.hcpcs = q.hcpcs AND ${t}.modifier = q.modifier AND ${t}.cf_variant = 'nonQPP'`);
    await run(`DELETE FROM ${t} WHERE cf_variant = 'QPP' AND EXISTS (
      SELECT 1 FROM ${t} o WHERE o.cf_variant = 'QPP+nonQPP' AND o.hcpcs = ${t}.hcpcs AND o.modifier = ${t}.modifier)`);
    await run(`UPDATE ${t} SET conv_factor_qpp = conv_factor, conv_factor = NULL WHERE cf_variant = 'QPP'`);
  },
  /** DuckDB's reader for files the row gate passes (every real release so far); `parse` otherwise. */
  loadNative: (...args) => loadRvuNative(...args), // called late: native.ts imports this module
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<MpfsRvuRow>> {
    if (isFixedWidthRvu(await sampleFile(file))) {
      yield* parseFixedWidth(file, ctx);
      return;
    }
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    const { header, index, rel, variant } = await rvuLayout(records, file);
    for await (const { line, fields } of dataRecords(records)) {
      if (fields.length < header.fields.length - 1) {
        yield { line, issues: [{ loc: ['row', line], msg: `Row has ${fields.length} fields, expected ${header.fields.length}`, type: 'row_length', input: fields.join(',') }] };
        continue;
      }
      yield rowOf(line, fields, index, rel, variant);
    }
  },
});
