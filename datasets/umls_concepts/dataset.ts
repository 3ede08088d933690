import { z } from 'zod';
import { rrfLines } from '../_shared/rrf.js';
import { type FileSample, type SourceFile } from '../_shared/source.js';
import { derivedTable, table } from '../_shared/table.js';
import { loadMrconsoNative } from './native.js';
import { defineMultiTableDataset, type ParsedItem, type VersionInfo } from '../types.js';

/**
 * One atom of the UMLS Metathesaurus concept names file (MRCONSO.RRF, NLM's Rich Release Format):
 * the 18 fields in NLM's order (Reference Manual, section 3.3.4 "Concept Names and Sources").
 */
export const UmlsConceptRowSchema = z.object({
  cui: z.string().describe('concept unique identifier (C + 7 digits)'),
  lat: z.string().describe('language (ENG, SPA, ...)'),
  ts: z.string().describe('term status: P preferred LUI of the CUI, S non-preferred'),
  lui: z.string(),
  stt: z.string().describe('string type'),
  sui: z.string(),
  ispref: z.string().describe('Y when the atom is preferred within its term'),
  aui: z.string().describe('atom unique identifier (A + digits): the row key'),
  saui: z.string().nullable(),
  scui: z.string().nullable(),
  sdui: z.string().nullable(),
  sab: z.string().describe('source abbreviation (ICD10CM, RXNORM, MSH, ...)'),
  tty: z.string().describe('term type in the source (PT, SY, SCD, ...)'),
  code: z.string().describe('the code in the source'),
  str: z.string().describe('the string'),
  srl: z.int().describe('source restriction level (0 unrestricted ... 9)'),
  suppress: z.string().describe('O obsolete, E suppressed by an editor, Y suppressible by the source, N not suppressed'),
  cvf: z.string().nullable().describe('content view flag'),
});
export type UmlsConceptRow = z.infer<typeof UmlsConceptRowSchema>;

/**
 * The search index of a release, built at ingest (`finalize`) and stored in the version file: one
 * row per word of each English, unsuppressed atom's normalised string, and one per atom for its
 * code (`#` + the code in capitals without dots), sorted by word, so a word prefix is a range
 * scan that DuckDB's zone maps narrow to a few row groups, and the row carries what an answer
 * shows (no join back to 16 M atoms).
 */
export const UmlsWordRowSchema = z.object({
  word: z.string().describe('a word of the normalised string (lower case, accents folded, letters and digits), or # + the code'),
  aui: z.string(),
  cui: z.string(),
  sab: z.string(),
  tty: z.string(),
  code: z.string(),
  str: z.string(),
  nrm: z.string().nullable().describe('the normalised string the words came from (what a query ranks by; null in version files written before it was stored)'),
  prev: z
    .string()
    .nullable()
    .describe("the atom's word before this one in sorted order (null for its first word and for the code row): a prefix range keeps one row per atom, the one whose previous word is outside it"),
  ord: z
    .int()
    .nullable()
    .describe("the atom's place in the rank order within a tier (shorter strings first, then code, string and AUI), from 1 (null in version files written before it was stored)"),
});

/** The one normalisation of a UMLS string for search, in SQL (the query side is `umlsWords`). */
export const UMLS_NORM_SQL = (col: string) => `trim(regexp_replace(lower(strip_accents(${col})), '[^a-z0-9]+', ' ', 'g'))`;

/**
 * The fields of a version's range sidecars (written as `datasets/storage.ts` says), what a search
 * reads without DuckDB (`server/concepts/search.ts`): `words`, each word row's fields by word (what
 * a search filters, counts and ranks: the rank order is `ord`), and `atoms`, each atom's shown
 * fields by `ord` written as nine digits (read for the few atoms an answer shows).
 */
export const UMLS_WORD_FIELDS = ['word', 'prev', 'nrm', 'sab', 'ord'] as const;
export const UMLS_ATOM_FIELDS = ['ord', 'aui', 'cui', 'sab', 'tty', 'code', 'str'] as const;
/** `ord` as the atoms sidecar's key: nine digits, so text order is number order (in JavaScript and, `ATOM_KEY_SQL`, in SQL). */
const ATOM_KEY_DIGITS = 9;
export const atomKey = (ord: number | string): string => String(ord).padStart(ATOM_KEY_DIGITS, '0');
/** `atomKey` of the `ord` column, in SQL. */
export const ATOM_KEY_SQL = `lpad(CAST(ord AS VARCHAR), ${ATOM_KEY_DIGITS}, '0')`;

const FIELDS = ['cui', 'lat', 'ts', 'lui', 'stt', 'sui', 'ispref', 'aui', 'saui', 'scui', 'sdui', 'sab', 'tty', 'code', 'str', 'srl', 'suppress', 'cvf'] as const;
const LINE = /^C\d{7}\|[A-Z]{3}\|[PS]\|L\d+\|/;
/** A release label: `2025AA`, `2025AB` (the release folder's name, or in the file name). */
const RELEASE = /(\d{4}A[AB])/;

