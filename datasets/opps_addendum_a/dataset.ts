import { z } from 'zod';
import { columnsOf, dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { monthNamed, monthRelease, titleCalendarYear } from '../_shared/dates.js';
import { IngestError } from '../_shared/issue.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { oppsPaymentCells, oppsPaymentColumns, type OppsPaymentColumns } from '../opps_addendum_b/dataset.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One APC of the OPPS (Addendum A): group title, status indicator, weight, payment rate, copayments. */
export const OppsAddendumARowSchema = z.object({
  apc: z.string().describe('Ambulatory Payment Classification: four digits with leading zeros (`0701`, `5012`).'),
  group_title: z.string().describe('Group Title as printed (double spaces kept out: runs of spaces are one).'),
  status_indicator: z.string().describe('Status indicator of the APC (`G`, `K`, `S`, `T`, `J1`, …).'),
  relative_weight: z.number().nullable().describe('Null for drug and biological APCs (SI G/K) and New Technology APCs, where CMS prints none.'),
  payment_rate: z.number().nullable().describe('National unadjusted payment rate (`$4,146.335`: 3 decimals kept).'),
  national_unadjusted_copayment: z.number().nullable().describe('Null where CMS prints `.` (no national copay), never 0.'),
  minimum_unadjusted_copayment: z.number().nullable(),
  ira_coinsurance_pct: z.number().nullable().describe('Inflation-adjusted coinsurance percent (`19.787%` -> 19.787).'),
  adjusted_copayment: z.number().nullable().describe('Adjusted Beneficiary Copayment (IRA adjusted, or capped at the inpatient deductible).'),
  drug_device_passthrough_expiry: z.string().nullable().describe('Pass-through expiration during the calendar year, as printed.'),
  note: z.string().nullable().describe('Note (`Inflation-adjusted coinsurance`, `Copayments capped at inpatient deductible of $1,676.00.`, …), as printed.'),
  year: z.int().describe('The calendar year of the release (title `Addendum A.- OPPS APCs for CY 2025`).'),
});
/** One APC of the OPPS (Addendum A). */
export type OppsAddendumARow = z.infer<typeof OppsAddendumARowSchema>;

const h = (s: string): string => normHeader(s).trim();

/** Header row: `APC,Group Title,SI,Relative Weight,Payment Rate,…,Note,` (the 508 CSV ends each line with an empty field). */
export const isAddendumAHeader = (f: string[]): boolean => {
  const x = f.map(h);
  return x[0] === 'APC' && x.includes('GROUP TITLE') && x.includes('PAYMENT RATE');
};

interface Layout extends OppsPaymentColumns {
  apc: number;
  title: number;
  si: number;
}

function layoutOf(header: string[], file: string, line: number): Layout {
  const columns = columnsOf(header.map(h), file, line);
  const { need } = columns;
  return {
    apc: need('APC', (s) => s === 'APC'),
    title: need('Group Title', (s) => s === 'GROUP TITLE'),
    si: need('SI', (s) => s === 'SI' || s === 'STATUS INDICATOR'),
    ...oppsPaymentColumns(columns),
  };
}

/** The title line: `,Addendum A.- OPPS APCs for CY 2025,,,…`. */
const TITLE = /Addendum A\b/i;

/**
 * Version `YYYY-MM`: the release month from the file name (`Section 508 version of January 2025 Web
 * Addendum A.12.31.24.csv` -> `2025-01`), the year from the title (else the name); `YYYY` when the
 * name has no month.
 */
export function addendumAVersionOf(sample: FileSample): VersionInfo | undefined {
  const named = /(20\d{2})/.exec(sample.name);
  const year = titleCalendarYear(sample.lines, TITLE) ?? (named ? Number(named[1]) : undefined);
  return year === undefined ? undefined : monthRelease(year, monthNamed(sample.name));
}

/**
 * CMS OPPS Addendum A, section 508 CSV (`Section 508 version of <Month> <YYYY> Web Addendum
 * A.<MM.DD.YY>.csv`): title in the second field of line 1, a coinsurance note on line 2, the
 * header on line 3; a trailing empty field on every line; money as `$4,146.335` (3 decimals for
 * payment rates), `.` for "no national copay", `19.787%`; relative weight empty for drug APCs.
 */
export const oppsAddendumA = defineDataset({
  id: 'opps_addendum_a',
  title: 'OPPS APCs (Addendum A): group title, status indicator, relative weight, payment rate, copayments',
  publisher: 'CMS Hospital Outpatient PPS',
  formats: ['Section 508 version of <Month> <YYYY> Web Addendum A.<MM.DD.YY>.csv (title, note, header APC, Group Title, SI, Relative Weight, Payment Rate, …)'],
  row: OppsAddendumARowSchema,
  key: ['apc'],
  // Release metadata, the same on every row of a release: a diff does not count a row changed for it.
  meta: ['year'],
  detect: (s) => s.lines.slice(0, 20).some((l) => isAddendumAHeader(l.replace(/"/g, '').split(','))),
  version: (samples) => samples.map(addendumAVersionOf).find((v) => v !== undefined),
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<OppsAddendumARow>> {
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    const { header, above } = await findHeader(records, file, isAddendumAHeader, 'APC, Group Title, SI, Relative Weight, Payment Rate, …', 40);
    const L = layoutOf(header.fields, file.name, header.line);
    const year = titleCalendarYear(above.map((r) => r.fields.join(',')), TITLE) ?? Number(/(20\d{2})/.exec(file.name)?.[1] ?? NaN);
    if (!Number.isFinite(year)) throw new IngestError('no year found (title "Addendum A.- OPPS APCs for CY <YYYY>" or a year in the file name)', file.name, header.line);
    const seen = new Set<string>();
    for await (const { line, fields } of dataRecords(records)) {
      const r = new RowReader(line);
      const cell = (i: number): string | undefined => (i >= 0 ? fields[i] : undefined);
      const apc = r.text('APC', cell(L.apc), { required: true, pattern: /^\d{1,4}$/ });
      const row: OppsAddendumARow = {
        apc: apc.padStart(4, '0'),
        group_title: clean(cell(L.title)).replace(/\s+/g, ' '),
        status_indicator: r.text('SI', cell(L.si), { required: true, pattern: /^[A-Z][A-Z0-9]?$/ }),
        ...oppsPaymentCells(r, cell, L),
        year,
      };
      if (r.ok && seen.has(row.apc)) r.issues.push({ loc: ['row', line, 'APC'], msg: `duplicate APC ${row.apc}`, type: 'duplicate_key', input: row.apc });
      if (!r.ok) {
        yield { line, issues: r.issues };
        continue;
      }
      seen.add(row.apc);
      yield { line, row };
    }
  },
});
