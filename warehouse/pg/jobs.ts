import { ConflictError, DomainError, NotFoundError } from '../errors.js';
import {
  JOB_COLS,
  jobOf,
  parse,
  type AgentJob,
  type CallbackAttempt,
  type ClaimedJob,
  type DueCallback,
  type JobOutcome,
  type JobRow,
  type JobStatus,
  type NewJob,
} from '../jobs.js';
import type { KeyType } from '../key_kinds.js';
import type { Sql } from './sql.js';

/**
 * PostgreSQL implementation of the job tables, with SQLite's semantics (`warehouse/jobs.ts`):
 * the same leases, fencing, fair claim order and at-least-once callback delivery. Where SQLite
 * relies on its one writer, this takes row locks: a claim locks its job with
 * `FOR UPDATE SKIP LOCKED` (two runners never wait on, or take, the same job), and finish and
 * callback steps run in one transaction that locks the job's row first.
 */

async function attempts(db: Sql, jobId: string): Promise<CallbackAttempt[]> {
  return db.all<CallbackAttempt>('SELECT attempt, started_at, finished_at, outcome, http_status, error FROM callback_attempts WHERE job_id = ? ORDER BY attempt', [jobId]);
}

const toJob = async (db: Sql, r: JobRow): Promise<AgentJob> => jobOf(r, await attempts(db, r.id));

/** One tenant's jobs in one mode; `create` runs inside the caller's write transaction. */
export function pgTenantJobs(db: Sql, tenantId: string, mode: KeyType) {
  return {
    create: async (job: NewJob, now: Date, windowMs: number): Promise<{ job: AgentJob; created: boolean }> => {
      if (job.idempotency_key) {
        const prev = await db.get<JobRow>(`SELECT ${JOB_COLS} FROM agent_jobs WHERE tenant_id = ? AND key_type = ? AND idempotency_key = ?`, [tenantId, mode, job.idempotency_key]);
        if (prev) {
          if (now.getTime() - Date.parse(prev.created_at) < windowMs) {
            if (prev.request_hash !== job.request_hash) {
              throw new ConflictError(`Idempotency-Key ${job.idempotency_key} was used for a different request body in the last 24 hours (job ${prev.id})`);
            }
            return { job: await toJob(db, prev), created: false };
          }
          await db.run('UPDATE agent_jobs SET idempotency_key = NULL WHERE id = ?', [prev.id]);
        }
      }
      if (job.maxQueued !== undefined) {
        // Exact across replicas: the write transaction holds the tenant's generation row first.
        // Counted no further than the bound (a deep backlog is not counted to its end).
        const { n } = (await db.get<{ n: number }>(
          `SELECT count(*)::int AS n FROM (SELECT 1 FROM agent_jobs WHERE tenant_id = ? AND key_type = ? AND status = 'accepted' LIMIT ?) AS waiting`,
          [tenantId, mode, job.maxQueued],
        ))!;
        if (n >= job.maxQueued) {
          throw new DomainError('queue_full', `${n} of this tenant's jobs are waiting (RCM_JOBS_QUEUED_PER_TENANT ${job.maxQueued}); submit again when some have run`, { headers: { 'retry-after': '10' } });
        }
      }
      const row = await db.get<JobRow>(
        `INSERT INTO agent_jobs (id, tenant_id, agent_type, status, input, key_type, idempotency_key, request_hash, created_at, callback_url, callback_secret, callback_state)
         VALUES (?, ?, ?, 'accepted', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${JOB_COLS}`,
        [
          job.id, tenantId, job.agent_type, JSON.stringify(job.input), mode, job.idempotency_key ?? null, job.request_hash, now.toISOString(),
          job.callback_url ?? null, job.callback_secret ?? null, job.callback_url ? 'waiting' : 'none',
        ],
      );
      return { job: jobOf(row!, []), created: true };
    },
    get: async (id: string): Promise<AgentJob> => {
      const r = await db.get<JobRow>(`SELECT ${JOB_COLS} FROM agent_jobs WHERE id = ? AND tenant_id = ? AND key_type = ?`, [id, tenantId, mode]);
      if (!r) throw new NotFoundError(`job ${id} not found`);
      return toJob(db, r);
    },
  };
}

/**
 * The job a runner takes next, as SQLite orders them (fair across tenants: the oldest waiting job
 * of the tenant with the fewest jobs running now), skipping jobs another runner has locked. The
 * ranking runs over the waiting jobs in a CTE; the outer query locks the first unlocked one and
 * re-checks, on the row's newest version, that it is still waiting (another runner may have
 * claimed it between the ranking and the lock).
 */
const CLAIM_SQL = `
  WITH running AS (
    SELECT tenant_id, count(*) AS n FROM agent_jobs WHERE status = 'running' AND lease_until >= ? GROUP BY tenant_id
  ),
  ranked AS (
    SELECT j.id, coalesce(r.n, 0) AS busy, min(j.created_at) OVER (PARTITION BY j.tenant_id) AS first_at, j.tenant_id, j.created_at
    FROM agent_jobs j LEFT JOIN running r ON r.tenant_id = j.tenant_id
    WHERE j.status = 'accepted' OR (j.status = 'running' AND j.lease_until < ?)
  )
  SELECT j.id FROM agent_jobs j JOIN ranked k ON k.id = j.id
  WHERE j.status = 'accepted' OR (j.status = 'running' AND j.lease_until < ?)
  ORDER BY k.busy, k.first_at, k.tenant_id, k.created_at, k.id
  LIMIT 1 FOR UPDATE OF j SKIP LOCKED`;

