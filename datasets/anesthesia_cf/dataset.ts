import { z } from 'zod';
import { dataRecords, findHeader } from '../_shared/header.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One locality's anesthesia conversion factor (the RVU release's `ANES<YEAR>.csv`). */
export const AnesthesiaCfRowSchema = z.object({
  contractor: z.string().describe('MAC number, five digits with leading zeros (`01112`).'),
  locality: z.string().describe('Locality number, two digits (`05`).'),
  locality_name: z.string().describe('As printed, footnote markers (`ALASKA*`) kept.'),
  anes_cf: z.number().describe('The locality\'s anesthesia conversion factor (dollars per unit).'),
  national_anes_cf: z.number().describe('The national anesthesia conversion factor printed in the header (`National Anes CF of 20.3178`).'),
});
export type AnesthesiaCfRow = z.infer<typeof AnesthesiaCfRowSchema>;

const isHeader = (fields: string[]): boolean => /^contractor$/i.test(clean(fields[0])) && /^locality$/i.test(clean(fields[1])) && /national anes cf of/i.test(fields[3] ?? '');

/** The year of `ANES2025.csv` (effective January 1 of the year). */
function versionOf(sample: FileSample): VersionInfo | undefined {
  const m = /ANES(\d{4})/i.exec(sample.name);
  return m ? { label: m[1]!, effective_date: `${m[1]}-01-01` } : undefined;
}

/**
 * CMS PFS anesthesia conversion factors by locality (`ANES<YEAR>.csv` of the RVU release): header
 * `Contractor,Locality,Locality Name,National Anes CF of <cf>`; values carry trailing spaces; the
 * file ends with an empty `,,,` row.
 */
export const anesthesiaCf = defineDataset({
  id: 'anesthesia_cf',
  title: 'Medicare Physician Fee Schedule anesthesia conversion factors by locality (ANES)',
  publisher: 'CMS Medicare Physician Fee Schedule (RVU release)',
  formats: ['ANES<YEAR>.csv (CSV, header Contractor,Locality,Locality Name,National Anes CF of <cf>)'],
  row: AnesthesiaCfRowSchema,
  key: ['contractor', 'locality'],
  meta: ['national_anes_cf'],
  detect: (s) => s.lines.slice(0, 5).some((l) => isHeader(l.split(','))),
  version: (samples) => samples.map(versionOf).find((v) => v !== undefined),
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<AnesthesiaCfRow>> {
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    const { header } = await findHeader(records, file, isHeader, 'Contractor,Locality,Locality Name,National Anes CF of <cf>');
    const national = /national anes cf of\s*([0-9.]+)/i.exec(header.fields[3] ?? '')?.[1];
    for await (const { line, fields } of dataRecords(records)) {
      if (fields.every((f) => clean(f) === '')) continue; // the trailing `,,,` row
      const r = new RowReader(line);
      const contractor = r.text('Contractor', clean(fields[0]), { required: true, pattern: /^\d{5}$/ });
      const locality = r.text('Locality', clean(fields[1]), { required: true, pattern: /^\d{2}$/ });
      const name = r.text('Locality Name', clean(fields[2]), { required: true });
      const cf = r.number('Anes CF', clean(fields[3]), { required: true, min: 0 });
      const nat = r.number('National Anes CF', national, { required: true, min: 0 });
      yield r.ok ? { line, row: { contractor, locality, locality_name: name, anes_cf: cf!, national_anes_cf: nat! } } : { line, issues: r.issues };
    }
  },
});
