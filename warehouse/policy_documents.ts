import type Database from 'better-sqlite3';
import { NotFoundError } from './errors.js';
import type { KeyType } from './state.js';

/**
 * Customer policy documents (parsed payer PDFs): one row per document, its chunks, the codes each
 * chunk lists, and an FTS5 index over chunk text kept in step by triggers. Everything is keyed by
 * tenant and mode; retrieval scores use only the calling tenant's own chunks (see `search`).
 */

export interface StoredChunk {
  chunk_id: string;
  ordinal: number;
  page_start: number;
  page_end: number;
  section_path: string[];
  text: string;
  codes: { code: string; system: string; page: number }[];
}

export interface StoredHeading {
  title: string;
  level: number;
  page: number;
  /** Ordinal of the heading's section in `headings` (chunks name it). */
  index: number;
}

export interface StoredPolicyDocument {
  document_id: string;
  sha256: string;
  title: string | null;
  policy_number: string | null;
  effective_date: string | null;
  payer_slug: string | null;
  payer_name: string | null;
  page_count: number;
  byte_size: number;
  structure_source: string;
  headings: StoredHeading[];
  /** Which section (index into `headings`, -1 before the first) each chunk ordinal belongs to. */
  chunk_sections: number[];
  created_at: string;
}

export interface PolicyHit {
  document_id: string;
  document_title: string | null;
  chunk: StoredChunk;
  score: number;
  codes_matched: string[];
}

export interface SearchInput {
  terms: string[];
  codes: string[];
  document_id?: string;
  top_k: number;
}

/** One tenant's policy documents in one mode. */
export interface TenantPolicyDocuments {
  /** Stores a parsed document with its chunks; the same id again returns the stored one (`created: false`). */
  save(doc: StoredPolicyDocument, chunks: StoredChunk[]): Promise<{ document: StoredPolicyDocument; created: boolean }>;
  get(id: string): Promise<{ document: StoredPolicyDocument; chunks: StoredChunk[] }>;
  list(): Promise<(StoredPolicyDocument & { chunk_count: number })[]>;
  /** Removes the document, its chunks, codes and index rows together; an unknown id is not found. */
  remove(id: string): Promise<{ document: StoredPolicyDocument; chunks_deleted: number }>;
  /** Ranked chunks (BM25 over this tenant's chunks, codes boosted); unknown `document_id` is not found. */
  search(q: SearchInput): Promise<PolicyHit[]>;
}

export const POLICY_DOCUMENTS_DDL = `
  CREATE TABLE policy_documents (
    tenant_id TEXT NOT NULL REFERENCES tenants(id), mode TEXT NOT NULL CHECK (mode IN ('test','live')), id TEXT NOT NULL,
    sha256 TEXT NOT NULL, title TEXT, policy_number TEXT, effective_date TEXT, payer_slug TEXT, payer_name TEXT,
    page_count INTEGER NOT NULL, byte_size INTEGER NOT NULL, structure_source TEXT NOT NULL,
    headings TEXT NOT NULL, chunk_sections TEXT NOT NULL, created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, mode, id));
  CREATE TABLE policy_chunks (
    id INTEGER PRIMARY KEY, tenant_id TEXT NOT NULL, mode TEXT NOT NULL CHECK (mode IN ('test','live')),
    document_id TEXT NOT NULL, chunk_id TEXT NOT NULL, ordinal INTEGER NOT NULL,
    page_start INTEGER NOT NULL, page_end INTEGER NOT NULL, section_path TEXT NOT NULL, section_text TEXT NOT NULL,
    text TEXT NOT NULL, codes TEXT NOT NULL, tokens INTEGER NOT NULL,
    UNIQUE (tenant_id, mode, chunk_id),
    FOREIGN KEY (tenant_id, mode, document_id) REFERENCES policy_documents(tenant_id, mode, id) ON DELETE CASCADE);
  CREATE INDEX policy_chunks_document ON policy_chunks(tenant_id, mode, document_id, ordinal);
  CREATE TABLE policy_chunk_codes (
    tenant_id TEXT NOT NULL, mode TEXT NOT NULL, code TEXT NOT NULL,
    chunk INTEGER NOT NULL REFERENCES policy_chunks(id) ON DELETE CASCADE,
    PRIMARY KEY (tenant_id, mode, code, chunk)) WITHOUT ROWID;
  CREATE INDEX policy_chunk_codes_chunk ON policy_chunk_codes(chunk);
  CREATE VIRTUAL TABLE policy_chunks_fts USING fts5(
    section_text, text, content='policy_chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
  CREATE TRIGGER policy_chunks_ai AFTER INSERT ON policy_chunks BEGIN
    INSERT INTO policy_chunks_fts(rowid, section_text, text) VALUES (new.id, new.section_text, new.text);
  END;
  CREATE TRIGGER policy_chunks_ad AFTER DELETE ON policy_chunks BEGIN
    INSERT INTO policy_chunks_fts(policy_chunks_fts, rowid, section_text, text) VALUES ('delete', old.id, old.section_text, old.text);
  END;`;

