import { z } from 'zod';
import { IngestError } from '../_shared/issue.js';
import { readLines, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/** One ZIP code's Medicare carrier, PFS pricing locality and rural flags (CMS ZIP5 file). */
export const ZipLocalityRowSchema = z.object({
  zip5: z.string(),
  state: z.string().describe('as printed (EK/WK/EM/WM kept)'),
  usps_state: z.string().describe('USPS code (`EK`/`WK` → `KS`, `EM`/`WM` → `MO`).'),
  carrier: z.string().describe('MAC number'),
  pricing_locality: z.string(),
  locality: z.string().describe('carrier + pricing locality (7 digits)'),
  rural_indicator: z.string().nullable().describe('R rural, B super rural, null urban'),
  is_rural: z.boolean().describe('True when `rural_indicator` is `R` or `B`.'),
  lab_cb_locality: z.string().nullable().describe('Lab competitive bid locality: `Z1`, `Z2`, `Z9` (not a demonstration locality).'),
  rural_indicator2: z.string().nullable().describe('Rural indicator effective 2006-12-01 (MSA based).'),
  plus_four: z.boolean().describe('The ZIP has +4 extensions priced separately (ZIP9 file).'),
  part_b_payment_indicator: z.string().nullable(),
  year_quarter: z.string().describe('`YYYYQ` as printed, e.g. `20254`.'),
});
/** One ZIP code's Medicare carrier, PFS pricing locality and rural flags (CMS ZIP5 file). */
export type ZipLocalityRow = z.infer<typeof ZipLocalityRowSchema>;

const PSEUDO_STATES: Record<string, string> = { EK: 'KS', WK: 'KS', EM: 'MO', WM: 'MO' };
const RECORD_RE = /^[A-Z]{2}\d{5}\d{5}\d{2}[ RB]/;
const MONTHS: Record<string, number> = { JAN: 1, FEB: 2, MAR: 3, APR: 4, MAY: 5, JUN: 6, JUL: 7, AUG: 8, SEP: 9, OCT: 10, NOV: 11, DEC: 12 };

const isRecord = (l: string) => RECORD_RE.test(l) && /^\d{4}[1-4]$/.test(l.slice(75, 80));

/** `20254` → label `2025Q4`, effective 2025-10-01. */
export function toQuarterVersion(yq: string): VersionInfo | undefined {
  const m = /^(\d{4})([1-4])$/.exec(yq);
  if (!m) return undefined;
  const q = Number(m[2]);
  return { label: `${m[1]}Q${q}`, effective_date: `${m[1]}-${String((q - 1) * 3 + 1).padStart(2, '0')}-01` };
}

function versionOf(sample: FileSample): VersionInfo | undefined {
  const first = sample.lines.find(isRecord);
  if (first) return toQuarterVersion(first.slice(75, 80));
  const n = /ZIP5_([A-Z]{3})(20\d{2})/i.exec(sample.name);
  const month = n ? MONTHS[n[1]!.toUpperCase()] : undefined;
  return n && month ? toQuarterVersion(`${n[2]}${Math.ceil(month / 3)}`) : undefined;
}

/**
 * CMS "ZIP Code to Carrier Locality File" (`ZIP5_OCT2025.txt`, layout `ZIP5lyout.txt`): fixed width,
 * 80 characters + CRLF, no header: state 1-2, ZIP 3-7, carrier 8-12, pricing locality 13-14, rural
 * indicator 15 (blank/R/B), lab CB locality 16-17, rural indicator2 18, plus-four flag 21, Part B
 * payment indicator 23, year/quarter 76-80. The primary CMS rule for a place of service's locality.
 */
export const zipLocality = defineDataset({
  id: 'zip_locality',
  title: 'ZIP code to Medicare carrier and PFS pricing locality (ZIP5)',
  publisher: 'CMS Medicare Fee-for-Service (ZIP Code to Carrier Locality File)',
  formats: ['ZIP5_<MON><YEAR>.txt (fixed width 80, no header; YYYYQ in columns 76-80)'],
  row: ZipLocalityRowSchema,
  key: ['zip5'],
  // Release metadata, the same on every row of a release: a diff does not count a row changed for it.
  meta: ['year_quarter'],
  detect: (s) => {
    const lines = s.lines.slice(0, 50).filter((l) => l.trim() !== '');
    return lines.length > 0 && lines.filter(isRecord).length >= Math.ceil(lines.length * 0.9);
  },
  version(samples): VersionInfo | undefined {
    return samples.map(versionOf).find((v) => v !== undefined);
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<ZipLocalityRow>> {
    let first = true;
    for await (const { line, text: l } of readLines(file, { onBytes: ctx.onBytes })) {
      if (l.trim() === '') continue;
      if (first && !isRecord(l)) {
        throw new IngestError('not a ZIP5 record (expected state, ZIP, carrier, locality in columns 1-14 and YYYYQ in 76-80)', file.name, line);
      }
      first = false;
      const r = new RowReader(line);
      const state = r.text('state', l.slice(0, 2), { required: true, pattern: /^[A-Z]{2}$/ });
      const zip5 = r.text('zip5', l.slice(2, 7), { required: true, pattern: /^\d{5}$/ });
      const carrier = r.text('carrier', l.slice(7, 12), { required: true, pattern: /^\d{5}$/ });
      const loc = r.text('pricing_locality', l.slice(12, 14), { required: true, pattern: /^\d{2}$/ });
      const rural = r.text('rural_indicator', l.slice(14, 15), { pattern: /^[RB]$/ });
      const lab = r.text('lab_cb_locality', l.slice(15, 17), { pattern: /^Z\d$/ });
      const rural2 = r.text('rural_indicator2', l.slice(17, 18), { pattern: /^[RB]$/ });
      const plus4 = r.text('plus_four', l.slice(20, 21), { required: true, pattern: /^[01]$/ });
      const partB = r.text('part_b_payment_indicator', l.slice(22, 23));
      const yq = r.text('year_quarter', l.slice(75, 80), { required: true, pattern: /^\d{4}[1-4]$/ });
      if (!r.ok) {
        yield { line, issues: r.issues };
        continue;
      }
      yield {
        line,
        row: {
          zip5,
          state,
          usps_state: PSEUDO_STATES[state] ?? state,
          carrier,
          pricing_locality: loc,
          locality: `${carrier}${loc}`,
          rural_indicator: rural || null,
          is_rural: rural !== '',
          lab_cb_locality: lab || null,
          rural_indicator2: rural2 || null,
          plus_four: plus4 === '1',
          part_b_payment_indicator: partB || null,
          year_quarter: yq,
        },
      };
    }
    if (first) throw new IngestError('file is empty', file.name, 1);
  },
});
