import { randomUUID } from 'node:crypto';
import type { JobQueue, ClaimedJob, DueCallback, JobOutcome } from '../../warehouse/jobs.js';
import type { MountedSnapshot } from '../../warehouse/snapshot.js';
import type { Logger } from '../logger.js';
import { attemptDelivery, callbackBody, MAX_ATTEMPTS, nextAttemptAt, type CallbackHttp, type CallbackPolicy, type Resolver } from './callbacks.js';
import type { KeyType, TenantStore } from '../../warehouse/tenant_state.js';

/** What an agent may read of its tenant's state (the repositories' reads, never a write). */
export type TenantReads = Pick<TenantStore, 'tenantId' | 'mode'> & { facilities: Pick<TenantStore['facilities'], 'lookup' | 'list'> };
import { DomainError, type ErrorCode } from '../../warehouse/errors.js';
import { DAY_MS } from '../../datasets/_shared/dates.js';

/** What an agent may use while it runs: the snapshot it reads, the clock, and who submitted. */
export interface AgentContext {
  snapshot: MountedSnapshot;
  /**
   * The submitting tenant's state in the job's mode (test or live), for reads: an agent answers
   * from the same registrations a REST call of that tenant would (`resolveFacility`, `paymentFor`).
   */
  tenant: TenantReads;
  now: () => Date;
  tenantId: string;
  keyType: KeyType;
  jobId: string;
}

/** An agent: deterministic code over the snapshot (an optional writer phrases its evidence). */
export interface Agent {
  type: string;
  run(input: unknown, ctx: AgentContext): Promise<unknown>;
}

/**
 * An error an agent raises on purpose: its code (one of the service's `ErrorCode`s) and message
 * become the job's `error`. A domain error like any other, so the one error model covers jobs too.
 */
export class AgentError extends DomainError {
  constructor(code: Extract<ErrorCode, 'agent_unavailable' | 'agent_error' | 'no_code' | 'no_denial_code' | 'bad_denial_code' | 'not_ready'>, message: string) {
    super(code, message);
  }
}

export interface RunnerOptions {
  queue: JobQueue;
  /** The tenant view a job reads (the state store's `forTenant`). */
  tenants: (tenantId: string, mode: KeyType) => TenantReads;
  snapshots: { readonly snapshot: MountedSnapshot | null };
  agents: Agent[];
  now: () => Date;
  logger: Logger;
  /** `RCM_AGENT_CONCURRENCY`: jobs run at once by this process. */
  concurrency: number;
  /** How long a claim holds a job before another worker may take it over (renewed while running). */
  leaseMs?: number;
  callbacks: { policy: CallbackPolicy; resolve: Resolver; http: CallbackHttp; userAgent: string };
  /** `RCM_JOB_RETENTION_DAYS`: inputs and results are purged this long after a job finished. */
  retentionDays: number;
  onAttempt?: (outcome: string) => void;
  /** `RCM_CALLBACK_CONCURRENCY`: callback deliveries in flight at once (default 4), apart from job execution. */
  callbackConcurrency?: number;
  onFinish?: (status: 'completed' | 'failed') => void;
  /**
   * A monotonic clock in milliseconds for timing runs (whether jobs are quick enough to claim
   * ahead); `performance.now` when not given. Tests pass a fixed one so that a slow machine does not
   * change which jobs are claimed ahead.
   */
  elapsedMs?: () => number;
}

/**
 * Runs agent jobs from the durable queue with bounded concurrency. A claim is a lease with a
 * fencing token: a job left `running` by a killed process is claimed again once its lease
 * lapses, and a stale worker's late completion is ignored (the job never completes twice).
 * Callbacks are delivered from the same table, so a restart neither resends a delivered one nor
 * forgets a pending one. `tick()` does one round of work; `start()` runs it on a timer; tests
 * call `tick()` after moving the injected clock.
 */
