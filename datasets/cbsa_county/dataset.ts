import { z } from 'zod';
import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { IngestError } from '../_shared/issue.js';
import { type Issue } from '../../warehouse/errors.js';
import { readRecords, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';
import { toStateCode } from '../locality_county/states.js';
import { columnIndex, fiscalVersion, fiscalYearOf } from '../wage_index/dataset.js';

/** One county's CBSA for the IPPS fiscal year (CMS CBSA to county crosswalk). */
export const CbsaCountyRowSchema = z.object({
  fips_county: z.string().describe('5-digit FIPS state + county code, e.g. `06075`.'),
  ssa_county: z.string().nullable().describe("5-digit SSA state + county code (CMS's own county numbering); null when not published."),
  county_name: z.string(),
  state: z.string().describe('USPS state code.'),
  cbsa: z.string().describe('5-digit CBSA or 2-digit state code for a rural county.'),
  cbsa_name: z.string().nullable(),
  is_rural: z.boolean(),
  fiscal_year: z.int(),
});
/** One county's CBSA for the IPPS fiscal year (CMS CBSA to county crosswalk). */
export type CbsaCountyRow = z.infer<typeof CbsaCountyRowSchema>;

const COLS = {
  fips_county: /^FIPS( STATE)? COUNTY( CODE)?$/,
  ssa_county: /^SSA( STATE)? COUNTY( CODE)?$/,
  county_name: /^COUNTY( NAME)?$/,
  state: /^STATE( NAME| CODE)?$/,
  cbsa: /^(FY ?\d{2,4} )?CBSA( CODE)?$/,
  cbsa_name: /^(FY ?\d{2,4} )?CBSA (NAME|TITLE)$/,
};

const isHeader = (f: string[]) => {
  const h = f.map(normHeader);
  return h.some((x) => COLS.fips_county.test(x)) && h.some((x) => COLS.county_name.test(x)) && h.some((x) => COLS.cbsa.test(x));
};
const TITLE = /CBSA|CROSSWALK/i;

/**
 * CMS "FY <YEAR> CBSA to County Crosswalk" (IPPS final rule, CSV export): FIPS and SSA state+county
 * codes, county name, state, CBSA and CBSA name; rural counties carry the 2-digit state code as
 * CBSA. Columns are found by name. Derives a facility's CBSA from its county when the facility
 * file has none (Care Compare `Hospital_General_Information.csv`).
 */
export const cbsaCounty = defineDataset({
  id: 'cbsa_county',
  title: 'County to CBSA crosswalk for the IPPS fiscal year',
  publisher: 'CMS Acute Inpatient PPS (IPPS final rule files)',
  formats: ['FY<YEAR> CBSA to County Crosswalk CSV: optional title line, header FIPS State County Code, SSA State County Code, County Name, State, CBSA, CBSA Name'],
  row: CbsaCountyRowSchema,
  key: ['fips_county'],
  // Release metadata, the same on every row of a release: a diff does not count a row changed for it.
  meta: ['fiscal_year'],
  detect: (s) => s.lines.slice(0, 20).some((l) => isHeader(l.split(','))),
  version(samples): VersionInfo | undefined {
    return fiscalVersion(samples.map((s) => fiscalYearOf(s, TITLE)).find((y) => y !== undefined));
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<CbsaCountyRow>> {
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    const { header, above } = await findHeader(records, file, isHeader, 'FIPS State County Code, County Name, State, CBSA');
    const lines = above.map((a) => a.fields.join(' '));
    const fy = fiscalYearOf({ name: file.name, text: lines.join('\n'), lines }, TITLE);
    if (!fy) throw new IngestError('no fiscal year in the title line or file name (expected "FY <YEAR>")', file.name, header.line);
    const col = columnIndex(header.fields, COLS);
    if (col.state! < 0) throw new IngestError('no State column', file.name, header.line, 'state');
    for await (const { line, fields } of dataRecords(records)) {
      const cell = (k: keyof typeof COLS) => (col[k]! >= 0 ? fields[col[k]!] : undefined);
      const r = new RowReader(line);
      // Excel exports drop the leading zero of FIPS/SSA codes (`6075`): pad back to 5 digits.
      const fips = r.text('fips_county', cell('fips_county'), { required: true, pattern: /^\d{4,5}$/ }).padStart(5, '0');
      const ssaRaw = r.text('ssa_county', cell('ssa_county'), { pattern: /^\d{4,5}$/ });
      const cbsaRaw = r.text('cbsa', cell('cbsa'), { required: true, pattern: /^\d{1,5}$/ });
      const cbsa = cbsaRaw.length <= 2 ? cbsaRaw.padStart(2, '0') : cbsaRaw.padStart(5, '0');
      const stateText = r.text('state', cell('state'), { required: true });
      const issues: Issue[] = [...r.issues];
      const state = toStateCode(stateText);
      if (stateText && !state) issues.push({ loc: ['row', line, 'state'], msg: 'Unknown state', type: 'value_error', input: cell('state') });
      if (issues.length > 0) {
        yield { line, issues };
        continue;
      }
      yield {
        line,
        row: {
          fips_county: fips,
          ssa_county: ssaRaw ? ssaRaw.padStart(5, '0') : null,
          county_name: clean(cell('county_name')).toUpperCase(),
          state: state!,
          cbsa,
          cbsa_name: clean(cell('cbsa_name')) || null,
          is_rural: cbsa.length === 2,
          fiscal_year: fy,
        },
      };
    }
  },
});
