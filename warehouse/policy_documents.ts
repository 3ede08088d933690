import type Database from 'better-sqlite3';
import { DomainError, NotFoundError } from './errors.js';
import { Fts5Terms, type TermCount } from './policy_terms.js';
import type { KeyType } from './key_kinds.js';

/**
 * Customer policy documents (parsed payer PDFs): one row per document, its chunks, the codes each
 * chunk lists, and a full-text index: postings (term, chunk, frequency) keyed by tenant and mode,
 * with terms made by SQLite FTS5's own tokenizer (porter stemming, Unicode, diacritics folded).
 * An FTS5 table shared by tenants would rank by every tenant's documents (its `bm25()` counts
 * words over the whole index) and cost more as other tenants store more; keyed postings give
 * BM25 over the tenant's own chunks, in time that grows with its own documents only.
 */

export interface StoredChunk {
  chunk_id: string;
  ordinal: number;
  page_start: number;
  page_end: number;
  section_path: string[];
  text: string;
  codes: { code: string; system: string; page: number }[];
  /** The chunk's index terms with their weighted frequencies (counted when absent). */
  terms?: TermCount[];
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

/**
 * Which part of a document one `save` call stores. `whole`: the document and all its chunks in
 * one transaction. A large document goes in parts, each its own short transaction, so no one
 * write holds the store (or, on SQLite, the event loop) for seconds: `first` writes the document
 * row hidden (`chunks` = STORING) with the first chunks, `more` adds chunks, `last` adds the last
 * ones and shows the document; `abort` deletes a hidden document with what it has. A hidden
 * document is in no `get`, `list` or `search` (nor its chunks in any ranking), so a reader sees
 * all of a document or none of it, and a store that fails or dies half way leaves nothing
 * visible; what it wrote is deleted by its `abort`, or by the tenant's next `first` or `whole`
 * once abandoned (SQLite: not being stored by this process; PostgreSQL, where another replica
 * may be storing it: written over ABANDONED_AFTER_MS before).
 */
export type SavePart = 'whole' | 'first' | 'more' | 'last' | 'abort';

/** The `chunks` of a document whose chunks are still being stored (hidden from every read). */
export const STORING = -1;

/** A hidden document this old (by `created_at`) is abandoned on PostgreSQL (parses stop at RCM_POLICY_PARSE_TIMEOUT_MS, at most 10 minutes). */
export const ABANDONED_AFTER_MS = 15 * 60_000;

/** The document is being stored by another request (the same PDF, at the same time, elsewhere). */
export const beingStored = (id: string) => new DomainError('service_busy', `policy document ${id} is being stored by another request; retry shortly`, { headers: { 'Retry-After': '5' } });

/** One tenant's policy documents in one mode. */
export interface TenantPolicyDocuments {
  /**
   * Stores a parsed document with its chunks (`part`: all at once, or one part of a large one);
   * the same id again returns the stored one (`created: false`) from `whole` or `first`.
   */
  save(doc: StoredPolicyDocument, chunks: StoredChunk[], part?: SavePart): Promise<{ document: StoredPolicyDocument; created: boolean }>;
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
    chunks INTEGER NOT NULL DEFAULT 0, tokens INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, mode, id));
  CREATE TABLE policy_chunks (
    id INTEGER PRIMARY KEY, tenant_id TEXT NOT NULL, mode TEXT NOT NULL CHECK (mode IN ('test','live')),
    document_id TEXT NOT NULL, chunk_id TEXT NOT NULL, ordinal INTEGER NOT NULL,
    page_start INTEGER NOT NULL, page_end INTEGER NOT NULL, section_path TEXT NOT NULL,
    text TEXT NOT NULL, codes TEXT NOT NULL, tokens INTEGER NOT NULL,
    UNIQUE (tenant_id, mode, chunk_id),
    FOREIGN KEY (tenant_id, mode, document_id) REFERENCES policy_documents(tenant_id, mode, id) ON DELETE CASCADE);
  CREATE INDEX policy_chunks_document ON policy_chunks(tenant_id, mode, document_id, ordinal);
  CREATE TABLE policy_chunk_codes (
    tenant_id TEXT NOT NULL, mode TEXT NOT NULL, code TEXT NOT NULL,
    chunk INTEGER NOT NULL REFERENCES policy_chunks(id) ON DELETE CASCADE,
    PRIMARY KEY (tenant_id, mode, code, chunk)) WITHOUT ROWID;
  CREATE INDEX policy_chunk_codes_chunk ON policy_chunk_codes(chunk);
  CREATE TABLE policy_postings (
    tenant_id TEXT NOT NULL, mode TEXT NOT NULL, term TEXT NOT NULL,
    chunk INTEGER NOT NULL REFERENCES policy_chunks(id) ON DELETE CASCADE,
    tf INTEGER NOT NULL, tokens INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, mode, term, chunk)) WITHOUT ROWID;
  CREATE INDEX policy_postings_chunk ON policy_postings(chunk);`;

/** A document row: the stored document with its id column and JSON text columns. */
export type DocRow = Omit<StoredPolicyDocument, 'document_id' | 'headings' | 'chunk_sections'> & { id: string; headings: string; chunk_sections: string };

export interface ChunkRow {
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

export const DOC_COLS = 'id, sha256, title, policy_number, effective_date, payer_slug, payer_name, page_count, byte_size, structure_source, headings, chunk_sections, created_at';
export const CHUNK_COLS = 'id, document_id, chunk_id, ordinal, page_start, page_end, section_path, text, codes, tokens';

export const documentOf = ({ id, headings, chunk_sections, ...r }: DocRow): StoredPolicyDocument => ({
  document_id: id,
  ...r,
  headings: JSON.parse(headings) as StoredHeading[],
  chunk_sections: JSON.parse(chunk_sections) as number[],
});
export const toChunk = (r: ChunkRow): StoredChunk => ({
  chunk_id: r.chunk_id,
  ordinal: r.ordinal,
  page_start: r.page_start,
  page_end: r.page_end,
  section_path: JSON.parse(r.section_path) as string[],
  text: r.text,
  codes: JSON.parse(r.codes) as StoredChunk['codes'],
});

/** BM25 parameters (the usual ones; FTS5's own bm25 uses the same). */
export const K1 = 1.2;
export const B = 0.75;
/** Added per requested code a chunk lists (codes tables name codes once; text may never repeat them). */
export const CODE_BOOST = 5;

/** One statement of a search: its SQL (valid on SQLite and PostgreSQL alike) and its arguments. */
export interface SearchStep {
  sql: string;
  args: unknown[];
}

/**
 * BM25 (k1 1.2, b 0.75) over one tenant's chunks in one mode (or the one document), plus
 * CODE_BOOST per requested code a chunk lists; computed in SQL so only the top rows reach JS.
 * Written once for both engines: it yields each statement and is sent back its rows (SQLite runs
 * them synchronously, PostgreSQL awaits them), so ranking is the same on both by construction.
 * `stems` turns query words into index terms (FTS5's tokenizer on both engines).
 */
export function* searchSteps(tenantId: string, mode: KeyType, q: SearchInput, stems: (text: string) => TermCount[]): Generator<SearchStep, PolicyHit[], unknown[]> {
  const title = function* (id: string): Generator<SearchStep, string | null, unknown[]> {
    const rows = (yield { sql: 'SELECT title FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ? AND chunks >= 0', args: [tenantId, mode, id] }) as { title: string | null }[];
    if (!rows.length) throw new NotFoundError(`policy document ${id} not found`);
    return rows[0]!.title;
  };
  if (q.document_id !== undefined) yield* title(q.document_id);
  const docScope = q.document_id !== undefined ? ' AND c.document_id = ?' : '';
  const scoped = q.document_id !== undefined ? [q.document_id] : [];
  const [stats] = (yield {
    sql: `SELECT sum(CASE WHEN chunks >= 0 THEN chunks END) AS n, sum(CASE WHEN chunks >= 0 THEN tokens END) AS tokens, sum(CASE WHEN chunks < 0 THEN 1 ELSE 0 END) AS storing
          FROM policy_documents WHERE tenant_id = ? AND mode = ?${q.document_id !== undefined ? ' AND id = ?' : ''}`,
    args: [tenantId, mode, ...scoped],
  }) as { n: number | null; tokens: number | null; storing: number | null }[];
  const n = stats?.n ?? 0;
  // While a document of the tenant is being stored, its chunks rank nowhere (within one visible
  // document they cannot appear); otherwise the statements stay as they are.
  const hidden = !docScope && (stats?.storing ?? 0) > 0;
  const notStoring = (col: string) =>
    hidden
      ? ` AND ${col} NOT IN (SELECT c.id FROM policy_chunks c JOIN policy_documents d ON d.tenant_id = c.tenant_id AND d.mode = c.mode AND d.id = c.document_id WHERE d.tenant_id = ? AND d.mode = ? AND d.chunks < 0)`
      : '';
  const notStoringArgs = hidden ? [tenantId, mode] : [];
  const terms = q.terms.length ? stems(q.terms.join(' ')).map(([t]) => t) : [];
  const codes = [...new Set(q.codes)];
  if (n === 0 || (!terms.length && !codes.length)) return [];
  const avgdl = (stats?.tokens ?? 0) / n || 1;
  const marks = (xs: unknown[]) => xs.map(() => '?').join(', ');
  const join = (col: string) => (docScope ? ` JOIN policy_chunks c ON c.id = ${col}` : '');
  const scores = new Map<number, { score: number; codes: string[] }>();
  // The tenant's chunks that list any of `codes`, with the codes each lists.
  const coded = new Map<number, string[]>();
  if (codes.length) {
    const rows = (yield {
      sql: `SELECT k.chunk AS id, k.code FROM policy_chunk_codes k${join('k.chunk')} WHERE k.tenant_id = ? AND k.mode = ? AND k.code IN (${marks(codes)})${docScope}${notStoring('k.chunk')} ORDER BY k.chunk`,
      args: [tenantId, mode, ...codes, ...scoped, ...notStoringArgs],
    }) as { id: number; code: string }[];
    for (const r of rows) coded.set(r.id, [...(coded.get(r.id) ?? []), r.code]);
  }
  if (terms.length) {
    // Document frequency of each term among the tenant's chunks, then BM25 summed per chunk in SQL.
    const dfs = (yield {
      sql: `SELECT p.term, count(*) AS df FROM policy_postings p${join('p.chunk')} WHERE p.tenant_id = ? AND p.mode = ? AND p.term IN (${marks(terms)})${docScope}${notStoring('p.chunk')} GROUP BY p.term`,
      args: [tenantId, mode, ...terms, ...scoped, ...notStoringArgs],
    }) as { term: string; df: number }[];
    if (dfs.length) {
      const idf = dfs.flatMap((d) => [d.term, Math.log(1 + (n - d.df + 0.5) / (d.df + 0.5))]);
      // Typed placeholders: PostgreSQL infers a bare one's type from its neighbour (integer here).
      const weight = `CASE p.term ${dfs.map(() => 'WHEN CAST(? AS TEXT) THEN CAST(? AS DOUBLE PRECISION)').join(' ')} END`;
      const bm25 = `sum(${weight} * p.tf * ${K1 + 1} / (p.tf + ${K1} * (${1 - B} + ${B} * p.tokens / CAST(? AS DOUBLE PRECISION))))`;
      const byChunk = (filter: string, args: unknown[], limit: string): SearchStep => ({
        sql: `SELECT p.chunk AS id, ${bm25} AS score FROM policy_postings p${join('p.chunk')} WHERE p.tenant_id = ? AND p.mode = ? AND p.term IN (${marks(dfs)})${docScope}${notStoring('p.chunk')}${filter} GROUP BY p.chunk ORDER BY score DESC, p.chunk${limit}`,
        args: [...idf, avgdl, tenantId, mode, ...dfs.map((d) => d.term), ...scoped, ...notStoringArgs, ...args],
      });
      for (const r of (yield byChunk('', [q.top_k], ' LIMIT ?')) as { id: number; score: number }[]) scores.set(r.id, { score: r.score, codes: [] });
      // Chunks listing a requested code may rank above the text's top k: their text scores too.
      const more = [...coded.keys()].filter((id) => !scores.has(id));
      if (more.length) for (const r of (yield byChunk(` AND p.chunk IN (${marks(more)})`, more, '')) as { id: number; score: number }[]) scores.set(r.id, { score: r.score, codes: [] });
    }
  }
  for (const [id, listed] of coded) {
    let e = scores.get(id);
    if (!e) scores.set(id, (e = { score: 0, codes: [] }));
    e.score += CODE_BOOST * listed.length;
    e.codes = codes.filter((c) => listed.includes(c));
  }
  const top = [...scores]
    .map(([id, e]) => ({ id, ...e }))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, q.top_k)
    .filter((t) => t.score > 0);
  const titles = new Map<string, string | null>();
  const hits: PolicyHit[] = [];
  for (const t of top) {
    const [r] = (yield { sql: `SELECT ${CHUNK_COLS} FROM policy_chunks WHERE id = ?`, args: [t.id] }) as ChunkRow[];
    if (!titles.has(r!.document_id)) titles.set(r!.document_id, yield* title(r!.document_id));
    hits.push({ document_id: r!.document_id, document_title: titles.get(r!.document_id) ?? null, chunk: toChunk(r!), score: Math.round(t.score * 1e4) / 1e4, codes_matched: t.codes });
  }
  return hits;
}

/** The document row's values after tenant and mode, in `DOC_COLS` order, and the `chunks` it starts with. */
export const docValues = (doc: StoredPolicyDocument, chunks: number): unknown[] => [
  doc.document_id, doc.sha256, doc.title, doc.policy_number, doc.effective_date, doc.payer_slug, doc.payer_name,
  doc.page_count, doc.byte_size, doc.structure_source, JSON.stringify(doc.headings), JSON.stringify(doc.chunk_sections), doc.created_at, chunks,
];
export const INSERT_DOC_SQL = `INSERT INTO policy_documents (tenant_id, mode, ${DOC_COLS}, chunks) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
/** BM25's corpus figures (chunks, average length) summed per document, read per query; set last, which shows a stored document. */
export const SHOW_DOC_SQL = `UPDATE policy_documents SET
  chunks = (SELECT count(*) FROM policy_chunks c WHERE c.tenant_id = policy_documents.tenant_id AND c.mode = policy_documents.mode AND c.document_id = policy_documents.id),
  tokens = (SELECT coalesce(sum(c.tokens), 0) FROM policy_chunks c WHERE c.tenant_id = policy_documents.tenant_id AND c.mode = policy_documents.mode AND c.document_id = policy_documents.id)
  WHERE tenant_id = ? AND mode = ? AND id = ?`;

