import type Database from 'better-sqlite3';

/** A heading word counts this many times a text word, in a chunk's term frequency and length alike. */
export const SECTION_WEIGHT = 2;

/** A term of a chunk and its weighted frequency. */
export type TermCount = [term: string, tf: number];

/**
 * SQLite FTS5's tokenizer (porter stems, Unicode, diacritics folded) as a function: a one-row FTS5
 * table on `db` (temp, so connection-local) and its vocabulary view. The parser thread counts a
 * chunk's terms with it on its own in-memory database, and the state store stems query words with
 * the same tokenizer, so both make the same terms.
 */
export class Fts5Terms {
  private readonly put: Database.Statement<[string, string]>;
  private readonly read: Database.Statement<[], { term: string; col: string; n: number }>;
  private readonly clear: Database.Statement<[]>;

  constructor(db: Database.Database) {
    db.exec(`
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.policy_tokenizer USING fts5(section, body, tokenize='porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.policy_tokenizer_terms USING fts5vocab(temp, policy_tokenizer, 'instance');`);
    this.put = db.prepare('INSERT INTO temp.policy_tokenizer (rowid, section, body) VALUES (1, ?, ?)');
    this.read = db.prepare('SELECT term, col, count(*) AS n FROM temp.policy_tokenizer_terms GROUP BY term, col ORDER BY min(offset)');
    this.clear = db.prepare('DELETE FROM temp.policy_tokenizer');
  }

  /** The terms of a section heading and a text, each with its weighted frequency, in order of first use. */
  count(section: string, body: string): TermCount[] {
    this.put.run(section, body);
    try {
      const out = new Map<string, number>();
      for (const r of this.read.all()) out.set(r.term, (out.get(r.term) ?? 0) + (r.col === 'section' ? SECTION_WEIGHT : 1) * r.n);
      return [...out];
    } finally {
      this.clear.run();
    }
  }
}
