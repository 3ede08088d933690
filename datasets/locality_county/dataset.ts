import { z } from 'zod';
import { dataRecords, findHeader, isBlankRecord, normHeader } from '../_shared/header.js';
import { IngestError } from '../_shared/issue.js';
import { type Issue } from '../../warehouse/errors.js';
import { readRecords, readText, sampleFile, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';
import { toStateCode } from './states.js';
import { ownValue } from '../../lib/own.js';

/** One county (or a catch-all such as `ALL OTHER COUNTIES`) of a Medicare PFS locality. */
export const LocalityCountyRowSchema = z.object({
  locality: z.string().describe('MAC + locality number (7 digits)'),
  mac: z.string(),
  locality_number: z.string(),
  state: z.string().describe('USPS code of the locality state'),
  fee_schedule_area: z.string().describe('Fee schedule area name without footnote stars, e.g. `REST OF STATE`.'),
  county: z.string().describe('county name or ALL COUNTIES / ALL OTHER COUNTIES / ALL COUNTY EQUIVALENTS'),
  county_state: z.string().describe('USPS code of the county state'),
  excluded_counties: z.string().nullable().describe('counties a catch-all leaves out, ;-joined'),
  two_carriers: z.boolean().describe('The area name carried `*`: "Payment locality is serviced by two carriers".'),
  year: z.int(),
});
/** One county (or a catch-all such as `ALL OTHER COUNTIES`) of a Medicare PFS locality. */
export type LocalityCountyRow = z.infer<typeof LocalityCountyRowSchema>;

/** Catch-all county values kept as they are printed. */
export const CATCH_ALL = ['ALL COUNTIES', 'ALL OTHER COUNTIES', 'ALL COUNTY EQUIVALENTS'] as const;

/** Known misspellings in the CSV (`LOS ANGELES /ORAGNGE CNTY` in 25LOCCO.csv; the .txt prints ORANGE). */
const TYPOS: Record<string, string> = { ORAGNGE: 'ORANGE' };

/** Width of the county column of 25LOCCO.txt (columns 144-201); a longer list is cut there. */
const TXT_COUNTY_START = 143;
const TXT_COUNTY_WIDTH = 58;

const isCsvHeader = (f: string[]) =>
  f.length >= 5 && /LOCALITY NUMBER/.test(normHeader(f[1] ?? '')) && /FEE SCHEDULE AREA/.test(normHeader(f[3] ?? '')) && /COUNTIES/.test(normHeader(f[4] ?? ''));
const isTxtHeader = (line: string) => /FEE SCHEDULE AREA/.test(normHeader(line)) && /COUNTIES/.test(normHeader(line)) && !line.includes(',');

function yearOf(sample: FileSample): number | undefined {
  for (const line of sample.lines.slice(0, 10)) {
    const m = /COUNTIES INCLUDED IN (20\d{2}) LOCALITIES/i.exec(line);
    if (m) return Number(m[1]);
  }
  const n = /^(\d{2})LOCCO/i.exec(sample.name);
  return n ? 2000 + Number(n[1]) : undefined;
}

/** Splits `A, B AND C` / `A/B/C` / `A, AND B` into names, dropping `CNTY` suffixes. */
export function splitCountyList(text: string): string[] {
  return text
    .replace(/\s*\/\s*/g, ',')
    .replace(/,?\s+AND\s+/g, ',')
    .split(',')
    .map((s) => s.replace(/\s+/g, ' ').trim().replace(/\s+(CNTY|COUNTY)$/, ''))
    .map((s) => ownValue(TYPOS, s) ?? s)
    .filter((s) => s !== '');
}

/**
 * Expands the free-text Counties cell into (county, county_state, excluded) entries:
 * catch-alls with an `EXCEPT` list, `;`-separated groups that end with `IN <STATE>` (the DC row
 * lists Virginia and Maryland suburbs), and plain comma/`AND`/slash lists.
 */
export function expandCounties(cell: string, state: string): { county: string; county_state: string; excluded: string | null }[] {
  const text = clean(cell).replace(/\s+/g, ' ').toUpperCase();
  const all = CATCH_ALL.find((c) => text === c || text.startsWith(`${c},`) || text.startsWith(`${c} `));
  if (all) {
    const rest = text.slice(all.length).replace(/^,?\s*EXCEPT\s+/, '');
    const excluded = rest.trim() ? splitCountyList(rest).join(';') : null;
    return [{ county: all, county_state: state, excluded }];
  }
  const out: { county: string; county_state: string; excluded: null }[] = [];
  for (const group of text.split(';')) {
    const m = /^(.*)\s+IN\s+([A-Z ]+)$/.exec(group.trim());
    const groupState = m ? toStateCode(m[2]!) : undefined;
    const names = splitCountyList(m && groupState ? m[1]! : group);
    for (const county of names) out.push({ county, county_state: groupState ?? state, excluded: null });
  }
  return out;
}

interface RawRow {
  line: number;
  mac: string;
  num: string;
  state: string;
  area: string;
  counties: string;
  truncated?: boolean;
}

/** Validates one locality row and yields one row per county; the state is filled down by the caller. */
function* toRows(raw: RawRow, year: number, seen: Map<string, string>): Generator<ParsedItem<LocalityCountyRow>> {
  const r = new RowReader(raw.line);
  const mac = r.text('mac', raw.mac, { required: true, pattern: /^\d{4,5}$/ }).padStart(5, '0');
  const num = r.text('locality_number', raw.num, { required: true, pattern: /^\d{1,2}$/ }).padStart(2, '0');
  const counties = r.text('counties', raw.counties, { required: true });
  const state = toStateCode(raw.state);
  const issues: Issue[] = [...r.issues];
  if (clean(raw.state) === '') {
    issues.push({ loc: ['row', raw.line, 'state'], msg: 'Field required: no state name in this block of rows', type: 'missing', input: raw.state });
  } else if (!state) {
    issues.push({ loc: ['row', raw.line, 'state'], msg: 'Unknown state name', type: 'value_error', input: raw.state });
  }
  if (raw.truncated) {
    issues.push({
      loc: ['row', raw.line, 'counties'],
      msg: `County list reaches the end of the ${TXT_COUNTY_WIDTH}-character column and may be cut; load the CSV edition`,
      type: 'truncated',
      input: raw.counties,
    });
  }
  if (issues.length > 0) {
    yield { line: raw.line, issues };
    return;
  }
  const areaText = clean(raw.area);
  const base = {
    locality: `${mac}${num}`,
    mac,
    locality_number: num,
    state: state!,
    fee_schedule_area: areaText.replace(/\*+$/, '').trim(),
    two_carriers: /\*$/.test(areaText),
    year,
  };
  // `HAWAII/GUAM` is one locality for two states: its catch-all row is kept for each of them.
  const also = clean(raw.state).split('/').slice(1).map((p) => toStateCode(p)).filter((c): c is string => c !== undefined && c !== state);
  const expanded = expandCounties(counties, state!);
  for (const extra of also) for (const c of expandCounties(counties, extra)) if (c.county.startsWith('ALL ')) expanded.push(c);
  for (const c of expanded) {
    const row: LocalityCountyRow = { ...base, county: c.county, county_state: c.county_state, excluded_counties: c.excluded };
    const key = `${row.locality}|${row.county_state}|${row.county}`;
    const sig = JSON.stringify(row);
    const prev = seen.get(key);
    // 25LOCCO lists MO 05302/99 "REST OF STATE*" twice; an identical repeat adds nothing.
    if (prev === sig) continue;
    if (prev !== undefined) {
      yield { line: raw.line, issues: [{ loc: ['row', raw.line, 'county'], msg: `Duplicate county ${row.county} for locality ${row.locality} with different values`, type: 'duplicate', input: c.county }] };
      continue;
    }
    seen.set(key, sig);
    yield { line: raw.line, row };
  }
}

async function* parseCsv(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<LocalityCountyRow>> {
  const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
  const { above } = await findHeader(records, file, isCsvHeader, 'Medicare Adminstrative Contractor, Locality Number, State, Fee Schedule Area, Counties');
  const year = yearFromTitle(above.map((a) => a.fields[0] ?? ''), file);
  const seen = new Map<string, string>();
  let state = '';
  for await (const { line, fields } of dataRecords(records, { keepBlank: true })) {
    // A blank row separates states: a block must name its state again.
    if (isBlankRecord(fields)) {
      state = '';
      continue;
    }
    // The footnote (`*  Payment locality is serviced by two carriers.`) has text in the first cell only.
    if (isBlankRecord(fields.slice(1))) continue;
    if (clean(fields[2]) !== '') state = clean(fields[2]);
    yield* toRows({ line, mac: fields[0] ?? '', num: fields[1] ?? '', state, area: fields[3] ?? '', counties: fields[4] ?? '' }, year, seen);
  }
}

function yearFromTitle(lines: string[], file: SourceFile): number {
  const y = yearOf({ name: file.name, text: lines.join('\n'), lines });
  if (y === undefined) throw new IngestError('no year in the title line or file name (expected "COUNTIES INCLUDED IN <YEAR> LOCALITIES" or <YY>LOCCO)', file.name, 1);
  return y;
}

async function* parseTxt(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<LocalityCountyRow>> {
  const { text } = await readText(file);
  ctx.onBytes(file.size);
  const lines = text.split('\n');
  if (text.trim() === '') throw new IngestError('file is empty', file.name, 1);
  const h = lines.findIndex((l) => isTxtHeader(l));
  if (h < 0) throw new IngestError('no header row found (expected Medicare Admi... Locality State Fee Schedule Area Counties)', file.name, Math.min(lines.length, 1));
  const year = yearFromTitle(lines.slice(0, h), file);
  const seen = new Map<string, string>();
  let state = '';
  for (let i = h + 1; i < lines.length; i++) {
    const l = lines[i]!;
    const line = i + 1;
    // A blank line separates states. 25LOCCO.txt omits CALIFORNIA on the first row of its
    // block, so those rows are rejected rather than inheriting ARKANSAS from the block above.
    if (l.trim() === '') {
      state = '';
      continue;
    }
    // Footnotes start at column 1; data rows are indented four spaces before the MAC.
    if (!/^\s+\d/.test(l)) continue;
    const stateCell = l.slice(22, 45).trim();
    if (stateCell) state = stateCell;
    const countyRaw = l.slice(TXT_COUNTY_START).replace(/\s+$/, '');
    // A county list cut at the column's end cannot be read whole: the edition is refused, naming the one to load.
    if (countyRaw.length >= TXT_COUNTY_WIDTH - 1) {
      const csv = file.name.replace(/\.txt$/i, '.csv');
      throw new IngestError(
        `the fixed-width edition cuts this county list at the end of its ${TXT_COUNTY_WIDTH}-character column ('${countyRaw.slice(-24)}'), so its counties cannot be read whole; load the CSV edition of the same release: rcm ingest locality_county ${csv}`,
        file.name,
        line,
        'counties',
      );
    }
    yield* toRows(
      {
        line,
        mac: l.slice(0, 12),
        num: l.slice(12, 22),
        state,
        area: l.slice(45, TXT_COUNTY_START),
        counties: countyRaw,
        truncated: countyRaw.length >= TXT_COUNTY_WIDTH - 1,
      },
      year,
      seen,
    );
  }
}

/**
 * CMS "Counties included in <year> localities" (`25LOCCO.csv` / `25LOCCO.txt` in the PFS RVU zip):
 * the county names behind each Medicare PFS locality, the fallback when a ZIP is not in the ZIP5 file.
 * The CSV strips leading zeros (`2102,1` is MAC 02102 locality 01), fills the state only on the
 * first row of each state, separates states with blank rows and quotes comma lists; the .txt
 * keeps the zeros but cuts county lists at column 201 (those rows are rejected as `truncated`).
 */
export const localityCounty = defineDataset({
  id: 'locality_county',
  title: 'Counties included in Medicare PFS localities (LOCCO)',
  publisher: 'CMS Medicare Physician Fee Schedule',
  formats: [
    '<YY>LOCCO.csv (title, blank row, header, state filled down, blank separator rows, quoted county lists, footnote)',
    '<YY>LOCCO.txt (same content, fixed width; county lists longer than 58 characters are cut)',
  ],
  row: LocalityCountyRowSchema,
  key: ['locality', 'county_state', 'county'],
  // Release metadata, the same on every row of a release: a diff does not count a row changed for it.
  meta: ['year'],
  detect: (s) =>
    s.lines.slice(0, 20).some((l) => isCsvHeader(l.split(',')) || isTxtHeader(l)) &&
    s.lines.slice(0, 5).some((l) => /COUNTIES INCLUDED IN/i.test(l)),
  version(samples): VersionInfo | undefined {
    const year = samples.map(yearOf).find((y) => y !== undefined);
    return year ? { label: String(year), effective_date: `${year}-01-01` } : undefined;
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<LocalityCountyRow>> {
    const head = (await sampleFile(file)).lines.slice(0, 20);
    if (head.some((l) => isCsvHeader(l.split(',')))) yield* parseCsv(file, ctx);
    else if (head.some(isTxtHeader)) yield* parseTxt(file, ctx);
    else yield* parseCsv(file, ctx); // reports "file is empty" or "no header row" with the line
  },
});
