import type Database from 'better-sqlite3';
import { z } from 'zod';
import { ConflictError, DomainError, NotFoundError } from './errors.js';
import type { KeyType } from './key_kinds.js';

export type JobStatus = 'accepted' | 'running' | 'completed' | 'failed';
/** Where a job's callback is: `none` without a callback URL; `waiting` until the job finishes. */
export const CALLBACK_STATES = ['none', 'waiting', 'pending', 'delivering', 'delivered', 'failed'] as const;
export type CallbackState = (typeof CALLBACK_STATES)[number];

/** One delivery attempt of a job's callback, as the job poll shows it. */
export const CallbackAttemptSchema = z.object({
  attempt: z.number().int(),
  started_at: z.string(),
  finished_at: z.string(),
  outcome: z.string().describe('delivered, retry (tried again later) or failed'),
  http_status: z.number().int().nullable(),
  error: z.string().nullable(),
});
export type CallbackAttempt = z.output<typeof CallbackAttemptSchema>;

/** An agent job as stored; the callback secret is never part of it. */
export interface AgentJob {
  id: string;
  tenant_id: string;
  agent_type: string;
  status: JobStatus;
  input: unknown;
  result: unknown;
  error: { code: string; message: string } | null;
  key_type: KeyType;
  idempotency_key: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  latency_ms: number | null;
  runs: number;
  callback_url: string | null;
  callback_state: CallbackState;
  callback_attempts: CallbackAttempt[];
  purged_at: string | null;
}

export interface NewJob {
  id: string;
  agent_type: string;
  input: unknown;
  idempotency_key?: string;
  /** Hash of the submitted body: a reused Idempotency-Key with another body is a conflict ('' without a key: nothing compares it). */
  request_hash: string;
  callback_url?: string;
  callback_secret?: string;
  /** `RCM_JOBS_QUEUED_PER_TENANT`: refuse the job (429 `queue_full`) when the tenant already has this many waiting (in this mode). */
  maxQueued?: number;
}

/** A job handed to a worker under a lease; `fence` guards its completion. */
export interface ClaimedJob {
  id: string;
  tenant_id: string;
  agent_type: string;
  input: unknown;
  key_type: KeyType;
  created_at: string;
  fence: number;
  runs: number;
}

/** A callback due for delivery, leased to one deliverer. */
export interface DueCallback {
  job_id: string;
  tenant_id: string;
  url: string;
  secret: string | null;
  /** The exact bytes to send (stored at completion, so every attempt signs the same body). */
  body: string;
  /** 1-based number of the attempt about to be made. */
  attempt: number;
  key_type: KeyType;
}

export type JobOutcome = { status: 'completed'; result: unknown } | { status: 'failed'; error: { code: string; message: string } };

/** Jobs of one tenant (the part handlers see; every query binds the tenant). */
export interface TenantJobs {
  /**
   * Creates a job, or returns the job already created with the same Idempotency-Key within
   * `idempotencyWindowMs` (`created: false`); the same key with another body is a ConflictError.
   */
  create(job: NewJob, now: Date, idempotencyWindowMs: number): Promise<{ job: AgentJob; created: boolean }>;
  /** The tenant's job; another tenant's id is NotFoundError. */
  get(id: string): Promise<AgentJob>;
}

/** The work queue the runner uses (across tenants): leases, fencing, callback delivery, retention. */
export interface JobQueue {
  claim(owner: string, now: Date, leaseMs: number): Promise<ClaimedJob | null>;
  renew(id: string, fence: number, until: Date): Promise<boolean>;
  /** Records the outcome when `fence` still holds the job; false for a stale worker (nothing written). */
  finish(id: string, fence: number, outcome: JobOutcome, now: Date, callbackBody: (job: AgentJob) => string): Promise<boolean>;
  /** The next due callback, skipping tenants in `busy` (those holding their share of this process's delivery slots). */
  claimCallback(now: Date, leaseMs: number, busy?: string[]): Promise<DueCallback | null>;
  /** Records an attempt and what happens next: delivered, failed for good, or pending again at `nextAt`. */
  recordAttempt(jobId: string, a: CallbackAttempt, next: { state: 'delivered' | 'failed' } | { state: 'pending'; at: Date }): Promise<void>;
  /** Drops inputs, results and callback bodies of jobs finished before `before` (PHI retention). */
  purge(before: Date, now: Date): Promise<number>;
  countByStatus(): Promise<Record<JobStatus, number>>;
}