export class JobRunner {
  readonly owner = `worker_${randomUUID()}`;
  /** Jobs in execution: up to `concurrency`, claimed one claimer at a time. */
  private readonly jobs: Slots<ClaimedJob>;
  /** Callback deliveries in flight (each one attempt to one receiver), apart from job execution. */
  private readonly deliveries: Slots<DueCallback>;
  /** Completions being written: a job's slot frees when its agent returns, its result commits after. */
  private readonly finishing = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;
  /** The timer's poll interval (its back-off doubles from it). */
  private pollMs = 250;
  /** A timer round in progress: the next poll skips rather than pile rounds onto a store that hangs. */
  private polling = false;
  /** State-store failures in a row, and the time (injected clock, ms) before which the timer starts no round. */
  private failures = 0;
  private retryAt = -Infinity;
  /** Counts every failure: a round that saw none resets the back-off. */
  private failureCount = 0;
  /** Moving average of an agent run, in ms (Infinity until one ran): decides claiming ahead. */
  private runMs = Infinity;
  private lastPurge = 0;

  constructor(private readonly o: RunnerOptions) {
    const onError = (what: string) => (e: unknown) => this.failed(e, what);
    this.jobs = new Slots({
      size: () => this.o.concurrency,
      // While jobs are quick (template agents: ~50 us each), a few are claimed ahead: a freed slot
      // takes the next at once instead of waiting a commit for its claim, and each commit carries
      // the claims and completions of several jobs (one job per commit before; its fsync and WAL
      // pages were most of a job's cost). Slow jobs (an LLM writer) are never claimed ahead, so
      // another worker can take what this one has not started.
      ahead: () => (this.runMs < QUICK_JOB_MS ? this.o.concurrency * AHEAD_PER_SLOT : 0),
      open: () => !this.stopping,
      claim: () => this.o.queue.claim(this.owner, this.o.now(), this.leaseMs),
      // Jobs claimed ahead start round-robin by tenant, not in claim order: a tenant's job claimed
      // while another tenant's flood waits here starts after that flood's next job, not its last.
      key: (job) => `${job.key_type}:${job.tenant_id}`,
      run: (job) => this.run(job),
      // Started (serve, worker): the next waiting job starts as one finishes, not at the next poll
      // (a backlog drained at two jobs per poll interval); not while backing off from a failure.
      refill: () => this.timer !== null && !this.stopping && !this.backingOff(),
      onError: onError('job claim failed'),
    });
    // A job's completion and the next claim never wait for a receiver, so a slow or silent one
    // stalls only its own deliveries (each bounded by the 10 s timeout).
    // Fair by tenant: a tenant holds at most half the delivery slots (at least one), so one whose
    // receiver never answers stalls its own deliveries, never another tenant's first attempt.
    this.deliveries = new Slots({
      size: () => this.o.callbackConcurrency ?? 4,
      open: () => !this.stopping,
      claim: () => this.o.queue.claimCallback(this.o.now(), 30_000, this.busyTenants()),
      run: (due) => {
        this.delivering.set(due.tenant_id, (this.delivering.get(due.tenant_id) ?? 0) + 1);
        return this.deliverOne(due)
          .catch((e: unknown) => this.failed(e, 'callback delivery failed', { job_id: due.job_id }))
          .finally(() => {
            const n = (this.delivering.get(due.tenant_id) ?? 1) - 1;
            if (n > 0) this.delivering.set(due.tenant_id, n);
            else this.delivering.delete(due.tenant_id);
          });
      },
      refill: () => !this.backingOff(),
      onError: onError('callback claim failed'),
    });
  }

  /** Deliveries in flight in this process, per tenant. */
  private readonly delivering = new Map<string, number>();

  /** Tenants holding their share of the delivery slots (the next claim skips their callbacks). */
  private busyTenants(): string[] {
    const share = Math.max(1, Math.floor((this.o.callbackConcurrency ?? 4) / 2));
    return [...this.delivering].filter(([, n]) => n >= share).map(([t]) => t);
  }

  private get leaseMs(): number {
    return this.o.leaseMs ?? 60_000;
  }

  /**
   * Claims as many jobs as free slots allow and starts them; delivers due callbacks; purges old
   * inputs. Never rejects: a state-store failure (a lost connection) is logged and backs the timer
   * off (`failed`); the work is tried again on a later round.
   */
  async tick(): Promise<void> {
    const before = this.failureCount;
    await this.jobs.fill();
    void this.deliveries.fill();
    const now = this.o.now();
    if (now.getTime() - this.lastPurge > 3_600_000) {
      this.lastPurge = now.getTime();
      try {
        const n = await this.o.queue.purge(new Date(now.getTime() - this.o.retentionDays * DAY_MS), now);
        if (n) this.o.logger.info({ purged: n }, 'agent job inputs and results purged');
      } catch (e) {
        // Tried again at the next round, not an hour later.
        this.lastPurge = 0;
        this.failed(e, 'agent job purge failed');
      }
    }
    if (this.failureCount === before) this.failures = 0;
  }