/** A document row: the stored document with its id column and JSON text columns. */
type DocRow = Omit<StoredPolicyDocument, 'document_id' | 'headings' | 'chunk_sections'> & { id: string; headings: string; chunk_sections: string };

interface ChunkRow {
  id: number;
  document_id: string;
  chunk_id: string;
  ordinal: number;
  page_start: number;
  page_end: number;
  section_path: string;
  text: string;
  codes: string;
  tokens: number;
}

const DOC_COLS = 'id, sha256, title, policy_number, effective_date, payer_slug, payer_name, page_count, byte_size, structure_source, headings, chunk_sections, created_at';
const CHUNK_COLS = 'id, document_id, chunk_id, ordinal, page_start, page_end, section_path, text, codes, tokens';

const toDoc = ({ id, headings, chunk_sections, ...r }: DocRow): StoredPolicyDocument => ({
  document_id: id,
  ...r,
  headings: JSON.parse(headings) as StoredHeading[],
  chunk_sections: JSON.parse(chunk_sections) as number[],
});
const toChunk = (r: ChunkRow): StoredChunk => ({
  chunk_id: r.chunk_id,
  ordinal: r.ordinal,
  page_start: r.page_start,
  page_end: r.page_end,
  section_path: JSON.parse(r.section_path) as string[],
  text: r.text,
  codes: JSON.parse(r.codes) as StoredChunk['codes'],
});

