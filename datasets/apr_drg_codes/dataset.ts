import { z } from 'zod';
import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import { IngestError } from '../_shared/issue.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean, toIsoDate } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One APR-DRG of a code list: its number and description (no weights, no lengths of stay). */
export const AprDrgCodeRowSchema = z.object({
  drg: z.string().describe('APR-DRG number, three digits (`001`, `640`).'),
  description: z.string().describe('Description as the list prints it (its case kept), without a trailing TAB and what follows it, or a trailing ` #` marker.'),
  severities: z.array(z.int()).describe('The severities of illness the list gives the DRG (its four DRG-SOI rows collapsed: `[1, 2, 3, 4]`); empty for a list of one row per DRG.'),
  medical_surgical: z.enum(['M', 'P']).nullable().describe('`P` procedural (surgical), `M` medical; null when the list has no such column.'),
  mdc: z.string().nullable().describe('Major diagnostic category, two digits (`04`); null when the list leaves it empty (pre-MDC DRGs 001-006, 950-956) or has no such column.'),
  marker: z.string().nullable().describe('A marker the list appends to the description (`#`), kept as printed; its meaning is not stated in the list.'),
});
/** One APR-DRG of a code list. */
export type AprDrgCodeRow = z.infer<typeof AprDrgCodeRowSchema>;

/** The columns of the two Tuva layouts, by normalised header name (`mdc_cdoe` is the 2024 file's spelling). */
const COLUMNS = { drg: ['APR_DRG_CODE'], severity: ['SEVERITY'], description: ['APR_DRG_DESCRIPTION'], medicalSurgical: ['MEDICAL_SURGICAL'], mdc: ['MDC_CODE', 'MDC_CDOE', 'MDC'] };

const h = (s: string): string => normHeader(s).replace(/\s+/g, '_');
const at = (x: string[], names: string[]): number => x.findIndex((c) => names.includes(c));

/** Header: `apr_drg_code,severity,apr_drg_description` or `apr_drg_code,medical_surgical,mdc_cdoe,apr_drg_description`. */
export const isAprDrgHeader = (f: string[]): boolean => {
  const x = f.map(h);
  return x[0] === 'APR_DRG_CODE' && x.includes('APR_DRG_DESCRIPTION');
};

/**
 * The label and effective date the operator put in the file name, `apr_drg_codes_<label>_<YYYY-MM-DD>.csv`
 * (`apr_drg_codes_v41_2023-10-01.csv` -> `v41`, effective 2023-10-01; without the date, the label
 * alone and ingest asks for `--effective-date`). Neither list states its APR-DRG version or a date,
 * so a file named otherwise is loaded with `rcm ingest apr_drg_codes <file> --version <label>
 * --effective-date YYYY-MM-DD`.
 */
export function aprDrgVersionOf(sample: FileSample): VersionInfo | undefined {
  const m = /^apr_drg_codes_([A-Za-z0-9][A-Za-z0-9.-]{0,40}?)(?:_(\d{4}-\d{2}-\d{2}))?\.csv$/i.exec(sample.name);
  if (!m) return undefined;
  const effective = m[2] ? toIsoDate(m[2]) : null;
  return effective ? { label: m[1]!, effective_date: effective } : { label: m[1]! };
}

