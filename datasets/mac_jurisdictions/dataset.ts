import type { Node } from 'yaml';
import { z } from 'zod';
import { curatedVersion, readCuratedDocument, requireCurated, sectionRows } from '../_shared/curated.js';
import { IngestError } from '../_shared/issue.js';
import type { SourceFile } from '../_shared/source.js';
import { CitationSchema } from '../payers/schema.js';
import { table } from '../_shared/table.js';
import { mainTable, type Dataset, type ParsedItem } from '../types.js';

/** USPS codes of the states, DC and the territories a MAC jurisdiction covers. */
const StateSchema = z.string().regex(/^[A-Z]{2}$/, 'a two-letter state or territory code');

/**
 * One Medicare Administrative Contractor jurisdiction: who holds it, what it processes (`ab`:
 * Part A and Part B claims; `dme`: durable medical equipment) and the states it covers. A
 * `partial_states` entry covers part of a state only (JL: Part B in three Northern Virginia
 * jurisdictions), with its own citation.
 */
export const MacJurisdictionRowSchema = z.object({
  jurisdiction: z.string().regex(/^(J[A-Z0-9]{1,2}|DME [A-D])$/, 'a jurisdiction as CMS names it: J5, J15, JE, DME A'),
  kind: z.enum(['ab', 'dme']),
  contractor: z.string().min(3).describe('the contractor as the Medicare Coverage Database prints it (what mcd_documents names)'),
  states: z.array(StateSchema).min(1),
  partial_states: z.record(StateSchema, z.strictObject({ note: z.string(), citation: CitationSchema })),
  contractor_numbers: z
    .array(z.strictObject({ number: z.string().regex(/^\d{5}$/, 'a 5-digit contractor number'), part: z.enum(['A', 'B', 'DME']), states: z.array(StateSchema), citation: CitationSchema }))
    .describe('the contract numbers a remittance names the contractor by (835 N1*PR04 or REF*2U), each with the states it serves and its own citation; a number no cited file lists is left out'),
  remittance_names: z
    .array(z.string().min(3))
    .describe('how the contractor names itself as payer (835 N1*PR02), compared from the start of the name without case or punctuation: "NORIDIAN JE" matches "NORIDIAN JE PART B"'),
  review_status: z.enum(['verified', 'unverified']).default('unverified'),
  citation: CitationSchema,
});
export type MacJurisdictionRow = z.infer<typeof MacJurisdictionRowSchema>;

/** The dataset id, spelled once: the main table is named like it. */
const ID = 'mac_jurisdictions';
const MAC_TABLE = table(ID, MacJurisdictionRowSchema, ['jurisdiction']);
const KIND = /^\s*"?kind"?\s*:\s*"?mac_jurisdictions"?\s*,?\s*$/m;
const CITATION_MSG = 'every jurisdiction needs a citation {title, url, retrieved}';

/**
 * Source format: one YAML or JSON document, `kind: mac_jurisdictions`, `curated: YYYY-MM-DD`,
 * `jurisdictions: [...]` (README). The release version is its `curated` date.
 */
export const macJurisdictions: Dataset<MacJurisdictionRow, typeof ID> = {
  id: ID,
  title: 'Medicare A/B and DME MAC jurisdictions: contractor and states (curated, cited)',
  publisher: "curated from CMS's MAC jurisdiction pages (cited per row)",
  formats: ['mac_jurisdictions.yaml or .json (kind: mac_jurisdictions)'],
  ...mainTable(MAC_TABLE),
  detect: (s) => KIND.test(s.text.slice(0, 4096)),
  version: curatedVersion,
  async *parse(file: SourceFile): AsyncIterable<ParsedItem<MacJurisdictionRow>> {
    const doc = await readCuratedDocument(file, '`kind: mac_jurisdictions`');
    requireCurated(doc, file);
    for (const k of Object.keys(doc.data)) {
      if (!['kind', 'curated', 'jurisdictions'].includes(k)) throw new IngestError(`unknown section \`${k}\` (jurisdictions)`, file.name, doc.lineOf(doc.root.get(k, true) as Node));
    }
    yield* sectionRows(doc, file, 'jurisdictions', MAC_TABLE, CITATION_MSG) as Iterable<ParsedItem<MacJurisdictionRow>>;
  },
};