/** Words as the index sees them (before stemming): letters and digits. */
export const wordsOf = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** BM25 parameters (the usual ones; FTS5's own bm25 uses the same). */
const K1 = 1.2;
const B = 0.75;
/** A hit in the section heading counts this many times a hit in the text. */
const SECTION_WEIGHT = 2;
/** Added per requested code a chunk lists (codes tables name codes once; text may never repeat them). */
const CODE_BOOST = 5;
/** At most this many chunks per term are scored (a term in more chunks than this carries almost no weight). */
const TERM_ROWS = 5000;

export class SqlitePolicyDocuments {
  constructor(private readonly db: Database.Database) {}

  forTenant(tenantId: string, mode: KeyType) {
    const db = this.db;
    const getDoc = (id: string) => {
      const r = db.prepare(`SELECT ${DOC_COLS} FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ?`).get(tenantId, mode, id) as DocRow | undefined;
      if (!r) throw new NotFoundError(`policy document ${id} not found`);
      return toDoc(r);
    };
    return {
      save: (doc: StoredPolicyDocument, chunks: StoredChunk[]) => {
        const prev = db.prepare(`SELECT ${DOC_COLS} FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ?`).get(tenantId, mode, doc.document_id) as DocRow | undefined;
        if (prev) return { document: toDoc(prev), created: false };
        db.prepare(`INSERT INTO policy_documents (tenant_id, mode, ${DOC_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
          tenantId, mode, doc.document_id, doc.sha256, doc.title, doc.policy_number, doc.effective_date, doc.payer_slug, doc.payer_name,
          doc.page_count, doc.byte_size, doc.structure_source, JSON.stringify(doc.headings), JSON.stringify(doc.chunk_sections), doc.created_at,
        );
        const ins = db.prepare(
          `INSERT INTO policy_chunks (tenant_id, mode, document_id, chunk_id, ordinal, page_start, page_end, section_path, section_text, text, codes, tokens)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        );
        const insCode = db.prepare('INSERT OR IGNORE INTO policy_chunk_codes (tenant_id, mode, code, chunk) VALUES (?, ?, ?, ?)');
        for (const c of chunks) {
          const section = c.section_path.join(' / ');
          const row = ins.run(
            tenantId, mode, doc.document_id, c.chunk_id, c.ordinal, c.page_start, c.page_end, JSON.stringify(c.section_path), section, c.text,
            JSON.stringify(c.codes), wordsOf(c.text).length + SECTION_WEIGHT * wordsOf(section).length,
          );
          for (const k of c.codes) insCode.run(tenantId, mode, k.code, row.lastInsertRowid);
        }
        return { document: doc, created: true };
      },
      get: (id: string) => {
        const document = getDoc(id);
        const rows = db.prepare(`SELECT ${CHUNK_COLS} FROM policy_chunks WHERE tenant_id = ? AND mode = ? AND document_id = ? ORDER BY ordinal`).all(tenantId, mode, id) as ChunkRow[];
        return { document, chunks: rows.map(toChunk) };
      },
      list: () =>
        (
          db
            .prepare(
              `SELECT ${DOC_COLS.split(', ').map((c) => `d.${c}`).join(', ')}, (SELECT count(*) FROM policy_chunks c WHERE c.tenant_id = d.tenant_id AND c.mode = d.mode AND c.document_id = d.id) AS chunk_count
               FROM policy_documents d WHERE d.tenant_id = ? AND d.mode = ? ORDER BY d.created_at, d.id`,
            )
            .all(tenantId, mode) as (DocRow & { chunk_count: number })[]
        ).map(({ chunk_count, ...r }) => ({ ...toDoc(r), chunk_count })),
      remove: (id: string) => {
        const doc = getDoc(id);
        // Codes and index rows go with their chunks (cascade and trigger), all in the caller's transaction.
        const chunks_deleted = db.prepare('DELETE FROM policy_chunks WHERE tenant_id = ? AND mode = ? AND document_id = ?').run(tenantId, mode, id).changes;
        db.prepare('DELETE FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ?').run(tenantId, mode, id);
        return { document: doc, chunks_deleted };
      },
      search: (q: SearchInput) => this.search(tenantId, mode, q, getDoc),
    };
  }

  /**
   * BM25 computed here from this tenant's own chunks (count, average length, how many hold each
   * term), with FTS5 only finding which chunks hold a term: FTS5's `bm25()` weighs terms by the
   * whole index, every tenant's chunks, so its scores would move with other tenants' documents.
   */
  private search(tenantId: string, mode: KeyType, q: SearchInput, getDoc: (id: string) => StoredPolicyDocument): PolicyHit[] {
    const db = this.db;
    if (q.document_id !== undefined) getDoc(q.document_id);
    const scope = q.document_id !== undefined ? ' AND c.document_id = ?' : '';
    const args = q.document_id !== undefined ? [tenantId, mode, q.document_id] : [tenantId, mode];
    const stats = db.prepare(`SELECT count(*) AS n, avg(tokens) AS avgdl FROM policy_chunks c WHERE c.tenant_id = ? AND c.mode = ?${scope}`).get(...args) as { n: number; avgdl: number | null };
    if (stats.n === 0) return [];
    const avgdl = stats.avgdl ?? 1;
    const scores = new Map<number, { score: number; tokens: number; codes: string[] }>();
    const entry = (id: number, tokens: number) => {
      let e = scores.get(id);
      if (!e) scores.set(id, (e = { score: 0, tokens, codes: [] }));
      return e;
    };
    const termStmt = db.prepare(
      `SELECT c.id, c.tokens, highlight(policy_chunks_fts, 0, char(1), char(2)) AS s, highlight(policy_chunks_fts, 1, char(1), char(2)) AS t
       FROM policy_chunks_fts JOIN policy_chunks c ON c.id = policy_chunks_fts.rowid
       WHERE policy_chunks_fts MATCH ? AND c.tenant_id = ? AND c.mode = ?${scope} LIMIT ${TERM_ROWS}`,
    );
    const marks = (s: string) => s.split('\u0001').length - 1;
    for (const term of new Set(q.terms)) {
      const rows = termStmt.all(`"${term.replace(/"/g, '""')}"`, ...args) as { id: number; tokens: number; s: string; t: string }[];
      if (!rows.length) continue;
      const idf = Math.log(1 + (stats.n - rows.length + 0.5) / (rows.length + 0.5));
      for (const r of rows) {
        const tf = SECTION_WEIGHT * marks(r.s) + marks(r.t);
        const e = entry(r.id, r.tokens);
        e.score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * r.tokens) / avgdl));
      }
    }
    const codeStmt = db.prepare(
      `SELECT c.id, c.tokens FROM policy_chunk_codes k JOIN policy_chunks c ON c.id = k.chunk WHERE k.tenant_id = ? AND k.mode = ? AND k.code = ? AND c.tenant_id = ? AND c.mode = ?${scope}`,
    );
    for (const code of new Set(q.codes)) {
      for (const r of codeStmt.all(tenantId, mode, code, ...args) as { id: number; tokens: number }[]) {
        const e = entry(r.id, r.tokens);
        e.score += CODE_BOOST;
        e.codes.push(code);
      }
    }
    const top = [...scores].filter(([, e]) => e.score > 0).sort((a, b) => b[1].score - a[1].score || a[0] - b[0]).slice(0, q.top_k);
    const chunkStmt = db.prepare(`SELECT ${CHUNK_COLS} FROM policy_chunks WHERE id = ?`);
    const titles = new Map<string, string | null>();
    return top.map(([id, e]) => {
      const r = chunkStmt.get(id) as ChunkRow;
      if (!titles.has(r.document_id)) titles.set(r.document_id, getDoc(r.document_id).title);
      return { document_id: r.document_id, document_title: titles.get(r.document_id) ?? null, chunk: toChunk(r), score: Math.round(e.score * 1e4) / 1e4, codes_matched: e.codes };
    });
  }
}
