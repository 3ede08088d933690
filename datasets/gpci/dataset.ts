import { z } from 'zod';
import { dataRecords, findHeader, isBlankRecord, normHeader } from '../_shared/header.js';
import { readLines, readRecords, sampleFile, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One Medicare locality's GPCIs (CMS PFS Addendum E). */
export const GpciRowSchema = z.object({
  locality: z.string().describe('MAC + locality number (7 digits)'),
  mac: z.string(),
  locality_number: z.string(),
  state: z.string(),
  locality_name: z.string(),
  pw_gpci: z.number(),
  pe_gpci: z.number(),
  mp_gpci: z.number(),
  year: z.int(),
});
/** One Medicare locality's GPCIs (CMS PFS Addendum E). */
export type GpciRow = z.infer<typeof GpciRowSchema>;

const isGpciHeader = (f: string[]) => f.length >= 7 && /PW GPCI/.test(normHeader(f[4] ?? '')) && /PE GPCI/.test(normHeader(f[5] ?? ''));

/** The fixed-width twin's header (`GPCI2025.txt`): the same columns in one line of text, no commas. */
const isTextHeader = (line: string) => !line.includes(',') && /PW GPCI/.test(line) && /PE GPCI/.test(line) && /MP GPCI/.test(line);

/** A data line of the fixed-width twin: MAC, state, locality number, the name, then the three GPCIs. */
const TEXT_ROW = /^\s*(\d{5})\s+([A-Z]{2})\s+(\d{2})\s+(.*?)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s*$/;

function yearOf(sample: FileSample): number | undefined {
  for (const line of sample.lines.slice(0, 20)) {
    const m = /(?:CY\s*|\b)(20\d{2}) PW GPCI/i.exec(line) ?? /FINAL CY (20\d{2}) GEOGRAPHIC/i.exec(line);
    if (m) return Number(m[1]);
  }
  const n = /GPCI(20\d{2})/i.exec(sample.name);
  return n ? Number(n[1]) : undefined;
}

/**
 * CMS GPCI CSV (`GPCI2025.csv`, `GPCI2026.csv`): a title line and a blank comma row above the
 * header, the year inside header names (`2026 PW GPCI (with 1.0 Floor)***`), footnote lines after
 * the data, MAC/locality with leading zeros, 2025 drops trailing zeros (`1`), 2026 prints `1.000`.
 */
export const gpci = defineDataset({
  id: 'gpci',
  title: 'Geographic Practice Cost Indices by Medicare locality (PFS Addendum E)',
  publisher: 'CMS Medicare Physician Fee Schedule',
  formats: ['GPCI<YEAR>.csv (Addendum E CSV: title, blank row, header, 109 localities, footnotes)', 'GPCI<YEAR>.txt (the same as fixed-width text: MAC, state, locality, name, the three GPCIs)'],
  row: GpciRowSchema,
  key: ['locality'],
  // Release metadata, the same on every row of a release: a diff does not count a row changed for it.
  meta: ['year'],
  detect: (s) => s.lines.slice(0, 20).some((l) => isGpciHeader(l.split(',')) || isTextHeader(l)),
  version(samples): VersionInfo | undefined {
    const year = samples.map(yearOf).find((y) => y !== undefined);
    return year ? { label: String(year), effective_date: `${year}-01-01` } : undefined;
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<GpciRow>> {
    if ((await sampleFile(file)).lines.slice(0, 20).some(isTextHeader)) {
      yield* parseText(file, ctx);
      return;
    }
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    const { header } = await findHeader(records, file, isGpciHeader, 'MAC, State, Locality Number, Locality Name, PW/PE/MP GPCI');
    const year = Number(/(20\d{2})/.exec(header.fields[4] ?? '')?.[1] ?? NaN);
    for await (const { line, fields } of dataRecords(records)) {
      // Footnotes and separators carry text in the first cell only.
      if (isBlankRecord(fields.slice(1))) continue;
      const r = new RowReader(line);
      const mac = r.text('mac', fields[0], { required: true, pattern: /^\d{5}$/ });
      const num = r.text('locality_number', fields[2], { required: true, pattern: /^\d{2}$/ });
      const row: GpciRow = {
        locality: `${mac}${num}`,
        mac,
        locality_number: num,
        state: r.text('state', fields[1], { required: true, pattern: /^[A-Z]{2}$/ }),
        locality_name: clean(fields[3]).replace(/\*+$/, ''),
        pw_gpci: r.number('pw_gpci', fields[4], { required: true, min: 0, max: 5 }) ?? 0,
        pe_gpci: r.number('pe_gpci', fields[5], { required: true, min: 0, max: 5 }) ?? 0,
        mp_gpci: r.number('mp_gpci', fields[6], { required: true, min: 0, max: 5 }) ?? 0,
        year,
      };
      yield r.ok ? { line, row } : { line, issues: r.issues };
    }
  },
});

/**
 * The fixed-width twin (`GPCI2025.txt`): the title, a blank line, the header, then one locality a
 * line; its numbers keep their trailing zeros and its MAC and locality their leading ones. The
 * header names the year (`2025 PW GPCI`); footnote lines after the data are skipped.
 */
async function* parseText(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<GpciRow>> {
  let year: number | null = null;
  for await (const { line, text } of readLines(file, { onBytes: ctx.onBytes })) {
    if (year === null) {
      if (isTextHeader(text)) year = Number(/(20\d{2}) PW GPCI/.exec(text)?.[1] ?? NaN);
      continue;
    }
    if (!text.trim()) continue;
    const m = TEXT_ROW.exec(text);
    // A footnote (text that is not a locality line) ends nothing: it is skipped.
    if (!m) {
      if (/^\s*\d{5}\s/.test(text)) yield { line, issues: [{ loc: ['row', line], msg: 'a locality line without its MAC, state, locality number, name and three GPCIs', type: 'value_error' }] };
      continue;
    }
    const r = new RowReader(line);
    const row: GpciRow = {
      locality: `${m[1]}${m[3]}`,
      mac: m[1]!,
      locality_number: m[3]!,
      state: m[2]!,
      locality_name: clean(m[4]).replace(/\*+$/, ''),
      pw_gpci: r.number('pw_gpci', m[5], { required: true, min: 0, max: 5 }) ?? 0,
      pe_gpci: r.number('pe_gpci', m[6], { required: true, min: 0, max: 5 }) ?? 0,
      mp_gpci: r.number('mp_gpci', m[7], { required: true, min: 0, max: 5 }) ?? 0,
      year,
    };
    yield r.ok ? { line, row } : { line, issues: r.issues };
  }
}
