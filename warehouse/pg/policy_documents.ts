import { NotFoundError } from '../errors.js';
import {
  ABANDONED_AFTER_MS,
  beingStored,
  CHUNK_COLS,
  DOC_COLS,
  docValues,
  documentOf,
  INSERT_DOC_SQL,
  searchSteps,
  SHOW_DOC_SQL,
  STORING,
  toChunk,
  type ChunkRow,
  type DocRow,
  type PolicyHit,
  type SavePart,
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
    const r = await db.get<DocRow>(`SELECT ${DOC_COLS} FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ? AND chunks >= 0`, [tenantId, mode, id]);
    if (!r) throw new NotFoundError(`policy document ${id} not found`);
    return documentOf(r);
  };
  // Codes and postings go with their chunks (cascade), all in the caller's transaction.
  const drop = async (id: string) => {
    await db.run('DELETE FROM policy_chunks WHERE tenant_id = ? AND mode = ? AND document_id = ?', [tenantId, mode, id]);
    await db.run('DELETE FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ?', [tenantId, mode, id]);
  };
  /** A batch of chunks in three statements (chunks, their codes, their postings), each row set as arrays unnested. */
  const insertChunks = async (doc: StoredPolicyDocument, chunks: StoredChunk[]) => {
    if (!chunks.length) return;
    const weighted = chunks.map((c) => c.terms ?? fts5.count(c.section_path.join(' / '), c.text));
    const tokens = weighted.map((w) => w.reduce((a, [, tf]) => a + tf, 0));
    const rows = await db.all<{ id: number; chunk_id: string }>(
      `INSERT INTO policy_chunks (tenant_id, mode, document_id, chunk_id, ordinal, page_start, page_end, section_path, text, codes, tokens)
       SELECT ?, ?, ?, t.chunk_id, t.ordinal, t.page_start, t.page_end, t.section_path, t.text, t.codes, t.tokens
       FROM unnest(?::text[], ?::int[], ?::int[], ?::int[], ?::text[], ?::text[], ?::text[], ?::int[]) AS t(chunk_id, ordinal, page_start, page_end, section_path, text, codes, tokens)
       RETURNING id, chunk_id`,
      [
        tenantId, mode, doc.document_id,
        chunks.map((c) => c.chunk_id), chunks.map((c) => c.ordinal), chunks.map((c) => c.page_start), chunks.map((c) => c.page_end),
        chunks.map((c) => JSON.stringify(c.section_path)), chunks.map((c) => c.text), chunks.map((c) => JSON.stringify(c.codes)), tokens,
      ],
    );
    const idOf = new Map(rows.map((r) => [r.chunk_id, r.id]));
    const codes: [string, number][] = [];
    const postings: [string, number, number, number][] = [];
    chunks.forEach((c, i) => {
      const id = idOf.get(c.chunk_id)!;
      for (const k of c.codes) codes.push([k.code, id]);
      for (const [term, tf] of weighted[i]!) postings.push([term, id, tf, tokens[i]!]);
    });
    if (codes.length) {
      await db.run('INSERT INTO policy_chunk_codes (tenant_id, mode, code, chunk) SELECT ?, ?, t.code, t.chunk FROM unnest(?::text[], ?::int[]) AS t(code, chunk) ON CONFLICT DO NOTHING', [
        tenantId, mode, codes.map(([k]) => k), codes.map(([, id]) => id),
      ]);
    }
    if (postings.length) {
      await db.run('INSERT INTO policy_postings (tenant_id, mode, term, chunk, tf, tokens) SELECT ?, ?, t.term, t.chunk, t.tf, t.tokens FROM unnest(?::text[], ?::int[], ?::int[], ?::int[]) AS t(term, chunk, tf, tokens)', [
        tenantId, mode, postings.map((p) => p[0]), postings.map((p) => p[1]), postings.map((p) => p[2]), postings.map((p) => p[3]),
      ]);
    }
  };
  return {
    save: async (doc: StoredPolicyDocument, chunks: StoredChunk[], part: SavePart = 'whole'): Promise<{ document: StoredPolicyDocument; created: boolean }> => {
      if (part === 'abort') {
        if (await db.get('SELECT 1 AS hidden FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ? AND chunks = ?', [tenantId, mode, doc.document_id, STORING])) await drop(doc.document_id);
        return { document: doc, created: false };
      }
      if (part === 'whole' || part === 'first') {
        const prev = await db.get<DocRow & { stored: number }>(`SELECT ${DOC_COLS}, chunks AS stored FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ?`, [tenantId, mode, doc.document_id]);
        if (prev && prev.stored !== STORING) {
          const { stored: _, ...row } = prev;
          return { document: documentOf(row), created: false };
        }
        // Another replica may be storing a hidden document: abandoned only once it is old.
        const cutoff = new Date(Date.parse(doc.created_at) - ABANDONED_AFTER_MS).toISOString();
        if (prev && prev.created_at >= cutoff) throw beingStored(doc.document_id);
        const hidden = await db.all<{ id: string }>('SELECT id FROM policy_documents WHERE tenant_id = ? AND mode = ? AND chunks = ? AND created_at < ?', [tenantId, mode, STORING, cutoff]);
        for (const h of hidden) await drop(h.id);
        await db.run(INSERT_DOC_SQL, [tenantId, mode, ...docValues(doc, part === 'first' ? STORING : 0)]);
      } else if (!(await db.get('SELECT 1 AS hidden FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ? AND chunks = ?', [tenantId, mode, doc.document_id, STORING]))) {
        throw new NotFoundError(`policy document ${doc.document_id} is not being stored`);
      }
      await insertChunks(doc, chunks);
      if (part === 'whole' || part === 'last') await db.run(SHOW_DOC_SQL, [tenantId, mode, doc.document_id]);
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
           FROM policy_documents d WHERE d.tenant_id = ? AND d.mode = ? AND d.chunks >= 0 ORDER BY d.created_at, d.id`,
          [tenantId, mode],
        )
      ).map(({ chunk_count, ...r }) => ({ ...documentOf(r), chunk_count })),
    remove: async (id: string) => {
      const doc = await getDoc(id);
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
