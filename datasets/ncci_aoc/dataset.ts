import { z } from 'zod';
import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { IngestError } from '../_shared/issue.js';
import { readRecords, sampleFile, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext } from '../types.js';
import { PROC_CODE_RE, quarterFromFileName } from '../_ncci_mue/quarter.js';

/** `CCCCC` in the Primary Code column: a Type 2 add-on with no listed primaries (the contractor decides). */
export const ANY_PRIMARY = 'CCCCC';

/** One add-on code / primary code pair of the CMS NCCI add-on code (AOC) edit file. */
export const AocRowSchema = z.object({
  addon_code: z.string(),
  primary_code: z.string().describe('CCCCC = no specific primary codes (Type 2)'),
  aoc_edit_type: z.int().describe('1, 2 or 3'),
  aoc_edit_eff_dt: z.string().describe('First date of service the pair edit applies (`YYYY-MM-DD`).'),
  aoc_edit_del_dt: z.string().nullable().describe('Last date of service the pair edit applies; null while active (blank or `*`).'),
  addon_eff_dt: z.string().nullable(),
  addon_del_dt: z.string().nullable(),
  primary_eff_dt: z.string().nullable(),
  primary_del_dt: z.string().nullable(),
  special_instruction_notes: z.string().nullable(),
});
/** One add-on code / primary code pair of the CMS NCCI add-on code (AOC) edit file. */
export type AocRow = z.infer<typeof AocRowSchema>;

/** Header words (normalised) for each field; the first alias is the CMS column name. */
const FIELDS: Record<keyof AocRow, { names: string[]; required: boolean }> = {
  addon_code: { names: ['ADD-ON CODE', 'ADD ON CODE', 'ADDON CODE', 'AOC'], required: true },
  primary_code: { names: ['PRIMARY CODE'], required: true },
  aoc_edit_type: { names: ['AOC EDIT TYPE', 'EDIT TYPE'], required: true },
  aoc_edit_eff_dt: { names: ['AOC EDIT EFF DT', 'AOC EDIT EFFECTIVE DATE'], required: true },
  aoc_edit_del_dt: { names: ['AOC EDIT DEL DT', 'AOC EDIT DELETION DATE'], required: false },
  addon_eff_dt: { names: ['AOC EFF DT', 'ADD-ON CODE EFFECTIVE DATE', 'AOC EFFECTIVE DATE'], required: false },
  addon_del_dt: { names: ['AOC DEL DT', 'ADD-ON CODE DELETION DATE', 'AOC DELETION DATE'], required: false },
  primary_eff_dt: { names: ['PRIMARY CODE EFF DT', 'PRIMARY CODE EFFECTIVE DATE'], required: false },
  primary_del_dt: { names: ['PRIMARY CODE DEL DT', 'PRIMARY CODE DELETION DATE'], required: false },
  special_instruction_notes: { names: ['SPECIAL INSTRUCTION NOTES', 'SPECIAL INSTRUCTIONS'], required: false },
};

const norm = (c: string) => normHeader(c).replace(/\s*-\s*/g, '-');

/** Column index per field; undefined when a required column is missing. */
function columnMap(fields: string[]): Partial<Record<keyof AocRow, number>> | undefined {
  const cells = fields.map(norm);
  const map: Partial<Record<keyof AocRow, number>> = {};
  for (const [k, spec] of Object.entries(FIELDS) as [keyof AocRow, (typeof FIELDS)[keyof AocRow]][]) {
    const i = cells.findIndex((c) => spec.names.includes(c));
    if (i >= 0) map[k] = i;
    else if (spec.required) return undefined;
  }
  return map;
}

/** The AOC file comes as the csv export of the xlsx or as the tab-delimited txt. */
function delimiterOf(sample: FileSample): ',' | '\t' {
  const line = sample.lines.find((l) => /PRIMARY CODE/i.test(l)) ?? '';
  return line.includes('\t') ? '\t' : ',';
}

function isAocSample(sample: FileSample): boolean {
  const d = delimiterOf(sample);
  return sample.lines.slice(0, 30).some((l) => columnMap(l.split(d).map((c) => c.replace(/^"|"$/g, ''))) !== undefined);
}

