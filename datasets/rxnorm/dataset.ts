import { z } from 'zod';
import { rrfLines } from '../_shared/rrf.js';
import type { FileSample, SourceFile } from '../_shared/source.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';

/**
 * One atom of RxNorm's concept names file (RXNCONSO.RRF, NLM's RxNorm Technical Documentation,
 * section 12.5): the 18 fields of UMLS MRCONSO's layout with numeric RXCUI and RXAUI, and TS,
 * LUI, STT, SUI, ISPREF and SRL left empty (so they are not stored).
 */
export const RxnormRowSchema = z.object({
  rxcui: z.string().describe('RxNorm concept unique identifier (digits)'),
  lat: z.string().describe('language (ENG)'),
  rxaui: z.string().describe('RxNorm atom unique identifier (digits): the row key'),
  saui: z.string().nullable(),
  scui: z.string().nullable(),
  sdui: z.string().nullable(),
  sab: z.string().describe('source: RXNORM (redistributable without a UMLS licence), or a source carried under the UMLS licence terms (MTHSPL, DRUGBANK, MMSL, USP, VANDF, ATC ...)'),
  tty: z.string().describe('term type (IN ingredient, BN brand, SCD clinical drug, SBD branded drug, SY synonym, ...)'),
  code: z.string().describe("the code in the source (the RXCUI for SAB=RXNORM)"),
  str: z.string().describe('the string'),
  suppress: z.string().describe('O obsolete, E suppressed by an editor, Y suppressible, N not suppressed'),
  cvf: z.string().nullable().describe('content view flag (4096: the current prescribable content)'),
});
export type RxnormRow = z.infer<typeof RxnormRowSchema>;

const FIELDS = ['rxcui', 'lat', 'ts', 'lui', 'stt', 'sui', 'ispref', 'rxaui', 'saui', 'scui', 'sdui', 'sab', 'tty', 'code', 'str', 'srl', 'suppress', 'cvf'] as const;
/** RXCUI, LAT, five empty fields, RXAUI: what tells RXNCONSO from MRCONSO (C/A-prefixed ids, TS and LUI filled). */
const LINE = /^\d+\|[A-Z]{3}\|\|\|\|\|\|\d+\|/;
/**
 * The release date: `RxNorm_full_11062023.zip`'s MMDDYYYY, or a dated file name such as
 * `RXNCONSO_2023-11-06.RRF`. RxNorm's monthly releases take effect on their release date.
 */
function versionOf(sample: FileSample): VersionInfo | undefined {
  const iso = /(\d{4})-(\d{2})-(\d{2})/.exec(sample.name);
  if (iso) return { label: `${iso[1]}-${iso[2]}-${iso[3]}`, effective_date: `${iso[1]}-${iso[2]}-${iso[3]}` };
  const mdy = /_(\d{2})(\d{2})(\d{4})\b/.exec(sample.name);
  if (mdy) return { label: `${mdy[3]}-${mdy[1]}-${mdy[2]}`, effective_date: `${mdy[3]}-${mdy[1]}-${mdy[2]}` };
  return undefined;
}

const blank = (s: string) => (s === '' ? null : s);

export const rxnorm = defineDataset({
  id: 'rxnorm',
  title: 'RxNorm concept names (RXNCONSO.RRF)',
  publisher: 'U.S. National Library of Medicine (RxNorm)',
  formats: [
    'RXNCONSO.RRF of an RxNorm full or prescribable release: pipe-delimited, no header, 18 fields and a trailing |, numeric RXCUI/RXAUI; the release date from the zip or file name (RxNorm_full_11062023, RXNCONSO_2023-11-06.RRF) or --version with --effective-date',
  ],
  row: RxnormRowSchema,
  key: ['rxaui'],
  detect: (s) => {
    const lines = s.lines.filter((l) => l !== '').slice(0, 20);
    return lines.length > 0 && lines.filter((l) => LINE.test(l)).length >= Math.ceil(lines.length * 0.75);
  },
  version: (samples) => samples.map(versionOf).find((v) => v !== undefined),
  /** Streams line by line: a full release's RXNCONSO is over a million lines. */
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<RxnormRow>> {
    for await (const { line, fields: f, issue } of rrfLines(file, ctx, LINE, 'RXNCONSO', 'RXCUI|LAT|||||||RXAUI|...')) {
      if (issue) {
        yield { line, issues: [issue] };
        continue;
      }
      const v = Object.fromEntries(FIELDS.map((name, k) => [name, f[k]!])) as Record<(typeof FIELDS)[number], string>;
      const issues = [];
      if (!/^\d+$/.test(v.rxcui)) issues.push({ loc: ['row', line, 'RXCUI'], msg: `'${v.rxcui}' is not an RXCUI (digits)`, type: 'value_error', input: v.rxcui });
      if (!/^\d+$/.test(v.rxaui)) issues.push({ loc: ['row', line, 'RXAUI'], msg: `'${v.rxaui}' is not an RXAUI (digits)`, type: 'value_error', input: v.rxaui });
      if (!/^[A-Z0-9_.-]+$/.test(v.sab)) issues.push({ loc: ['row', line, 'SAB'], msg: `'${v.sab}' is not a source abbreviation`, type: 'value_error', input: v.sab });
      if (v.str === '') issues.push({ loc: ['row', line, 'STR'], msg: 'the string is empty', type: 'missing', input: v.str });
      if (issues.length) {
        yield { line, issues };
        continue;
      }
      yield {
        line,
        row: { rxcui: v.rxcui, lat: v.lat, rxaui: v.rxaui, saui: blank(v.saui), scui: blank(v.scui), sdui: blank(v.sdui), sab: v.sab, tty: v.tty, code: v.code, str: v.str, suppress: v.suppress, cvf: blank(v.cvf) },
      };
    }
  },
});

/** The one source of RXNCONSO that is redistributable without a UMLS licence. */
export const RXNORM_OPEN_SAB = 'RXNORM';
