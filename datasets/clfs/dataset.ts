import { z } from 'zod';
import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { readRecords, sampleFile, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One Clinical Laboratory Fee Schedule national limit for a HCPCS (+ `QW` modifier). */
export const ClfsRowSchema = z.object({
  hcpcs_code: z.string(),
  modifier: z.string().describe("QW or ''"),
  year: z.int(),
  effective_date: z.string().describe('`YYYY-MM-DD` from EFF_DATE (`20260701` for codes added in Q3).'),
  indicator: z.string().describe('`N` national limit, `L` locally priced by the MAC.'),
  rate: z.number().nullable().describe('null when not nationally priced'),
  short_descriptor: z.string(),
  long_descriptor: z.string().nullable(),
  extended_long_descriptor: z.string().nullable().describe('Absent in the `~`-delimited .txt layout.'),
});
/** One Clinical Laboratory Fee Schedule national limit for a HCPCS (+ `QW` modifier). */
export type ClfsRow = z.infer<typeof ClfsRowSchema>;

const HEADER_START = ['YEAR', 'HCPCS', 'MOD', 'EFF_DATE', 'INDICATOR', 'RATE', 'SHORTDESC'];

/** `YEAR,HCPCS,MOD,EFF_DATE,INDICATOR,RATE,SHORTDESC[,LONGDESC,EXTENDEDLONGDESC|EXTENDED LONGDESC]`. */
export const isClfsHeader = (f: string[]): boolean => HEADER_START.every((name, i) => normHeader(f[i] ?? '') === name);

function delimiterOf(lines: string[]): ',' | '~' | undefined {
  for (const l of lines.slice(0, 40)) {
    if (isClfsHeader(l.split('~'))) return '~';
    if (isClfsHeader(l.split(','))) return ',';
  }
  return undefined;
}

/**
 * Version from the file name, as `<YYYY>Q<q>V<n>`: `PUF_CLFS_CY2026_Q3V1.csv` -> `2026Q3V1`,
 * `CLFS 2025 Q2V1.csv` -> `2025Q2V1`, CMS zip members `25CLABQ2.csv` -> `2025Q2V1`. The preamble
 * only names the year (`2026 Clinical Diagnostic Laboratory Fee Schedule`), so that is the fallback.
 */
export function clfsVersionOf(sample: FileSample): VersionInfo | undefined {
  const quarter = (year: string, q: number, v: number): VersionInfo => ({
    label: `${year}Q${q}V${v}`,
    effective_date: `${year}-${String((q - 1) * 3 + 1).padStart(2, '0')}-01`,
  });
  const n = /(?:CY)?\s*(20\d{2})[\s_]*Q([1-4])\s*V(\d+)/i.exec(sample.name);
  if (n) return quarter(n[1]!, Number(n[2]), Number(n[3]));
  const z = /(?:^|[^0-9])(\d{2})CLABQ([1-4])/i.exec(sample.name);
  if (z) return quarter(`20${z[1]}`, Number(z[2]), 1);
  for (const l of sample.lines.slice(0, 6)) {
    const m = /^\s*"?(20\d{2}) Clinical Diagnostic Laboratory Fee Schedule/i.exec(l);
    if (m) return { label: m[1]!, effective_date: `${m[1]}-01-01` };
  }
  return undefined;
}

/**
 * CMS Clinical Laboratory Fee Schedule. Three layouts share one parser, matched by header content:
 * the 2026 CSV (`PUF_CLFS_CY2026_Q3V1.csv`: 4-line preamble NOT comma-padded with unquoted commas,
 * LF preamble then CRLF data), the 2025 CSV (`CLFS 2025 Q2V1.csv`: padded preamble, header
 * `EXTENDED LONGDESC` with a space, RATE printed both `00720.00` and `21.9`), and the `~`-delimited
 * `.txt` (7 columns, blank MOD written as two spaces). `L` rows with `00000.00` are not
 * nationally priced and get a null rate, never $0.
 */
export const clfs = defineDataset({
  id: 'clfs',
  title: 'Clinical Laboratory Fee Schedule national limits',
  publisher: 'CMS Clinical Laboratory Fee Schedule',
  formats: [
    'PUF_CLFS_CY<YYYY>_Q<q>V<n>.csv (2026+ CSV, header YEAR,HCPCS,MOD,EFF_DATE,INDICATOR,RATE,SHORTDESC,LONGDESC,EXTENDEDLONGDESC)',
    'CLFS <YYYY> Q<q>V<n>.csv (older CSV, EXTENDED LONGDESC)',
    'PUF_CLFS_CY<YYYY>_Q<q>V<n>.txt (~ delimited, 7 columns)',
  ],
  row: ClfsRowSchema,
  key: ['hcpcs_code', 'modifier'],
  // Release metadata, the same on every row of a release: a diff does not count a row changed for it.
  meta: ['year', 'effective_date'],
  detect: (s) => delimiterOf(s.lines) !== undefined,
  version(samples): VersionInfo | undefined {
    return samples.map(clfsVersionOf).find((v) => v !== undefined);
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<ClfsRow>> {
    const sample = await sampleFile(file, 16384);
    const delimiter = delimiterOf(sample.lines) ?? ',';
    // The .txt has no quoting at all; a `"` there would be data.
    const records = readRecords(file, { delimiter, quote: delimiter === '~' ? false : undefined, onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    const { header } = await findHeader(records, file, isClfsHeader, 'YEAR,HCPCS,MOD,EFF_DATE,INDICATOR,RATE,SHORTDESC', 40);
    const h = header.fields.map(normHeader);
    const longAt = h.indexOf('LONGDESC');
    const extAt = h.findIndex((x) => x === 'EXTENDEDLONGDESC' || x === 'EXTENDED LONGDESC');
    const seen = new Set<string>();
    for await (const { line, fields } of dataRecords(records)) {
      const r = new RowReader(line);
      const hcpcs = r.text('HCPCS', fields[1], { required: true, pattern: /^[A-Z0-9]{5}$/ });
      const modifier = r.text('MOD', fields[2], { pattern: /^[A-Z0-9]{2}$/ });
      const year = r.integer('YEAR', fields[0], { required: true, min: 1980, max: 2100 });
      const effective = r.date('EFF_DATE', fields[3], { required: true });
      const indicator = r.text('INDICATOR', fields[4], { required: true, pattern: /^[NL]$/ });
      const rate = r.number('RATE', fields[5], { required: true, min: 0 });
      const short_descriptor = r.text('SHORTDESC', fields[6], { required: true });
      if (r.ok) {
        const key = `${hcpcs}|${modifier}`;
        if (seen.has(key)) {
          yield { line, issues: [{ loc: ['row', line, 'HCPCS'], msg: `duplicate key ${hcpcs} ${modifier || '(no modifier)'}`, type: 'duplicate_key', input: hcpcs }] };
          continue;
        }
        seen.add(key);
      }
      if (!r.ok) {
        yield { line, issues: r.issues };
        continue;
      }
      yield {
        line,
        row: {
          hcpcs_code: hcpcs,
          modifier,
          year: year!,
          effective_date: effective!,
          indicator,
          // `00000.00` is the file's way to say "no national limit" (INDICATOR L); $0 would be a lie.
          rate: rate === 0 ? null : rate,
          short_descriptor,
          long_descriptor: longAt >= 0 ? clean(fields[longAt]) || null : null,
          extended_long_descriptor: extAt >= 0 ? clean(fields[extAt]) || null : null,
        },
      };
    }
  },
});
