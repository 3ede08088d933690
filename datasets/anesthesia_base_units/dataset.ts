import { z } from 'zod';
import { dataRecords, findHeader } from '../_shared/header.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One anesthesia code and its base units (CMS's anesthesia base units file, one row per code). */
export const AnesthesiaBaseUnitsRowSchema = z.object({
  code: z.string().describe('The anesthesia CPT code (00100-01999).'),
  base_units: z.number().describe('The base units CMS recognizes for the code.'),
});
export type AnesthesiaBaseUnitsRow = z.infer<typeof AnesthesiaBaseUnitsRowSchema>;

/** The header by its captions (case and spacing ignored): a code column, then the base units. */
const isHeader = (fields: string[]): boolean => /^(cpt |hcpcs )?code$|^hcpcs$/i.test(clean(fields[0])) && /^base units?$/i.test(clean(fields[1]));

/** The year in a file name such as `anesthesia_base_units_2025.csv` (effective January 1). */
function versionOf(sample: FileSample): VersionInfo | undefined {
  const m = /(20\d{2})/.exec(sample.name);
  return m ? { label: m[1]!, effective_date: `${m[1]}-01-01` } : undefined;
}

/**
 * CMS anesthesia base units by code (Claims Processing Manual ch. 12 section 50: base units plus
 * time units times the locality's anesthesia conversion factor). Two columns, a code and its base
 * units, below any title lines. The seed is illustrative (README.md): payment marks every answer
 * that uses it degraded until the real file is loaded.
 */
export const anesthesiaBaseUnits = defineDataset({
  id: 'anesthesia_base_units',
  title: 'Medicare anesthesia base units by code',
  publisher: 'CMS Medicare Physician Fee Schedule (anesthesia base units)',
  formats: ['anesthesia_base_units_<YYYY>.csv (CSV: a code column, then Base Units), or another name with --version'],
  row: AnesthesiaBaseUnitsRowSchema,
  key: ['code'],
  detect: (s) => s.lines.slice(0, 20).some((l) => isHeader(l.split(','))),
  version: (samples) => samples.map(versionOf).find((v) => v !== undefined),
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<AnesthesiaBaseUnitsRow>> {
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    await findHeader(records, file, isHeader, 'Code,Base Units');
    for await (const { line, fields } of dataRecords(records)) {
      if (fields.every((f) => clean(f) === '')) continue;
      const r = new RowReader(line);
      const code = r.text('Code', clean(fields[0]), { required: true, pattern: /^\d{5}$/ });
      const units = r.number('Base Units', clean(fields[1]), { required: true, min: 0 });
      yield r.ok ? { line, row: { code, base_units: units! } } : { line, issues: r.issues };
    }
  },
});
