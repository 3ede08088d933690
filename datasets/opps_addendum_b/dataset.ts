import { z } from 'zod';
import { columnsOf, dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { monthNamed, monthRelease, titleCalendarYear } from '../_shared/dates.js';
import { IngestError } from '../_shared/issue.js';
import type { Issue } from '../../warehouse/errors.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { isWorkbook, workbookRecords } from '../_shared/workbook.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One HCPCS code's OPPS status and payment (Addendum B). */
export const OppsAddendumBRowSchema = z.object({
  hcpcs_code: z.string(),
  short_descriptor: z.string(),
  status_indicator: z.string().describe('Status indicator (`J1`, `Q4`, `B`, …).'),
  apc_code: z.string().nullable().describe('Four digits with leading zeros (`0701`, `5012`); null when the code is not paid under an APC.'),
  relative_weight: z.number().nullable(),
  payment_rate: z.number().nullable(),
  national_unadjusted_copayment: z.number().nullable().describe('Null where CMS prints `.` (no national copay), never 0.'),
  minimum_unadjusted_copayment: z.number().nullable(),
  ira_coinsurance_pct: z.number().nullable().describe('Inflation-adjusted coinsurance percent (`19.787%` -> 19.787) for IRA-rebatable drugs.'),
  adjusted_copayment: z.number().nullable().describe('Adjusted beneficiary copayment (IRA adjusted or capped at the inpatient deductible).'),
  drug_device_passthrough_expiry: z.string().nullable().describe('Pass-through expiration marker or date, as printed.'),
  note: z.string().nullable().describe('Note column (copay-cap `*` marker, `Inflation-adjusted coinsurance`, …).'),
  changed: z.boolean().describe('True when the `* Indicates a Change` column carries `*`.'),
  year: z.int(),
});
/** One HCPCS code's OPPS status and payment (Addendum B). */
export type OppsAddendumBRow = z.infer<typeof OppsAddendumBRowSchema>;

/** The payment columns OPPS Addenda A and B share (weight, rate, copays, IRA coinsurance, pass-through, note), by position. */
export interface OppsPaymentColumns {
  weight: number;
  rate: number;
  nationalCopay: number;
  minimumCopay: number;
  ira: number;
  adjustedCopay: number;
  passThrough: number;
  note: number;
}

/** Column positions found by header name (CMS pads names with spaces and moves columns between years). */
export interface OppsLayout extends OppsPaymentColumns {
  hcpcs: number;
  descriptor: number;
  si: number;
  apc: number;
  changed: number;
}

const h = (s: string): string => normHeader(s).trim();

/** Header row: `HCPCS Code`, `Short Descriptor`, ` SI`, `APC `, …, `Payment Rate`. */
export const isOppsHeader = (f: string[]): boolean => {
  const x = f.map(h);
  return x[0] === 'HCPCS CODE' && x.includes('SI') && x.includes('APC') && x.includes('PAYMENT RATE');
};

/**
 * Maps header names to positions by normalised prefix: the 2023 workbook writes `" SI"`,
 * `"APC "`, `"Relative Weight "` and puts the deductible inside a header (`Note: Actual copayments
 * would be lower due to the cap on copayments at the Inpatient Deductible of $1,600.00`).
 */
export function oppsLayout(header: string[], file = '(header)', line?: number): OppsLayout {
  const { find, need } = columnsOf(header.map(h), file, line);
  return {
    hcpcs: need('HCPCS Code', (s) => s === 'HCPCS CODE'),
    descriptor: need('Short Descriptor', (s) => s.startsWith('SHORT DESCRIPTOR')),
    si: need('SI', (s) => s === 'SI' || s === 'STATUS INDICATOR'),
    apc: need('APC', (s) => s === 'APC'),
    ...oppsPaymentColumns({ find, need }),
    changed: find((s) => s.includes('INDICATES A CHANGE')),
  };
}

/** The shared payment columns of an Addendum A or B header (`columnsOf` over its normalised names). */
export function oppsPaymentColumns({ find, need }: ReturnType<typeof columnsOf>): OppsPaymentColumns {
  return {
    weight: need('Relative Weight', (s) => s.startsWith('RELATIVE WEIGHT')),
    rate: need('Payment Rate', (s) => s.startsWith('PAYMENT RATE')),
    nationalCopay: need('National Unadjusted Copayment', (s) => s.startsWith('NATIONAL UNADJUSTED COPAYMENT')),
    minimumCopay: need('Minimum Unadjusted Copayment', (s) => s.startsWith('MINIMUM UNADJUSTED COPAYMENT')),
    ira: find((s) => s.startsWith('IRA COINSURANCE')),
    adjustedCopay: find((s) => s.startsWith('ADJUSTED BENEFICIARY COPAYMENT')),
    passThrough: find((s) => s.startsWith('DRUG AND DEVICE PASS-THROUGH')),
    note: find((s) => s.startsWith('NOTE')),
  };
}

/** The shared payment cells of a record: `.` and blanks as null (never 0), percents and money as printed. */
export function oppsPaymentCells(r: RowReader, cell: (i: number) => string | undefined, L: OppsPaymentColumns) {
  return {
    relative_weight: r.number('Relative Weight', cell(L.weight), { min: 0 }),
    payment_rate: r.number('Payment Rate', cell(L.rate), { min: 0 }),
    national_unadjusted_copayment: r.number('National Unadjusted Copayment', cell(L.nationalCopay), { min: 0 }),
    minimum_unadjusted_copayment: r.number('Minimum Unadjusted Copayment', cell(L.minimumCopay), { min: 0 }),
    ira_coinsurance_pct: r.number('IRA Coinsurance percentage', cell(L.ira), { min: 0, max: 100 }),
    adjusted_copayment: r.number('Adjusted Beneficiary Copayment', cell(L.adjustedCopay), { min: 0 }),
    drug_device_passthrough_expiry: clean(cell(L.passThrough)) || null,
    note: clean(cell(L.note)) || null,
  };
}

/** Converts one data record (cells as text) to a row, collecting every bad cell. */
export function toOppsRow(fields: string[], line: number, layout: OppsLayout, year: number): { row: OppsAddendumBRow; issues: Issue[] } {
  const r = new RowReader(line);
  const cell = (i: number): string | undefined => (i >= 0 ? fields[i] : undefined);
  const apcRaw = r.text('APC', cell(layout.apc), { pattern: /^\d{1,4}$/ });
  const row: OppsAddendumBRow = {
    hcpcs_code: r.text('HCPCS Code', cell(layout.hcpcs), { required: true, pattern: /^[A-Z0-9]{5}$/ }),
    short_descriptor: clean(cell(layout.descriptor)),
    status_indicator: r.text('SI', cell(layout.si), { required: true, pattern: /^[A-Z][A-Z0-9]?$/ }),
    // A few workbook cells hold the APC as a number; text keeps the leading zeros of drug APCs.
    apc_code: apcRaw === '' ? null : apcRaw.padStart(4, '0'),
    ...oppsPaymentCells(r, cell, layout),
    changed: clean(cell(layout.changed)) === '*',
    year,
  };
  return { row, issues: r.issues };
}

/** The title line: `Addendum B.- OPPS Payment by HCPCS Code for CY 2026`. */
const TITLE = /Addendum B\b/i;

/**
 * Version `YYYY-MM` (the quarterly release month, from the file name `January 2026 Web Addendum
 * B.12.29.25.csv` / `2023_January_Web_Addendum_B`), or `YYYY` when only the title names the year.
 */
export function oppsVersionOf(sample: FileSample): VersionInfo | undefined {
  const year = titleCalendarYear(sample.lines, TITLE) ?? Number(/(20\d{2})/.exec(sample.name)?.[1] ?? NaN);
  return Number.isFinite(year) ? monthRelease(year, monthNamed(sample.name)) : undefined;
}

/**
 * CMS OPPS Addendum B, section 508 CSV (`<Month> <YYYY> Web Addendum B.<date>.csv`): CP1252, title
 * in the second cell (`,Addendum B.- OPPS Payment by HCPCS Code for CY 2026,,…`), notices, then the
 * header; header names padded with spaces; money as `$1,579.16` strings; `.` for "no national
 * copay"; codes padded with spaces or NBSP (`G0465\xa0` in the 2023 workbook).
 */
export const oppsAddendumB = defineDataset({
  id: 'opps_addendum_b',
  title: 'OPPS payment by HCPCS code (Addendum B): status indicator, APC, weight, payment rate, copayments',
  publisher: 'CMS Hospital Outpatient PPS',
  formats: [
    '<Month> <YYYY> Web Addendum B.<MM.DD.YY>.csv (section 508 CSV: title, notices, header HCPCS Code, Short Descriptor, SI, APC, …)',
    '<YYYY>_<Month>_Web_Addendum_B.<MMDDYYYY>.xlsx (the CMS workbook, first sheet, same columns)',
  ],
  row: OppsAddendumBRowSchema,
  key: ['hcpcs_code'],
  // Release metadata, the same on every row of a release: a diff does not count a row changed for it.
  meta: ['year'],
  detect: (s) =>
    s.lines.slice(0, 30).some((l) => isOppsHeader(l.replace(/"/g, '').split(','))) ||
    // A workbook's sheet XML is deflated, so the sample cannot show the header: the zip signature
    // plus an Addendum B file name admits it, and parse() then checks the header by content.
    (s.text.startsWith('PK\u0003\u0004') && /\.xlsx$/i.test(s.name) && /addendum[\s_]*b\b/i.test(s.name)),
  version(samples): VersionInfo | undefined {
    return samples.map(oppsVersionOf).find((v) => v !== undefined);
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<OppsAddendumBRow>> {
    const records = ((await isWorkbook(file)) ? workbookRecords(file, ctx.onBytes) : readRecords(file, { onBytes: ctx.onBytes }))[Symbol.asyncIterator]();
    const { header, above } = await findHeader(records, file, isOppsHeader, 'HCPCS Code, Short Descriptor, SI, APC, Relative Weight, Payment Rate, …', 40);
    const layout = oppsLayout(header.fields, file.name, header.line);
    const year = titleCalendarYear(above.map((r) => r.fields.join(',')), TITLE) ?? Number(/(20\d{2})/.exec(file.name)?.[1] ?? NaN);
    if (!Number.isFinite(year)) throw new IngestError('no year found (title "… for CY <YYYY>" or a year in the file name)', file.name, header.line);
    const seen = new Set<string>();
    for await (const { line, fields } of dataRecords(records)) {
      const { row, issues } = toOppsRow(fields, line, layout, year);
      if (issues.length === 0 && seen.has(row.hcpcs_code)) {
        issues.push({ loc: ['row', line, 'HCPCS Code'], msg: `duplicate HCPCS ${row.hcpcs_code}`, type: 'duplicate_key', input: row.hcpcs_code });
      }
      if (issues.length > 0) {
        yield { line, issues };
        continue;
      }
      seen.add(row.hcpcs_code);
      yield { line, row };
    }
  },
});
