import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { aliasKey, type PayerKnowledge } from '../../datasets/payers/queries.js';
import type { StoredChunk, StoredPolicyDocument, TenantPolicyDocuments } from '../../warehouse/policy_documents.js';
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

type ParseOutcome = { document: StoredPolicyDocument; chunks: StoredChunk[]; created: boolean };

/** Parses under way, by tenant, mode and document id: the same PDF sent again meanwhile waits for the first instead of parsing twice. */
const underway = new Map<string, Promise<ParseOutcome>>();

/**
 * Parses `bytes` for the tenant, or answers the document it already holds for the same bytes.
 * `playground`: the caller holds a playground session key (the parser's own small budget).
 */
export async function parseForTenant(
  bytes: Buffer,
  o: { tenant: TenantStore; parser: PolicyParser; payers: PayerKnowledge | null; now: Date; playground?: boolean },
): Promise<ParseOutcome> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const id = documentIdOf(o.tenant.tenantId, o.tenant.mode, sha256);
  const held = await o.tenant.policyDocuments.get(id).catch(() => null);
  if (held) return { ...held, created: false };
  const key = `${o.tenant.tenantId}\u0000${o.tenant.mode}\u0000${id}`;
  const first = underway.get(key);
  if (first) return { ...(await first), created: false };
  const run = parseAndStore(bytes, sha256, id, o);
  underway.set(key, run);
  try {
    return await run;
  } finally {
    underway.delete(key);
  }
}

async function parseAndStore(bytes: Buffer, sha256: string, id: string, o: Parameters<typeof parseForTenant>[1]): Promise<ParseOutcome> {
  const parsed: ParsedPolicy = await o.parser.parse(bytes, { tenant: o.tenant.tenantId, playground: o.playground === true });
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
  const saved = await storeInParts(o.tenant.policyDocuments, doc, chunks);
  // Stored meanwhile by another request (another replica): answer the stored document.
  if (!saved.created) return { ...(await o.tenant.policyDocuments.get(id)), created: false };
  return { document: doc, chunks, created: true };
}

/**
 * Rows one write of a document's chunks holds at most (a chunk, its codes and its index terms):
 * a 300-page policy (814 chunks, about 60,000 rows) goes in some 60 writes of a few milliseconds
 * each, between which other requests run, instead of one write that held SQLite's connection and
 * the event loop for 2-3 s.
 */
export const STORE_BATCH_ROWS = 1000;

/** The chunks in consecutive batches of at most STORE_BATCH_ROWS rows (a chunk with more rows goes alone). */
export function storeBatches(chunks: StoredChunk[], maxRows = STORE_BATCH_ROWS): StoredChunk[][] {
  const out: StoredChunk[][] = [];
  let batch: StoredChunk[] = [];
  let rows = 0;
  for (const c of chunks) {
    const n = 1 + c.codes.length + (c.terms?.length ?? 0);
    if (batch.length && rows + n > maxRows) {
      out.push(batch);
      batch = [];
      rows = 0;
    }
    batch.push(c);
    rows += n;
  }
  if (batch.length || !out.length) out.push(batch);
  return out;
}

/**
 * Stores a document with its chunks: at once when they fit one batch, else in parts (`SavePart`),
 * the document hidden until its last part is written, and deleted if a part fails.
 */
export async function storeInParts(store: TenantPolicyDocuments, doc: StoredPolicyDocument, chunks: StoredChunk[], maxRows = STORE_BATCH_ROWS): Promise<{ document: StoredPolicyDocument; created: boolean }> {
  const batches = storeBatches(chunks, maxRows);
  if (batches.length === 1) return store.save(doc, chunks);
  const first = await store.save(doc, batches[0]!, 'first');
  if (!first.created) return first;
  try {
    for (let i = 1; i < batches.length - 1; i++) await store.save(doc, batches[i]!, 'more');
    return await store.save(doc, batches.at(-1)!, 'last');
  } catch (e) {
    await store.save(doc, [], 'abort').catch(() => undefined);
    throw e;
  }
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
