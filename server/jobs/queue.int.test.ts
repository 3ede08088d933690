import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConflictError } from '../../warehouse/errors.js';
import type { StateStore } from '../../warehouse/tenant_state.js';
import type { MountedSnapshot } from '../../warehouse/snapshot.js';
import { JobRunner } from '../agents/runner.js';
import { AHEAD_PER_SLOT } from './executor.js';
import { silentLogger } from '../logger.js';
import { TestClock } from '../../testing/clock.js';
import { waitUntil } from '../../testing/harness.js';
import { storeKinds, storePerTest } from '../../testing/state_stores.js';

let store: StateStore;
const clock = new TestClock();
const DAY = 86_400_000;
const body = () => '{}';

async function submit(id: string, extra: Record<string, unknown> = {}) {
  const t = await store.admin.createTenant(`t-${id}`);
  return (await store.forTenant(t.id, 'test').jobs.create({ id, agent_type: 'code_research', input: { query: 'x' }, request_hash: 'h', ...extra }, clock.now(), DAY)).job;
}

for (const kind of storeKinds()) {
  describe.skipIf(kind.skip)(`job queue on ${kind.name}: leases and fencing`, () => {
    storePerTest(kind, 'jobs_queue', clock.now, (s) => (store = s));

    it('hands a job to one worker at a time and takes it back only when the lease lapses', async () => {
      await submit('00000000-0000-4000-8000-000000000001');
      const a = await store.jobs.claim('A', clock.now(), 10_000);
      expect(a).toMatchObject({ fence: 1, runs: 1 });
      expect(await store.jobs.claim('B', clock.now(), 10_000)).toBeNull();
      clock.advance(10_001);
      const b = await store.jobs.claim('B', clock.now(), 10_000);
      expect(b).toMatchObject({ id: a!.id, fence: 2, runs: 2 });
      // The first worker wakes up late: its result is refused, the job completes once, by B.
      expect(await store.jobs.finish(a!.id, a!.fence, { status: 'completed', result: { by: 'A' } }, clock.now(), body)).toBe(false);
      expect(await store.jobs.finish(b!.id, b!.fence, { status: 'completed', result: { by: 'B' } }, clock.now(), body)).toBe(true);
      expect(await store.jobs.finish(b!.id, b!.fence, { status: 'completed', result: { by: 'B2' } }, clock.now(), body)).toBe(false);
      const t = (await store.admin.findTenants())[0]!;
      expect((await store.forTenant(t.id, 'test').jobs.get(a!.id)).result).toEqual({ by: 'B' });
    });

    it('keeps a renewed lease', async () => {
      await submit('00000000-0000-4000-8000-000000000002');
      const a = (await store.jobs.claim('A', clock.now(), 10_000))!;
      clock.advance(8_000);
      expect(await store.jobs.renew(a.id, a.fence, new Date(clock.now().getTime() + 10_000))).toBe(true);
      clock.advance(8_000);
      expect(await store.jobs.claim('B', clock.now(), 10_000)).toBeNull();
    });

    it('schedules the callback at completion with the exact body, and records attempts', async () => {
      await submit('00000000-0000-4000-8000-000000000003', { callback_url: 'https://hooks.example.com/x', callback_secret: 'supersecret' });
      const j = (await store.jobs.claim('A', clock.now(), 10_000))!;
      expect(await store.jobs.claimCallback(clock.now(), 1000)).toBeNull(); // nothing until the job ends
      await store.jobs.finish(j.id, j.fence, { status: 'completed', result: { ok: 1 } }, clock.now(), () => 'BODY');
      const due = (await store.jobs.claimCallback(clock.now(), 1000))!;
      expect(due).toMatchObject({ url: 'https://hooks.example.com/x', secret: 'supersecret', body: 'BODY', attempt: 1 });
      expect(await store.jobs.claimCallback(clock.now(), 1000)).toBeNull(); // leased to one deliverer
      const at = clock.now().toISOString();
      await store.jobs.recordAttempt(j.id, { attempt: 1, started_at: at, finished_at: at, outcome: 'retry', http_status: 503, error: 'x' }, { state: 'pending', at: new Date(clock.now().getTime() + 2000) });
      expect(await store.jobs.claimCallback(clock.now(), 1000)).toBeNull();
      clock.advance(2000);
      expect((await store.jobs.claimCallback(clock.now(), 1000))!.attempt).toBe(2);
    });

    it('refuses a reused Idempotency-Key with another body, and starts a new job after 24 hours', async () => {
      const t = await store.admin.createTenant('idem');
      const jobs = store.forTenant(t.id, 'test').jobs;
      const first = await jobs.create({ id: '00000000-0000-4000-8000-000000000004', agent_type: 'code_research', input: {}, idempotency_key: 'k', request_hash: 'h1' }, clock.now(), DAY);
      const again = await jobs.create({ id: '00000000-0000-4000-8000-000000000005', agent_type: 'code_research', input: {}, idempotency_key: 'k', request_hash: 'h1' }, clock.now(), DAY);
      expect(again).toMatchObject({ created: false, job: { id: first.job.id } });
      await expect(jobs.create({ id: '00000000-0000-4000-8000-000000000006', agent_type: 'code_research', input: {}, idempotency_key: 'k', request_hash: 'h2' }, clock.now(), DAY)).rejects.toBeInstanceOf(ConflictError);
      clock.advance(DAY + 1);
      const later = await jobs.create({ id: '00000000-0000-4000-8000-000000000007', agent_type: 'code_research', input: {}, idempotency_key: 'k', request_hash: 'h2' }, clock.now(), DAY);
      expect(later.created).toBe(true);
    });

    it('purges inputs and results after the retention period, keeping the record', async () => {
      await submit('00000000-0000-4000-8000-000000000008');
      const j = (await store.jobs.claim('A', clock.now(), 10_000))!;
      await store.jobs.finish(j.id, j.fence, { status: 'completed', result: { phi: 'x' } }, clock.now(), body);
      expect(await store.jobs.purge(new Date(clock.now().getTime() - 1), clock.now())).toBe(0);
      clock.advance(31 * DAY);
      expect(await store.jobs.purge(new Date(clock.now().getTime() - 30 * DAY), clock.now())).toBe(1);
      const t = (await store.admin.findTenants())[0]!;
      const after = await store.forTenant(t.id, 'test').jobs.get(j.id);
      expect(after).toMatchObject({ input: null, result: null, status: 'completed' });
      expect(after.purged_at).not.toBeNull();
    });

    it("holds a tenant's queue bound exactly: another store's submits count, and claimed jobs free room", async () => {
      const t = await store.admin.createTenant('bounded');
      let n = 0;
      const create = (s: StateStore) =>
        s.forTenant(t.id, 'test').jobs.create({ id: `00000000-0000-4000-8000-0000000003${String(n++).padStart(2, '0')}`, agent_type: 'code_research', input: {}, request_hash: `h${n}`, maxQueued: 3 }, clock.now(), DAY);
      await create(store);
      await create(store);
      // The CLI or another replica submits the third: this store must count it.
      const other = await kind.openAgain(clock.now);
      try {
        await create(other);
        await expect(create(store)).rejects.toMatchObject({ code: 'queue_full' });
        await expect(create(other)).rejects.toMatchObject({ code: 'queue_full' });
        // Two claimed (by either store): two submits fit again, the third does not.
        expect(await other.jobs.claim('W1', clock.now(), 10_000)).not.toBeNull();
        expect(await store.jobs.claim('W2', clock.now(), 10_000)).not.toBeNull();
        await create(store);
        await create(store);
        await expect(create(store)).rejects.toMatchObject({ code: 'queue_full' });
        expect((await store.jobs.countByStatus()).accepted).toBe(3);
      } finally {
        await other.close();
      }
    });

    it("holds the bound under concurrent submits from two stores: exactly the bound's worth are accepted", async () => {
      const t = await store.admin.createTenant('bounded-race');
      const other = await kind.openAgain(clock.now);
      try {
        const submits = Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? other : store)
            .forTenant(t.id, 'test')
            .jobs.create({ id: `00000000-0000-4000-8000-0000000004${String(i).padStart(2, '0')}`, agent_type: 'code_research', input: {}, request_hash: `r${i}`, maxQueued: 5 }, clock.now(), DAY),
        );
        const settled = await Promise.allSettled(submits);
        expect(settled.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
        expect(settled.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(Array(15).fill('queue_full'));
        // A submit changes no cached answer: the tenant's generation stays where it was.
        expect(await store.forTenant(t.id, 'test').generation()).toBe(0);
      } finally {
        await other.close();
      }
    });

    it('two replicas claiming at once never take the same job, and every job is taken once', async () => {
      for (let i = 0; i < 12; i++) await submit(`00000000-0000-4000-8000-0000000001${String(i).padStart(2, '0')}`);
      const other = await kind.openAgain(clock.now);
      try {
        const claims = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? store : other).jobs.claim(`W${i}`, clock.now(), 10_000)));
        const got = claims.filter((c) => c !== null).map((c) => c!.id);
        expect(got).toHaveLength(12);
        expect(new Set(got).size).toBe(12);
        expect((await store.jobs.countByStatus()).running).toBe(12);
      } finally {
        await other.close();
      }
    });

    it('a callback due once is leased to one of two replicas claiming at once', async () => {
      await submit('00000000-0000-4000-8000-000000000201', { callback_url: 'https://hooks.example.com/x' });
      const j = (await store.jobs.claim('A', clock.now(), 10_000))!;
      await store.jobs.finish(j.id, j.fence, { status: 'completed', result: {} }, clock.now(), () => 'BODY');
      const other = await kind.openAgain(clock.now);
      try {
        const due = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? store : other).jobs.claimCallback(clock.now(), 1000)));
        expect(due.filter((d) => d !== null)).toHaveLength(1);
      } finally {
        await other.close();
      }
    });

    describe('job runner: claiming ahead', () => {
      /** A runner over the store whose one agent runs `agent`; the snapshot is a stand-in (the agent reads none). */
      function runnerWith(agent: (n: number) => Promise<unknown>) {
        let n = 0;
        const snapshot = { retain: () => undefined, release: () => undefined } as unknown as MountedSnapshot;
        return new JobRunner({
          queue: store.jobs,
          tenants: (id, mode) => store.forTenant(id, mode),
          // Runs time as instant whatever the machine's load: every job is quick, so claimed ahead.
          elapsedMs: () => 0,
          snapshots: { snapshot },
          agents: [{ type: 'code_research', input: z.record(z.string(), z.unknown()), run: () => agent(n++) }],
          now: clock.now,
          logger: silentLogger,
          concurrency: 2,
          callbacks: { policy: { production: false, allowedHosts: [] }, resolve: async () => [], http: async () => ({ status: 204, retryAfter: undefined }), userAgent: 'test' },
          retentionDays: 30,
        });
      }
      const running = async () => (await store.jobs.countByStatus()).running;

      it('claims no job ahead before its agent has run quickly (an agent waiting on an LLM never has), so another worker can take what it has not started', async () => {
        for (let i = 0; i < 12; i++) await submit(`00000000-0000-4000-8000-1000000000${String(i).padStart(2, '0')}`);
        let open!: () => void;
        const gate = new Promise<void>((r) => (open = r));
        const slow = runnerWith(() => gate.then(() => ({})));
        await slow.tick();
        expect(await running()).toBe(2);
        // Another worker takes the waiting jobs.
        const other = await store.jobs.claim('other', clock.now(), 60_000);
        expect(other).not.toBeNull();
        open();
        await slow.drain();
      });

      it('claims a few jobs ahead while its agent runs quickly, and runs every one of them', async () => {
        // 20 quick runs, then as many as the runner holds (running and claimed ahead), and more it must leave.
        const total = 20 + 2 + 2 * AHEAD_PER_SLOT + 10;
        for (let i = 0; i < total; i++) await submit(`00000000-0000-4000-8000-2000000000${String(i).padStart(2, '0')}`);
        let open!: () => void;
        const gate = new Promise<void>((r) => (open = r));
        // Quick for 20 jobs, then every run waits: what it holds then is running plus claimed ahead.
        const r = runnerWith((n) => (n < 20 ? Promise.resolve({ n }) : gate.then(() => ({ n }))));
        r.start(60_000);
        await r.tick();
        // Bounded in time, not turns: on PostgreSQL each claim and completion is a round trip.
        await waitUntil(async () => (await running()) >= 2 + 2 * AHEAD_PER_SLOT, 10_000);
        expect(await running()).toBe(2 + 2 * AHEAD_PER_SLOT);
        open();
        await r.drain();
        const counts = await store.jobs.countByStatus();
        expect(counts.completed).toBe(total - counts.accepted);
        expect(counts.running).toBe(0);
      });

      it("starts a tenant's job claimed behind another tenant's claimed-ahead flood in the flood's next round, not after it", async () => {
        const flood = await store.admin.createTenant('flood');
        const late = await store.admin.createTenant('late');
        let n = 0;
        const create = (tenantId: string) =>
          store.forTenant(tenantId, 'test').jobs.create({ id: `00000000-0000-4000-8000-300000000${String(n++).padStart(3, '0')}`, agent_type: 'code_research', input: {}, request_hash: '' }, clock.now(), DAY);
        for (let i = 0; i < 120; i++) await create(flood.id);
        const started: string[] = [];
        let before = -1;
        const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));
        const until = async (check: () => Promise<boolean>) => {
          for (let i = 0; i < 2_500 && !(await check()); i++) await sleep(2);
        };
        let lateClaimed: Promise<void> | null = null;
        /**
         * From inside the 21st run, once the runner holds the flood (two running and every job it
         * claims ahead): the late tenant submits. That run then ends, so its slot starts the next
         * flood job and claims again (the late job: its tenant has none running); every other run
         * waits until that claim is in, so the order the late job starts in depends on the
         * runner's queue alone, not on timing.
         */
        const submitLate = async () => {
          await until(async () => (await running()) >= 2 + 2 * AHEAD_PER_SLOT);
          before = started.length;
          const { job } = await create(late.id);
          lateClaimed = until(async () => (await store.forTenant(late.id, 'test').jobs.get(job.id)).status !== 'accepted');
        };
        const snapshot = { retain: () => undefined, release: () => undefined } as unknown as MountedSnapshot;
        const r = new JobRunner({
          queue: store.jobs,
          tenants: (id, mode) => store.forTenant(id, mode),
          // Runs time as instant whatever the machine's load: every job is quick, so claimed ahead.
          elapsedMs: () => 0,
          snapshots: { snapshot },
          // 20 instant runs first: a quick agent, whose jobs are claimed ahead.
          agents: [{ type: 'code_research', input: z.record(z.string(), z.unknown()), run: async (_input, ctx) => {
            started.push(ctx.tenantId);
            const nth = started.length;
            if (nth === 21) await submitLate();
            else if (nth > 21) await (lateClaimed ?? until(async () => lateClaimed !== null).then(() => lateClaimed));
            if (nth > 20) await sleep(1);
            return {};
          } }],
          now: clock.now,
          logger: silentLogger,
          concurrency: 2,
          callbacks: { policy: { production: false, allowedHosts: [] }, resolve: async () => [], http: async () => ({ status: 204, retryAfter: undefined }), userAgent: 'test' },
          retentionDays: 30,
        });
        r.start(60_000);
        await r.tick();
        await waitUntil(async () => {
          const c = await store.jobs.countByStatus();
          return before >= 0 && c.accepted === 0 && c.running === 0;
        }, 30_000);
        await r.drain();
        expect(before).toBeGreaterThanOrEqual(21);
        expect(started).toContain(late.id);
        // Round by round it starts next (at most the flood jobs that took the two slots meanwhile
        // before it); in claim order it came after every flood job claimed ahead of it (32 more).
        const after = started.indexOf(late.id) - before;
        expect(after).toBeGreaterThanOrEqual(0);
        expect(after).toBeLessThanOrEqual(2);
        expect(started.filter((t) => t === flood.id)).toHaveLength(120);
      });
    });
  });
}