export class SqlitePolicyDocuments {
  private readonly fts5: Fts5Terms;
  /** Documents this process is storing in parts (`tenant mode id`): a hidden row not here is abandoned. */
  private readonly storing = new Set<string>();

  constructor(private readonly db: Database.Database) {
    this.fts5 = new Fts5Terms(db);
  }

  forTenant(tenantId: string, mode: KeyType) {
    const db = this.db;
    const getDoc = (id: string) => {
      const r = db.prepare(`SELECT ${DOC_COLS} FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ? AND chunks >= 0`).get(tenantId, mode, id) as DocRow | undefined;
      if (!r) throw new NotFoundError(`policy document ${id} not found`);
      return documentOf(r);
    };
    const keyOf = (id: string) => `${tenantId}\u0000${mode}\u0000${id}`;
    // Codes and postings go with their chunks (cascade).
    const drop = (id: string) => {
      db.prepare('DELETE FROM policy_chunks WHERE tenant_id = ? AND mode = ? AND document_id = ?').run(tenantId, mode, id);
      db.prepare('DELETE FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ?').run(tenantId, mode, id);
    };
    const insertChunks = (doc: StoredPolicyDocument, chunks: StoredChunk[]) => {
      const ins = db.prepare(
        `INSERT INTO policy_chunks (tenant_id, mode, document_id, chunk_id, ordinal, page_start, page_end, section_path, text, codes, tokens)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const insCode = db.prepare('INSERT OR IGNORE INTO policy_chunk_codes (tenant_id, mode, code, chunk) VALUES (?, ?, ?, ?)');
      const insTerm = db.prepare('INSERT INTO policy_postings (tenant_id, mode, term, chunk, tf, tokens) VALUES (?, ?, ?, ?, ?, ?)');
      for (const c of chunks) {
        // Counted by the parser thread when it parsed the PDF; here only for chunks given without them.
        const weighted = c.terms ?? this.fts5.count(c.section_path.join(' / '), c.text);
        const tokens = weighted.reduce((a, [, tf]) => a + tf, 0);
        const row = ins.run(tenantId, mode, doc.document_id, c.chunk_id, c.ordinal, c.page_start, c.page_end, JSON.stringify(c.section_path), c.text, JSON.stringify(c.codes), tokens);
        for (const k of c.codes) insCode.run(tenantId, mode, k.code, row.lastInsertRowid);
        for (const [term, tf] of weighted) insTerm.run(tenantId, mode, term, row.lastInsertRowid, tf, tokens);
      }
    };
    return {
      save: (doc: StoredPolicyDocument, chunks: StoredChunk[], part: SavePart = 'whole') => {
        const key = keyOf(doc.document_id);
        if (part === 'abort') {
          // A hidden document only, never a stored one (one process stores a given id at a time: the service joins duplicates).
          this.storing.delete(key);
          if (db.prepare('SELECT 1 FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ? AND chunks = ?').get(tenantId, mode, doc.document_id, STORING)) drop(doc.document_id);
          return { document: doc, created: false };
        }
        if (part === 'whole' || part === 'first') {
          const prev = db.prepare(`SELECT ${DOC_COLS}, chunks AS stored FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ?`).get(tenantId, mode, doc.document_id) as
            | (DocRow & { stored: number })
            | undefined;
          if (prev && prev.stored !== STORING) {
            const { stored: _, ...row } = prev;
            return { document: documentOf(row), created: false };
          }
          if (prev && this.storing.has(key)) throw beingStored(doc.document_id);
          // The tenant's hidden documents no store of this process is writing: left by a crash.
          const hidden = db.prepare('SELECT id FROM policy_documents WHERE tenant_id = ? AND mode = ? AND chunks = ?').all(tenantId, mode, STORING) as { id: string }[];
          for (const h of hidden) if (!this.storing.has(keyOf(h.id))) drop(h.id);
          db.prepare(INSERT_DOC_SQL).run(tenantId, mode, ...docValues(doc, part === 'first' ? STORING : 0));
          if (part === 'first') this.storing.add(key);
        } else if (!this.storing.has(key)) {
          throw new NotFoundError(`policy document ${doc.document_id} is not being stored`);
        }
        insertChunks(doc, chunks);
        if (part === 'whole' || part === 'last') {
          db.prepare(SHOW_DOC_SQL).run(tenantId, mode, doc.document_id);
          this.storing.delete(key);
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
               FROM policy_documents d WHERE d.tenant_id = ? AND d.mode = ? AND d.chunks >= 0 ORDER BY d.created_at, d.id`,
            )
            .all(tenantId, mode) as (DocRow & { chunk_count: number })[]
        ).map(({ chunk_count, ...r }) => ({ ...documentOf(r), chunk_count })),
      remove: (id: string) => {
        const doc = getDoc(id);
        // Codes and postings go with their chunks (cascade), all in the caller's transaction.
        const chunks_deleted = db.prepare('DELETE FROM policy_chunks WHERE tenant_id = ? AND mode = ? AND document_id = ?').run(tenantId, mode, id).changes;
        db.prepare('DELETE FROM policy_documents WHERE tenant_id = ? AND mode = ? AND id = ?').run(tenantId, mode, id);
        return { document: doc, chunks_deleted };
      },
      search: (q: SearchInput) => this.search(tenantId, mode, q),
    };
  }

  /** Runs the search's statements (`searchSteps`) on this database, one after another. */
  private search(tenantId: string, mode: KeyType, q: SearchInput): PolicyHit[] {
    const steps = searchSteps(tenantId, mode, q, (text) => this.fts5.count('', text));
    for (let step = steps.next(); ; ) {
      if (step.done) return step.value;
      step = steps.next(this.stmt(step.value.sql).all(...step.value.args));
    }
  }

  /** Statements by their SQL (the search builds a few shapes, by how many terms and codes). */
  private readonly statements = new Map<string, Database.Statement>();
  private stmt(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      if (this.statements.size > 500) this.statements.clear();
      this.statements.set(sql, (st = this.db.prepare(sql)));
    }
    return st;
  }
}
