import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { ClaimedJob, DueCallback, JobQueue } from '../../warehouse/jobs.js';
import type { MountedSnapshot } from '../../warehouse/snapshot.js';
import { JobRunner } from './runner.js';
import { createLogger } from '../logger.js';
import { TestClock } from '../../testing/clock.js';

/** An input carrying what would be PHI: it must never reach a log line. */
const PHI = 'DOE JANE 1EG4TE5MK73';

const job = (n: number): ClaimedJob => ({ id: `job-${n}`, tenant_id: 't1', agent_type: 'code_research', input: { note: PHI }, key_type: 'test', created_at: '2026-11-01T12:00:00Z', fence: 1, runs: 1 });
const due = (n: number): DueCallback => ({ job_id: `job-${n}`, tenant_id: 't1', url: 'https://hooks.example.com/x', secret: null, body: `{"note":"${PHI}"}`, attempt: 1, key_type: 'test' });

/** A connection lost under the runner, as PostgreSQL reports a killed backend. */
const lost = () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });

/**
 * A job queue whose every call rejects while `down` holds, and otherwise hands out `jobs` jobs and
 * `callbacks` callbacks; counts the claims it was asked for.
 */
function flakyQueue(o: { jobs?: number; callbacks?: number } = {}) {
  let jobs = o.jobs ?? 0;
  let callbacks = o.callbacks ?? 0;
  let n = 0;
  const q = {
    down: true,
    claims: 0,
    finished: [] as string[],
    queue: {} as JobQueue,
  };
  const fail = async <T>(ok: () => T): Promise<T> => {
    await Promise.resolve();
    if (q.down) throw lost();
    return ok();
  };
  q.queue = {
    claim: () => {
      q.claims++;
      return fail(() => (jobs > 0 ? (jobs--, job(++n)) : null));
    },
    renew: () => fail(() => true),
    finish: (id) => fail(() => (q.finished.push(id), true)),
    claimCallback: () => fail(() => (callbacks > 0 ? (callbacks--, due(++n)) : null)),
    recordAttempt: () => fail(() => undefined),
    purge: () => fail(() => 0),
    countByStatus: () => fail(() => ({ accepted: 0, running: 0, completed: 0, failed: 0 })),
  };
  return q;
}

describe('the job runner when the state store rejects every call', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => void unhandled.push(e);
  let clock: TestClock;
  let logs: string[];

  beforeEach(() => {
    unhandled.length = 0;
    clock = new TestClock();
    logs = [];
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
    vi.useRealTimers();
  });

  function runnerOver(queue: JobQueue, agentRuns?: () => void) {
    const snapshot = { retain: () => undefined, release: () => undefined } as unknown as MountedSnapshot;
    return new JobRunner({
      queue,
      tenants: () => ({ tenantId: 't1', mode: 'test', facilities: { lookup: async () => null, list: async () => [] } }) as never,
      snapshots: { snapshot },
      agents: [{ type: 'code_research', input: z.record(z.string(), z.unknown()), run: async () => (agentRuns?.(), { ok: true }) }],
      now: clock.now,
      elapsedMs: () => 0,
      logger: createLogger({ write: (s) => void logs.push(s) }),
      concurrency: 2,
      callbacks: { policy: { production: false, allowedHosts: [] }, resolve: async () => [{ address: '93.184.216.34', family: 4 }], http: async () => ({ status: 204, retryAfter: undefined }), userAgent: 'test' },
      retentionDays: 30,
    });
  }

  /** Lets every pending promise settle and Node report any rejection nobody handled. */
  const turns = async (n = 5) => {
    for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
  };

  it("leaves no rejection unhandled when a tick's callback claim fails (the tick itself found no job)", async () => {
    const q = flakyQueue();
    const r = runnerOver({ ...q.queue, claim: async () => null, purge: async () => 0 });
    await r.tick();
    await turns();
    expect(unhandled).toEqual([]);
  });

  it('emits no unhandledRejection from a tick, a settle, a drain or its own timer, and logs each failure without the job input', async () => {
    const q = flakyQueue({ jobs: 4, callbacks: 2 });
    const r = runnerOver(q.queue);
    await expect(r.tick()).resolves.toBeUndefined();
    await turns();
    await expect(r.settle()).resolves.toBeUndefined();
    await turns();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    r.start(100);
    for (let i = 0; i < 20; i++) {
      clock.advance(60_000);
      await vi.advanceTimersByTimeAsync(100);
    }
    vi.useRealTimers();
    await r.drain();
    await turns();
    expect(unhandled).toEqual([]);
    expect(logs.length).toBeGreaterThan(0);
    for (const l of logs) expect(l).not.toContain(PHI);
    expect(logs.some((l) => /"err_code":"57P01"/.test(l))).toBe(true);
  });

  it('emits none while jobs run and their completions, renewals and callbacks fail, and runs the jobs once the store answers', async () => {
    const q = flakyQueue({ jobs: 3, callbacks: 2 });
    let first = true;
    const r = runnerOver(q.queue, () => {
      // The connection is lost while the first jobs run: their completions, renewals, the
      // callback claim and the purge fail.
      if (first) q.down = true;
      first = false;
    });
    q.down = false;
    await r.tick();
    await turns();
    expect(unhandled).toEqual([]);
    q.down = false;
    clock.advance(60_000);
    await r.settle();
    await turns();
    expect(unhandled).toEqual([]);
    expect(q.finished).toEqual(['job-3']);
    for (const l of logs) expect(l).not.toContain(PHI);
  });

  it('backs off by the injected clock after a failed round, doubling up to a bound, and claims again once the store is back', async () => {
    const q = flakyQueue({ jobs: 2 });
    const r = runnerOver(q.queue);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    r.start(100);
    await vi.advanceTimersByTimeAsync(100);
    const afterFirst = q.claims;
    expect(afterFirst).toBeGreaterThan(0);
    // The clock stands still: every poll falls inside the back-off, so nothing is asked of the store.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(q.claims).toBe(afterFirst);
    // Past the first back-off (twice the poll interval): one more round, which fails again.
    clock.advance(200);
    await vi.advanceTimersByTimeAsync(100);
    expect(q.claims).toBeGreaterThan(afterFirst);
    const afterSecond = q.claims;
    // The second back-off is longer: 200 ms more is not enough.
    clock.advance(200);
    await vi.advanceTimersByTimeAsync(100);
    expect(q.claims).toBe(afterSecond);
    // However many rounds fail, the back-off stays within its bound (30 s): each such wait ends in a round.
    for (let i = 0; i < 12; i++) {
      const before = q.claims;
      clock.advance(30_000);
      await vi.advanceTimersByTimeAsync(100);
      expect(q.claims, `round ${i}`).toBeGreaterThan(before);
    }
    // The store answers again: the next round after the back-off runs both jobs.
    q.down = false;
    clock.advance(60_000);
    await vi.advanceTimersByTimeAsync(100);
    vi.useRealTimers();
    await r.drain();
    expect(q.finished.sort()).toEqual(['job-1', 'job-2']);
    expect(unhandled).toEqual([]);
  });
});
