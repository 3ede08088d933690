import { z } from 'zod';
import { ReliabilitySchema } from '../schemas.js';
import { defineRoute, type RouteDef } from '../route.js';
import { searchConcepts } from '../concepts/search.js';
import { isDatasetId } from '../../datasets/registry.js';

const SabSchema = z.string().regex(/^[A-Z0-9_.-]{2,20}$/, 'a source abbreviation in capitals (ICD10CM, RXNORM, CPT, HCPCS, MSH, ...)');

export const ConceptQuerySchema = z.strictObject({
  q: z.string().trim().min(2).max(200).describe('a term or a code (min 2 characters): words match as prefixes, accents ignored'),
  sab: z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined) return undefined;
      const list = s.split(',').map((x) => x.trim());
      for (const x of list) {
        const r = SabSchema.safeParse(x);
        if (!r.success) ctx.addIssue({ code: 'custom', message: `'${x}': ${r.error.issues[0]!.message}` });
      }
      return list;
    })
    .describe('only these sources, comma-separated (ICD10CM, RXNORM, CPT, HCPCS, or any UMLS source abbreviation)'),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('1 to 100'),
});

export const ConceptSearchSchema = z
  .object({
    q: z.string(),
    sab: z.array(z.string()).nullable(),
    total_count: z.number().int().describe('every match, of which `results` are the first `limit`'),
    results: z.array(
      z.object({
        cui: z.string().nullable().describe('UMLS concept id; null for a term of a source we hold outside the UMLS'),
        term: z.string(),
        sab: z.string().describe('ICD10CM, RXNORM (an RxCUI), CPT, HCPCS, or the UMLS (or RxNorm-carried) source abbreviation'),
        source_code: z.string(),
        term_type: z.string().describe("the source's term type (UMLS or RxNorm TTY: IN, BN, SCD, SBD ...; PT/HT for ICD-10-CM billable/header, SD for an RVU short descriptor, openfda_brand/openfda_generic for an FDA product's name)"),
        dataset: z.string().describe('the dataset the term was read from (umls_concepts, rxnorm, icd10cm, fda_ndc, mpfs_rvu)'),
        version: z.string(),
      }),
    ),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'ConceptSearch' });

export interface ConceptRouteDeps {
  /** `RCM_UMLS_LICENSED`: RxNorm atoms of UMLS-licensed sources may be answered. */
  licensed: boolean;
}

/** `GET /v1/concepts/umls/search`: what a term means, across the vocabularies the snapshot holds. */
export const conceptRoutes = (d: ConceptRouteDeps): RouteDef[] => [
  defineRoute({
    method: 'get',
    path: '/v1/concepts/umls/search',
    operationId: 'searchConcepts',
    tag: 'knowledge',
    summary: 'Concepts by term or code across UMLS (MRCONSO) and the public vocabularies loaded (ICD-10-CM, RxNorm, CPT/HCPCS)',
    description:
      'Ranked: the code itself, then a term equal to the query, one starting with it, terms holding every word, then every word as a prefix. ' +
      'UMLS atoms are English and not suppressed. `cui` is null for a term from a source outside the UMLS. ' +
      'RxNorm (dataset `rxnorm`, RXNCONSO.RRF) answers its SAB=RXNORM atoms; atoms of the sources it carries under the UMLS licence only when the server says the licence is held (`RCM_UMLS_LICENSED`). Each result names its `dataset` and `sab`.',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: true,
    query: ConceptQuerySchema,
    response: ConceptSearchSchema,
    examples: [
      { summary: 'a diagnosis by words', query: { q: 'type 2 diabetes', limit: '5' } },
      { summary: 'an ICD-10-CM code as typed', query: { q: 'e119' } },
      { summary: 'only RxNorm', query: { q: 'acetaminophen', sab: 'RXNORM' } },
      { summary: 'an RxNorm concept by its RXCUI', query: { q: '161' } },
      { summary: 'words no vocabulary has: no results, naming the vocabularies searched', query: { q: 'zzqxv wwkkj' } },
      { summary: 'too short, and a lower-case source', status: 422, query: { q: 'a', sab: 'icd10cm' } },
    ],
    handler: async ({ query, snapshot, trace }) => {
      const found = await searchConcepts(snapshot, query.q, query.sab ?? null, query.limit, d.licensed);
      // The datasets of the hits; when there is none, every dataset searched (an empty answer names what it read).
      for (const [dataset, version] of Object.entries(found.versions)) if (isDatasetId(dataset) && (found.hits.length === 0 || found.hits.some((h) => h.dataset === dataset))) trace.use(dataset, version);
      // An illustrative UMLS seed (made-up CUIs) is flagged by the trace like every illustrative seed.
      const umls = found.versions.umls_concepts;
      if (!umls) trace.warn('no UMLS release is loaded (dataset umls_concepts): terms come from the public vocabularies only, with no CUIs');
      return { q: query.q, sab: query.sab ?? null, total_count: found.total, results: found.hits, reliability: trace.reliability() };
    },
  }),
];
