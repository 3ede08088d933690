import { isMap, type Node } from 'yaml';
import { curatedRow, curatedVersion, readCuratedDocument, requireCurated, sectionRows } from '../_shared/curated.js';
import { IngestError } from '../_shared/issue.js';
import type { SourceFile } from '../_shared/source.js';
import { defineMultiTableDataset, type ParsedItem } from '../types.js';
import { B340_TABLES, type B340TableName } from './schema.js';

/**
 * Source format (README): one YAML or JSON document per manufacturer,
 *
 *   kind: manufacturer_340b
 *   curated: 2026-11-24
 *   manufacturer: {manufacturer_id, name, aliases, labeler_codes, review_status, citation}
 *   policies: [...]; state_exemptions: [...]; carve_outs: [...]; rebate_drugs: [...]
 *
 * plus one `kind: state_laws` document (`state_laws: [...]`) and one `kind: rebate_pilot`
 * document (`rebate_pilot: [...]`, HRSA's pilot status over time). The release version is the
 * latest `curated` date of its files; a row without a citation is a reject naming its line.
 */

const MANUFACTURER_SECTIONS: Extract<B340TableName, 'policies' | 'state_exemptions' | 'carve_outs' | 'rebate_drugs'>[] = ['policies', 'state_exemptions', 'carve_outs', 'rebate_drugs'];
const KINDS = ['manufacturer_340b', 'state_laws', 'rebate_pilot'] as const;
const KIND = /^\s*"?kind"?\s*:\s*"?(manufacturer_340b|state_laws|rebate_pilot)"?\s*,?\s*$/m;
const CITATION_MSG = 'every curated row needs a citation {title, url, published}';

export const manufacturer340b = defineMultiTableDataset({
  id: 'manufacturer_340b',
  title: '340B manufacturer contract-pharmacy policies, state protection laws and the HRSA rebate pilot (curated)',
  publisher: 'curated from wholesaler notices, manufacturer letters, HRSA, statutes and law-firm summaries (cited per row)',
  formats: ['<manufacturer>.yaml or .json (kind: manufacturer_340b)', 'state_laws.yaml (kind: state_laws)', 'rebate_pilot.yaml (kind: rebate_pilot)'],
  tables: Object.values(B340_TABLES),
  detect: (s) => KIND.test(s.text.slice(0, 4096)),
  version: curatedVersion,
  async *parse(file: SourceFile): AsyncIterable<ParsedItem<Record<string, unknown>>> {
    const doc = await readCuratedDocument(file, `\`kind:\` ${KINDS.join(', ')}`);
    const { root, data, lineOf } = doc;
    const kind = data.kind as (typeof KINDS)[number];
    if (!KINDS.includes(kind)) throw new IngestError(`unknown kind ${JSON.stringify(kind)} (${KINDS.join(', ')})`, file.name, lineOf(root.get('kind', true) as Node));
    requireCurated(doc, file);
    const sections: string[] = kind === 'manufacturer_340b' ? ['manufacturer', ...MANUFACTURER_SECTIONS] : [kind];
    for (const k of Object.keys(data)) {
      if (!['kind', 'curated', ...sections].includes(k)) throw new IngestError(`unknown section \`${k}\` (${sections.join(', ')})`, file.name, lineOf(root.get(k, true) as Node));
    }
    if (kind !== 'manufacturer_340b') {
      yield* sectionRows(doc, file, kind, B340_TABLES[kind], CITATION_MSG);
      return;
    }
    const node = root.get('manufacturer', true) as Node | undefined;
    if (!isMap(node)) throw new IngestError('`manufacturer:` (the identity mapping) is required', file.name, 1);
    yield curatedRow(B340_TABLES.manufacturers, data.manufacturer, lineOf(node), ['manufacturer'], CITATION_MSG);
    const id = (data.manufacturer as { manufacturer_id?: unknown }).manufacturer_id;
    if (typeof id !== 'string') return;
    for (const section of MANUFACTURER_SECTIONS) yield* sectionRows(doc, file, section, B340_TABLES[section], CITATION_MSG, { manufacturer_id: id });
  },
});