const blank = (s: string) => (s === '' ? null : s);

/** The dataset id, spelled once: the main table is named like it. */
const ID = 'umls_concepts';

export const umlsConcepts = defineMultiTableDataset({
  id: ID,
  title: 'UMLS Metathesaurus concept names (MRCONSO.RRF)',
  publisher: 'U.S. National Library of Medicine (UMLS, licensed)',
  formats: ['MRCONSO.RRF as NLM ships it: pipe-delimited, no header, 18 fields and a trailing |, UTF-8; the release (2025AA) in the file name, e.g. MRCONSO.2025AA.RRF, or given with --version'],
  tables: [table(ID, UmlsConceptRowSchema, ['aui']), derivedTable('word', UmlsWordRowSchema, ['word', 'aui'])],
  async finalize(run, main) {
    const atoms = `FROM ${main} WHERE lat = 'ENG' AND suppress NOT IN ('O', 'E', 'Y')`;
    await run(
      `INSERT INTO word (word, prev, aui, cui, sab, tty, code, str, nrm, ord, version) ` +
        `WITH a AS (SELECT aui, cui, sab, tty, code, str, ${UMLS_NORM_SQL('str')} AS nrm, ` +
        // The rank order within a tier, as a search sorts (DuckDB's length counts code points).
        `row_number() OVER (ORDER BY length(str), code, str, aui) AS ord, version ${atoms}) ` +
        `SELECT w, prev, aui, cui, sab, tty, code, str, nrm, ord, version FROM (` +
        // Two unnests in one select list go side by side: each word beside the one before it.
        `SELECT unnest(ws) AS w, unnest(list_concat([NULL::VARCHAR], ws[1:len(ws) - 1])) AS prev, * EXCLUDE (ws) FROM (` +
        `SELECT list_sort(list_distinct(string_split(nrm, ' '))) AS ws, * FROM a) ` +
        `UNION ALL SELECT '#' || upper(replace(trim(code), '.', '')), NULL, * FROM a` +
        `) WHERE w <> '' ORDER BY w, aui`,
    );
  },
  detect: (s: FileSample) => {
    // Most of the first lines decide (a bad line is a reject of the layout, not another layout).
    const lines = s.lines.filter((l) => l !== '').slice(0, 20);
    return /MRCONSO/i.test(s.name) && lines.length > 0 && lines.filter((l) => LINE.test(l)).length >= Math.ceil(lines.length * 0.75);
  },
  version(samples): VersionInfo | undefined {
    const m = samples.map((s) => RELEASE.exec(s.name)).find((x) => x !== null);
    if (!m) return undefined;
    // NLM releases AA in May and AB in November.
    const year = m[1]!.slice(0, 4);
    const illustrative = samples.some((s) => /illustrative/i.test(s.name));
    return { label: `${m[1]}${illustrative ? '-illustrative' : ''}`, effective_date: `${year}-${m[1]!.endsWith('AA') ? '05' : '11'}-01` };
  },
  loadNative: loadMrconsoNative,
  /**
   * Streams the file line by line: a whole release's MRCONSO is ~2 GB and 16 M lines, more than
   * one string can hold (the file is UTF-8, as NLM ships it).
   */
  async *parse(file: SourceFile, ctx): AsyncIterable<ParsedItem<UmlsConceptRow>> {
    for await (const { line, fields: f, issue } of rrfLines(file, ctx, LINE, 'MRCONSO', 'CUI|LAT|TS|LUI|...')) {
      if (issue) {
        yield { line, issues: [issue] };
        continue;
      }
      const v = Object.fromEntries(FIELDS.map((name, k) => [name, f[k]!])) as Record<(typeof FIELDS)[number], string>;
      const issues = [];
      if (!/^C\d{7}$/.test(v.cui)) issues.push({ loc: ['row', line, 'cui'], msg: `'${v.cui}' is not a CUI (C and 7 digits)`, type: 'value_error', input: v.cui });
      if (!/^A\d+$/.test(v.aui)) issues.push({ loc: ['row', line, 'aui'], msg: `'${v.aui}' is not an AUI`, type: 'value_error', input: v.aui });
      if (!/^\d$/.test(v.srl)) issues.push({ loc: ['row', line, 'srl'], msg: `'${v.srl}' is not a restriction level 0-9`, type: 'value_error', input: v.srl });
      if (v.str === '') issues.push({ loc: ['row', line, 'str'], msg: 'the string is empty', type: 'missing', input: v.str });
      if (issues.length) {
        yield { line, issues };
        continue;
      }
      yield {
        line,
        row: { ...v, saui: blank(v.saui), scui: blank(v.scui), sdui: blank(v.sdui), cvf: blank(v.cvf), srl: Number(v.srl) },
      };
    }
  },
});
