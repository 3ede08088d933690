import { payerKnowledge } from '../../datasets/payers/queries.js';
import { defineRoute, json, raw, result, type RouteDef } from '../route.js';
import { examplePolicyPdf } from '../policy_documents/example_pdf.js';
import type { PolicyParser } from '../policy_documents/parser.js';
import {
  DocumentParamsSchema,
  PolicyDeleteResultSchema,
  PolicyDocumentListSchema,
  PolicyParseResultSchema,
  PolicyStructureSchema,
  RetrieveBodySchema,
  RetrieveResultSchema,
  StructureBodySchema,
} from '../policy_documents/schemas.js';
import { chunkOut, codesOf, parseForTenant, queryTerms, summaryOf, treeOf } from '../policy_documents/service.js';

export interface PolicyRouteDeps {
  parser: PolicyParser;
  /** `RCM_POLICY_MAX_MB` in bytes. */
  maxBytes: number;
}

const AUTH = 'admin_secret_or_test_key' as const;
const UNKNOWN_ID = 'pd_000000000000000000000000';

/**
 * Customer policy documents: a tenant's own payer PDFs parsed into cited chunks, a heading tree
 * and a full-text index. Tenant data in the request's mode (the test host's calls are test
 * data); taken with `X-Admin-Secret` + `X-Tenant-Id` (the operator's backend) or a test key on
 * the test host. Nothing here is public reference data: `GET /v1/policies` never lists it.
 */
