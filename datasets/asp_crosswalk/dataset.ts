import { z } from 'zod';
import { aspVersionOf } from '../asp_pricing/dataset.js';
import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { readRecords, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';
import { dashed542, toNdc11 } from '../_shared/ndc.js';

/** One NDC package billed under one HCPCS code (CMS ASP NDC-HCPCS crosswalk). */
export const AspCrosswalkRowSchema = z.object({
  hcpcs_code: z.string(),
  short_descriptor: z.string(),
  labeler_name: z.string(),
  ndc: z.string().describe('11 digits, no dashes'),
  ndc_hyphenated: z.string().describe('5-4-2 as printed'),
  drug_name: z.string(),
  hcpcs_dosage: z.string(),
  pkg_size: z.number().nullable(),
  pkg_qty: z.number().nullable(),
  bill_units: z.number().nullable().describe('HCPCS billing units in one NDC unit (BILLUNITS).'),
  bill_units_pkg: z.number().nullable().describe('HCPCS billing units in one package (BILLUNITSPKG).'),
});
/** One NDC package billed under one HCPCS code (CMS ASP NDC-HCPCS crosswalk). */
export type AspCrosswalkRow = z.infer<typeof AspCrosswalkRowSchema>;

/** `_2025_CODE` (CMS) or `_2025_HCPCS` in the first column, `NDC2` in the fourth. */
export const isAspCrosswalkHeader = (f: string[]): boolean =>
  /^_?20\d{2}_(CODE|HCPCS)$/.test(normHeader(f[0] ?? '')) && normHeader(f[3] ?? '') === 'NDC2' && normHeader(f[9] ?? '') === 'BILLUNITSPKG';

/**
 * CMS "ASP NDC-HCPCS crosswalk" CSV (section 508 version, shipped in the same quarterly zip as
 * the ASP pricing file): CP1252, the same 8-line preamble with `Effective <date> through <date>`,
 * header `_2025_CODE,Short Description,LABELER NAME,NDC2,Drug Name,HCPCS dosage,PKG SIZE,PKG
 * QTY,BILLUNITS,BILLUNITSPKG` (the year is inside the first header name), NDC2 in 5-4-2 form.
 * No copy is in ../shared/data; the seed follows that layout (see README).
 */
export const aspCrosswalk = defineDataset({
  id: 'asp_crosswalk',
  title: 'Medicare Part B drug NDC to HCPCS crosswalk (ASP)',
  publisher: 'CMS Medicare Part B Drug Average Sales Price',
  formats: ['section 508 version of <Mon> <YYYY> ASP NDC-HCPCS Crosswalk.csv (8 preamble lines, _<YYYY>_CODE … BILLUNITSPKG)'],
  row: AspCrosswalkRowSchema,
  key: ['hcpcs_code', 'ndc'],
  detect: (s) => s.lines.slice(0, 20).some((l) => isAspCrosswalkHeader(l.split(','))),
  version(samples): VersionInfo | undefined {
    return samples.map(aspVersionOf).find((v) => v !== undefined);
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<AspCrosswalkRow>> {
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    await findHeader(records, file, isAspCrosswalkHeader, '_<YYYY>_CODE, Short Description, LABELER NAME, NDC2, …, BILLUNITSPKG', 40);
    for await (const { line, fields } of dataRecords(records)) {
      const r = new RowReader(line);
      const hcpcs = r.text('HCPCS', fields[0], { required: true, pattern: /^[A-Z0-9]{5}$/ });
      const printed = r.text('NDC2', fields[3], { required: true });
      // NDC2 is printed 5-4-2 in the CMS layout: another form in that column is a malformed row, not one to pad.
      const ndc = /^\d{5}-\d{4}-\d{2}$|^\d{11}$/.test(printed) ? toNdc11(printed) : undefined;
      if (printed !== '' && ndc === undefined) {
        r.issues.push({ loc: ['row', line, 'NDC2'], msg: 'NDC2 should be an 11-digit NDC in 5-4-2 form', type: 'string_pattern_mismatch', input: fields[3] });
      }
      const row: AspCrosswalkRow = {
        hcpcs_code: hcpcs,
        short_descriptor: clean(fields[1]),
        labeler_name: clean(fields[2]),
        ndc: ndc ?? '',
        ndc_hyphenated: ndc ? dashed542(ndc) : '',
        drug_name: clean(fields[4]),
        hcpcs_dosage: clean(fields[5]).replace(/\s+/g, ' '),
        pkg_size: r.number('PKG SIZE', fields[6], { min: 0 }),
        pkg_qty: r.number('PKG QTY', fields[7], { min: 0 }),
        bill_units: r.number('BILLUNITS', fields[8], { min: 0 }),
        bill_units_pkg: r.number('BILLUNITSPKG', fields[9], { min: 0 }),
      };
      yield r.ok ? { line, row } : { line, issues: r.issues };
    }
  },
});
