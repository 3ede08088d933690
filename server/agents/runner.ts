import type { ClaimedJob, JobOutcome } from '../../warehouse/jobs.js';
import type { KeyType } from '../../warehouse/tenant_state.js';
import type { MountedSnapshot } from '../../warehouse/snapshot.js';
import { JobExecutor, type ExecutorOptions } from '../jobs/executor.js';
import { toIssues } from '../validation.js';
import { callbackBody, deliverCallback, type CallbackHttp, type CallbackPolicy, type Resolver } from './callbacks.js';
import { AgentError, type AgentWriterOptions, type RunnableAgent, type TenantReads } from './define.js';

export interface RunnerOptions extends Omit<ExecutorOptions, 'execute' | 'callbackBody' | 'deliver'> {
  /** The tenant view a job reads (the state store's `forTenant`). */
  tenants: (tenantId: string, mode: KeyType) => TenantReads;
  snapshots: { readonly snapshot: MountedSnapshot | null };
  /** The runner's registry: `AGENTS` in service (tests pass their own). */
  agents: readonly RunnableAgent[];
  /** Who phrases conclusions (default: the template only). */
  writer?: AgentWriterOptions;
  callbacks: { policy: CallbackPolicy; resolve: Resolver; http: CallbackHttp; userAgent: string };
  onAttempt?: (outcome: string) => void;
}

/**
 * Runs agent jobs: the generic executor (`server/jobs/executor.ts`: leases, fencing, claiming
 * ahead, round robin by tenant, back-off, retention, callback slots) with the agents' part, which
 * is small: the job's agent by its type, its stored input parsed again by the agent's schema, the
 * run over the current snapshot, and the signed callback of the outcome.
 */
export class JobRunner extends JobExecutor {
  constructor(o: RunnerOptions) {
    const agents = new Map(o.agents.map((a) => [a.type, a]));
    super({
      ...o,
      execute: (job) => outcomeOf(job, agents, o),
      callbackBody,
      deliver: (due) => deliverCallback(due, o.queue, { ...o.callbacks, now: o.now, onAttempt: o.onAttempt }),
    });
  }
}

/** A job's outcome: its agent's result, or the job's error. Never throws. */
async function outcomeOf(job: ClaimedJob, agents: Map<string, RunnableAgent>, o: RunnerOptions): Promise<JobOutcome> {
  const agent = agents.get(job.agent_type);
  const snapshot = o.snapshots.snapshot;
  snapshot?.retain();
  try {
    if (!agent) throw new AgentError('agent_unavailable', `no agent of type ${job.agent_type} runs in this service`);
    if (!snapshot) throw new AgentError('not_ready', 'no data snapshot is published yet');
    const input = parseJobInput(agent, job.input);
    const ctx = { snapshot, tenant: o.tenants(job.tenant_id, job.key_type), now: o.now, tenantId: job.tenant_id, keyType: job.key_type, jobId: job.id, writer: o.writer ?? NO_LLM };
    return { status: 'completed', result: await agent.run(input, ctx) };
  } catch (e) {
    // Inputs can carry PHI: log the job id and error code only, never the input or message text.
    const known = e instanceof AgentError;
    if (!known) o.logger.error({ job_id: job.id, agent_type: job.agent_type, err_name: (e as Error)?.name }, 'agent failed');
    return { status: 'failed', error: known ? { code: e.code, message: e.message } : { code: 'agent_error', message: 'the agent failed; retry or contact support with the job id' } };
  } finally {
    snapshot?.release();
  }
}

const NO_LLM: AgentWriterOptions = { llm: null, allowTestKeys: false };

/**
 * A stored job's input, parsed by its agent's schema as the submit was: a job stored by an older
 * version whose input this one no longer takes fails with `invalid_job_input`, naming each field
 * and why (never the values: an input may carry PHI), instead of running on a shape it was not
 * written for.
 */
export function parseJobInput<A extends RunnableAgent>(agent: A, raw: unknown): Parameters<A['run']>[0] {
  const parsed = agent.input.safeParse(raw);
  if (parsed.success) return parsed.data;
  const why = toIssues('body', parsed.error, raw).map((i) => `${i.loc.join('.')}: ${i.msg}`);
  throw new AgentError('invalid_job_input', `the job's stored input is not a ${agent.type} input of this version (${why.join('; ')}); it was stored by an older version: submit it again`);
}
