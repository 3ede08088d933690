import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../server/pipeline/limits.js';
import { PgRateLimiter } from '../server/pipeline/pg_limits.js';

// The PostgreSQL suite runs when RCM_TEST_PG_URL names a server (CI starts one: .ci/run).
const url = process.env.RCM_TEST_PG_URL;

describe.skipIf(!url)('PgRateLimiter (shared rate limits across replicas)', () => {
  let pool: pg.Pool;
  let n = 0;
  const table = () => `rate_windows_test_${process.pid}_${++n}`;
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: url, max: 4 });
  });
  afterAll(async () => {
    for (let i = 1; i <= n; i++) await pool.query(`DROP TABLE IF EXISTS rate_windows_test_${process.pid}_${i}`);
    await pool.end();
  });

  it('with a batch of 1 decides exactly as the in-process limiter, across window boundaries and their weights', async () => {
    let now = 1_800_000_000_000 - (1_800_000_000_000 % 60_000) + 1_000;
    const clock = () => now;
    const mem = new MemoryRateLimiter(10, clock);
    const shared = new PgRateLimiter(pool, 10, clock, 1, 60_000, table());
    await shared.init();
    const steps = [...Array(12).fill(2_000), 20_000, ...Array(8).fill(1_000), 25_000, ...Array(6).fill(500)];
    for (const [i, dt] of steps.entries()) {
      now += dt;
      const a = mem.take('k');
      const b = await shared.take('k');
      expect(b, `step ${i}`).toEqual(a);
    }
  });

  it('holds one limit across two replicas: N + 1 requests split over both get one refusal', async () => {
    const now = () => 1_800_000_030_000;
    const t = table();
    const a = new PgRateLimiter(pool, 20, now, 1, 60_000, t);
    const b = new PgRateLimiter(pool, 20, now, 1, 60_000, t);
    await a.init();
    const decisions = await Promise.all(Array.from({ length: 21 }, (_, i) => (i % 2 ? a : b).take('key_1')));
    expect(decisions.filter((d) => !d.allowed)).toHaveLength(1);
  });

  it('with batches never admits more than the limit, and leaves at most (replicas - 1) x (batch - 1) unused', async () => {
    const now = () => 1_800_000_030_000;
    const t = table();
    const replicas = [0, 1, 2].map(() => new PgRateLimiter(pool, 60, now, 5, 60_000, t));
    await replicas[0]!.init();
    let admitted = 0;
    for (let i = 0; i < 200; i++) if ((await replicas[i % 3]!.take('key_2')).allowed) admitted++;
    expect(admitted).toBeLessThanOrEqual(60);
    expect(admitted).toBeGreaterThanOrEqual(60 - 2 * 4);
  });
});
