import type { z } from 'zod';
import { DomainError, type ErrorCode } from '../../warehouse/errors.js';
import type { MountedSnapshot } from '../../warehouse/snapshot.js';
import type { KeyType, TenantStore } from '../../warehouse/tenant_state.js';
import type { RouteExample } from '../route.js';
import type { Writer } from '../writer/writer.js';

/** What an agent may read of its tenant's state (the repositories' reads, never a write). */
export type TenantReads = Pick<TenantStore, 'tenantId' | 'mode'> & { facilities: Pick<TenantStore['facilities'], 'lookup' | 'list'> };

/** What agents need to phrase their findings (`RCM_LLM_*`). */
export interface AgentWriterOptions {
  llm: Writer | null;
  /** `RCM_LLM_ALLOW_TEST=1`: let a test key's job reach the LLM. */
  allowTestKeys: boolean;
}

/** What an agent may use while it runs: the snapshot it reads, the clock, who submitted, and the writer. */
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
  /** Who phrases the conclusion (`conclude` in evidence.ts): the template, or an LLM when configured. */
  writer: AgentWriterOptions;
}

/**
 * One agent, declared once: its `type` (the job's `agent_type`), the submit body it takes
 * (`input`: parsed at submit, a 422 naming every issue, and again when a job is claimed), the
 * result it returns (`output`: the job's `result` in the OpenAPI document), the submit route's
 * words and examples, and `run`: deterministic code over the snapshot (a writer only phrases the
 * conclusion). The submit route, its MCP tool, the document and the runner's registry all come
 * from the `AGENTS` list (`registry.ts`).
 */
export interface AgentDef<I extends z.ZodType<Record<string, unknown>> = z.ZodType<Record<string, unknown>>, O extends z.ZodType = z.ZodType, T extends string = string> {
  /** snake_case; the submit path is `/v1/agents/<type with dashes>`, its operation `submit<Type>`. */
  type: T;
  input: I;
  output: O;
  summary: string;
  description: string;
  /** The submit route's examples: at least one success and one 422 (the contract test's requests). */
  examples: RouteExample[];
  run(input: z.output<I>, ctx: AgentContext): Promise<z.output<O>>;
}

/** Declares an agent (typing `run` by its schemas); register it in `AGENTS` (`registry.ts`). */
export function defineAgent<I extends z.ZodType<Record<string, unknown>>, O extends z.ZodType, T extends string>(a: AgentDef<I, O, T>): AgentDef<I, O, T> {
  return a;
}

/** What the runner needs of an agent: its type, its input schema (parsed when a job is claimed) and `run`. */
export type RunnableAgent = Pick<AgentDef<z.ZodType<Record<string, unknown>>, z.ZodType>, 'type' | 'input' | 'run'>;

/**
 * An error an agent raises on purpose: its code (one of the service's `ErrorCode`s) and message
 * become the job's `error`. A domain error like any other, so the one error model covers jobs too.
 */
export class AgentError extends DomainError {
  constructor(code: Extract<ErrorCode, 'agent_unavailable' | 'agent_error' | 'invalid_job_input' | 'no_code' | 'no_denial_code' | 'bad_denial_code' | 'not_ready'>, message: string) {
    super(code, message);
  }
}
