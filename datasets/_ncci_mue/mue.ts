import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { IngestError } from '../_shared/issue.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { z } from 'zod';
import { table } from '../_shared/table.js';
import { mainTable, type Dataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';
import { PROC_CODE_RE, quarterFromFileName } from './quarter.js';

/** The three NCCI MUE settings, with the words CMS puts in the value column's header. */
export const MUE_SETTINGS = {
  practitioner: { header: 'PRACTITIONER SERVICES MUE VALUES', words: 'Practitioner Services', file: /Practitioner/i },
  'hosp-op': { header: 'OUTPATIENT HOSPITAL SERVICES MUE VALUES', words: 'Outpatient Hospital Services', file: /Outpatient|Hosp/i },
  dme: { header: 'DME SUPPLIER SERVICES MUE VALUES', words: 'DME Supplier Services', file: /DME/i },
} as const;

/** `practitioner`, `hosp-op` or `dme` (the spec's `mue_type`). */
export type MueType = keyof typeof MUE_SETTINGS;
/** The settings in answer order: practitioner, hosp-op, dme. */
export const MUE_TYPES = Object.keys(MUE_SETTINGS) as MueType[];

const MueTypeSchema = z.enum(MUE_TYPES as [MueType, ...MueType[]]);

/** One Medicaid MUE row: no adjudication indicator exists in the Medicaid files. */
export const MedicaidMueRowSchema = z.object({
  proc_cd: z.string().describe('HCPCS/CPT code'),
  mue_type: MueTypeSchema.describe('practitioner, hosp-op or dme'),
  mue_value: z.int().describe('Maximum units of service per line or per day (see the indicator)'),
  mue_rationale: z.string().nullable(),
});
export type MedicaidMueRow = z.infer<typeof MedicaidMueRowSchema>;

/** One Medicare MUE row (CMS MUE table, one row per HCPCS/CPT code). */
export const MueRowSchema = z.object({
  proc_cd: MedicaidMueRowSchema.shape.proc_cd,
  mue_type: MedicaidMueRowSchema.shape.mue_type,
  mue_value: MedicaidMueRowSchema.shape.mue_value,
  mue_adj_ind: z.int().describe('MUE Adjudication Indicator: 1 line edit, 2 date-of-service edit (policy), 3 date-of-service edit (clinical)'),
  mue_adj_ind_label: z.string().describe('The indicator words as published, e.g. `Date of Service Edit: Policy`'),
  mue_rationale: z.string().nullable(),
});
export type MueRow = z.infer<typeof MueRowSchema>;

/** `"HCPCS/\nCPT Code"` (newline inside the quoted cell) and plain `HCPCS/CPT Code`. */
const isCodeHeader = (cell: string) => /^HCPCS\/CPT( CODE)?$/.test(normHeader(cell).replace(/\s*\/\s*/g, '/'));

/** The setting a header row names in its value column, or undefined when it is not an MUE header. */
function headerSetting(fields: string[], fileName: string): { type: MueType; valueCol: number } | undefined {
  if (!isCodeHeader(fields[0] ?? '')) return undefined;
  const cells = fields.map(normHeader);
  const valueCol = cells.findIndex((c) => /MUE VALUES?$/.test(c));
  if (valueCol < 0) return undefined;
  for (const t of MUE_TYPES) if (cells[valueCol] === MUE_SETTINGS[t].header) return { type: t, valueCol };
  // A generic `MUE Values` column (some Medicaid exports): the setting comes from the file name.
  if (cells[valueCol] === 'MUE VALUES' || cells[valueCol] === 'MUE VALUE') {
    const t = MUE_TYPES.find((x) => MUE_SETTINGS[x].file.test(fileName));
    if (t) return { type: t, valueCol };
  }
  return undefined;
}

const hasMai = (fields: string[]) => fields.some((c) => normHeader(c) === 'MUE ADJUDICATION INDICATOR');

/**
 * Reads the header out of a sample. The first header cell holds a quoted newline
 * (`"HCPCS/\nCPT Code"`), so the sample is joined back before matching, never split on lines.
 */
function sampleHeader(sample: FileSample): string[] | undefined {
  const m = /"?HCPCS\s*\/\s*CPT Code"?[^\n]*/i.exec(sample.text);
  if (!m) return undefined;
  // Split the header line on commas outside quotes (header cells never contain commas).
  return m[0].split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/).map((c) => c.replace(/^"|"$/g, ''));
}

/** Parses `2 Date of Service Edit: Policy` into indicator 2 and its words. */
export function parseMai(raw: string | undefined): { ind: number; label: string } | undefined {
  const m = /^([123])(?:\s+(.*))?$/.exec(clean(raw));
  if (!m) return undefined;
  return { ind: Number(m[1]), label: clean(m[2] ?? '') };
}

type Program = 'medicare' | 'medicaid';