  /**
   * Logs a state-store (or delivery) failure and backs the timer off: after n failed rounds in a
   * row no round starts for `pollMs` x 2^n (at most `MAX_BACKOFF_MS`), by the injected clock
   * (failures met while already backing off belong to the same round). Logs the error's name and
   * code only: a message can quote what the statement carried (job inputs may be PHI).
   */
  private failed(e: unknown, what: string, extra: Record<string, string> = {}): void {
    this.failureCount++;
    if (!this.backingOff()) {
      this.failures++;
      this.retryAt = this.o.now().getTime() + Math.min(MAX_BACKOFF_MS, this.pollMs * 2 ** Math.min(this.failures, 16));
    }
    const err = e as { name?: unknown; code?: unknown } | null;
    this.o.logger.error(
      { ...extra, err_name: typeof err?.name === 'string' ? err.name : typeof e, err_code: typeof err?.code === 'string' ? err.code : undefined, failures: this.failures, retry_at: new Date(this.retryAt).toISOString() },
      what,
    );
  }

  /** True while the timer waits out a back-off (no round, no refill). */
  private backingOff(): boolean {
    return this.o.now().getTime() < this.retryAt;
  }

  /** Runs jobs and callbacks until nothing is left to do now (tests and `rcm worker --once`). */
  async settle(): Promise<void> {
    for (;;) {
      await this.tick();
      if (this.jobs.active.size === 0) {
        await Promise.all([...this.finishing]);
        await this.deliverDue();
        return;
      }
      await Promise.race(this.jobs.active);
    }
  }

  /**
   * Runs a job's agent in a slot; its completion is written after the slot is free again, so the
   * next claim and this completion join one group commit instead of waiting on two in a row. At
   * most `concurrency` completions are in flight (a job completes only after its claim committed,
   * which waited for the completions queued before it).
   */
  private async run(job: ClaimedJob): Promise<void> {
    const outcome = await this.execute(job);
    // A completion lost with the connection is not retried here: the job's lease lapses and a
    // runner claims it again (the fence drops a late write of this one).
    const done: Promise<void> = this.complete(job, outcome)
      .catch((e: unknown) => this.failed(e, 'job completion failed', { job_id: job.id }))
      .finally(() => this.finishing.delete(done));
    this.finishing.add(done);
  }

  /** The agent's outcome for a job; never throws (a failure is the job's `error`). */
  private async execute(job: ClaimedJob): Promise<JobOutcome> {
    const clock = this.o.elapsedMs ?? performance.now.bind(performance);
    const started = clock();
    try {
      return await this.outcomeOf(job);
    } finally {
      const ms = clock() - started;
      this.runMs = this.runMs === Infinity ? ms : this.runMs * 0.9 + ms * 0.1;
    }
  }

  private async outcomeOf(job: ClaimedJob): Promise<JobOutcome> {
    const agent = this.o.agents.find((a) => a.type === job.agent_type);
    const snapshot = this.o.snapshots.snapshot;
    const renew = setInterval(
      () => void this.o.queue.renew(job.id, job.fence, new Date(this.o.now().getTime() + this.leaseMs)).catch((e: unknown) => this.failed(e, 'job lease renewal failed', { job_id: job.id })),
      Math.max(1000, this.leaseMs / 3),
    );
    renew.unref();
    snapshot?.retain();
    let outcome: JobOutcome;
    try {
      if (!agent) throw new AgentError('agent_unavailable', `no agent of type ${job.agent_type} runs in this service`);
      if (!snapshot) throw new AgentError('not_ready', 'no data snapshot is published yet');
      const result = await agent.run(job.input, { snapshot, tenant: this.o.tenants(job.tenant_id, job.key_type), now: this.o.now, tenantId: job.tenant_id, keyType: job.key_type, jobId: job.id });
      outcome = { status: 'completed', result };
    } catch (e) {
      // Inputs can carry PHI: log the job id and error code only, never the input or message text.
      const known = e instanceof AgentError;
      if (!known) this.o.logger.error({ job_id: job.id, agent_type: job.agent_type, err_name: (e as Error)?.name }, 'agent failed');
      outcome = { status: 'failed', error: known ? { code: e.code, message: e.message } : { code: 'agent_error', message: 'the agent failed; retry or contact support with the job id' } };
    } finally {
      clearInterval(renew);
      snapshot?.release();
    }
    return outcome;
  }

