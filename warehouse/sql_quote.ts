/** SQL quoting for DuckDB identifiers and literals, apart from the snapshot reader so that code that only builds SQL text (dataset declarations, loaders) does not load the DuckDB engine. */

/** A double-quoted identifier. */
export function quoteIdent(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** A single-quoted string literal. */
export function quoteString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
