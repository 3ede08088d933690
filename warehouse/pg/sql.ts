import pg from 'pg';

/**
 * The few calls the PostgreSQL repositories make, over a pool (one statement, autocommit) or over
 * one client inside a transaction. Statements are written with `?` placeholders, as the SQLite
 * ones are, and numbered here (`$1`, `$2`, ...), so the two engines' SQL reads alike.
 */
export interface Sql {
  all<R>(text: string, args?: unknown[]): Promise<R[]>;
  get<R>(text: string, args?: unknown[]): Promise<R | undefined>;
  /** Runs a statement; returns how many rows it changed. */
  run(text: string, args?: unknown[]): Promise<number>;
}

const numbered = new Map<string, string>();
/** `?` placeholders to `$n` (no statement here has a `?` inside a literal). */
function number(text: string): string {
  let out = numbered.get(text);
  if (out === undefined) {
    let i = 0;
    out = text.replace(/\?/g, () => `$${++i}`);
    if (numbered.size > 1000) numbered.clear();
    numbered.set(text, out);
  }
  return out;
}

export function sqlOf(q: pg.Pool | pg.PoolClient): Sql {
  const exec = (text: string, args: unknown[] = []) => q.query(number(text), args);
  return {
    all: async <R>(text: string, args?: unknown[]) => (await exec(text, args)).rows as R[],
    get: async <R>(text: string, args?: unknown[]) => (await exec(text, args)).rows[0] as R | undefined,
    run: async (text, args) => (await exec(text, args)).rowCount ?? 0,
  };
}

/**
 * counts (`count(*)`, `sum` of integers: int8 and numeric) as JS numbers, as better-sqlite3 returns
 * them, so one row mapper serves both engines; no count here comes near 2^53.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** A pool on `url` whose clients parse counts as numbers. */
export function newPool(url: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, types });
  // An idle client whose connection dies (a restart, a failover) is dropped by the pool, which
  // connects anew for the next query; unheard, the 'error' event would end the process.
  pool.on('error', () => undefined);
  return pool;
}

