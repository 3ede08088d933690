import type { Pool } from 'pg';
import type { Limiters } from './auth.js';
import type { RateDecision, RateLimiter } from './limits.js';
import { throwPgFailure } from '../../warehouse/pg/sql.js';

/** Tokens a replica reserves per round trip: 1% of the limit (at least 1), so little is held idle. */
export const batchFor = (perMinute: number): number => Math.max(1, Math.floor(perMinute / 100));

/**
 * The sliding-window limiter of `MemoryRateLimiter` (current + previous window, weighted) with its
 * counts in PostgreSQL, so every replica on the same database shares one limit per key.
 *
 * A replica reserves up to `batch` tokens in one atomic upsert (`INSERT ... ON CONFLICT DO UPDATE`:
 * the row lock serialises replicas) and spends them locally; the grant never exceeds what the
 * window has left, so the limit is never exceeded across replicas (over-admission: none). Tokens a
 * replica reserved but did not spend before its window ended are lost to everyone (they count as
 * used): under-admission of at most (replicas - 1) x (batch - 1) requests per key and window.
 * `batch` 1 makes every request a round trip and the decisions exactly the in-process limiter's.
 */
export class PgRateLimiter implements RateLimiter {
  /** Per key: the window the tokens were reserved in, those left, and what the shared window had left then. */
  private readonly local = new Map<string, { start: number; left: number; shared: number }>();
  private swept = 0;

  constructor(
    private readonly pool: Pool,
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
    private readonly batch = batchFor(perMinute),
    private readonly windowMs = 60_000,
    private readonly table = 'rate_windows',
  ) {}

  /** Creates the counter table (counters are not state worth a migration: losing them resets a minute). */
  async init(): Promise<void> {
    // Under an advisory lock: two replicas starting together would both pass IF NOT EXISTS and
    // one would fail on the catalog's unique index.
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [this.table]);
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.table} (key TEXT NOT NULL, start BIGINT NOT NULL, count INTEGER NOT NULL, granted INTEGER NOT NULL, PRIMARY KEY (key, start))`);
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      c.release();
    }
  }

  async take(key: string): Promise<RateDecision> {
    const t = this.now();
    const W = this.windowMs;
    const start = Math.floor(t / W) * W;
    const reset = Math.max(1, Math.ceil((start + W - t) / 1000));
    let mine = this.local.get(key);
    if (!mine || mine.start !== start) {
      mine = { start, left: 0, shared: 0 };
      this.local.set(key, mine);
    }
    if (mine.left === 0) {
      const weight = 1 - (t - start) / W;
      // The tokens the window still has: floor(limit - prev x weight - count), at most `batch`.
      const prev = `coalesce((SELECT p.count FROM ${this.table} p WHERE p.key = $1 AND p.start = $2 - $6::bigint), 0) * $5::float8`;
      const grant = (count: string) => `greatest(0, least($3::int, floor($4::float8 - ${prev} - ${count})::int))`;
      // PostgreSQL out of reach: 503 state_unavailable (the limit cannot be checked, so nothing passes).
      const r = await this.pool
        .query<{ granted: number; shared: number }>(
          `INSERT INTO ${this.table} AS w (key, start, count, granted) SELECT $1, $2, g, g FROM (SELECT ${grant('0')} AS g) s ` +
            `ON CONFLICT (key, start) DO UPDATE SET granted = ${grant('w.count')}, count = w.count + ${grant('w.count')} ` +
            `RETURNING granted, greatest(0, floor($4::float8 - ${prev} - count))::int AS shared`,
          [key, start, this.batch, this.perMinute, weight, W],
        )
        .catch(throwPgFailure);
      mine.left = r.rows[0]!.granted;
      mine.shared = r.rows[0]!.shared;
      if (start !== this.swept) {
        this.swept = start;
        // Windows older than the previous one are read by no one: one sweep per window per replica.
        void this.pool.query(`DELETE FROM ${this.table} WHERE start < $1`, [start - W]).catch(() => undefined);
      }
    }
    if (mine.left === 0) return { allowed: false, limit: this.perMinute, remaining: 0, reset };
    mine.left--;
    // What the shared window had left at the last reservation, plus this replica's unspent tokens.
    return { allowed: true, limit: this.perMinute, remaining: mine.shared + mine.left, reset };
  }
}

/**
 * The pipeline's two limiters (per key, per client address on public routes) on PostgreSQL, so
 * every replica on the database shares them; one counter table (key ids and addresses never meet).
 */
export async function pgLimiters(pool: Pool, limits: { rateLimitPerMin: number; publicRateLimitPerMin: number }, now: () => number): Promise<Limiters> {
  const key = new PgRateLimiter(pool, limits.rateLimitPerMin, now);
  await key.init();
  return { key, ip: new PgRateLimiter(pool, limits.publicRateLimitPerMin, now) };
}
