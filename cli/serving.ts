import type { AgentOptions } from '../server/agents/wiring.js';
import { createLogger, silentLogger, type Logger } from '../server/logger.js';
import { llmWriter } from '../server/writer/writer.js';
import type { Config } from './config.js';

/** Agent settings from the environment (the LLM writer only when both its URL and model are set); `rcm serve` and `rcm worker`. */
export function agentOptionsOf(c: Config): AgentOptions {
  return {
    policy: { production: c.RCM_ENV === 'production', allowedHosts: c.CALLBACK_URL_ALLOWED_HOSTS },
    runner: c.RCM_AGENT_RUNNER,
    concurrency: c.RCM_AGENT_CONCURRENCY,
    callbackConcurrency: c.RCM_CALLBACK_CONCURRENCY,
    maxQueuedPerTenant: c.RCM_JOBS_QUEUED_PER_TENANT,
    retentionDays: c.RCM_JOB_RETENTION_DAYS,
    leaseMs: c.RCM_AGENT_LEASE_MS,
    llm: c.RCM_LLM_URL && c.RCM_LLM_MODEL ? llmWriter({ url: c.RCM_LLM_URL, model: c.RCM_LLM_MODEL, apiKey: c.RCM_LLM_API_KEY, timeoutMs: c.RCM_LLM_TIMEOUT_MS }) : null,
    allowTestKeys: c.RCM_LLM_ALLOW_TEST,
  };
}

/** The structured log written through `write`, or none (`RCM_LOG=silent`); `rcm serve` and `rcm worker`. */
export function loggerOf(c: Config, write: (line: string) => void): Logger {
  return c.RCM_LOG === 'silent' ? silentLogger : createLogger({ write });
}