async function* parseMue(
  file: SourceFile,
  ctx: ParseContext,
  id: string,
  type: MueType,
  program: Program,
): AsyncGenerator<{ line: number; row?: MueRow | MedicaidMueRow; issues?: RowReader['issues'] }> {
  const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
  const expected = `"HCPCS/CPT Code", "${MUE_SETTINGS[type].words} MUE Values"${program === 'medicare' ? ', "MUE Adjudication Indicator"' : ''}, "MUE Rationale"`;
  const { header } = await findHeader(records, file, (f) => headerSetting(f, file.name) !== undefined, expected);
  const found = headerSetting(header.fields, file.name)!;
  if (found.type !== type) {
    throw new IngestError(
      `this is the ${MUE_SETTINGS[found.type].words} MUE table; ${id} takes the ${MUE_SETTINGS[type].words} table`,
      file.name,
      header.line,
      'header',
    );
  }
  const cells = header.fields.map(normHeader);
  const maiCol = cells.indexOf('MUE ADJUDICATION INDICATOR');
  if (program === 'medicare' && maiCol < 0) {
    throw new IngestError('no "MUE Adjudication Indicator" column: this looks like a Medicaid MUE file', file.name, header.line, 'header');
  }
  if (program === 'medicaid' && maiCol >= 0) {
    throw new IngestError('the file has an "MUE Adjudication Indicator" column: this is a Medicare MUE file, not Medicaid', file.name, header.line, 'header');
  }
  const ratCol = cells.findIndex((c) => c === 'MUE RATIONALE');
  let seen = 0;
  for await (const { line, fields } of dataRecords(records)) {
    seen++;
    const r = new RowReader(line);
    const proc_cd = r.text('proc_cd', fields[0], { required: true, pattern: PROC_CODE_RE });
    const mue_value = r.integer('mue_value', fields[found.valueCol], { required: true, min: 0 });
    const rationale = ratCol >= 0 ? clean(fields[ratCol]) || null : null;
    if (program === 'medicare') {
      const raw = fields[maiCol];
      const mai = parseMai(raw);
      if (!mai) {
        r.issues.push(
          clean(raw) === ''
            ? { loc: ['row', line, 'mue_adj_ind'], msg: 'Field required', type: 'missing', input: raw ?? null }
            : {
                loc: ['row', line, 'mue_adj_ind'],
                msg: "Input should start with adjudication indicator 1, 2 or 3 (e.g. '2 Date of Service Edit: Policy')",
                type: 'enum',
                input: raw,
                ctx: { expected: '1, 2 or 3' },
              },
        );
      }
      if (!r.ok) {
        yield { line, issues: r.issues };
        continue;
      }
      yield { line, row: { proc_cd, mue_type: type, mue_value: mue_value!, mue_adj_ind: mai!.ind, mue_adj_ind_label: mai!.label, mue_rationale: rationale } };
    } else {
      if (!r.ok) {
        yield { line, issues: r.issues };
        continue;
      }
      yield { line, row: { proc_cd, mue_type: type, mue_value: mue_value!, mue_rationale: rationale } };
    }
  }
  if (seen === 0) throw new IngestError('header found but no data rows', file.name, header.line);
}

function mueVersion(samples: FileSample[]): VersionInfo | undefined {
  for (const s of samples) {
    const q = quarterFromFileName(s.name);
    if (q) return q;
  }
  return undefined;
}

/**
 * Builds the Medicare MUE dataset for one setting. CMS publishes one csv per setting
 * (`MCR_MUE_PractitionerServices_Eff_07-01-2026.csv`, `..._OutpatientHospitalServices_...`,
 * `..._DMESupplierServices_...`): CP1252, a quoted multi-line AMA notice as record 1, the header
 * `"HCPCS/\nCPT Code",<Setting> MUE Values,MUE Adjudication Indicator,MUE Rationale`, and the
 * indicator published as number plus words (`2 Date of Service Edit: Policy`). The effective date
 * is only in the file name. The setting is read from the header, so a file for another setting
 * is rejected with an IngestError instead of being loaded under the wrong id.
 */
export function medicareMueDataset<const Id extends string>(id: Id, type: MueType): Dataset<MueRow, Id> {
  const words = MUE_SETTINGS[type].words;
  return {
    id,
    title: `Medicare NCCI Medically Unlikely Edits, ${words}`,
    publisher: 'CMS Medicare NCCI (Medically Unlikely Edits)',
    formats: [`MCR_MUE_${words.replace(/ /g, '')}_Eff_MM-DD-YYYY.csv (CMS MUE csv: AMA notice record, "HCPCS/CPT Code","${words} MUE Values","MUE Adjudication Indicator","MUE Rationale")`],
    ...mainTable(table(id, MueRowSchema, ['proc_cd'])),
    detect(sample) {
      const h = sampleHeader(sample);
      return !!h && hasMai(h) && headerSetting(h, sample.name)?.type === type;
    },
    version: mueVersion,
    parse: (file, ctx) => parseMue(file, ctx, id, type, 'medicare') as AsyncIterable<ParsedItem<MueRow>>,
  };
}

/**
 * Builds the Medicaid MUE dataset for one setting. The Medicaid NCCI MUE files carry the code,
 * the value and the rationale only: no adjudication indicator and no dates in the rows; the
 * quarter comes from the file name (`MCD_MUE_Practitioner_Services_2026Q3.csv`, or an
 * `Eff_MM-DD-YYYY` date). A file with an adjudication indicator column is a Medicare file and is
 * rejected, as is a file for another setting.
 */
export function medicaidMueDataset<const Id extends string>(id: Id, type: MueType): Dataset<MedicaidMueRow, Id> {
  const words = MUE_SETTINGS[type].words;
  return {
    id,
    title: `Medicaid NCCI Medically Unlikely Edits, ${words}`,
    publisher: 'CMS Medicaid NCCI (Medically Unlikely Edits)',
    formats: [`MCD_MUE_${words.replace(/ /g, '_')}_<YYYY>Q<n>.csv (Medicaid NCCI MUE csv: AMA notice record, "HCPCS/CPT Code","${words} MUE Values","MUE Rationale")`],
    ...mainTable(table(id, MedicaidMueRowSchema, ['proc_cd'])),
    detect(sample) {
      const h = sampleHeader(sample);
      return !!h && !hasMai(h) && headerSetting(h, sample.name)?.type === type;
    },
    version: mueVersion,
    parse: (file, ctx) => parseMue(file, ctx, id, type, 'medicaid') as AsyncIterable<ParsedItem<MedicaidMueRow>>,
  };
}
