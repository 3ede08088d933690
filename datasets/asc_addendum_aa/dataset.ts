import { z } from 'zod';
import { columnsOf, dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { monthNamed, monthRelease, titleCalendarYear } from '../_shared/dates.js';
import { IngestError } from '../_shared/issue.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One HCPCS code's ASC payment (CMS ASC Addendum AA, covered surgical procedures). */
export const AscAddendumAaRowSchema = z.object({
  hcpcs_code: z.string().describe('The procedure code (CPT, HCPCS level II or a CDT dental code).'),
  short_descriptor: z.string(),
  marker: z.string().nullable().describe('The unnamed second column as printed: `*` a temporary office-based designation (NOTE 2 of the file), `**` a preventive service without coinsurance (NOTE 3); null when blank.'),
  multiple_procedure_discount: z.boolean().describe('"Subject to Multiple Procedure Discounting" is `Y`.'),
  payment_indicator: z.string().describe('ASC payment indicator (`A2`, `G2`, `J8`, `N1`, `P3`, …; Addendum DD1).'),
  payment_weight: z.number().nullable().describe('ASC payment weight; null where CMS prints none (packaged N1, office-based P3 paid at the PFS amount).'),
  payment_rate: z.number().nullable().describe('National unadjusted ASC payment rate in dollars, as printed (`$1,579.16` -> 1579.16); null for packaged codes (N1): no separate payment, never 0.'),
  year: z.int().describe('The calendar year of the release (CY 2025).'),
});
/** One HCPCS code's ASC payment (Addendum AA). */
export type AscAddendumAaRow = z.infer<typeof AscAddendumAaRowSchema>;

/** Column positions found by header name (normalised prefix: CMS puts the quarter name and stray spaces inside the names). */
interface AscLayout {
  hcpcs: number;
  marker: number;
  descriptor: number;
  discount: number;
  indicator: number;
  weight: number;
  rate: number;
}

const h = (s: string): string => normHeader(s).trim();
/** `January 2025 Payment Indicator` -> `PAYMENT INDICATOR`: the quarter name a release writes before each name. */
const unquartered = (s: string): string => h(s).replace(/^[A-Z]+ \d{4} /, '');

/** Header row: `HCPCS Code,,Short Descriptor,Subject to Multiple Procedure Discounting,January 2025 Payment Indicator,…`. */
export const isAscHeader = (f: string[]): boolean => {
  const x = f.map(unquartered);
  return x[0] === 'HCPCS CODE' && x.some((s) => s.startsWith('SUBJECT TO MULTIPLE PROCEDURE DISCOUNT')) && x.includes('PAYMENT INDICATOR') && x.includes('PAYMENT RATE');
};

function ascLayout(header: string[], file: string, line: number): AscLayout {
  const x = header.map(unquartered);
  const { need } = columnsOf(x, file, line);
  const hcpcs = need('HCPCS Code', (s) => s === 'HCPCS CODE');
  const descriptor = need('Short Descriptor', (s) => s.startsWith('SHORT DESCRIPTOR'));
  return {
    hcpcs,
    // The unnamed column between the code and the descriptor holds the `*` / `**` markers.
    marker: descriptor - hcpcs === 2 && x[hcpcs + 1] === '' ? hcpcs + 1 : -1,
    descriptor,
    discount: need('Subject to Multiple Procedure Discounting', (s) => s.startsWith('SUBJECT TO MULTIPLE PROCEDURE DISCOUNT')),
    indicator: need('Payment Indicator', (s) => s === 'PAYMENT INDICATOR'),
    weight: need('Payment Weight', (s) => s === 'PAYMENT WEIGHT'),
    rate: need('Payment Rate', (s) => s === 'PAYMENT RATE'),
  };
}

/** `{label: '2025-01', effective_date: '2025-01-01'}` from `January 2025` or `Jan-2025`. */
function monthVersion(text: string): VersionInfo | undefined {
  const year = /(?<!\d)(20\d{2})(?!\d)/.exec(text)?.[1];
  const month = monthNamed(text);
  return year && month ? monthRelease(Number(year), month) : undefined;
}

/** The title: `Addendum AA -- ASC Covered Surgical Procedures for CY 2025`. */
const TITLE = /Addendum AA\b/i;

/**
 * The release: the quarter in the header text (`January 2025 Payment Indicator` -> `2025-01`), else
 * in the file name (`508-Version-Jan-2025-ASC-AA.csv`), else the title's `CY 2025` (`2025`).
 */
export function ascVersionOf(sample: FileSample): VersionInfo | undefined {
  const header = sample.lines.slice(0, 30).find((l) => isAscHeader(l.replace(/"/g, '').split(',')));
  const fromHeader = header ? monthVersion(header.split(',').find((c) => /PAYMENT INDICATOR/i.test(c)) ?? '') : undefined;
  const v = fromHeader ?? monthVersion(sample.name);
  if (v) return v;
  const year = titleCalendarYear(sample.lines, TITLE);
  return year ? { label: String(year), effective_date: `${year}-01-01` } : undefined;
}

/**
 * CMS ASC Addendum AA, section 508 CSV (`508-Version-Jan-2025-ASC-AA.csv`): CP1252 (three 0xFF
 * bytes in the AMA notice), a title line, the notice, an empty line, then the header with an
 * unnamed second column (`*`/`**` markers) and the quarter inside the names (`January 2025 Payment
 * Indicator`, `January 2025  Payment Weight  `); money as `$1,579.16` (quoted with a comma); no
 * weight or rate for packaged codes (N1); notes and `,,,,,,` rows after the last code.
 */
export const ascAddendumAa = defineDataset({
  id: 'asc_addendum_aa',
  title: 'ASC covered surgical procedures (Addendum AA): payment indicator, multiple procedure discounting, weight, national rate',
  publisher: 'CMS Ambulatory Surgical Center payment (Addendum AA)',
  formats: ['508-Version-<Mon>-<YYYY>-ASC-AA.csv (section 508 CSV: title, notice, header HCPCS Code, (unnamed), Short Descriptor, Subject to Multiple Procedure Discounting, <Month YYYY> Payment Indicator, Payment Weight, Payment Rate)'],
  row: AscAddendumAaRowSchema,
  key: ['hcpcs_code'],
  // Release metadata, the same on every row of a release: a diff does not count a row changed for it.
  meta: ['year'],
  detect: (s) => s.lines.slice(0, 30).some((l) => isAscHeader(l.replace(/"/g, '').split(','))),
  version: (samples) => samples.map(ascVersionOf).find((v) => v !== undefined),
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<AscAddendumAaRow>> {
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    const { header, above } = await findHeader(records, file, isAscHeader, 'HCPCS Code, (unnamed), Short Descriptor, Subject to Multiple Procedure Discounting, Payment Indicator, Payment Weight, Payment Rate', 40);
    const layout = ascLayout(header.fields, file.name, header.line);
    const year = Number(monthVersion(header.fields[layout.indicator] ?? '')?.label.slice(0, 4) ?? titleCalendarYear(above.map((r) => r.fields.join(',')), TITLE) ?? /(20\d{2})/.exec(file.name)?.[1] ?? NaN);
    if (!Number.isFinite(year)) throw new IngestError('no year found (header "<Month> <YYYY> Payment Indicator", title "… for CY <YYYY>" or a year in the file name)', file.name, header.line);
    const seen = new Set<string>();
    let notes = false;
    for await (const { line, fields } of dataRecords(records)) {
      // The notes below the last code (`NOTE 1: Payment indicators for "office-based" …`) end the table.
      if (notes || /^NOTE\s*\d/i.test(clean(fields[0]))) {
        notes = true;
        continue;
      }
      const r = new RowReader(line);
      const cell = (i: number): string | undefined => (i >= 0 ? fields[i] : undefined);
      const discount = r.text('Subject to Multiple Procedure Discounting', cell(layout.discount), { required: true, pattern: /^[YN]$/ });
      const row: AscAddendumAaRow = {
        hcpcs_code: r.text('HCPCS Code', cell(layout.hcpcs), { required: true, pattern: /^[A-Z0-9]{5}$/ }),
        short_descriptor: clean(cell(layout.descriptor)),
        marker: r.text('(unnamed)', cell(layout.marker), { pattern: /^\*{1,2}$/ }) || null,
        multiple_procedure_discount: discount === 'Y',
        payment_indicator: r.text('Payment Indicator', cell(layout.indicator), { required: true, pattern: /^[A-Z][A-Z0-9]$/ }),
        payment_weight: r.number('Payment Weight', cell(layout.weight), { min: 0 }),
        payment_rate: r.number('Payment Rate', cell(layout.rate), { min: 0 }),
        year,
      };
      if (r.ok && seen.has(row.hcpcs_code)) {
        r.issues.push({ loc: ['row', line, 'HCPCS Code'], msg: `duplicate HCPCS ${row.hcpcs_code}`, type: 'duplicate_key', input: row.hcpcs_code });
      }
      if (!r.ok) {
        yield { line, issues: r.issues };
        continue;
      }
      seen.add(row.hcpcs_code);
      yield { line, row };
    }
  },
});
