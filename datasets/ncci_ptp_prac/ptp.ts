import { open } from 'node:fs/promises';
import { IngestError } from '../_shared/issue.js';
import { type Issue } from '../../warehouse/errors.js';
import { normHeader } from '../_shared/header.js';
import { fileDuckdbEncoding } from '../_shared/native_csv.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { toIsoDate } from '../_shared/values.js';
import { quoteIdent, quoteString } from '../../warehouse/snapshot.js';
import { z } from 'zod';
import { columnsOf, table } from '../_shared/table.js';
import { mainTable, type Column, type Dataset, type NativeLoadResult, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/**
 * One NCCI procedure-to-procedure edit as published (one line of a CMS PTP .txt part).
 * Dates are ISO `YYYY-MM-DD`; `deletion_date` is null when the file says `*` (still active).
 */
export const PtpRowSchema = z.object({
  column1: z.string().describe('Column 1 HCPCS/CPT code (the payable one)'),
  column2: z.string().describe('Column 2 HCPCS/CPT code (denied unless a modifier is allowed and used)'),
  in_existence_prior_1996: z.boolean().describe('Column 3 `*`: the edit existed before 1996'),
  effective_date: z.string().nullable().describe('YYYY-MM-DD; null only in Medicaid files that carry no effective-date column'),
  deletion_date: z.string().nullable().describe('YYYY-MM-DD, last day the edit is in force; null when `*`'),
  modifier_indicator: z.enum(['0', '1', '9']).describe("'0' not allowed, '1' allowed, '9' not applicable (deleted retroactively)"),
  rationale: z.string().describe('PTP edit rationale'),
});
export type PtpRow = z.infer<typeof PtpRowSchema>;

/** Table columns shared by the four PTP datasets (same names as the JSON fields). */
export const PTP_COLUMNS: Column[] = columnsOf(PtpRowSchema);

/** HCPCS Level II / CPT / PLA code shape used in PTP files (`0001U`, `99213`, `G0008`). */
export const CODE_RE = /^[A-Z0-9]{5}$/;

/** CMS ships every quarterly Medicare PTP release in exactly this many parts (f1..f4). */
export const MEDICARE_PTP_PARTS = 4;

/** Which publisher file family a PTP dataset reads. */
export interface PtpFlavor {
  id: string;
  title: string;
  program: 'medicare' | 'medicaid';
  ptpType: 'prac' | 'hosp';
}

// ---------------------------------------------------------------------------------------------
// Versions

/**
 * NCCI version label to its quarter. CMS numbers releases `<major>.<minor>`: the major number
 * is the calendar year minus 1994 and the minor number is the quarter minus one. Checked against
 * the files: `ccipra-v322r0` is 32.2 = 2026 Q3 (SOURCE.md, zip name `...-2026q3-...`) and the
 * same release's MUE file is `Eff_07-01-2026`; 32.2 also carries the deletion date 20260630
 * (edits retired by the July release). Older releases agree (26.0 = January 2020).
 */
export function ncciVersionQuarter(major: number, minor: number): { year: number; quarter: number } | undefined {
  if (!Number.isInteger(major) || !Number.isInteger(minor) || minor < 0 || minor > 3 || major < 1) return undefined;
  return { year: 1994 + major, quarter: minor + 1 };
}

/** First day of a quarter as `YYYY-MM-DD`. */
export function quarterStart(year: number, quarter: number): string {
  return `${year}-${String((quarter - 1) * 3 + 1).padStart(2, '0')}-01`;
}

/** First day of the quarter after the one that starts on `start` (`YYYY-MM-DD`). */
export function nextQuarterStart(start: string): string {
  const y = Number(start.slice(0, 4));
  const m = Number(start.slice(5, 7));
  const q = Math.floor((m - 1) / 3) + 1;
  return q === 4 ? quarterStart(y + 1, 1) : quarterStart(y, q + 1);
}

/** Parsed Medicare PTP file name: `ccipra-v322r0-f1.txt`, `ccioph-v322r0-f3.TXT` (case-insensitive). */
export interface MedicarePtpName {
  family: 'pra' | 'oph';
  major: number;
  minor: number;
  revision: number;
  part: number;
}

const MEDICARE_NAME_RE = /^cci(pra|oph)-v(\d{2,3})(\d)r(\d+)-f(\d+)(?:\.[a-z]+)*\.txt$/i;

/** Reads the version and part out of a CMS Medicare PTP file name; undefined when it does not fit. */
export function parseMedicarePtpName(name: string): MedicarePtpName | undefined {
  const m = MEDICARE_NAME_RE.exec(name);
  if (!m) return undefined;
  return {
    family: m[1]!.toLowerCase() as 'pra' | 'oph',
    major: Number(m[2]),
    minor: Number(m[3]),
    revision: Number(m[4]),
    part: Number(m[5]),
  };
}

/** `32.2` for revision 0, `32.2r1` for a re-posted revision of the same quarter. */
export function medicareVersionLabel(n: Pick<MedicarePtpName, 'major' | 'minor' | 'revision'>): string {
  return `${n.major}.${n.minor}${n.revision ? `r${n.revision}` : ''}`;
}

/**
 * Medicaid NCCI file names and titles carry the quarter, not a version number:
 * `medicaid-ncci-q3-2026-ptp-edits-practitioner-services...`, `..._2026Q3_...`, `Quarter 3 2026`.
 */
export function medicaidQuarterOf(text: string): { year: number; quarter: number } | undefined {
  let m = /\bq(?:uarter)?[\s_-]?([1-4])[\s_-]+(20\d{2})(?!\d)/i.exec(text);
  if (m) return { year: Number(m[2]), quarter: Number(m[1]) };
  m = /(?<!\d)(20\d{2})[\s_-]?q([1-4])(?![0-9])/i.exec(text);
  if (m) return { year: Number(m[1]), quarter: Number(m[2]) };
  return undefined;
}

const PART_RE = /(?:^|[-_ ])(?:f|part)[-_]?(\d{1,2})(?=[-_. ]|$)/i;

function medicaidPart(name: string): number | undefined {
  const m = PART_RE.exec(name.replace(/\.[^.]+$/, ''));
  return m ? Number(m[1]) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Header

/** Where each field sits in a file, found from the wrapped 4-line header by content. */
export interface PtpLayout {
  col1: number;
  col2: number;
  prior1996?: number;
  effective?: number;
  deletion?: number;
  modifier: number;
  rationale?: number;
  /** Number of physical lines before the first data line (titles + header block). */
  skip: number;
  /** 1-based line of the header's first line. */
  headerLine: number;
}

const cells = (line: string) => line.replace(/\r$/, '').split('\t');
const isHeaderStart = (f: string[]) => normHeader(f[0] ?? '') === 'COLUMN 1' && normHeader(f[1] ?? '') === 'COLUMN 2';
const isContinuation = (f: string[]) => normHeader(f[0] ?? '') === '' && normHeader(f[1] ?? '') === '' && f.some((c) => normHeader(c) !== '');

/**
 * Finds the header block (the `Column 1 / Column 2` line and the wrapped lines under it whose
 * first two cells are empty) and maps fields by the joined text of each header column, so title
 * lines of any count and a reordered column are handled; a missing field is a broken header.
 */
export function locatePtpLayout(lines: string[], fileName: string, program: 'medicare' | 'medicaid'): PtpLayout {
  const start = lines.slice(0, 200).findIndex((l) => isHeaderStart(cells(l)));
  if (start < 0) {
    throw new IngestError('no PTP header row found (expected "Column 1<TAB>Column 2<TAB>...")', fileName, Math.min(lines.length, 200));
  }
  const block = [cells(lines[start]!)];
  let i = start + 1;
  while (i < lines.length && isContinuation(cells(lines[i]!))) block.push(cells(lines[i++]!));
  if (i >= lines.length) throw new IngestError('header is not followed by data within the first 64 KiB', fileName, i);
  const width = Math.max(...block.map((b) => b.length));
  const joined = Array.from({ length: width }, (_, c) => normHeader(block.map((b) => b[c] ?? '').join(' ')));
  const find = (re: RegExp) => {
    const k = joined.findIndex((h) => re.test(h));
    return k < 0 ? undefined : k;
  };
  const layout = {
    col1: 0,
    col2: 1,
    prior1996: find(/PRIOR TO 1996|IN EXISTENCE/),
    effective: find(/EFFECTIVE/),
    deletion: find(/DELETION/),
    modifier: find(/MODIFIER/),
    rationale: find(/RATIONALE/),
    skip: i,
    headerLine: start + 1,
  };
  const required: (keyof typeof layout)[] =
    program === 'medicare' ? ['prior1996', 'effective', 'deletion', 'modifier', 'rationale'] : ['modifier'];
  const missing = required.filter((k) => layout[k] === undefined);
  if (missing.length) {
    throw new IngestError(
      `broken PTP header: no ${missing.join(', ')} column (header reads: ${joined.filter(Boolean).join(' | ')})`,
      fileName,
      start + 1,
    );
  }
  return layout as PtpLayout;
}

// ---------------------------------------------------------------------------------------------
// Row validation (the JS path; the SQL path below applies the same rules)

/** Number of fields a data line may have: the rightmost mapped column + 1. */
export function layoutWidth(l: PtpLayout): number {
  return Math.max(l.col1, l.col2, l.modifier, l.prior1996 ?? 0, l.effective ?? 0, l.deletion ?? 0, l.rationale ?? 0) + 1;
}

/** A line whose every field is empty (`\t\t\t`): skipped by both paths, never a reject. */
export const isEmptyLine = (fields: string[]) => fields.every((f) => f === '');

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

// ---------------------------------------------------------------------------------------------
// Native load

/**
 * A part cut short ends inside a record: no final line break and a last line that fails the row
 * rules. Checked before the native load (DuckDB would read the partial line as a short row).
 */
async function refuseTruncated(file: SourceFile, layout: PtpLayout, program: 'medicare' | 'medicaid'): Promise<void> {
  if (file.size === 0) return;
  const fh = await open(file.path, 'r');
  try {
    const n = Math.min(file.size, 4096);
    const buf = Buffer.alloc(n);
    await fh.read(buf, 0, n, file.size - n);
    const tail = buf.toString('latin1');
    if (tail.endsWith('\n') || tail.endsWith('\r')) return;
    const lastLine = tail.slice(tail.lastIndexOf('\n') + 1);
    const fields = lastLine.split('\t');
    if (isEmptyLine(fields) || !toPtpRow(fields, layout, 0, program).issues) return;
    throw new IngestError('the file is truncated: it ends inside a record (no final line break, and the last line does not parse)', file.name);
  } finally {
    await fh.close();
  }
}

const GLOB_CODE = "'[A-Z0-9][A-Z0-9][A-Z0-9][A-Z0-9][A-Z0-9]'";
const GLOB_DATE = "'[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]'";
const sqlIso = (x: string) => `(${x}[1:4] || '-' || ${x}[5:6] || '-' || ${x}[7:8])`;

/**
 * The SELECT list and validity test of one layout, over reader columns `c0..cN` (an empty
 * field reads as NULL). Same rules as `toPtpRow`, except that dates are checked for shape here
 * and for being real calendar days afterwards, on the few distinct values (cheaper than a
 * per-row `strptime` on millions of rows).
 */
function nativeSelect(layout: PtpLayout, program: 'medicare' | 'medicaid'): { values: string[]; valid: string } {
  const c = (k: number) => `c${k}`;
  const medicare = program === 'medicare';
  const valid: string[] = [`${c(layout.col1)} GLOB ${GLOB_CODE}`, `${c(layout.col2)} GLOB ${GLOB_CODE}`, `${c(layout.modifier)} IN ('0', '1', '9')`];
  if (layout.prior1996 !== undefined) valid.push(`(${c(layout.prior1996)} IS NULL OR ${c(layout.prior1996)} = '*')`);
  let eff = 'NULL';
  if (layout.effective !== undefined) {
    const e = c(layout.effective);
    valid.push(medicare ? `${e} GLOB ${GLOB_DATE}` : `(${e} IS NULL OR ${e} GLOB ${GLOB_DATE})`);
    eff = sqlIso(e);
  } else if (medicare) valid.push('false');
  let del = 'NULL';
  if (layout.deletion !== undefined) {
    const d = c(layout.deletion);
    valid.push(medicare ? `(${d} = '*' OR ${d} GLOB ${GLOB_DATE})` : `(${d} IS NULL OR ${d} = '*' OR ${d} GLOB ${GLOB_DATE})`);
    del = `CASE WHEN ${d} = '*' THEN NULL ELSE ${sqlIso(d)} END`;
  } else if (medicare) valid.push('false');
  return {
    values: [
      c(layout.col1),
      c(layout.col2),
      layout.prior1996 === undefined ? 'false' : `${c(layout.prior1996)} IS NOT NULL`,
      eff,
      del,
      c(layout.modifier),
      layout.rationale === undefined ? "''" : `coalesce(${c(layout.rationale)}, '')`,
    ],
    valid: valid.join(' AND '),
  };
}

let nativeRun = 0;

/**
 * Loads PTP parts with DuckDB's own CSV reader: every field VARCHAR, header skipped by the line
 * count found by content, casts and the row rules of `toPtpRow` in SQL, one pass per part (in
 * part order, so the table stays sorted by column 1 for zone-map lookups). Rows failing a rule
 * are inserted with a NULL version, structurally broken lines land in DuckDB's rejects table,
 * and dates that are not real days (`20260230`) are found on the distinct values and flagged
 * too. Only when anything was flagged does the JS parser re-read the parts to report each
 * rejected line with its issues; the flagged rows are then deleted and both counts must agree.
 */
async function loadPtpNative(
  flavor: PtpFlavor,
  files: SourceFile[],
  samples: FileSample[],
  run: (sql: string) => Promise<Record<string, unknown>[]>,
  table: string,
  version: string,
): Promise<NativeLoadResult | null> {
  const target = table.startsWith('"') ? table : quoteIdent(table);
  const count = async (sql: string) => Number(Object.values((await run(sql))[0] ?? {})[0] ?? 0);
  const ordered = orderParts(files, flavor);
  let inserted = 0;
  let broken = 0;
  for (const file of ordered) {
    const sample = samples.find((s) => s.name === file.name) ?? samples[files.indexOf(file)];
    if (!sample) throw new IngestError('no sample for file', file.name);
    const layout = locatePtpLayout(sample.lines, file.name, flavor.program);
    await refuseTruncated(file, layout, flavor.program);
    const cols = Array.from({ length: layoutWidth(layout) }, (_, k) => `'c${k}': 'VARCHAR'`).join(', ');
    // CP1252 dashes and quotes (0x80-0x9F) only the row parser decodes: it reads such a release.
    const encoding = await fileDuckdbEncoding(file);
    if (!encoding) {
      await run(`DELETE FROM ${target}`);
      return null;
    }
    const n = ++nativeRun;
    const rj = `ptp_rejects_${process.pid}_${n}`;
    const rs = `ptp_scans_${process.pid}_${n}`;
    const src =
      `read_csv(${quoteString(file.path)}, delim='\t', header=false, skip=${layout.skip}, quote='', escape='', auto_detect=false, ` +
      `null_padding=true, store_rejects=true, rejects_table='${rj}', rejects_scan='${rs}', encoding='${encoding}', columns={${cols}})`;
    const sel = nativeSelect(layout, flavor.program);
    inserted += await count(
      `INSERT INTO ${target} (column1, column2, in_existence_prior_1996, effective_date, deletion_date, modifier_indicator, rationale, version) ` +
        `SELECT ${sel.values.join(', ')}, CASE WHEN ${sel.valid} THEN ${quoteString(version)} ELSE NULL END FROM ${src}`,
    );
    broken += await count(`SELECT count(*) FROM ${rj}`);
    await run(`DROP TABLE IF EXISTS ${rj}; DROP TABLE IF EXISTS ${rs}`);
  }
  const dates = await run(
    `SELECT DISTINCT effective_date AS d FROM ${target} WHERE version IS NOT NULL UNION SELECT DISTINCT deletion_date FROM ${target} WHERE version IS NOT NULL`,
  );
  const badDates = dates.map((r) => r.d).filter((d): d is string => typeof d === 'string' && toIsoDate(d) === null);
  if (badDates.length) {
    const list = badDates.map(quoteString).join(', ');
    await run(`UPDATE ${target} SET version = NULL WHERE effective_date IN (${list}) OR deletion_date IN (${list})`);
  }
  const flagged = await count(`SELECT count(*) FROM ${target} WHERE version IS NULL`);
  if (flagged + broken === 0) return { rows: inserted, rejects: [] };

  // The rare path: exact lines and issues from the JS parser.
  const rejects: NativeLoadResult['rejects'] = [];
  let emptyRows = 0;
  for (const file of ordered) {
    for await (const item of parsePtpFile(flavor, file, { onBytes: () => {} }, true)) {
      if (item === 'empty') emptyRows++;
      else if (item.issues) rejects.push({ line: item.line, issues: item.issues.map((i) => ({ ...i, ctx: { ...i.ctx, file: file.name } })) });
    }
  }
  await run(`DELETE FROM ${target} WHERE version IS NULL`);
  if (rejects.length + emptyRows !== flagged + broken) {
    throw new IngestError(
      `native load disagrees with validation: ${flagged + broken} lines failed in DuckDB, ${rejects.length} in the row check (+${emptyRows} empty)`,
      ordered.map((f) => f.name).join(', '),
    );
  }
  return { rows: inserted - flagged, rejects };
}

// ---------------------------------------------------------------------------------------------
// JS parse

/**
 * Reads one part. With `reportEmpty`, lines of only tabs (which DuckDB reads as an all-NULL row,
 * while truly blank lines are skipped by both) come back as `'empty'` so the native loader can
 * account for them.
 */
async function* parsePtpFile(flavor: PtpFlavor, file: SourceFile, ctx: ParseContext, reportEmpty = false): AsyncGenerator<ParsedItem<PtpRow> | 'empty'> {
  const records = readRecords(file, { delimiter: '\t', quote: false, onBytes: ctx.onBytes })[Symbol.asyncIterator]();
  const head: string[] = [];
  let layout: PtpLayout | undefined;
  for (let n = await records.next(); !n.done; n = await records.next()) {
    const { line, fields } = n.value;
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

// ---------------------------------------------------------------------------------------------
// File sets

function orderParts(files: SourceFile[], flavor: PtpFlavor): SourceFile[] {
  const part = (f: SourceFile) => (flavor.program === 'medicare' ? parseMedicarePtpName(f.name)?.part : medicaidPart(f.name)) ?? 0;
  return [...files].sort((a, b) => part(a) - part(b) || a.name.localeCompare(b.name));
}

function checkMedicareSet(flavor: PtpFlavor, files: SourceFile[]): void {
  const family = flavor.ptpType === 'prac' ? 'pra' : 'oph';
  const parsed = files.map((f) => ({ f, n: parseMedicarePtpName(f.name) }));
  for (const { f, n } of parsed) {
    if (!n) throw new IngestError(`file name does not look like a CMS PTP part (expected cci${family}-v<NNN>r<N>-f<1-4>.txt)`, f.name);
    if (n.family !== family) throw new IngestError(`this is a cci${n.family} file; ${flavor.id} reads cci${family} files`, f.name);
  }
  const labels = new Set(parsed.map(({ n }) => medicareVersionLabel(n!)));
  if (labels.size > 1) throw new IngestError(`PTP parts from different versions in one set: ${[...labels].sort().join(', ')}`, files.map((f) => f.name).join(', '));
  const parts = parsed.map(({ n }) => n!.part).sort((a, b) => a - b);
  const dup = parts.find((p, i) => parts[i + 1] === p);
  if (dup !== undefined) throw new IngestError(`part f${dup} given twice`, files.map((f) => f.name).join(', '));
  const missing = Array.from({ length: MEDICARE_PTP_PARTS }, (_, i) => i + 1).filter((p) => !parts.includes(p));
  if (missing.length) {
    throw new IngestError(
      `incomplete PTP release ${[...labels][0]}: missing part ${missing.map((p) => `f${p}`).join(', ')} (a quarter is loaded from all ${MEDICARE_PTP_PARTS} parts in one call)`,
      files.map((f) => f.name).join(', '),
    );
  }
  const extra = parts.filter((p) => p > MEDICARE_PTP_PARTS);
  if (extra.length) throw new IngestError(`unexpected part f${extra[0]} (CMS publishes f1..f${MEDICARE_PTP_PARTS})`, files.map((f) => f.name).join(', '));
}

function checkMedicaidSet(flavor: PtpFlavor, files: SourceFile[], samples: FileSample[]): void {
  const quarters = new Set<string>();
  for (const f of files) {
    const s = samples.find((x) => x.name === f.name);
    const q = medicaidQuarterOf(f.name) ?? (s ? medicaidQuarterOf(s.lines.slice(0, 5).join(' ')) : undefined);
    if (q) quarters.add(`${q.year}Q${q.quarter}`);
  }
  if (quarters.size > 1) throw new IngestError(`Medicaid PTP files from different quarters in one set: ${[...quarters].sort().join(', ')}`, files.map((f) => f.name).join(', '));
  const parts = files.map((f) => medicaidPart(f.name)).filter((p): p is number => p !== undefined).sort((a, b) => a - b);
  if (parts.length && parts.length !== files.length) throw new IngestError('some files name a part (f1, f2...) and others do not', files.map((f) => f.name).join(', '));
  const dup = parts.find((p, i) => parts[i + 1] === p);
  if (dup !== undefined) throw new IngestError(`part f${dup} given twice`, files.map((f) => f.name).join(', '));
  const max = parts.length ? parts[parts.length - 1]! : 0;
  const missing = Array.from({ length: max }, (_, i) => i + 1).filter((p) => !parts.includes(p));
  if (missing.length) throw new IngestError(`incomplete Medicaid PTP set: missing part ${missing.map((p) => `f${p}`).join(', ')}`, files.map((f) => f.name).join(', '));
  void flavor;
}

// ---------------------------------------------------------------------------------------------
// Detection

const looksLikePtp = (s: FileSample) => s.lines.slice(0, 200).some((l) => isHeaderStart(cells(l)));
const mentionsMedicaid = (s: FileSample) => /medicaid/i.test(s.name) || /medicaid/i.test(s.lines.slice(0, 5).join(' '));
const isHospName = (t: string) => /(?:^|[^a-z])(oph|hosp|hospital|outpatient)/i.test(t);
const isPracName = (t: string) => /(?:^|[^a-z])(pra|prac|practitioner)/i.test(t);

function detectFor(flavor: PtpFlavor, s: FileSample): boolean {
  if (!looksLikePtp(s)) return false;
  if (flavor.program === 'medicare') {
    const n = parseMedicarePtpName(s.name);
    return !!n && n.family === (flavor.ptpType === 'prac' ? 'pra' : 'oph') && !mentionsMedicaid(s);
  }
  if (!mentionsMedicaid(s)) return false;
  const text = `${s.name} ${s.lines.slice(0, 3).join(' ')}`;
  return flavor.ptpType === 'hosp' ? isHospName(text) : isPracName(text) && !isHospName(text);
}

function versionFor(flavor: PtpFlavor, samples: FileSample[]): VersionInfo | undefined {
  if (flavor.program === 'medicare') {
    for (const s of samples) {
      const n = parseMedicarePtpName(s.name);
      const q = n && ncciVersionQuarter(n.major, n.minor);
      if (n && q) return { label: medicareVersionLabel(n), effective_date: quarterStart(q.year, q.quarter) };
    }
    return undefined;
  }
  for (const s of samples) {
    const q = medicaidQuarterOf(s.name) ?? medicaidQuarterOf(s.lines.slice(0, 5).join(' '));
    if (q) return { label: `${q.year}Q${q.quarter}`, effective_date: quarterStart(q.year, q.quarter) };
  }
  return undefined;
}

/**
 * Builds one of the four PTP datasets. Medicare (`ccipra`/`ccioph`) and Medicaid files share
 * the layout family: titles, a wrapped header, 7 tab-separated fields, deleted edits kept.
 */
export function makePtpDataset(flavor: PtpFlavor, extra: { publisher: string; formats: string[] }): Dataset<PtpRow> {
  return {
    id: flavor.id,
    title: flavor.title,
    publisher: extra.publisher,
    formats: extra.formats,
    // A pair deleted and later re-added appears twice, with different effective dates.
    ...mainTable(table(flavor.id, PtpRowSchema, ['column1', 'column2', 'effective_date'])),
    detect: (s) => detectFor(flavor, s),
    version: (samples) => versionFor(flavor, samples),
    async *parse(file, ctx) {
      for await (const item of parsePtpFile(flavor, file, ctx)) if (item !== 'empty') yield item;
    },
    checkFiles(files, samples) {
      if (files.length === 0) throw new IngestError('no files given');
      for (const s of samples) locatePtpLayout(s.lines, s.name, flavor.program);
      if (flavor.program === 'medicare') checkMedicareSet(flavor, files);
      else checkMedicaidSet(flavor, files, samples);
    },
    loadNative: (files, samples, run, table, version) => loadPtpNative(flavor, files, samples, run, table, version),
  };
}
