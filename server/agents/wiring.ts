import type { SnapshotHolder } from '../../warehouse/snapshot.js';
import type { StateStore } from '../../warehouse/tenant_state.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../pipeline/metrics.js';
import type { Writer } from '../writer/writer.js';
import { nodeCallbackHttp, systemResolver, type CallbackHttp, type CallbackPolicy, type Resolver } from './callbacks.js';
import { AGENTS } from './registry.js';
import { JobRunner } from './runner.js';

/**
 * The job runner's wiring, shared by `rcm serve` and `rcm worker` (which serves no HTTP and so
 * does not import the server): the agents, their options and the runner over a state store.
 */

export interface AgentOptions {
  policy: CallbackPolicy;
  /** `RCM_AGENT_RUNNER`: run jobs in this process. */
  runner: boolean;
  concurrency: number;
  /** Callback deliveries in flight at once, apart from job execution (default 4). */
  callbackConcurrency?: number;
  /** `RCM_JOBS_QUEUED_PER_TENANT`: jobs one tenant may have waiting (default 100). */
  maxQueuedPerTenant?: number;
  retentionDays: number;
  llm: Writer | null;
  allowTestKeys: boolean;
  resolve?: Resolver;
  http?: CallbackHttp;
  leaseMs?: number;
  pollMs?: number;
}

export const DEFAULT_AGENTS: AgentOptions = { policy: { production: false, allowedHosts: [] }, runner: true, concurrency: 2, retentionDays: 30, llm: null, allowTestKeys: false };

/** The job runner over a state store and snapshot holder (`rcm serve` and `rcm worker` share it). */
export function makeRunner(o: { state: StateStore; snapshots: SnapshotHolder; logger: Logger; now: () => Date; metrics: Metrics; serviceVersion: string; agents: AgentOptions }): JobRunner {
  const a = o.agents;
  return new JobRunner({
    queue: o.state.jobs,
    tenants: (tenantId, mode) => o.state.forTenant(tenantId, mode),
    snapshots: o.snapshots,
    agents: AGENTS,
    writer: { llm: a.llm, allowTestKeys: a.allowTestKeys },
    now: o.now,
    logger: o.logger,
    concurrency: a.concurrency,
    callbackConcurrency: a.callbackConcurrency,
    leaseMs: a.leaseMs,
    retentionDays: a.retentionDays,
    callbacks: { policy: a.policy, resolve: a.resolve ?? systemResolver, http: a.http ?? nodeCallbackHttp, userAgent: `rcm-knowledge/${o.serviceVersion}` },
    onAttempt: (outcome) => o.metrics.callbackAttempts.inc({ outcome }),
    onFinish: (status) => o.metrics.jobsFinished.inc({ status }),
  });
}