  /** Records the outcome under the job's fence (a stale worker's is dropped), then wakes delivery. */
  private async complete(job: ClaimedJob, outcome: JobOutcome): Promise<void> {
    const kept = await this.o.queue.finish(job.id, job.fence, outcome, this.o.now(), callbackBody);
    if (kept) this.o.onFinish?.(outcome.status);
    else this.o.logger.info({ job_id: job.id, fence: job.fence }, 'stale worker: a newer claim owns the job; result dropped');
    if (kept) void this.deliveries.fill();
  }

  /** One attempt of one callback, recorded with what happens next (delivered, failed, retry at). */
  private async deliverOne(due: DueCallback): Promise<void> {
    const started = this.o.now();
    const r = await attemptDelivery(due, { ...this.o.callbacks, now: this.o.now });
    const ended = this.o.now();
    const last = due.attempt >= MAX_ATTEMPTS;
    const outcome = r.outcome === 'retry' && last ? 'failed' : r.outcome;
    this.o.onAttempt?.(r.outcome === 'retry' && !last ? 'retry' : outcome);
    await this.o.queue.recordAttempt(
      due.job_id,
      {
        attempt: due.attempt,
        started_at: started.toISOString(),
        finished_at: ended.toISOString(),
        outcome,
        http_status: r.http_status,
        error: r.outcome === 'delivered' ? null : r.error,
      },
      r.outcome === 'delivered'
        ? { state: 'delivered' }
        : r.outcome === 'retry' && !last
          ? { state: 'pending', at: nextAttemptAt(due.attempt, ended, r.retryAfterMs) }
          : { state: 'failed' },
    );
  }

  /** Delivers what is due now and waits until no delivery is in flight (tests, `rcm worker --once`). */
  async deliverDue(): Promise<void> {
    for (;;) {
      await this.deliveries.fill();
      if (this.deliveries.active.size === 0) return;
      await Promise.race(this.deliveries.active);
    }
  }

  /**
   * Ticks every `pollMs`, one round at a time, skipping rounds while backing off from a failure.
   * Inside `rcm serve` the timer does not keep the process alive (the HTTP server does);
   * `rcm worker` passes `keepAlive` since the runner is all it has.
   */
  start(pollMs = 250, opts: { keepAlive?: boolean } = {}): void {
    this.stopping = false;
    this.pollMs = pollMs;
    this.timer ??= setInterval(() => {
      if (this.polling || this.backingOff()) return;
      this.polling = true;
      // tick() never rejects; the catch is the last guard of the loop all the same.
      this.tick()
        .catch((e: unknown) => this.failed(e, 'job runner tick failed'))
        .finally(() => (this.polling = false));
    }, pollMs);
    if (!opts.keepAlive) this.timer.unref();
  }

  /** Stops claiming new jobs and waits for the running ones, their completions and the delivery in progress. */
  async drain(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.jobs.idle();
    await Promise.allSettled([...this.finishing]);
    await this.deliveries.fill();
    await this.deliveries.idle();
  }
}

/** The longest back-off after state-store failures in a row (a recovered store is used within it). */
const MAX_BACKOFF_MS = 30_000;

/** Agent runs shorter than this (moving average) are quick: the runner claims some ahead. */
const QUICK_JOB_MS = 10;
/**
 * Jobs claimed ahead per slot while runs are quick: enough that each group commit carries many
 * claims and completions (its fsync, not the jobs, was most of a quick job's time) and a slot
 * never waits on one. Measured at concurrency 2 on a 2,000-job backlog: 4 ahead 2,900 jobs/s,
 * 8 ahead 3,200, 16 ahead 3,700 (a quick job takes ~0.3 ms, so 16 are ~5 ms of one slot's work).
 */
export const AHEAD_PER_SLOT = 16;