export interface JobRow {
  id: string;
  tenant_id: string;
  agent_type: string;
  status: JobStatus;
  input: string | null;
  result: string | null;
  error: string | null;
  key_type: KeyType;
  idempotency_key: string | null;
  request_hash: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  latency_ms: number | null;
  runs: number;
  fence: number;
  callback_url: string | null;
  callback_state: CallbackState;
  purged_at: string | null;
}

export const JOB_COLS =
  'id, tenant_id, agent_type, status, input, result, error, key_type, idempotency_key, request_hash, created_at, started_at, finished_at, latency_ms, runs, fence, callback_url, callback_state, purged_at';

export const parse = (s: string | null) => (s === null ? null : (JSON.parse(s) as unknown));

/** A stored job row and its callback attempts as the API shows the job (both engines). */
export function jobOf(r: JobRow, attempts: CallbackAttempt[]): AgentJob {
  return {
    id: r.id,
    tenant_id: r.tenant_id,
    agent_type: r.agent_type,
    status: r.status,
    input: parse(r.input),
    result: parse(r.result),
    error: parse(r.error) as AgentJob['error'],
    key_type: r.key_type,
    idempotency_key: r.idempotency_key,
    created_at: r.created_at,
    started_at: r.started_at,
    finished_at: r.finished_at,
    latency_ms: r.latency_ms,
    runs: r.runs,
    callback_url: r.callback_url,
    callback_state: r.callback_state,
    callback_attempts: attempts,
    purged_at: r.purged_at,
  };
}

/** Tenants whose waiting-job bound is remembered at most (past it the memory starts again). */
const WAITING_MEMO_MAX = 10_000;

/**
 * SQLite implementation of the job tables. Every statement is synchronous; the state store runs
 * them under its lock, so a claim is one atomic read-modify-write.
 */
export class SqliteJobs {
  constructor(private readonly db: Database.Database) {}

  /**
   * Per tenant and mode: an upper bound on its waiting jobs, valid while `PRAGMA data_version`
   * (which moves only when another connection commits) reads `version`. Waiting jobs are added
   * only by a submit and removed by claims and purges, so while no other connection wrote, the
   * last count plus this connection's submits since can only overstate them: a submit under the
   * bound needs no count (it cost 9-12 us a submit with 20-60 jobs waiting per tenant), and one
   * at the bound counts again.
   */
  private readonly waiting = new Map<string, { n: number; version: number }>();

