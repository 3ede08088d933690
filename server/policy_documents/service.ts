import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { aliasKey, type PayerKnowledge } from '../../datasets/payers/queries.js';
import type { StoredChunk, StoredPolicyDocument } from '../../warehouse/policy_documents.js';
import type { TenantStore } from '../../warehouse/tenant_state.js';
import type { PolicyParser } from './parser.js';
import type { FoundCodeSchema, PolicyChunkSchema, PolicyDocumentSummarySchema, PolicyTreeNode } from './schemas.js';
import type { ParsedPolicy } from './parse_job.js';

/**
 * The id of a document: derived from the tenant, the mode and the bytes, so the same PDF parsed
 * again by the same tenant in the same mode is the same document, while the id says nothing
 * another tenant could match (their id for the same bytes differs).
 */
export function documentIdOf(tenantId: string, mode: string, sha256: string): string {
  return `pd_${createHash('sha256').update(`${tenantId}\u0000${mode}\u0000${sha256}`).digest('hex').slice(0, 24)}`;
}

const chunkIdOf = (documentId: string, ordinal: number) => `${documentId}_c${ordinal}`;

/**
 * The payer page 1 names: a payer's name, or an alias of one payer that is long enough not to be
 * a common word ("united" alone is not UnitedHealthcare), first in the text wins.
 */
export function detectPayer(k: PayerKnowledge | null, text: string): { slug: string; name: string } | null {
  if (!k) return null;
  const hay = ` ${aliasKey(text)} `;
  let best: { at: number; slug: string; name: string } | null = null;
  for (const p of k.payers.values()) {
    const names = [p.name, ...p.aliases.filter((a) => a.length >= 8 || a.includes(' '))];
    for (const n of names) {
      const key = aliasKey(n);
      if (key.length < 4) continue;
      if (n !== p.name && (k.aliases.get(key)?.length ?? 1) > 1) continue; // an alias several payers share names none
      const at = hay.indexOf(` ${key} `);
      if (at >= 0 && (!best || at < best.at)) best = { at, slug: p.slug, name: p.name };
    }
  }
  return best ? { slug: best.slug, name: best.name } : null;
}

/** Parses `bytes` for the tenant, or answers the document it already holds for the same bytes. */
export async function parseForTenant(
  bytes: Buffer,
  o: { tenant: TenantStore; parser: PolicyParser; payers: PayerKnowledge | null; now: Date },
): Promise<{ document: StoredPolicyDocument; chunks: StoredChunk[]; created: boolean }> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const id = documentIdOf(o.tenant.tenantId, o.tenant.mode, sha256);
  const held = await o.tenant.policyDocuments.get(id).catch(() => null);
  if (held) return { ...held, created: false };
  const parsed: ParsedPolicy = await o.parser.parse(bytes);
  const payer = detectPayer(o.payers, parsed.first_page_text);
  const chunks: StoredChunk[] = parsed.chunks.map((c, i) => ({
    chunk_id: chunkIdOf(id, c.ordinal),
    ordinal: c.ordinal,
    page_start: c.page_start,
    page_end: c.page_end,
    section_path: c.section_path,
    text: c.text,
    codes: c.codes,
    terms: parsed.terms[i]!,
  }));
  const doc: StoredPolicyDocument = {
    document_id: id,
    sha256,
    title: parsed.meta.title,
    policy_number: parsed.meta.policy_number,
    effective_date: parsed.meta.effective_date,
    payer_slug: payer?.slug ?? null,
    payer_name: payer?.name ?? null,
    page_count: parsed.page_count,
    byte_size: bytes.length,
    structure_source: parsed.source,
    headings: parsed.headings.map((h, index) => ({ title: h.title, level: h.level, page: h.page, index })),
    chunk_sections: parsed.chunks.map((c) => c.heading),
    created_at: o.now.toISOString(),
  };
  const saved = await o.tenant.policyDocuments.save(doc, chunks);
  // Two parses of the same bytes at once: the second finds the first's row and answers it.
  if (!saved.created) return { ...(await o.tenant.policyDocuments.get(id)), created: false };
  return { document: doc, chunks, created: true };
}

export const chunkOut = (c: StoredChunk): z.output<typeof PolicyChunkSchema> => ({
  chunk_id: c.chunk_id,
  page_start: c.page_start,
  page_end: c.page_end,
  section_path: c.section_path,
  text: c.text,
  codes: [...new Set(c.codes.map((k) => k.code))],
});

export function summaryOf(d: StoredPolicyDocument, chunkCount: number): z.output<typeof PolicyDocumentSummarySchema> {
  return {
    document_id: d.document_id,
    title: d.title,
    policy_number: d.policy_number,
    effective_date: d.effective_date,
    payer: d.payer_slug && d.payer_name ? { slug: d.payer_slug, name: d.payer_name } : null,
    page_count: d.page_count,
    byte_size: d.byte_size,
    sha256: d.sha256,
    structure_source: d.structure_source as 'outline' | 'toc' | 'headings' | 'none',
    chunk_count: chunkCount,
    created_at: d.created_at,
  };
}

/** Every code the document lists, with every page it is printed on, in order of first mention. */
export function codesOf(chunks: StoredChunk[]): z.output<typeof FoundCodeSchema>[] {
  const byCode = new Map<string, z.output<typeof FoundCodeSchema>>();
  for (const c of chunks) {
    for (const k of c.codes) {
      let e = byCode.get(k.code);
      if (!e) byCode.set(k.code, (e = { code: k.code, system: k.system as 'CPT' | 'HCPCS' | 'ICD10CM', pages: [] }));
      if (!e.pages.includes(k.page)) e.pages.push(k.page);
    }
  }
  return [...byCode.values()];
}

/** The heading tree with each section's chunk ids; chunks before the first heading are front matter. */
export function treeOf(d: StoredPolicyDocument, chunks: StoredChunk[]): { tree: PolicyTreeNode[]; front: string[] } {
  const nodes = d.headings.map((h): PolicyTreeNode => ({ title: h.title, level: h.level, page: h.page, chunk_ids: [], children: [] }));
  const front: string[] = [];
  chunks.forEach((c, i) => {
    const s = d.chunk_sections[i] ?? -1;
    if (s < 0 || !nodes[s]) front.push(c.chunk_id);
    else nodes[s].chunk_ids.push(c.chunk_id);
  });
  const tree: PolicyTreeNode[] = [];
  const stack: PolicyTreeNode[] = [];
  for (const n of nodes) {
    while (stack.length && stack.at(-1)!.level >= n.level) stack.pop();
    (stack.length ? stack.at(-1)!.children : tree).push(n);
    stack.push(n);
  }
  return { tree, front };
}

const STOPWORDS = new Set(
  'a an and are as at be by can do does for from has have how i if in is it its may me must my of on or our policy should that the their this to under us was we what when which who will with would you your'.split(' '),
);
const QUERY_CODE = /\b([0-9]{4}[0-9FTU]|[A-V][0-9]{4}|[A-TV-Z][0-9][0-9A-Z]\.[0-9A-Z]{1,4})\b/g;

/** A question as search terms (words without stop words) and the codes it names. */
export function queryTerms(query: string, codes: string[] = []): { terms: string[]; codes: string[] } {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const terms = [...new Set(words.filter((w) => !STOPWORDS.has(w) && (w.length > 1 || /\d/.test(w))))];
  const named = [...query.toUpperCase().matchAll(QUERY_CODE)].map((m) => m[1]!);
  return { terms, codes: [...new Set([...codes.map((c) => c.toUpperCase()), ...named])] };
}