export function policyDocumentRoutes(d: PolicyRouteDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/policy/parse',
      operationId: 'parsePolicyDocument',
      tag: 'policy',
      summary: 'Parse a payer policy PDF into cited chunks, a heading tree and the codes it lists (201 the first time, 200 for the same bytes again)',
      description:
        'Send the PDF as the body (application/pdf) or as the form field `file` of multipart/form-data. ' +
        'Chunks are cut on headings and paragraphs (a chunk never spans two sections) and carry their pages and section path. ' +
        'Headings come from the PDF outline, else its printed table of contents, else text set larger than the body. ' +
        'A PDF that needs a user password is 422 encrypted_pdf (owner-password-only PDFs parse); a damaged or non-PDF body is 422 invalid_pdf; ' +
        'over RCM_POLICY_MAX_PAGES pages is 422 too_many_pages; over RCM_POLICY_MAX_MB is 413. Nothing is stored on failure. ' +
        'The document id derives from the tenant, the mode and the bytes: the same PDF again answers the stored document.',
      auth: AUTH,
      reads: 'snapshot+tenant',
      // A PDF cannot travel as MCP tool arguments; structure and retrieve can.
      mcp: false,
      body: raw('application/pdf', d.maxBytes, 'file'),
      response: PolicyParseResultSchema,
      responseHeaders: { Location: { description: 'the stored document: /v1/policy/documents/{document_id}', always: true } },
      status: 201,
      alsoStatus: [200],
      errors: ['encrypted_pdf', 'invalid_pdf', 'too_many_pages', 'service_busy'],
      examples: [
        { summary: 'a one-page policy', body: examplePolicyPdf() },
        { summary: 'the same PDF again: the stored document', status: 200, body: examplePolicyPdf() },
        { summary: 'a body that is not a PDF', status: 422, body: 'this is not a PDF' },
      ],
      handler: async ({ body, tenant, auth, snapshot, now, trace }) => {
        const payers = await payerKnowledge(snapshot).catch(() => null);
        // A playground session key (expiring, minted for a `playground-...` tenant) parses within the playground's budget.
        const { document, chunks, created } = await parseForTenant(body, { tenant, parser: d.parser, payers, now: now(), playground: auth?.ephemeral === true });
        // Page 1 was read against the payers (to name the document's payer), found or not.
        if (payers) trace.use('payers', payers.version);
        const out = {
          ...summaryOf(document, chunks.length),
          created,
          chunks: chunks.map(chunkOut),
          codes: codesOf(chunks),
          reliability: trace.reliability(),
        };
        return result(created ? 201 : 200, out, { location: `/v1/policy/documents/${document.document_id}` });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/policy/structure',
      operationId: 'getPolicyStructure',
      tag: 'policy',
      summary: "A parsed policy's heading tree with each heading's page and chunk ids",
      auth: AUTH,
      reads: 'tenant',
      body: json(StructureBodySchema, 4096),
      response: PolicyStructureSchema,
      errors: ['not_found'],
      examples: [
        // A seeded server holds no customer document: the documented example is the 404.
        { summary: 'an unknown (or another tenant\'s) document', status: 404, body: { document_id: UNKNOWN_ID } },
        { summary: 'the tree of a parsed policy', body: { document_id: '{policy_document}' } },
        { summary: 'a document id that is no id', status: 422, body: { document_id: 'bariatric.pdf' } },
      ],
      handler: async ({ body, tenant }) => {
        const { document, chunks } = await tenant.policyDocuments.get(body.document_id);
        const { tree, front } = treeOf(document, chunks);
        return {
          document_id: document.document_id,
          title: document.title,
          page_count: document.page_count,
          source: document.structure_source as 'outline' | 'toc' | 'headings' | 'none',
          front_matter_chunk_ids: front,
          tree,
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/policy/retrieve',
      operationId: 'retrievePolicyChunks',
      tag: 'policy',
      summary: "Rank the tenant's policy chunks for a question, with document, pages and section to cite",
      description:
        "Full-text ranking (BM25) over the tenant's own chunks in this mode, across its documents or within `document_id`. " +
        'A code in the query or in `codes` (CPT, HCPCS, ICD-10-CM) boosts the chunks that list it. Answers only from the state store: no network.',
      auth: AUTH,
      reads: 'tenant',
      body: json(RetrieveBodySchema, 16 * 1024),
      response: RetrieveResultSchema,
      errors: ['not_found'],
      examples: [
        { summary: 'what the policies say about a code', body: { query: 'what does the policy require for 43775?', top_k: 3 } },
        { summary: 'within an unknown document', status: 404, body: { query: 'sleeve gastrectomy', document_id: UNKNOWN_ID } },
        { summary: 'an empty question and top_k out of range', status: 422, body: { query: ' ', top_k: 500 } },
      ],
      handler: async ({ body, tenant }) => {
        const q = queryTerms(body.query, body.codes);
        const hits = await tenant.policyDocuments.search({ terms: q.terms, codes: q.codes, top_k: body.top_k, ...(body.document_id ? { document_id: body.document_id } : {}) });
        return {
          query: body.query,
          document_id: body.document_id ?? null,
          top_k: body.top_k,
          codes: q.codes,
          results: hits.map((h) => ({
            document_id: h.document_id,
            document_title: h.document_title,
            chunk_id: h.chunk.chunk_id,
            page_start: h.chunk.page_start,
            page_end: h.chunk.page_end,
            section_path: h.chunk.section_path,
            text: h.chunk.text,
            score: h.score,
            codes_matched: h.codes_matched,
          })),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/policy/documents',
      operationId: 'listPolicyDocuments',
      tag: 'policy',
      summary: "The tenant's parsed policy documents in this mode",
      auth: AUTH,
      reads: 'tenant',
      response: PolicyDocumentListSchema,
      examples: [{ summary: "the tenant's documents" }, { summary: 'an unknown query parameter', status: 422, query: { payer: 'uhc' } }],
      handler: async ({ tenant }) => {
        const docs = await tenant.policyDocuments.list();
        return { documents: docs.map((x) => summaryOf(x, x.chunk_count)), total: docs.length };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/policy/documents/{id}',
      operationId: 'deletePolicyDocument',
      tag: 'policy',
      summary: 'Delete a parsed document with its chunks and index rows (one transaction)',
      auth: AUTH,
      reads: 'tenant',
      params: DocumentParamsSchema,
      response: PolicyDeleteResultSchema,
      errors: ['not_found'],
      examples: [
        { summary: 'an unknown (or another tenant\'s) document', status: 404, params: { id: UNKNOWN_ID } },
        { summary: 'delete a parsed policy', params: { id: '{policy_document}' } },
        { summary: 'delete it again', status: 404, params: { id: '{policy_document}' } },
        { summary: 'an id that is no document id', status: 422, params: { id: 'x' } },
      ],
      handler: async ({ params, tenant }) => {
        const { chunks_deleted } = await tenant.policyDocuments.remove(params.id);
        return { document_id: params.id, deleted: true as const, chunks_deleted };
      },
    }),
  ];
}
