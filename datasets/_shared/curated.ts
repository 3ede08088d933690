import { isMap, isSeq, LineCounter, parseDocument, type Node, type YAMLMap } from 'yaml';
import type { z } from 'zod';
import type { Issue } from '../../warehouse/errors.js';
import type { ParsedItem, VersionInfo } from '../types.js';
import { IngestError } from './issue.js';
import { normalizeNewlines, readText, type FileSample, type SourceFile } from './source.js';
import type { TableSpec } from './table.js';

/**
 * What curated datasets (`payers`, `manufacturer_340b`) share: one YAML (or JSON) document per
 * subject, read with line numbers, each row checked against its table's schema with omitted
 * fields filled (null, [] or {}), a row without a citation rejected naming its line and field.
 */

type Def = { type: string; innerType?: unknown };
const defType = (s: unknown) => (s as { _zod: { def: Def } })._zod.def;

/** The value a curator may leave out: null for nullable fields, [] for lists, {} for maps. */
function omittedValue(field: unknown): unknown {
  let t = field;
  for (;;) {
    const d = defType(t);
    if (d.type === 'nullable') return null;
    if (d.type === 'array') return [];
    if (d.type === 'record') return {};
    if ((d.type === 'optional' || d.type === 'default') && d.innerType) t = d.innerType;
    else return undefined;
  }
}

function withOmitted(schema: z.ZodObject, obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(schema.shape)) out[k] = k in obj ? obj[k] : omittedValue(f);
  for (const k of Object.keys(obj)) if (!(k in out)) out[k] = obj[k];
  return out;
}

/** A parsed curated document: its root mapping, its plain value and the line of any node. */
export interface CuratedDocument {
  root: YAMLMap;
  data: Record<string, unknown>;
  lineOf(n: Node | null | undefined): number;
}

/** Reads one YAML/JSON document whose root is a mapping; a syntax error throws naming its line. */
export async function readCuratedDocument(file: SourceFile, expected: string): Promise<CuratedDocument> {
  const text = normalizeNewlines((await readText(file)).text);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length) {
    const e = doc.errors[0]!;
    throw new IngestError(`not valid YAML/JSON: ${e.message.split('\n')[0]}`, file.name, lines.linePos(e.pos[0]).line);
  }
  const root = doc.contents;
  if (!isMap(root)) throw new IngestError(`expected a mapping with ${expected}`, file.name, 1);
  return { root, data: doc.toJS() as Record<string, unknown>, lineOf: (n) => (n?.range ? lines.linePos(n.range[0]).line : 1) };
}

/**
 * One row of table `t` from a curated mapping: `extra` fields (the document's subject) added,
 * omitted fields filled, unknown fields refused; every issue located under `at`.
 */
export function curatedRow(
  t: TableSpec,
  obj: unknown,
  line: number,
  at: (string | number)[],
  citationMsg: string,
  extra: Record<string, unknown> = {},
): ParsedItem<Record<string, unknown>> {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return { line, table: t.name, issues: [{ loc: at, msg: 'expected a mapping', type: 'invalid_type' }] };
  const r = t.row.strict().safeParse(withOmitted(t.row, { ...extra, ...(obj as Record<string, unknown>) }));
  if (r.success) return { line, table: t.name, row: r.data };
  const issues: Issue[] = r.error.issues.map((i) => ({
    loc: [...at, ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    msg: i.path.at(-1) === 'citation' && i.code === 'invalid_type' ? citationMsg : i.message,
    type: i.code,
  }));
  return { line, table: t.name, issues };
}

/**
 * The rows of list `section` of a document for table `t`; `owner` fields (the document's subject,
 * e.g. `payer_slug`) join every row, and a row naming another owner is rejected.
 */
export function* sectionRows(
  doc: CuratedDocument,
  file: SourceFile,
  section: string,
  t: TableSpec,
  citationMsg: string,
  owner: Record<string, string> = {},
): Generator<ParsedItem<Record<string, unknown>>> {
  const seq = doc.root.get(section, true);
  if (seq === undefined || seq === null) return;
  if (!isSeq(seq)) throw new IngestError(`\`${section}\` must be a list`, file.name, doc.lineOf(seq as Node));
  const values = doc.data[section] as unknown[];
  for (const [i, item] of seq.items.entries()) {
    const v = values[i] as Record<string, unknown> | null;
    const line = doc.lineOf(item as Node);
    const other = v && typeof v === 'object' ? Object.keys(owner).find((k) => k in v && v[k] !== owner[k]) : undefined;
    if (other) {
      yield { line, table: t.name, issues: [{ loc: [section, i, other], msg: `rows of this file belong to ${owner[other]}; omit ${other}`, type: 'value_error', input: v![other] }] };
      continue;
    }
    yield curatedRow(t, v, line, [section, i], citationMsg, owner);
  }
}

const CURATED = /^\s*"?curated"?\s*:\s*"?(\d{4}-\d{2}-\d{2})"?/m;

/** A curated release's version: the latest `curated:` date of its files (each file must carry one). */
export function curatedVersion(samples: FileSample[]): VersionInfo | undefined {
  const dates = samples.map((s) => CURATED.exec(s.text)?.[1]).filter((d): d is string => d !== undefined);
  if (dates.length !== samples.length) return undefined;
  const latest = dates.sort().at(-1)!;
  return { label: latest, effective_date: latest };
}

/** Throws unless the document carries `curated: YYYY-MM-DD`. */
export function requireCurated(doc: CuratedDocument, file: SourceFile): void {
  const c = doc.data.curated;
  if (typeof c !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(c)) throw new IngestError('`curated: YYYY-MM-DD` is required (the date the file was last reviewed)', file.name, 1);
}