/** `Cholecystectomy except laparoscopic\t1.3137` -> the text before the TAB; `… procedures #` -> the text and `#`. */
function splitDescription(raw: string): { description: string; marker: string | null } {
  const text = clean(raw.split('\t')[0]);
  const m = /^(.*?)\s+(#+)$/.exec(text);
  return m ? { description: m[1]!, marker: m[2]! } : { description: text, marker: null };
}

/**
 * APR-DRG code lists without weights, in the two layouts of the Tuva Project's terminology seed
 * (`terminology__apr_drg.csv`): the 2023 one (`apr_drg_code,severity,apr_drg_description`, a row per
 * DRG and SOI 1-4: the four rows are collapsed into one, their severities listed) and the 2024 one
 * (`apr_drg_code,medical_surgical,mdc_cdoe,apr_drg_description`, a row per DRG, every field quoted,
 * descriptions upper case). APR-DRG descriptors are 3M (Solventum) content.
 */
export const aprDrgCodes = defineDataset({
  id: 'apr_drg_codes',
  title: 'APR-DRG code list: DRG numbers and descriptions (with medical/surgical and MDC where given), no weights',
  publisher: 'The Tuva Project terminology seed (Apache-2.0), a serialisation of 3M (Solventum) APR-DRG descriptors',
  formats: [
    'terminology__apr_drg.csv, 2023 layout: apr_drg_code,severity,apr_drg_description (one row per DRG and SOI)',
    'terminology__apr_drg.csv, 2024 layout: apr_drg_code,medical_surgical,mdc_cdoe,apr_drg_description (one row per DRG)',
    'no version or date in the file: name it apr_drg_codes_<label>_<YYYY-MM-DD>.csv, or pass --version <label> --effective-date YYYY-MM-DD',
  ],
  row: AprDrgCodeRowSchema,
  key: ['drg'],
  detect: (s) => s.lines.slice(0, 5).some((l) => isAprDrgHeader(l.replace(/"/g, '').split(','))),
  // A version is one list: of two lists beside each other, the 2024 layout (with P/M and MDC) is read first.
  twin: (s) => ({ key: 'apr_drg_codes', rank: /medical_surgical/i.test(s.lines.slice(0, 5).join('\n')) ? 0 : 1 }),
  version: (samples) => samples.map(aprDrgVersionOf).find((v) => v !== undefined),
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<AprDrgCodeRow>> {
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    const { header } = await findHeader(records, file, isAprDrgHeader, 'apr_drg_code, [severity | medical_surgical, mdc_cdoe,] apr_drg_description', 5);
    const x = header.fields.map(h);
    const col = { drg: at(x, COLUMNS.drg), severity: at(x, COLUMNS.severity), description: at(x, COLUMNS.description), ms: at(x, COLUMNS.medicalSurgical), mdc: at(x, COLUMNS.mdc) };
    if (col.description < 0) throw new IngestError('header has no apr_drg_description column', file.name, header.line, 'apr_drg_description');
    const done = new Set<string>();
    // The rows of one DRG (its SOIs) are held until the next DRG starts, then yielded as one.
    let held: { line: number; row: AprDrgCodeRow } | null = null;
    for await (const { line, fields } of dataRecords(records)) {
      const r = new RowReader(line);
      const drg = r.text('apr_drg_code', fields[col.drg], { required: true, pattern: /^\d{1,3}$/ }).padStart(3, '0');
      const severity = col.severity >= 0 ? r.integer('severity', fields[col.severity], { required: true, min: 1, max: 4 }) : null;
      const ms = col.ms >= 0 ? r.text('medical_surgical', fields[col.ms], { pattern: /^[MP]$/ }) : '';
      const mdc = col.mdc >= 0 ? r.text('mdc', fields[col.mdc], { pattern: /^\d{1,2}$/ }) : '';
      const { description, marker } = splitDescription(fields[col.description] ?? '');
      if (description === '') r.issues.push({ loc: ['row', line, 'apr_drg_description'], msg: 'Field required', type: 'missing', input: fields[col.description] ?? null });
      if (!r.ok) {
        yield { line, issues: r.issues };
        continue;
      }
      if (held && held.row.drg === drg && severity !== null) {
        // Another SOI of the DRG being read: its description must be the same.
        const sev = held.row.severities;
        if (held.row.description !== description) {
          yield { line, issues: [{ loc: ['row', line, 'apr_drg_description'], msg: `APR-DRG ${drg} SOI ${severity} is described '${description}', SOI ${sev[0]} '${held.row.description}'`, type: 'value_error', input: fields[col.description] }] };
        } else if (sev.includes(severity)) {
          yield { line, issues: [{ loc: ['row', line, 'severity'], msg: `APR-DRG ${drg} SOI ${severity} is listed twice`, type: 'duplicate_key', input: fields[col.severity] }] };
        } else sev.push(severity);
        continue;
      }
      if (held) {
        done.add(held.row.drg);
        yield held;
        held = null;
      }
      if (done.has(drg)) {
        yield { line, issues: [{ loc: ['row', line, 'apr_drg_code'], msg: `duplicate APR-DRG ${drg}`, type: 'duplicate_key', input: fields[col.drg] }] };
        continue;
      }
      held = { line, row: { drg, description, severities: severity === null ? [] : [severity], medical_surgical: (ms || null) as AprDrgCodeRow['medical_surgical'], mdc: mdc ? mdc.padStart(2, '0') : null, marker } };
    }
    if (held) yield held;
  },
});
