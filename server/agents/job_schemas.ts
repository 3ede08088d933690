import { z } from 'zod';
import { CALLBACK_STATES, CallbackAttemptSchema } from '../../warehouse/jobs.js';
import { AGENTS } from './registry.js';

// The job's schemas: the submit's 202, the callback body and the poll, whose `result` is one of
// the agents' `output` (derived from `AGENTS`, so a new agent's result is documented with it).

/** The spec's agent job (accepted response). */
export const AgentJobAcceptedSchema = z
  .object({
    agent_type: z.string(),
    created_at: z.string(),
    job_id: z.uuid(),
    status: z.enum(['accepted', 'running', 'completed', 'failed']).describe('`accepted` at submit; a repeated Idempotency-Key answers the job as it stands'),
  })
  .meta({ id: 'AgentJobAccepted' });

/** Every agent's result, by type (the union's branches in that order). */
const RESULTS = [...AGENTS].sort((a, b) => (a.type < b.type ? -1 : 1)).map((a) => ({ type: a.type, schema: a.output }));

/** A finished job's result: the `output` of the agent its `agent_type` names. */
export type AgentResult = z.output<(typeof AGENTS)[number]['output']> | null;

// One union with null (not `.nullable()` of a union): a flat anyOf, which MCP's output schemas cut to each branch's type.
const AgentResultSchema = z
  .union([...RESULTS.map((r) => r.schema), z.null()])
  .describe(`the result of the agent \`agent_type\` names (${RESULTS.map((r) => `${r.type}: ${r.schema.meta()?.id}`).join('; ')}); null until completed, and after the retention period`);
const JobErrorSchema = z.object({ code: z.string(), message: z.string() }).nullable().describe('why a failed job failed');

/** The fields a finished job's callback body and its poll share, meaning the same in both. */
const JobEventFields = {
  job_id: z.uuid(),
  agent_type: z.string(),
  created_at: z.string().describe('when the job was submitted'),
  finished_at: z.string().nullable(),
  result: AgentResultSchema,
  error: JobErrorSchema,
  latency_ms: z.number().nullable(),
};

/** The callback body (spec "Events"): POSTed once a job finishes, the same bytes on every attempt. */
export const AgentJobEventSchema = z
  .object({
    id: z.string().describe("`evt_` and the job id's 32 hex digits: the same on every attempt, for receivers to deduplicate on"),
    type: z.enum(['agent.job.completed', 'agent.job.failed']),
    ...JobEventFields,
    status: z.enum(['completed', 'failed']),
  })
  .meta({ id: 'AgentJobEvent' });

/** `GET /v1/agents/jobs/{job_id}`: the callback payload's fields plus timing and the delivery log; never the secret. */
export const PolledJobSchema = z
  .object({
    id: z.string().nullable().describe("the callback event's id (evt_ + the job id's hex digits); null until the job finishes"),
    type: z.enum(['agent.job.completed', 'agent.job.failed']).nullable().describe("the callback event's type; null until the job finishes"),
    ...JobEventFields,
    status: z.enum(['accepted', 'running', 'completed', 'failed']),
    started_at: z.string().nullable(),
    purged: z.boolean().describe('inputs and results are purged RCM_JOB_RETENTION_DAYS after the job finished'),
    callback: z
      .object({
        url: z.string(),
        state: z.enum(CALLBACK_STATES).exclude(['none']),
        event_id: z.string(),
        attempts: z.array(CallbackAttemptSchema),
      })
      .nullable(),
  })
  .meta({ id: 'AgentJob' });
