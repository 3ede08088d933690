import { z } from 'zod';
import { IngestError } from '../_shared/issue.js';
import { readLines, sampleFile, type FileSample, type SourceFile } from '../_shared/source.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One ICD-10-CM code of the CDC/CMS fiscal-year release. */
export const Icd10cmRowSchema = z.object({
  code: z.string().describe('without the dot, as the files print it (M5450)'),
  code_dotted: z.string().describe('with the dot after the third character (M54.50)'),
  billable: z.boolean().describe('order file header flag 1 (valid for claims); a category or header is 0'),
  short_description: z.string().nullable(),
  long_description: z.string().nullable().describe('null in the codes-only list'),
  order_number: z.int().nullable().describe('tabular order (order file only)'),
});
export type Icd10cmRow = z.infer<typeof Icd10cmRowSchema>;

/** Letter, then letters or digits (FY2026 added codes such as QA00101), 3 to 7 characters. */
const CODE = /^[A-Z][0-9A-Z]{2,6}$/;
/** Order file: `00002 A000    1 <short, 60 wide> <long>` (cols 1-5, 7-13, 15, 17-76, 78+). */
const ORDER_LINE = /^\d{5} [A-Z0-9]{3,7} *[01] /;

export const dotted = (code: string): string => (code.length > 3 ? `${code.slice(0, 3)}.${code.slice(3)}` : code);
/** A code as users type it (`m54.50`, `M5450`) in the files' form (`M5450`). */
export const undotted = (code: string): string => code.trim().toUpperCase().replace('.', '');

function layoutOf(s: FileSample): 'order' | 'codes' | 'codes_only' | undefined {
  const lines = s.lines.filter((l) => l.trim() !== '').slice(0, 20);
  if (lines.length === 0) return undefined;
  // Most of the first lines decide (a bad line is a reject of the layout, not another layout).
  const most = (test: (l: string) => boolean) => lines.filter(test).length >= Math.ceil(lines.length * 0.75);
  if (most((l) => ORDER_LINE.test(l))) return 'order';
  if (most((l) => /^[A-Z0-9]{3,7} +\S/.test(l) && CODE.test(l.slice(0, 8).trim()))) return 'codes';
  if (most((l) => CODE.test(l.trim()))) return 'codes_only';
  return undefined;
}

/** FY from `icd10cm_order_2026.txt` / `icd10cm_codes_2026.txt`: FY2026 runs from 2025-10-01. */
function fiscalYear(name: string): number | undefined {
  const m = /icd10cm[_-](?:order|codes|tabular)?[_-]?(20\d{2})/i.exec(name);
  return m ? Number(m[1]) : undefined;
}

/**
 * ICD-10-CM code lists in the CDC/CMS layouts: the order file (fixed width: order number, code
 * without the dot padded to 7, header flag, 60-character short description, long description),
 * the codes file (code padded to 8, then the description) and a codes-only list (one code per
 * line, a derivative some projects ship). The fiscal year comes from the file name.
 */
export const icd10cm = defineDataset({
  id: 'icd10cm',
  title: 'ICD-10-CM diagnosis codes (fiscal-year release)',
  publisher: 'CDC National Center for Health Statistics / CMS',
  formats: ['icd10cm_order_<FY>.txt (fixed width, tabular order)', 'icd10cm_codes_<FY>.txt (code, description)', 'one code per line (codes-only derivative)'],
  // The order file (descriptions, header flags) before the codes file, before a codes-only list: one release, one of them read.
  twin: (s) => ({ key: `icd10cm_${fiscalYear(s.name) ?? ''}`, rank: ['order', 'codes', 'codes_only'].indexOf(layoutOf(s) ?? 'codes_only') }),
  row: Icd10cmRowSchema,
  key: ['code'],
  detect: (s) => layoutOf(s) !== undefined && fiscalYear(s.name) !== undefined,
  version(samples): VersionInfo | undefined {
    const fy = samples.map((s) => fiscalYear(s.name)).find((y) => y !== undefined);
    return fy ? { label: `FY${fy}`, effective_date: `${fy - 1}-10-01` } : undefined;
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<Icd10cmRow>> {
    const layout = layoutOf(await sampleFile(file));
    if (!layout) throw new IngestError('not an ICD-10-CM order, codes or codes-only file', file.name, 1);
    for await (const { line, text: raw } of readLines(file, { onBytes: ctx.onBytes })) {
      if (raw.trim() === '') continue;
      const issue = (field: string, msg: string, input: string) => ({ line, issues: [{ loc: ['row', line, field], msg, type: 'value_error', input }] });
      if (layout === 'order') {
        if (!ORDER_LINE.test(raw)) {
          yield issue('row', 'not an order-file line (order number, code, header flag, descriptions)', raw);
          continue;
        }
        const code = raw.slice(6, 13).trim();
        if (!CODE.test(code)) {
          yield issue('code', `'${code}' is not an ICD-10-CM code`, code);
          continue;
        }
        yield {
          line,
          row: {
            code,
            code_dotted: dotted(code),
            billable: raw[14] === '1',
            short_description: raw.slice(16, 76).trim() || null,
            long_description: raw.slice(77).trim() || null,
            order_number: Number(raw.slice(0, 5)),
          },
        };
      } else {
        const code = layout === 'codes' ? raw.slice(0, 8).trim() : raw.trim();
        if (!CODE.test(code)) {
          yield issue('code', `'${code}' is not an ICD-10-CM code`, code);
          continue;
        }
        // The codes files list billable codes only.
        yield { line, row: { code, code_dotted: dotted(code), billable: true, short_description: null, long_description: layout === 'codes' ? raw.slice(8).trim() || null : null, order_number: null } };
      }
    }
  },
});
