import pg from 'pg';
import { DomainError } from '../errors.js';

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

/** SQLSTATEs of a server that is down, restarting or out of connections (class 08, 57P01-57P03, 53300). */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;
/** The socket errors of a server that cannot be reached. */
const UNAVAILABLE_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** node-postgres's own words for a connection lost or never made (they carry no code). */
const UNAVAILABLE_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/**
 * PostgreSQL out of reach (down, restarting, failing over, no connection left) as the service's
 * 503 `state_unavailable` with a `Retry-After`, which a client may retry, rather than a 500 that
 * reads as a bug; any other error as it was.
 */
export function pgFailure(e: unknown): unknown {
  const code = (e as { code?: unknown } | null)?.code;
  const message = (e as Error | null)?.message ?? '';
  const unavailable = typeof code === 'string' ? UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SOCKET.has(code) : UNAVAILABLE_MESSAGE.test(message);
  return unavailable ? new DomainError('state_unavailable', 'the state store (PostgreSQL) does not answer; try again shortly', { headers: { 'retry-after': '5' } }) : e;
}

/** Throws `e` as `pgFailure` reads it (for a driver call's `.catch`). */
export const throwPgFailure = (e: unknown): never => {
  throw pgFailure(e);
};

export function sqlOf(q: pg.Pool | pg.PoolClient): Sql {
  const exec = (text: string, args: unknown[] = []) => q.query(number(text), args).catch(throwPgFailure);
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
  // The pool hears an idle client only: a checked-out client (a transaction, a group commit, the
  // runner's claim) whose connection dies emits 'error' with no listener, which ends the process.
  // Every client gets one for its whole life; its pending query rejects, the caller maps that to
  // state_unavailable and releases the client broken, so the pool drops it.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

