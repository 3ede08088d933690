import { NotFoundError } from '../errors.js';
import {
  CHUNK_COLS,
  DOC_COLS,
  documentOf,
  searchSteps,
  toChunk,
  type ChunkRow,
  type DocRow,
  type PolicyHit,
  type SearchInput,
  type StoredChunk,
  type StoredPolicyDocument,
} from '../policy_documents.js';
import type { Fts5Terms } from '../policy_terms.js';
import type { KeyType } from '../key_kinds.js';
import type { Sql } from './sql.js';

/**
 * PostgreSQL implementation of one tenant's policy documents (`warehouse/policy_documents.ts` for
 * SQLite): the same tables and the same BM25 over tenant-keyed postings, the search being the one
 * `searchSteps` both engines run. Terms come from SQLite FTS5's tokenizer (`fts5`, an in-memory
 * database of this process), so a document's postings and ranking are the same on both engines.
 */
export function pgPolicyDocuments(db: Sql, tenantId: string, mode: KeyType, fts5: Fts5Terms) {
  const getDoc = async (id: string) => {
    const r = await db.get<DocRow>(`SELECT ${DOC_COLS} FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ?`, [tenantId, mode, id]);
    if (!r) throw new NotFoundError(`policy document ${id} not found`);
    return documentOf(r);
  };
  return {
    save: async (doc: StoredPolicyDocument, chunks: StoredChunk[]): Promise<{ document: StoredPolicyDocument; created: boolean }> => {
      const prev = await db.get<DocRow>(`SELECT ${DOC_COLS} FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ?`, [tenantId, mode, doc.document_id]);
      if (prev) return { document: documentOf(prev), created: false };
      await db.run(`INSERT INTO policy_documents (tenant_id, mode, ${DOC_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
        tenantId, mode, doc.document_id, doc.sha256, doc.title, doc.policy_number, doc.effective_date, doc.payer_slug, doc.payer_name,
        doc.page_count, doc.byte_size, doc.structure_source, JSON.stringify(doc.headings), JSON.stringify(doc.chunk_sections), doc.created_at,
      ]);
      let total = 0;
      for (const c of chunks) {
        const weighted = c.terms ?? fts5.count(c.section_path.join(' / '), c.text);
        const tokens = weighted.reduce((a, [, tf]) => a + tf, 0);
        const { id } = (await db.get<{ id: number }>(
          `INSERT INTO policy_chunks (tenant_id, mode, document_id, chunk_id, ordinal, page_start, page_end, section_path, text, codes, tokens)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
          [tenantId, mode, doc.document_id, c.chunk_id, c.ordinal, c.page_start, c.page_end, JSON.stringify(c.section_path), c.text, JSON.stringify(c.codes), tokens],
        ))!;
        // One statement per table per chunk: its codes and postings as arrays unnested.
        if (c.codes.length) {
          await db.run('INSERT INTO policy_chunk_codes (tenant_id, mode, code, chunk) SELECT ?, ?, code, ? FROM unnest(?::text[]) AS code ON CONFLICT DO NOTHING', [
            tenantId, mode, id, c.codes.map((k) => k.code),
          ]);
        }
        if (weighted.length) {
          await db.run('INSERT INTO policy_postings (tenant_id, mode, term, chunk, tf, tokens) SELECT ?, ?, t.term, ?, t.tf, ? FROM unnest(?::text[], ?::int[]) AS t(term, tf)', [
            tenantId, mode, id, tokens, weighted.map(([t]) => t), weighted.map(([, tf]) => tf),
          ]);
        }
        total += tokens;
      }
      // BM25's corpus figures (chunks, average length) summed per document, read per query.
      await db.run('UPDATE policy_documents SET chunks = ?, tokens = ? WHERE tenant_id = ? AND mode = ? AND id = ?', [chunks.length, total, tenantId, mode, doc.document_id]);
      return { document: doc, created: true };
    },
    get: async (id: string) => {
      const document = await getDoc(id);
      const rows = await db.all<ChunkRow>(`SELECT ${CHUNK_COLS} FROM policy_chunks WHERE tenant_id = ? AND mode = ? AND document_id = ? ORDER BY ordinal`, [tenantId, mode, id]);
      return { document, chunks: rows.map(toChunk) };
    },
    list: async () =>
      (
        await db.all<DocRow & { chunk_count: number }>(
          `SELECT ${DOC_COLS.split(', ').map((c) => `d.${c}`).join(', ')}, (SELECT count(*) FROM policy_chunks c WHERE c.tenant_id = d.tenant_id AND c.mode = d.mode AND c.document_id = d.id) AS chunk_count
           FROM policy_documents d WHERE d.tenant_id = ? AND d.mode = ? ORDER BY d.created_at, d.id`,
          [tenantId, mode],
        )
      ).map(({ chunk_count, ...r }) => ({ ...documentOf(r), chunk_count })),
    remove: async (id: string) => {
      const doc = await getDoc(id);
      // Codes and postings go with their chunks (cascade), all in the caller's transaction.
      const chunks_deleted = await db.run('DELETE FROM policy_chunks WHERE tenant_id = ? AND mode = ? AND document_id = ?', [tenantId, mode, id]);
      await db.run('DELETE FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ?', [tenantId, mode, id]);
      return { document: doc, chunks_deleted };
    },
    search: async (q: SearchInput): Promise<PolicyHit[]> => {
      const steps = searchSteps(tenantId, mode, q, (text) => fts5.count('', text));
      for (let step = steps.next(); ; ) {
        if (step.done) return step.value;
        step = steps.next(await db.all(step.value.sql, step.value.args));
      }
    },
  };
}