  /** The tenant's waiting jobs (up to `max`), or the remembered upper bound when it is under `max`. */
  private waitingJobs(tenantId: string, mode: KeyType, max: number): { n: number; version: number; key: string } {
    const key = `${mode}:${tenantId}`;
    const version = (this.db.prepare('PRAGMA data_version').get() as { data_version: number }).data_version;
    const known = this.waiting.get(key);
    if (known && known.version === version && known.n < max) return { n: known.n, version, key };
    // Counted inside the write transaction, on the waiting-jobs index and no further than the bound.
    const { n } = this.db
      .prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM agent_jobs INDEXED BY agent_jobs_waiting WHERE tenant_id = ? AND status = 'accepted' AND key_type = ? LIMIT ?)`)
      .get(tenantId, mode, max) as { n: number };
    return { n, version, key };
  }

  private attempts(jobId: string): CallbackAttempt[] {
    return this.db
      .prepare('SELECT attempt, started_at, finished_at, outcome, http_status, error FROM callback_attempts WHERE job_id = ? ORDER BY attempt')
      .all(jobId) as CallbackAttempt[];
  }

  private toJob(r: JobRow): AgentJob {
    return jobOf(r, this.attempts(r.id));
  }

  private row(id: string, tenantId?: string, mode?: KeyType): JobRow | undefined {
    return (tenantId === undefined
      ? this.db.prepare(`SELECT ${JOB_COLS} FROM agent_jobs WHERE id = ?`).get(id)
      : this.db.prepare(`SELECT ${JOB_COLS} FROM agent_jobs WHERE id = ? AND tenant_id = ? AND key_type = ?`).get(id, tenantId, mode)) as JobRow | undefined;
  }

  /**
   * Tenant part, bound to `tenantId` and `mode` (a job's mode is the key type it was submitted
   * with). Runs inside the caller's lock (and transaction for create).
   */
  forTenant(tenantId: string, mode: KeyType) {
    return {
      create: (job: NewJob, now: Date, windowMs: number): { job: AgentJob; created: boolean } => {
        if (job.idempotency_key) {
          const prev = this.db
            .prepare(`SELECT ${JOB_COLS} FROM agent_jobs WHERE tenant_id = ? AND key_type = ? AND idempotency_key = ?`)
            .get(tenantId, mode, job.idempotency_key) as JobRow | undefined;
          if (prev) {
            const fresh = now.getTime() - Date.parse(prev.created_at) < windowMs;
            if (fresh) {
              if (prev.request_hash !== job.request_hash) {
                throw new ConflictError(`Idempotency-Key ${job.idempotency_key} was used for a different request body in the last 24 hours (job ${prev.id})`);
              }
              return { job: this.toJob(prev), created: false };
            }
            // Past the window the key starts a new job; the old one keeps its id, not the key.
            this.db.prepare('UPDATE agent_jobs SET idempotency_key = NULL WHERE id = ?').run(prev.id);
          }
        }
        if (job.maxQueued !== undefined) {
          // Checked inside the write transaction, so concurrent submits cannot pass the bound together.
          const { n, version, key } = this.waitingJobs(tenantId, mode, job.maxQueued);
          if (this.waiting.size >= WAITING_MEMO_MAX && !this.waiting.has(key)) this.waiting.clear();
          if (n >= job.maxQueued) {
            this.waiting.set(key, { n, version });
            throw new DomainError('queue_full', `${n} of this tenant's jobs are waiting (RCM_JOBS_QUEUED_PER_TENANT ${job.maxQueued}); submit again when some have run`, { headers: { 'retry-after': '10' } });
          }
          // This job waits too once inserted (if the batch rolls back, the bound only overstates).
          this.waiting.set(key, { n: n + 1, version });
        }
        const created: AgentJob = {
          id: job.id,
          tenant_id: tenantId,
          agent_type: job.agent_type,
          status: 'accepted',
          input: job.input,
          result: null,
          error: null,
          key_type: mode,
          idempotency_key: job.idempotency_key ?? null,
          created_at: now.toISOString(),
          started_at: null,
          finished_at: null,
          latency_ms: null,
          runs: 0,
          callback_url: job.callback_url ?? null,
          callback_state: job.callback_url ? 'waiting' : 'none',
          callback_attempts: [],
          purged_at: null,
        };
        this.db
          .prepare(
            `INSERT INTO agent_jobs (id, tenant_id, agent_type, status, input, key_type, idempotency_key, request_hash, created_at, callback_url, callback_secret, callback_state)
             VALUES (?, ?, ?, 'accepted', ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            created.id,
            tenantId,
            created.agent_type,
            JSON.stringify(job.input),
            mode,
            created.idempotency_key,
            job.request_hash,
            created.created_at,
            created.callback_url,
            job.callback_secret ?? null,
            created.callback_state,
          );
        // The job as stored, without reading it back (the insert wrote exactly these values).
        return { job: created, created: true };
      },
      get: (id: string): AgentJob => {
        const r = this.row(id, tenantId, mode);
        if (!r) throw new NotFoundError(`job ${id} not found`);
        return this.toJob(r);
      },
    };
  }

  claim(owner: string, now: Date, leaseMs: number): ClaimedJob | null {
    const at = now.toISOString();
    const r = this.db
      .prepare(
        // Fair across tenants: the oldest waiting job of the tenant with the fewest jobs running now,
        // so a tenant that floods the queue waits behind its own jobs, not everyone else's. A job
        // whose lease lapsed competes as its tenant's too. The first form, a correlated subquery
        // per waiting row, was quadratic (2 jobs/s behind 1,500 waiting); the second grouped every
        // waiting job (linear in the backlog: 28% of the runner's time behind 3,000). Now the
        // tenants with waiting jobs are walked on the partial index one seek each (a skip scan),
        // with one seek for each tenant's head and its running count: linear in those tenants only.
        // INDEXED BY: without ANALYZE statistics SQLite walked the status index instead (a scan).
        `WITH RECURSIVE tenants(tenant_id) AS (
           SELECT min(tenant_id) FROM agent_jobs INDEXED BY agent_jobs_waiting WHERE status = 'accepted'
           UNION ALL
           SELECT (SELECT min(j.tenant_id) FROM agent_jobs j INDEXED BY agent_jobs_waiting WHERE j.status = 'accepted' AND j.tenant_id > t.tenant_id)
           FROM tenants t WHERE t.tenant_id IS NOT NULL
         ),
         heads(tenant_id, head, created_at) AS (
           SELECT t.tenant_id,
             (SELECT j.rowid FROM agent_jobs j INDEXED BY agent_jobs_waiting WHERE j.status = 'accepted' AND j.tenant_id = t.tenant_id ORDER BY j.created_at LIMIT 1),
             (SELECT min(j.created_at) FROM agent_jobs j INDEXED BY agent_jobs_waiting WHERE j.status = 'accepted' AND j.tenant_id = t.tenant_id)
           FROM tenants t WHERE t.tenant_id IS NOT NULL
           UNION ALL
           SELECT tenant_id, rowid, created_at FROM agent_jobs INDEXED BY agent_jobs_running WHERE status = 'running' AND lease_until < @at
         )
         SELECT h.head FROM heads h
         ORDER BY (SELECT count(*) FROM agent_jobs r INDEXED BY agent_jobs_running WHERE r.status = 'running' AND r.tenant_id = h.tenant_id AND r.lease_until >= @at),
           h.created_at, h.tenant_id
         LIMIT 1`,
      )
      .get({ at }) as { head: number } | undefined;
    if (!r) return null;
    const until = new Date(now.getTime() + leaseMs).toISOString();
    const j = this.db
      .prepare(
        `UPDATE agent_jobs SET status = 'running', lease_owner = ?, lease_until = ?, fence = fence + 1, runs = runs + 1, started_at = coalesce(started_at, ?)
          WHERE rowid = ? RETURNING id, tenant_id, agent_type, input, key_type, created_at, fence, runs`,
      )
      .get(owner, until, at, r.head) as Pick<JobRow, 'id' | 'tenant_id' | 'agent_type' | 'input' | 'key_type' | 'created_at' | 'fence' | 'runs'>;
    return { id: j.id, tenant_id: j.tenant_id, agent_type: j.agent_type, input: parse(j.input), key_type: j.key_type, created_at: j.created_at, fence: j.fence, runs: j.runs };
  }

  renew(id: string, fence: number, until: Date): boolean {
    return this.db.prepare(`UPDATE agent_jobs SET lease_until = ? WHERE id = ? AND fence = ? AND status = 'running'`).run(until.toISOString(), id, fence).changes === 1;
  }

  finish(id: string, fence: number, outcome: JobOutcome, now: Date, callbackBody: (job: AgentJob) => string): boolean {
    // The row without its result columns, then one update: the finished job (and its callback
    // body) is built from what is known instead of read back and parsed again.
    const j = this.db
      .prepare(
        `SELECT rowid, id, tenant_id, agent_type, status, input, key_type, idempotency_key, created_at, started_at, runs, fence, callback_url, purged_at FROM agent_jobs WHERE id = ?`,
      )
      .get(id) as (Omit<JobRow, 'result' | 'error' | 'finished_at' | 'latency_ms' | 'callback_state' | 'request_hash'> & { rowid: number }) | undefined;
    if (!j || j.fence !== fence || j.status !== 'running') return false;
    const at = now.toISOString();
    const latency = now.getTime() - Date.parse(j.created_at);
    const result = outcome.status === 'completed' ? outcome.result : null;
    const error = outcome.status === 'failed' ? outcome.error : null;
    const { rowid, fence: _fence, ...row } = j;
    const finished: AgentJob = {
      ...row,
      status: outcome.status,
      input: parse(j.input),
      result,
      error,
      finished_at: at,
      latency_ms: latency,
      callback_state: j.callback_url ? 'pending' : 'none',
      callback_attempts: [], // a job's callback is attempted only after it finished, and it finishes once
    };
    const outcomeCols = [outcome.status, result === null ? null : JSON.stringify(result), error === null ? null : JSON.stringify(error), at, latency] as const;
    const set = `status = ?, result = ?, error = ?, finished_at = ?, latency_ms = ?, lease_owner = NULL, lease_until = NULL`;
    // Without a callback the callback columns (and their index) are left alone.
    if (j.callback_url) {
      this.db
        .prepare(`UPDATE agent_jobs SET ${set}, callback_state = 'pending', callback_body = ?, callback_due_at = ? WHERE rowid = ? AND fence = ?`)
        .run(...outcomeCols, callbackBody(finished), at, rowid, fence);
    } else {
      this.db.prepare(`UPDATE agent_jobs SET ${set} WHERE rowid = ? AND fence = ?`).run(...outcomeCols, rowid, fence);
    }
    return true;
  }

  claimCallback(now: Date, leaseMs: number, busy: string[] = []): DueCallback | null {
    const at = now.toISOString();
    const skip = busy.length ? ` AND tenant_id NOT IN (${busy.map(() => '?').join(', ')})` : '';
    // Two seeks on the callback index, the earlier due first: one OR across both states scanned
    // the whole job table on every claim (43 us behind 3,000 jobs, and after every job's completion).
    const r = this.db
      .prepare(
        `SELECT id, tenant_id, callback_url, callback_secret, callback_body, key_type FROM agent_jobs WHERE rowid = (
           SELECT rowid FROM (
             SELECT rowid, callback_due_at FROM (SELECT rowid, callback_due_at FROM agent_jobs WHERE callback_state = 'pending' AND callback_due_at <= ?${skip} ORDER BY callback_due_at LIMIT 1)
             UNION ALL
             SELECT rowid, callback_due_at FROM (SELECT rowid, callback_due_at FROM agent_jobs WHERE callback_state = 'delivering' AND callback_lease_until < ?${skip} ORDER BY callback_due_at LIMIT 1)
           ) ORDER BY callback_due_at LIMIT 1)`,
      )
      .get(at, ...busy, at, ...busy) as { id: string; tenant_id: string; callback_url: string; callback_secret: string | null; callback_body: string; key_type: KeyType } | undefined;
    if (!r) return null;
    this.db
      .prepare(`UPDATE agent_jobs SET callback_state = 'delivering', callback_lease_until = ? WHERE id = ?`)
      .run(new Date(now.getTime() + leaseMs).toISOString(), r.id);
    const n = (this.db.prepare('SELECT count(*) AS n FROM callback_attempts WHERE job_id = ?').get(r.id) as { n: number }).n;
    return { job_id: r.id, tenant_id: r.tenant_id, url: r.callback_url, secret: r.callback_secret, body: r.callback_body, attempt: n + 1, key_type: r.key_type };
  }

  recordAttempt(jobId: string, a: CallbackAttempt, next: { state: 'delivered' | 'failed' } | { state: 'pending'; at: Date }): void {
    this.db
      .prepare('INSERT INTO callback_attempts (job_id, attempt, started_at, finished_at, outcome, http_status, error) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(jobId, a.attempt, a.started_at, a.finished_at, a.outcome, a.http_status, a.error);
    if (next.state === 'pending') {
      this.db.prepare(`UPDATE agent_jobs SET callback_state = 'pending', callback_due_at = ?, callback_lease_until = NULL WHERE id = ?`).run(next.at.toISOString(), jobId);
    } else {
      this.db.prepare(`UPDATE agent_jobs SET callback_state = ?, callback_due_at = NULL, callback_lease_until = NULL WHERE id = ?`).run(next.state, jobId);
    }
  }

  purge(before: Date, now: Date): number {
    return this.db
      .prepare(
        `UPDATE agent_jobs INDEXED BY agent_jobs_finished SET input = NULL, result = NULL, callback_body = NULL, callback_secret = NULL, purged_at = ?
          WHERE status IN ('completed', 'failed') AND finished_at < ? AND purged_at IS NULL AND callback_state NOT IN ('pending', 'delivering')`,
      )
      .run(now.toISOString(), before.toISOString()).changes;
  }

  /** Counted on the waiting, running and finished jobs' own indexes (never the table and its results). */
  countByStatus(): Record<JobStatus, number> {
    const out: Record<JobStatus, number> = { accepted: 0, running: 0, completed: 0, failed: 0 };
    const rows = this.db
      .prepare(
        `SELECT 'accepted' AS status, count(*) AS n FROM agent_jobs INDEXED BY agent_jobs_waiting WHERE status = 'accepted'
         UNION ALL SELECT 'running', count(*) FROM agent_jobs INDEXED BY agent_jobs_running WHERE status = 'running'
         UNION ALL SELECT status, count(*) FROM agent_jobs INDEXED BY agent_jobs_finished WHERE status IN ('completed', 'failed') GROUP BY status`,
      )
      .all() as { status: JobStatus; n: number }[];
    for (const r of rows) out[r.status] = r.n;
    return out;
  }
}
