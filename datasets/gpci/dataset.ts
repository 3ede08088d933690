import { z } from 'zod';
import { dataRecords, findHeader, isBlankRecord, normHeader } from '../_shared/header.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
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
  formats: ['GPCI<YEAR>.csv (Addendum E CSV: title, blank row, header, 109 localities, footnotes)'],
  row: GpciRowSchema,
  key: ['locality'],
  // Release metadata, the same on every row of a release: a diff does not count a row changed for it.
  meta: ['year'],
  detect: (s) => s.lines.slice(0, 20).some((l) => isGpciHeader(l.split(','))),
  version(samples): VersionInfo | undefined {
    const year = samples.map(yearOf).find((y) => y !== undefined);
    return year ? { label: String(year), effective_date: `${year}-01-01` } : undefined;
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<GpciRow>> {
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
