import { createHash } from 'node:crypto';
import { uuidv7 } from '../../warehouse/ids.js';
import { z } from 'zod';
import type { AgentJob } from '../../warehouse/jobs.js';
import type { Issue } from '../../warehouse/errors.js';
import { defineRoute, json, result, type RawInput, type Resolution, type RouteCallback, type RouteDef } from '../route.js';
import { eventId, jobEvent, resolveTarget, type CallbackPolicy, type Resolver } from '../agents/callbacks.js';
import type { AgentDef } from '../agents/define.js';
import { AgentJobAcceptedSchema, AgentJobEventSchema, PolledJobSchema } from '../agents/job_schemas.js';
import { AGENTS } from '../agents/registry.js';

export interface AgentRouteDeps {
  policy: CallbackPolicy;
  resolve: Resolver;
  /** A repeated `Idempotency-Key` returns the same job within this window (24 h). */
  idempotencyWindowMs: number;
  /** `RCM_JOBS_QUEUED_PER_TENANT`: jobs one tenant may have waiting; past it a submit is 429 `queue_full`. */
  maxQueuedPerTenant?: number;
  /** Wakes the job runner after a submit (no wait for its next poll). */
  onSubmit: () => void;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The POST to `callback_url` once the job finishes (server/agents/callbacks.ts), as the submits document it. */
const JOB_CALLBACK: RouteCallback = {
  name: 'jobFinished',
  url: '{$request.body#/callback_url}',
  summary: 'The finished job, POSTed to callback_url',
  description:
    'Sent once the job completes or fails, when the submit carried callback_url: the job as an event (`type` agent.job.completed or agent.job.failed; `id` the same on every attempt, to deduplicate on). ' +
    'The bytes are fixed at completion; with callback_secret they are signed in X-SVC-Signature: compare it in constant time with `sha256=` and the hex HMAC-SHA256 of the exact body under the secret. ' +
    'Tried at once, then about 2 s and 8 s after the previous attempt, on a timeout (10 s), a connection error, a 5xx or a 429; in production only to an https URL whose host is allowed and resolves to a public address. The job poll shows every attempt.',
  body: AgentJobEventSchema,
  headers: { 'X-SVC-Signature': '`sha256=` and the lowercase hex HMAC-SHA256 of the exact body bytes keyed with callback_secret; sent only when the submit gave a callback_secret' },
};

/** The job as polled: never the callback secret, and the input only as the agent's result shows it. */
export function toPolledJob(j: AgentJob): z.output<typeof PolledJobSchema> {
  return {
    // Every field of the callback body, meaning the same (created_at: submitted; finished_at: finished).
    ...jobEvent(j),
    started_at: j.started_at,
    purged: j.purged_at !== null,
    callback: j.callback_url
      ? { url: j.callback_url, state: j.callback_state === 'none' ? 'waiting' : j.callback_state, event_id: eventId(j.id), attempts: j.callback_attempts }
      : null,
  };
}

/**
 * The checks of a submit beyond its schema: the Idempotency-Key header, a callback_secret
 * without a URL, and the callback URL's rules (scheme, host, the addresses its name resolves
 * to). A `resolve` step, so a bad group_code and a bad callback_url arrive in one 422.
 */
function submitChecks(d: AgentRouteDeps) {
  return async (input: RawInput): Promise<Resolution<{ idempotencyKey: string | undefined }>> => {
    const b = (typeof input.body === 'object' && input.body !== null ? input.body : {}) as { callback_url?: unknown; callback_secret?: unknown };
    const issues: Issue[] = [];
    const idem = input.header('idempotency-key');
    if (idem !== undefined && !IDEMPOTENCY_KEY.test(idem)) {
      issues.push({ loc: ['header', 'idempotency-key'], msg: 'Idempotency-Key is 1 to 255 visible ASCII characters', type: 'value_error', input: idem });
    }
    if (b.callback_secret !== undefined && b.callback_url === undefined) {
      issues.push({ loc: ['body', 'callback_secret'], msg: 'callback_secret needs a callback_url', type: 'value_error' });
    }
    if (typeof b.callback_url === 'string' && URL.canParse(b.callback_url)) {
      const t = await resolveTarget(b.callback_url, d.policy, input.auth?.key_type === 'live', d.resolve).catch((e: Error) => ({ refusal: `callback host does not resolve (${e.message})` }));
      if ('refusal' in t) issues.push({ loc: ['body', 'callback_url'], msg: t.refusal, type: 'value_error', input: b.callback_url });
    }
    return { issues, value: { idempotencyKey: idem } };
  };
}

/**
 * An agent's submit route, from its declaration: `POST /v1/agents/<type with dashes>` taking its
 * `input` (validation, callback URL rules, idempotency), persisting the job, 202 + Location.
 */
function submitRoute(d: AgentRouteDeps, agent: AgentDef): RouteDef {
  return defineRoute({
    method: 'post',
    path: `/v1/agents/${agent.type.replace(/_/g, '-')}`,
    operationId: `submit${agent.type.replace(/(?:^|_)([a-z])/g, (_, c: string) => c.toUpperCase())}`,
    tag: 'agents',
    summary: agent.summary,
    description: `${agent.description} Answers 202 with the job and a Location to poll; with callback_url the service POSTs the result there (see the README: signature, retries, URL rules). An Idempotency-Key header returns the same job for a repeated submit within 24 hours (another body with the same key is 409).`,
    // The result cites payment amounts, edits and coverage: the knowledge data.
    auth: { scope: 'agents', alsoScopes: ['knowledge'] },
    reads: 'tenant',
    body: json(agent.input, 64 * 1024),
    headers: { 'Idempotency-Key': 'a repeated submit with the same key within 24 hours returns the same job (another body with the same key is 409); 1 to 255 visible ASCII characters' },
    response: AgentJobAcceptedSchema,
    responseHeaders: { Location: { description: 'the job to poll: /v1/agents/jobs/{job_id}', always: true } },
    callback: JOB_CALLBACK,
    status: 202,
    errors: ['conflict', 'queue_full'],
    examples: agent.examples,
    resolve: submitChecks(d),
    handler: async ({ body, resolved, tenant, now }) => {
      const { callback_url, callback_secret, ...input } = body as { callback_url?: string; callback_secret?: string } & Record<string, unknown>;
      const idem = resolved.idempotencyKey;
      const at = now();
      const { job } = await tenant.jobs.create(
        {
          id: uuidv7(at.getTime()),
          agent_type: agent.type,
          input,
          idempotency_key: idem,
          // Compared only when the key is used again: without one, nothing to hash (7 us a submit).
          request_hash: idem ? createHash('sha256').update(JSON.stringify(body)).digest('hex') : '',
          callback_url,
          callback_secret,
          maxQueued: d.maxQueuedPerTenant,
        },
        at,
        d.idempotencyWindowMs,
      );
      d.onSubmit();
      return result(202, { agent_type: job.agent_type, created_at: job.created_at, job_id: job.id, status: job.status }, { location: `/v1/agents/jobs/${job.id}` });
    },
  });
}

/** Agent submits (one per agent of `AGENTS`) and the job poll (scope `agents`). */
export function agentRoutes(d: AgentRouteDeps): RouteDef[] {
  return [
    ...AGENTS.map((a) => submitRoute(d, a)),
    defineRoute({
      method: 'get',
      path: '/v1/agents/jobs/{job_id}',
      operationId: 'getAgentJob',
      tag: 'agents',
      summary: 'Poll an agent job: status, result or error, latency and the callback delivery log',
      description: 'The callback secret is never returned. Another tenant\'s job id is 404.',
      auth: { scope: 'agents', alsoScopes: ['knowledge'] },
      reads: 'tenant',
      params: z.object({ job_id: z.uuid() }),
      response: PolledJobSchema,
      errors: ['not_found'],
      examples: [
        { summary: 'poll a job (404 until a job with this id exists)', params: { job_id: '00000000-0000-4000-8000-000000000000' }, status: 404 },
        { summary: 'poll a job that exists', params: { job_id: '{job}' } },
        { summary: 'a job id that is not a UUID', status: 422, params: { job_id: 'not-a-uuid' } },
      ],
      handler: async ({ params, tenant }) => toPolledJob(await tenant.jobs.get(params.job_id)),
    }),
  ];
}
