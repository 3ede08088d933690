import { isMap, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { z } from 'zod';
import type { Issue } from '../../warehouse/errors.js';
import { IngestError } from '../_shared/issue.js';
import { normalizeNewlines, readText, type FileSample, type SourceFile } from '../_shared/source.js';
import { defineMultiTableDataset, type ParsedItem, type VersionInfo } from '../types.js';
import { PAYER_TABLES, type PayerTableName } from './schema.js';

/**
 * Source format (README): one YAML or JSON document per payer,
 *
 *   kind: payer
 *   curated: 2026-11-20            # the date the curator last reviewed this file
 *   payer: {slug, name, ..., citation}
 *   filing_rules: [{rule_id, ..., citation}]
 *   appeal_levels: [...]; denial_patterns: [...]; prior_auth_rules: [...]; policy_rules: [...]
 *
 * or one `kind: service_categories` document with `service_categories: [...]`. The version of a
 * release is the latest `curated` date of its files. Rows of the payer's tables get `payer_slug`
 * from the document. A field a row omits is null (nullable), [] (list) or {} (map); anything
 * else missing, a bad value or a missing citation rejects that row, naming its line.
 */

const SECTIONS: Exclude<PayerTableName, 'payers' | 'service_categories'>[] = ['filing_rules', 'appeal_levels', 'denial_patterns', 'prior_auth_rules', 'policy_rules'];
const KIND = /^\s*"?kind"?\s*:\s*"?(payer|service_categories)"?\s*,?\s*$/m;
const CURATED = /^\s*"?curated"?\s*:\s*"?(\d{4}-\d{2}-\d{2})"?/m;

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

const toIssues = (e: z.ZodError, at: (string | number)[]): Issue[] =>
  e.issues.map((i) => ({
    loc: [...at, ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    msg: i.path.at(-1) === 'citation' && i.code === 'invalid_type' ? 'every curated row needs a citation {title, url, retrieved}' : i.message,
    type: i.code,
  }));

export const payers = defineMultiTableDataset<Record<string, unknown>>({
  id: 'payers',
  title: 'Payer knowledge (curated: identity, filing, appeals, denial patterns, prior auth, policies)',
  publisher: 'curated from payers, CMS and state Medicaid publications (cited per row)',
  formats: ['<slug>.yaml or <slug>.json: one payer per document (kind: payer)', 'service_categories.yaml (kind: service_categories)'],
  tables: Object.values(PAYER_TABLES),
  detect: (s) => KIND.test(s.text.slice(0, 4096)),
  version(samples: FileSample[]): VersionInfo | undefined {
    const dates = samples.map((s) => CURATED.exec(s.text)?.[1]).filter((d): d is string => d !== undefined);
    if (dates.length !== samples.length) return undefined;
    const latest = dates.sort().at(-1)!;
    return { label: latest, effective_date: latest };
  },
  async *parse(file: SourceFile): AsyncIterable<ParsedItem<Record<string, unknown>>> {
    const text = normalizeNewlines((await readText(file)).text);
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
    if (doc.errors.length) {
      const e = doc.errors[0]!;
      throw new IngestError(`not valid YAML/JSON: ${e.message.split('\n')[0]}`, file.name, lines.linePos(e.pos[0]).line);
    }
    const lineOf = (n: Node | null | undefined) => (n?.range ? lines.linePos(n.range[0]).line : 1);
    const root = doc.contents;
    if (!isMap(root)) throw new IngestError('expected a mapping with `kind: payer` or `kind: service_categories`', file.name, 1);
    const data = doc.toJS() as Record<string, unknown>;
    const kind = data.kind;
    if (kind !== 'payer' && kind !== 'service_categories') throw new IngestError(`unknown kind ${JSON.stringify(kind)} (payer or service_categories)`, file.name, lineOf(root.get('kind', true) as Node));
    if (typeof data.curated !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(data.curated)) throw new IngestError('`curated: YYYY-MM-DD` is required (the date the file was last reviewed)', file.name, 1);

    const rowOf = (name: PayerTableName, obj: unknown, line: number, at: (string | number)[], extra: Record<string, unknown> = {}): ParsedItem<Record<string, unknown>> => {
      const t = PAYER_TABLES[name];
      if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return { line, table: name, issues: [{ loc: at, msg: 'expected a mapping', type: 'invalid_type' }] };
      const r = t.row.strict().safeParse(withOmitted(t.row, { ...extra, ...(obj as Record<string, unknown>) }));
      return r.success ? { line, table: name, row: r.data } : { line, table: name, issues: toIssues(r.error, at) };
    };

    if (kind === 'service_categories') {
      const seq = root.get('service_categories', true);
      if (!isSeq(seq)) throw new IngestError('`service_categories` must be a list', file.name, lineOf(root as Node));
      for (const [i, item] of seq.items.entries()) yield rowOf('service_categories', (data.service_categories as unknown[])[i], lineOf(item as Node), ['service_categories', i]);
      return;
    }

    for (const k of Object.keys(data)) {
      if (!['kind', 'curated', 'payer', ...SECTIONS].includes(k)) throw new IngestError(`unknown section \`${k}\` (payer, ${SECTIONS.join(', ')})`, file.name, lineOf(root.get(k, true) as Node));
    }
    const payerNode = root.get('payer', true) as Node | undefined;
    if (!isMap(payerNode)) throw new IngestError('`payer:` (the identity mapping) is required', file.name, 1);
    const payer = rowOf('payers', data.payer, lineOf(payerNode), ['payer']);
    yield payer;
    const slug = (data.payer as { slug?: unknown }).slug;
    if (typeof slug !== 'string') return;
    for (const section of SECTIONS) {
      const seq = root.get(section, true);
      if (seq === undefined || seq === null) continue;
      if (!isSeq(seq)) throw new IngestError(`\`${section}\` must be a list`, file.name, lineOf(seq as Node));
      const values = data[section] as unknown[];
      for (const [i, item] of seq.items.entries()) {
        const v = values[i] as Record<string, unknown> | null;
        if (v && typeof v === 'object' && 'payer_slug' in v && v.payer_slug !== slug) {
          yield { line: lineOf(item as Node), table: section, issues: [{ loc: [section, i, 'payer_slug'], msg: `rows of this file belong to ${slug}; omit payer_slug`, type: 'value_error', input: v.payer_slug }] };
          continue;
        }
        yield rowOf(section, v, lineOf(item as Node), [section, i], { payer_slug: slug });
      }
    }
  },
});
