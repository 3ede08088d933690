import { isMap, type Node } from 'yaml';
import { curatedRow, curatedVersion, readCuratedDocument, requireCurated, sectionRows } from '../_shared/curated.js';
import { IngestError } from '../_shared/issue.js';
import type { SourceFile } from '../_shared/source.js';
import { defineMultiTableDataset, type ParsedItem } from '../types.js';
import { carcClassOf } from '../../lib/vocabulary/carc.js';
import { DENIAL_CATEGORY_CLASS } from '../../lib/vocabulary/denial_categories.js';
import { PAYER_TABLES, type DenialPatternRow, type PayerTableName } from './schema.js';

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

const CITATION_MSG = 'every curated row needs a citation {title, url, retrieved}';

/**
 * A denial pattern whose category contradicts the CARC's class in the vocabulary (CO-45, a
 * contractual reduction, filed as medical necessity) is refused: the denial rules would otherwise
 * read the code as another class at that payer.
 */
function checkCategory(item: ParsedItem<Record<string, unknown>>): ParsedItem<Record<string, unknown>> {
  if (!item.row) return item;
  const p = item.row as unknown as DenialPatternRow;
  const codeClass = carcClassOf(p.carc_code.replace(/^0+(?=\d)/, ''));
  const meant = DENIAL_CATEGORY_CLASS[p.denial_category];
  if (!codeClass || codeClass === meant) return item;
  return {
    line: item.line,
    table: item.table,
    issues: [{ loc: ['denial_patterns', 'denial_category'], msg: `CARC ${p.carc_code} is of class ${codeClass} (lib/vocabulary/carc.ts); category ${p.denial_category} means ${meant}: file the pattern under a category of class ${codeClass}, or correct the code`, type: 'value_error', input: p.denial_category }],
  };
}

export const payers = defineMultiTableDataset({
  id: 'payers',
  title: 'Payer knowledge (curated: identity, filing, appeals, denial patterns, prior auth, policies)',
  publisher: 'curated from payers, CMS and state Medicaid publications (cited per row)',
  formats: ['<slug>.yaml or <slug>.json: one payer per document (kind: payer)', 'service_categories.yaml (kind: service_categories)'],
  tables: Object.values(PAYER_TABLES),
  detect: (s) => KIND.test(s.text.slice(0, 4096)),
  version: curatedVersion,
  async *parse(file: SourceFile): AsyncIterable<ParsedItem<Record<string, unknown>>> {
    const doc = await readCuratedDocument(file, '`kind: payer` or `kind: service_categories`');
    const { root, data, lineOf } = doc;
    const kind = data.kind;
    if (kind !== 'payer' && kind !== 'service_categories') throw new IngestError(`unknown kind ${JSON.stringify(kind)} (payer or service_categories)`, file.name, lineOf(root.get('kind', true) as Node));
    requireCurated(doc, file);

    if (kind === 'service_categories') {
      yield* sectionRows(doc, file, 'service_categories', PAYER_TABLES.service_categories, CITATION_MSG);
      return;
    }

    for (const k of Object.keys(data)) {
      if (!['kind', 'curated', 'payer', ...SECTIONS].includes(k)) throw new IngestError(`unknown section \`${k}\` (payer, ${SECTIONS.join(', ')})`, file.name, lineOf(root.get(k, true) as Node));
    }
    const payerNode = root.get('payer', true) as Node | undefined;
    if (!isMap(payerNode)) throw new IngestError('`payer:` (the identity mapping) is required', file.name, 1);
    yield curatedRow(PAYER_TABLES.payers, data.payer, lineOf(payerNode), ['payer'], CITATION_MSG);
    const slug = (data.payer as { slug?: unknown }).slug;
    if (typeof slug !== 'string') return;
    for (const section of SECTIONS) {
      for (const item of sectionRows(doc, file, section, PAYER_TABLES[section], CITATION_MSG, { payer_slug: slug })) yield section === 'denial_patterns' ? checkCategory(item) : item;
    }
  },
});
