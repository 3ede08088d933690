import { z } from 'zod';
import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { IngestError } from '../_shared/issue.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One ZIP code CMS treats as rural for DMEPOS pricing (the `(R)` fee applies there). */
export const DmeposRuralZipRowSchema = z.object({
  zip: z.string().describe('Five digits, leading zeros kept (`01223`).'),
  state: z.string(),
  year_quarter: z.string().describe("`YYYYQ` as printed in the file's YEAR/QTR column, e.g. `202501`."),
  year: z.int(),
  quarter: z.int(),
});
/** One ZIP code CMS treats as rural for DMEPOS pricing (the `(R)` fee applies there). */
export type DmeposRuralZipRow = z.infer<typeof DmeposRuralZipRowSchema>;

/** `STATE,DMEPOS RURAL ZIP CODE,YEAR/QTR` (spaces around the slash tolerated). */
export const isRuralZipHeader = (f: string[]): boolean => {
  const h = f.map(normHeader);
  return h[0] === 'STATE' && h[1] === 'DMEPOS RURAL ZIP CODE' && /^YEAR\s*\/\s*QTR$/.test(h[2] ?? '');
};

/** `202501` -> `2025Q1`; the YEAR/QTR cell carries the year and a zero-padded quarter. */
export function toRuralVersion(yq: string): VersionInfo | undefined {
  const m = /^(20\d{2})0?([1-4])$/.exec(yq.trim());
  if (!m) return undefined;
  const q = Number(m[2]);
  return { label: `${m[1]}Q${q}`, effective_date: `${m[1]}-${String((q - 1) * 3 + 1).padStart(2, '0')}-01` };
}

function versionOf(sample: FileSample): VersionInfo | undefined {
  const hi = sample.lines.findIndex((l) => isRuralZipHeader(l.split(',')));
  if (hi >= 0) {
    for (const l of sample.lines.slice(hi + 1, hi + 20)) {
      const v = toRuralVersion(l.split(',')[2] ?? '');
      if (v) return v;
    }
  }
  const n = /Quarter\s*([1-4]),?\s*(20\d{2})/i.exec(sample.name);
  return n ? toRuralVersion(`${n[2]}0${n[1]}`) : undefined;
}

/**
 * CMS DMEPOS rural ZIP list (`DME Rural ZIP Code Quarter 1, 2025.csv`): header
 * `STATE,DMEPOS RURAL ZIP CODE,YEAR/QTR`, one ZIP per line with leading zeros (`MA,01223,202501`).
 * ZIPs are read as text; a number-typed reader would turn `01223` into 1223 and miss the match.
 */
export const dmeposRuralZip = defineDataset({
  id: 'dmepos_rural_zip',
  title: 'DMEPOS rural ZIP codes (rural fee schedule amounts apply)',
  publisher: 'CMS DMEPOS Fee Schedule',
  formats: ['DME Rural ZIP Code Quarter <Q>, <YYYY>.csv (STATE, DMEPOS RURAL ZIP CODE, YEAR/QTR)'],
  row: DmeposRuralZipRowSchema,
  key: ['zip'],
  // Release metadata, the same on every row of a release: a diff does not count a row changed for it.
  meta: ['year_quarter', 'year', 'quarter'],
  detect: (s) => s.lines.slice(0, 10).some((l) => isRuralZipHeader(l.replace(/"/g, '').split(','))),
  version(samples): VersionInfo | undefined {
    return samples.map(versionOf).find((v) => v !== undefined);
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<DmeposRuralZipRow>> {
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    await findHeader(records, file, isRuralZipHeader, 'STATE, DMEPOS RURAL ZIP CODE, YEAR/QTR', 20);
    let first: string | undefined;
    for await (const { line, fields } of dataRecords(records)) {
      const r = new RowReader(line);
      const state = r.text('STATE', fields[0], { required: true, pattern: /^[A-Z]{2}$/ });
      const zip = r.text('DMEPOS RURAL ZIP CODE', fields[1], { required: true, pattern: /^\d{5}$/ });
      const yq = r.text('YEAR/QTR', fields[2], { required: true, pattern: /^20\d{2}0[1-4]$/ });
      if (r.ok) {
        // A file is one quarter; a second quarter inside it means two files were concatenated.
        first ??= yq;
        if (yq !== first) throw new IngestError(`YEAR/QTR ${yq} differs from the file's ${first}`, file.name, line, 'YEAR/QTR');
      }
      yield r.ok
        ? { line, row: { zip, state, year_quarter: yq, year: Number(yq.slice(0, 4)), quarter: Number(yq.slice(4)) } }
        : { line, issues: r.issues };
    }
  },
});
