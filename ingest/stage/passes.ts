import { quoteString } from '../../warehouse/sql_quote.js';
import { WHOLE, type KeyPasses, type KeyRange } from '../../warehouse/storage.js';
import type { RunSql } from './load.js';

// A sidecar's sort or a key check in passes over ranges of a key: each pass holds about a fixed
// number of rows, so the ingest's memory does not grow with the file (DuckDB's own bound,
// `RCM_INGEST_MEMORY_MB`, caps what it manages; what its sorts and joins allocate beside that
// grew with the rows they held: a 111,502-product FDA directory's products sidecar 300 MB).

/**
 * Rows a pass over hash partitions of a key holds (the key check; a diff's join of two versions):
 * every row of a key falls in one partition. One GROUP BY over a 4 M-edit PTP quarter's three key
 * columns took about 250 MB.
 */
export const HASH_PASS_ROWS = 1 << 20;

/** How many hash partitions `rows` rows take at `perPass` rows a pass. */
export const hashPasses = (rows: number, perPass = HASH_PASS_ROWS): number => Math.max(1, Math.ceil(rows / perPass));

/** The condition for partition `i` of `n` over `key` (SQL): TRUE when there is one. */
export const hashShare = (key: string, i: number, n: number): string => (n > 1 ? `hash(${key}) % ${n} = ${i}` : 'TRUE');

/** Key values sampled to place the passes' bounds (a reservoir: its memory does not depend on the table). */
const SAMPLE_ROWS = 65_536;

/** A bound as a SQL literal: text quoted, numbers as they are. */
function literal(v: unknown): string {
  if (typeof v === 'string') return quoteString(v);
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  throw new Error(`a pass bound of type ${typeof v} (a key for passes is text or a number)`);
}

/**
 * The ranges `p` splits its key into, in key order: one (`WHOLE`) when the table holds at most
 * `p.rows` rows, else about count / rows ranges cut at quantiles of a sample of the key (the cuts
 * only size the passes; every value falls in exactly one range whatever they are).
 */
export async function keyRanges(run: RunSql, p: KeyPasses): Promise<KeyRange[]> {
  const n = Number((await run(`SELECT count(*) AS n FROM ${p.table}`))[0]!.n);
  const passes = Math.ceil(n / p.rows);
  if (passes <= 1) return [WHOLE];
  const at = Array.from({ length: passes - 1 }, (_, i) => (i + 1) / passes);
  const [row] = await run(`SELECT quantile_disc(k, [${at.join(', ')}]) AS b FROM (SELECT ${p.key} AS k FROM ${p.table} USING SAMPLE reservoir(${SAMPLE_ROWS} ROWS) REPEATABLE (1))`);
  const cuts: string[] = [];
  for (const v of (row?.b as unknown[] | null) ?? []) {
    const lit = literal(v);
    if (cuts.at(-1) !== lit) cuts.push(lit);
  }
  if (cuts.length === 0) return [WHOLE];
  return [...cuts, null].map((hi, i) => {
    const lo = i === 0 ? null : cuts[i - 1]!;
    return {
      test: (k) => (lo === null ? `(${k}) < ${hi}` : hi === null ? `((${k}) >= ${lo} OR (${k}) IS NULL)` : `((${k}) >= ${lo} AND (${k}) < ${hi})`),
      before: (k) => (lo === null ? 'FALSE' : `(${k}) < ${lo}`),
    };
  });
}

/** The SQL of each pass of `sql` over `p`'s ranges (one, the whole, without passes). */
export async function passSql(run: RunSql, sql: string | ((range: KeyRange) => string), p: KeyPasses | undefined): Promise<string[]> {
  if (typeof sql === 'string') return [sql];
  return (p ? await keyRanges(run, p) : [WHOLE]).map(sql);
}
