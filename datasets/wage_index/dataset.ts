import { z } from 'zod';
import { dataRecords, findHeader, isBlankRecord, normHeader } from '../_shared/header.js';
import { IngestError } from '../_shared/issue.js';
import { readRecords, sampleFile, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One CBSA's FY IPPS wage index and capital GAF (IPPS final rule Table 3). */
export const WageIndexRowSchema = z.object({
  cbsa: z.string().describe("5-digit CBSA (metro division where one exists), or the 2-digit state code of a state's rural area."),
  area_name: z.string(),
  state: z.string().describe('State(s) as printed: `CA`, `NY-NJ`.'),
  wage_index: z.number(),
  gaf: z.number().nullable(),
  reclassified_wage_index: z.number().nullable(),
  reclassified_gaf: z.number().nullable(),
  is_rural: z.boolean().describe('True for the 2-digit statewide rural areas.'),
  fiscal_year: z.int().describe('Federal fiscal year, e.g. 2026 (Oct 1 2025 - Sep 30 2026).'),
});
/** One CBSA's FY IPPS wage index and capital GAF (IPPS final rule Table 3). */
export type WageIndexRow = z.infer<typeof WageIndexRowSchema>;

/** Finds header columns by name so CMS's column order and extra columns do not matter. */
export function columnIndex(header: string[], patterns: Record<string, RegExp>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, re] of Object.entries(patterns)) out[name] = header.findIndex((h) => re.test(normHeader(h)));
  return out;
}

const COLS = {
  cbsa: /^CBSA( CODE)?$/,
  area_name: /^(AREA NAME|CBSA NAME|URBAN AREA)$/,
  state: /^STATE( CODE)?$/,
  wage_index: /^(FY ?\d{4} )?WAGE INDEX$/,
  gaf: /^(FY ?\d{4} )?GAF$/,
  reclassified_wage_index: /^RECLASSIFIED (HOSPITALS )?WAGE INDEX$/,
  reclassified_gaf: /^RECLASSIFIED (HOSPITALS )?GAF$/,
};

const isHeader = (f: string[]) => {
  const h = f.map(normHeader);
  return h.some((x) => COLS.cbsa.test(x)) && h.some((x) => COLS.wage_index.test(x)) && h.some((x) => COLS.gaf.test(x));
};

/** The fiscal year in a title line (`... - FY 2026 Final Rule`) or file name (`FY2026 ...`). */
export function fiscalYearOf(sample: FileSample, titleRe: RegExp): number | undefined {
  for (const line of sample.lines.slice(0, 10)) {
    if (!titleRe.test(line)) continue;
    const m = /\bFY\s*(20\d{2})\b/i.exec(line);
    if (m) return Number(m[1]);
  }
  const n = /\bFY\s*_?(20\d{2})/i.exec(sample.name);
  return n ? Number(n[1]) : undefined;
}

/** `FY2026`, effective October 1 of the previous calendar year. */
export function fiscalVersion(fy: number | undefined): VersionInfo | undefined {
  return fy ? { label: `FY${fy}`, effective_date: `${fy - 1}-10-01` } : undefined;
}

const TITLE = /WAGE INDEX/i;

/**
 * IPPS final rule Table 3 "Wage Index and Capital Geographic Adjustment Factor (GAF) by CBSA"
 * (CSV export or the tab-delimited .txt): a title line naming the fiscal year, then a header
 * matched by column names (`CBSA`, `Area Name`, `State`, `Wage Index`, `GAF`, optional
 * reclassified columns). Rural areas are listed by their 2-digit state code. The FY26 wage index
 * drives the outpatient facility block of payment composition.
 */
export const wageIndex = defineDataset({
  id: 'wage_index',
  title: 'IPPS wage index and capital GAF by CBSA (final rule Table 3)',
  publisher: 'CMS Acute Inpatient PPS (IPPS final rule tables)',
  formats: ['FY<YEAR> Table 3 CSV or tab-delimited text: title line with "FY <YEAR>", header CBSA, Area Name, State, Wage Index, GAF[, Reclassified Wage Index, Reclassified GAF]'],
  row: WageIndexRowSchema,
  key: ['cbsa'],
  // Release metadata, the same on every row of a release: a diff does not count a row changed for it.
  meta: ['fiscal_year'],
  detect: (s) => s.lines.slice(0, 20).some((l) => isHeader(l.split(l.includes('\t') ? '\t' : ','))),
  version(samples): VersionInfo | undefined {
    return fiscalVersion(samples.map((s) => fiscalYearOf(s, TITLE)).find((y) => y !== undefined));
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<WageIndexRow>> {
    const sample = await sampleFile(file);
    const tab = sample.lines.slice(0, 20).some((l) => l.includes('\t') && isHeader(l.split('\t')));
    const delimiter = tab ? '\t' : ',';
    const records = readRecords(file, { delimiter, onBytes: ctx.onBytes, quote: tab ? false : '"' })[Symbol.asyncIterator]();
    const { header, above } = await findHeader(records, file, isHeader, 'CBSA, Area Name, State, Wage Index, GAF');
    const lines = above.map((a) => a.fields.join(' '));
    const fy = fiscalYearOf({ name: file.name, text: lines.join('\n'), lines }, TITLE);
    if (!fy) throw new IngestError('no fiscal year in the title line or file name (expected "FY <YEAR>")', file.name, header.line);
    const col = columnIndex(header.fields, COLS);
    if (col.area_name! < 0) throw new IngestError('no Area Name column', file.name, header.line, 'area_name');
    for await (const { line, fields } of dataRecords(records)) {
      const cell = (k: keyof typeof COLS) => (col[k]! >= 0 ? fields[col[k]!] : undefined);
      // Footnotes below the table carry text in the first cell only.
      if (isBlankRecord(fields.slice(1)) && !/^\d+$/.test(clean(fields[0]))) continue;
      const r = new RowReader(line);
      const cbsa = r.text('cbsa', cell('cbsa'), { required: true, pattern: /^(\d{5}|\d{2})$/ });
      const row: WageIndexRow = {
        cbsa,
        area_name: r.text('area_name', cell('area_name'), { required: true }),
        state: r.text('state', cell('state'), { pattern: /^[A-Z]{2}(-[A-Z]{2})*$/ }),
        wage_index: r.number('wage_index', cell('wage_index'), { required: true, min: 0, max: 5 }) ?? 0,
        gaf: r.number('gaf', cell('gaf'), { min: 0, max: 5 }),
        reclassified_wage_index: r.number('reclassified_wage_index', cell('reclassified_wage_index'), { min: 0, max: 5 }),
        reclassified_gaf: r.number('reclassified_gaf', cell('reclassified_gaf'), { min: 0, max: 5 }),
        is_rural: /^\d{2}$/.test(cbsa),
        fiscal_year: fy,
      };
      yield r.ok ? { line, row } : { line, issues: r.issues };
    }
  },
});