/**
 * Bounded work claimed from a queue: at most `size()` items run at once, and up to `ahead()` more
 * wait claimed, so a slot that frees starts the next item at once instead of waiting for a claim
 * to commit. One claimer at a time claims what is missing, all of it together (the state store
 * commits the claims in one group commit, each seeing the ones before it); a finished item frees
 * its slot, starts a waiting one and, when `refill()`, claims again. Items claimed are always
 * started, also while stopping (they are leased).
 * The claimer's guard clears on a later tick: cleared inside an async function's own `finally`, it
 * would clear synchronously when every slot is busy (no await), before `??=` stores the promise,
 * which then stayed set for good and nothing more was ever claimed.
 * Nothing here rejects: a failed claim or run goes to `onError` (a lost state-store connection
 * once ended `rcm serve` through a fill nobody awaited).
 */
class Slots<T> {
  readonly active = new Set<Promise<void>>();
  /** Claimed, not yet started, in start order: by round, then claim order (see `wait`). */
  private readonly waiting: { item: T; round: number }[] = [];
  /** The round of the item started last: rounds below it are over. */
  private floor = 0;
  /** Per key (`o.key`), the round of its last item waiting. */
  private readonly lastRound = new Map<string, number>();
  private claiming: Promise<void> | null = null;

  constructor(
    private readonly o: {
      size: () => number;
      ahead?: () => number;
      open: () => boolean;
      claim: () => Promise<T | null>;
      /** Whose item it is: items of different keys start round-robin (unset: in claim order). */
      key?: (item: T) => string;
      run: (item: T) => Promise<void>;
      refill: () => boolean;
      onError: (e: unknown) => void;
    },
  ) {}

  /**
   * Resolves once nothing runs, waits or is being claimed (items started meanwhile included): a
   * claim still in flight when a drain began would otherwise start its job after the drain.
   */
  async idle(): Promise<void> {
    while (this.active.size || this.claiming) await Promise.allSettled([...this.active, ...(this.claiming ? [this.claiming] : [])]);
  }

  /**
   * Queues a claimed item: the n-th item of its key still waiting takes round floor + n - 1 (a key
   * with none waiting joins the current round), and it starts after every item of a lower or equal
   * round. Items of one key stay in claim order; with one item per key this is claim order.
   */
  private wait(item: T): void {
    if (!this.o.key) {
      this.waiting.push({ item, round: 0 });
      return;
    }
    const k = this.o.key(item);
    const last = this.lastRound.get(k);
    const round = last === undefined || last < this.floor ? this.floor : last + 1;
    this.lastRound.set(k, round);
    let at = this.waiting.length;
    while (at > 0 && this.waiting[at - 1]!.round > round) at--;
    this.waiting.splice(at, 0, { item, round });
  }

  private start(): void {
    while (this.waiting.length && this.active.size < this.o.size()) {
      const next = this.waiting.shift()!;
      this.floor = next.round;
      if (this.o.key) {
        const k = this.o.key(next.item);
        // Its last item started: the key joins the current round with its next one.
        if (this.lastRound.get(k) === next.round) this.lastRound.delete(k);
      }
      let running: Promise<void>;
      try {
        running = this.o.run(next.item);
      } catch (e) {
        running = Promise.reject(e);
      }
      const p: Promise<void> = running
        .catch(this.o.onError)
        .finally(() => {
          this.active.delete(p);
          this.start();
          if (this.o.refill()) void this.fill();
        });
      this.active.add(p);
    }
  }

  /** Starts what waits and claims what is missing; resolves when the claims are in (never rejects). */
  fill(): Promise<void> {
    this.start();
    return (this.claiming ??= Promise.resolve()
      .then(async () => {
        const room = () => this.o.size() + (this.o.ahead?.() ?? 0) - this.active.size - this.waiting.length;
        while (this.o.open() && room() > 0) {
          const claims = await Promise.allSettled(Array.from({ length: room() }, () => this.o.claim()));
          // Every item claimed is kept, even when a claim beside it failed (it is leased now).
          for (const c of claims) if (c.status === 'fulfilled' && c.value !== null) this.wait(c.value);
          this.start();
          const failed = claims.find((c) => c.status === 'rejected');
          if (failed) throw failed.reason;
          if (claims.some((c) => c.status === 'fulfilled' && c.value === null)) return;
        }
      })
      .catch(this.o.onError)
      .finally(() => (this.claiming = null)));
  }
}
