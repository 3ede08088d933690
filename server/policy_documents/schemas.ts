import { z } from 'zod';
import { IsoDateSchema, ReliabilitySchema } from '../schemas.js';

const DocumentId = z.string().regex(/^pd_[0-9a-f]{24}$/, 'a document id: pd_ and 24 hex digits').describe('pd_ + 24 hex digits, from the tenant, mode and content');

export const DocumentParamsSchema = z.strictObject({ id: DocumentId });

export const PolicyChunkSchema = z
  .object({
    chunk_id: z.string().describe('document id, "_c" and the chunk ordinal'),
    page_start: z.number().int(),
    page_end: z.number().int(),
    section_path: z.array(z.string()).describe('headings from the top level down to the section; [] before the first heading'),
    text: z.string(),
    codes: z.array(z.string()).describe('CPT, HCPCS and ICD-10-CM codes the chunk lists'),
  })
  .meta({ id: 'PolicyChunk' });

export const FoundCodeSchema = z
  .object({
    code: z.string(),
    system: z.enum(['CPT', 'HCPCS', 'ICD10CM']),
    pages: z.array(z.number().int()).describe('every page the code is printed on'),
  })
  .meta({ id: 'PolicyCode' });

const PayerRefSchema = z.object({ slug: z.string(), name: z.string() }).nullable().describe('the payer the first page names (payers dataset name or alias); null when none is recognised');

export const PolicyDocumentSummarySchema = z
  .object({
    document_id: z.string(),
    title: z.string().nullable().describe('the largest text on page 1, else the PDF Title'),
    policy_number: z.string().nullable(),
    effective_date: IsoDateSchema.nullable(),
    payer: PayerRefSchema,
    page_count: z.number().int(),
    byte_size: z.number().int(),
    sha256: z.string(),
    structure_source: z.enum(['outline', 'toc', 'headings', 'none']).describe('where the heading tree came from: PDF bookmarks, the printed table of contents, or text set larger than the body'),
    chunk_count: z.number().int(),
    created_at: z.string(),
  })
  .meta({ id: 'PolicyDocumentSummary' });

export const PolicyParseResultSchema = PolicyDocumentSummarySchema.extend({
  created: z.boolean().describe('false when this tenant had already parsed the same bytes in this mode (the stored document is answered)'),
  chunks: z.array(PolicyChunkSchema),
  codes: z.array(FoundCodeSchema),
  reliability: ReliabilitySchema,
}).meta({ id: 'PolicyParseResult' });

export const PolicyTreeNodeSchema = z
  .object({
    title: z.string(),
    level: z.number().int().describe('1 for a top-level heading'),
    page: z.number().int().describe('the page the heading is on'),
    chunk_ids: z.array(z.string()).describe('the chunks of this section, not of its subsections'),
    get children(): z.ZodArray<typeof PolicyTreeNodeSchema> {
      return z.array(PolicyTreeNodeSchema);
    },
  })
  .meta({ id: 'PolicyTreeNode' });

export const StructureBodySchema = z.strictObject({ document_id: DocumentId });

export const PolicyStructureSchema = z
  .object({
    document_id: z.string(),
    title: z.string().nullable(),
    page_count: z.number().int(),
    source: z.enum(['outline', 'toc', 'headings', 'none']),
    front_matter_chunk_ids: z.array(z.string()).describe('chunks before the first heading (title page, table of contents)'),
    tree: z.array(PolicyTreeNodeSchema),
  })
  .meta({ id: 'PolicyStructure' });

const CodeSchema = z.string().regex(/^([0-9]{4}[0-9FTU]|[A-Va-v][0-9]{4}|[A-TV-Za-tv-z][0-9][0-9A-Za-z](\.?[0-9A-Za-z]{1,4})?)$/, 'a CPT, HCPCS or ICD-10-CM code');

export const RetrieveBodySchema = z.strictObject({
  query: z.string().trim().min(1).max(2000).describe('the question, in words (codes in it rank chunks that list them higher)'),
  document_id: DocumentId.optional(),
  top_k: z.number().int().min(1).max(50).default(5).describe('how many chunks to answer, 1 to 50 (default 5)'),
  codes: z.array(CodeSchema).max(20).optional().describe('chunks that list one of these codes rank higher (codes in the query count too)'),
});

export const RetrieveResultSchema = z
  .object({
    query: z.string(),
    document_id: z.string().nullable(),
    top_k: z.number().int(),
    codes: z.array(z.string()).describe('the codes that boosted: given in `codes` or found in the query'),
    results: z.array(
      z.object({
        document_id: z.string(),
        document_title: z.string().nullable(),
        chunk_id: z.string(),
        page_start: z.number().int(),
        page_end: z.number().int(),
        section_path: z.array(z.string()),
        text: z.string(),
        score: z.number().describe("BM25 over the tenant's own chunks, plus a boost per requested code the chunk lists"),
        codes_matched: z.array(z.string()),
      }),
    ),
  })
  .meta({ id: 'PolicyRetrieveResult' });

export const PolicyDocumentListSchema = z
  .object({ documents: z.array(PolicyDocumentSummarySchema), total: z.number().int() })
  .meta({ id: 'PolicyDocumentList' });

export const PolicyDeleteResultSchema = z
  .object({ document_id: z.string(), deleted: z.literal(true), chunks_deleted: z.number().int() })
  .meta({ id: 'PolicyDeleteResult' });

export type PolicyTreeNode = z.output<typeof PolicyTreeNodeSchema>;