/** The runner's queue over `db` (a pool); `tx` runs a function in one transaction on one client. */
export function pgJobQueue(db: Sql, tx: <T>(fn: (db: Sql) => Promise<T>) => Promise<T>) {
  return {
    claim: (owner: string, now: Date, leaseMs: number): Promise<ClaimedJob | null> =>
      tx(async (t) => {
        const at = now.toISOString();
        const r = await t.get<{ id: string }>(CLAIM_SQL, [at, at, at]);
        if (!r) return null;
        const j = (await t.get<JobRow>(
          `UPDATE agent_jobs SET status = 'running', lease_owner = ?, lease_until = ?, fence = fence + 1, runs = runs + 1, started_at = coalesce(started_at, ?) WHERE id = ? RETURNING ${JOB_COLS}`,
          [owner, new Date(now.getTime() + leaseMs).toISOString(), at, r.id],
        ))!;
        return { id: j.id, tenant_id: j.tenant_id, agent_type: j.agent_type, input: parse(j.input), key_type: j.key_type, created_at: j.created_at, fence: j.fence, runs: j.runs };
      }),
    renew: async (id: string, fence: number, until: Date): Promise<boolean> =>
      (await db.run(`UPDATE agent_jobs SET lease_until = ? WHERE id = ? AND fence = ? AND status = 'running'`, [until.toISOString(), id, fence])) === 1,
    finish: (id: string, fence: number, outcome: JobOutcome, now: Date, callbackBody: (job: AgentJob) => string): Promise<boolean> =>
      tx(async (t) => {
        // The row lock orders this against a runner that claims the job again after the lease lapsed.
        const j = await t.get<JobRow>(`SELECT ${JOB_COLS} FROM agent_jobs WHERE id = ? FOR UPDATE`, [id]);
        if (!j || j.fence !== fence || j.status !== 'running') return false;
        const at = now.toISOString();
        const result = outcome.status === 'completed' ? JSON.stringify(outcome.result) : null;
        const error = outcome.status === 'failed' ? JSON.stringify(outcome.error) : null;
        const done = (await t.get<JobRow>(
          `UPDATE agent_jobs SET status = ?, result = ?, error = ?, finished_at = ?, latency_ms = ?, lease_owner = NULL, lease_until = NULL WHERE id = ? AND fence = ? RETURNING ${JOB_COLS}`,
          [outcome.status, result, error, at, now.getTime() - Date.parse(j.created_at), id, fence],
        ))!;
        if (j.callback_url) {
          const body = callbackBody(await toJob(t, done));
          await t.run(`UPDATE agent_jobs SET callback_state = 'pending', callback_body = ?, callback_due_at = ? WHERE id = ?`, [body, at, id]);
        }
        return true;
      }),
    claimCallback: (now: Date, leaseMs: number, busy: string[] = []): Promise<DueCallback | null> =>
      tx(async (t) => {
        const at = now.toISOString();
        const skip = busy.length ? ` AND tenant_id NOT IN (${busy.map(() => '?').join(', ')})` : '';
        const r = await t.get<{ id: string; tenant_id: string; callback_url: string; callback_secret: string | null; callback_body: string; key_type: KeyType }>(
          `SELECT id, tenant_id, callback_url, callback_secret, callback_body, key_type FROM agent_jobs
            WHERE ((callback_state = 'pending' AND callback_due_at <= ?) OR (callback_state = 'delivering' AND callback_lease_until < ?))${skip}
            ORDER BY callback_due_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
          [at, at, ...busy],
        );
        if (!r) return null;
        await t.run(`UPDATE agent_jobs SET callback_state = 'delivering', callback_lease_until = ? WHERE id = ?`, [new Date(now.getTime() + leaseMs).toISOString(), r.id]);
        const { n } = (await t.get<{ n: number }>('SELECT count(*) AS n FROM callback_attempts WHERE job_id = ?', [r.id]))!;
        return { job_id: r.id, tenant_id: r.tenant_id, url: r.callback_url, secret: r.callback_secret, body: r.callback_body, attempt: n + 1, key_type: r.key_type };
      }),
    recordAttempt: (jobId: string, a: CallbackAttempt, next: { state: 'delivered' | 'failed' } | { state: 'pending'; at: Date }): Promise<void> =>
      tx(async (t) => {
        await t.run('INSERT INTO callback_attempts (job_id, attempt, started_at, finished_at, outcome, http_status, error) VALUES (?, ?, ?, ?, ?, ?, ?)', [
          jobId, a.attempt, a.started_at, a.finished_at, a.outcome, a.http_status, a.error,
        ]);
        if (next.state === 'pending') {
          await t.run(`UPDATE agent_jobs SET callback_state = 'pending', callback_due_at = ?, callback_lease_until = NULL WHERE id = ?`, [next.at.toISOString(), jobId]);
        } else {
          await t.run(`UPDATE agent_jobs SET callback_state = ?, callback_due_at = NULL, callback_lease_until = NULL WHERE id = ?`, [next.state, jobId]);
        }
      }),
    purge: (before: Date, now: Date): Promise<number> =>
      db.run(
        `UPDATE agent_jobs SET input = NULL, result = NULL, callback_body = NULL, callback_secret = NULL, purged_at = ?
          WHERE finished_at IS NOT NULL AND finished_at < ? AND purged_at IS NULL AND callback_state NOT IN ('pending', 'delivering')`,
        [now.toISOString(), before.toISOString()],
      ),
    countByStatus: async (): Promise<Record<JobStatus, number>> => {
      const out: Record<JobStatus, number> = { accepted: 0, running: 0, completed: 0, failed: 0 };
      for (const r of await db.all<{ status: JobStatus; n: number }>('SELECT status, count(*) AS n FROM agent_jobs GROUP BY status')) out[r.status] = r.n;
      return out;
    },
  };
}