const DATE_FIELDS = ['aoc_edit_del_dt', 'addon_eff_dt', 'addon_del_dt', 'primary_eff_dt', 'primary_del_dt'] as const;

/**
 * CMS NCCI add-on code edits (`AOC_V2026Q3-MCR.xlsx`, published quarterly; read here as its csv
 * export or the tab-delimited txt). One row per add-on/primary pair with the AOC edit type and
 * the edit, add-on and primary effective/deletion dates (`YYYYMMDD`; blank or `*` while active).
 * Columns are found by header words, not position, because CMS has reordered them between
 * releases. The quarter comes from the file name (`V2026Q3`).
 */
export const ncciAoc = defineDataset({
  id: 'ncci_aoc',
  title: 'Medicare NCCI add-on code (AOC) edits',
  publisher: 'CMS Medicare NCCI (Add-on Code Edits)',
  formats: [
    'AOC_V<YYYY>Q<n>-MCR.csv (csv export of the CMS AOC xlsx: Add-On Code, AOC Del Dt, Primary Code, Primary Code Del Dt, AOC Edit Type, AOC Edit Eff Dt, AOC Edit Del Dt, Special Instruction Notes)',
    'AOC_V<YYYY>Q<n>-MCR.txt (same columns, tab-delimited)',
  ],
  row: AocRowSchema,
  key: ['addon_code', 'primary_code', 'aoc_edit_eff_dt'],
  detect: isAocSample,
  version(samples) {
    for (const s of samples) {
      const q = quarterFromFileName(s.name);
      if (q) return q;
    }
    return undefined;
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<AocRow>> {
    // The txt release is tab-delimited without quoting; the csv export is ordinary csv.
    const tab = delimiterOf(await sampleFile(file)) === '\t';
    const records = readRecords(file, { onBytes: ctx.onBytes, ...(tab ? { delimiter: '\t', quote: false as const } : {}) })[Symbol.asyncIterator]();
    const { header } = await findHeader(
      records,
      file,
      (f) => columnMap(f) !== undefined,
      'Add-On Code, Primary Code, AOC Edit Type, AOC Edit Eff Dt',
    );
    const cols = columnMap(header.fields)!;
    const cell = (fields: string[], k: keyof AocRow) => (cols[k] === undefined ? undefined : fields[cols[k]!]);
    let seen = 0;
    for await (const { line, fields } of dataRecords(records)) {
      seen++;
      const r = new RowReader(line);
      const addon = r.text('addon_code', cell(fields, 'addon_code'), { required: true, pattern: PROC_CODE_RE });
      const primary = r.text('primary_code', cell(fields, 'primary_code'), { required: true, pattern: /^(?:\d{4}[0-9A-Z]|[A-Z]\d{4}|CCCCC)$/ });
      const type = r.integer('aoc_edit_type', cell(fields, 'aoc_edit_type'), { required: true, min: 1, max: 3 });
      const eff = r.date('aoc_edit_eff_dt', cell(fields, 'aoc_edit_eff_dt'), { required: true });
      const dates: Record<(typeof DATE_FIELDS)[number], string | null> = {} as never;
      for (const k of DATE_FIELDS) {
        const raw = clean(cell(fields, k));
        dates[k] = raw === '*' ? null : r.date(k, raw);
      }
      if (eff && dates.aoc_edit_del_dt && dates.aoc_edit_del_dt < eff) {
        r.issues.push({
          loc: ['row', line, 'aoc_edit_del_dt'],
          msg: `Deletion date ${dates.aoc_edit_del_dt} is before the effective date ${eff}`,
          type: 'value_error',
          input: cell(fields, 'aoc_edit_del_dt'),
        });
      }
      if (!r.ok) {
        yield { line, issues: r.issues };
        continue;
      }
      yield {
        line,
        row: {
          addon_code: addon,
          primary_code: primary,
          aoc_edit_type: type!,
          aoc_edit_eff_dt: eff!,
          ...dates,
          special_instruction_notes: clean(cell(fields, 'special_instruction_notes')) || null,
        },
      };
    }
    if (seen === 0) throw new IngestError('header found but no data rows', file.name, header.line);
  },
});
