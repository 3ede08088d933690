import { z } from 'zod';
import { ValidationError } from '../warehouse/errors.js';
import { isStateUrl, type StateOptions } from '../warehouse/open_state.js';
import { DEFAULTS, HEAP_MB_RANGE } from '../server/defaults.js';
import { normalizeHostList } from '../server/pipeline/hosts.js';
import { toIssues } from '../server/validation.js';
import { DEFAULT_BATCH_MAX } from '../warehouse/sqlite_commit.js';
import { DEFAULT_INGEST_MEMORY_MB } from '../ingest/duckdb_config.js';

const hostList = z
  .string()
  .default('')
  .transform((s) => normalizeHostList(s.split(',').map((h) => h.trim()).filter(Boolean)));

/** A 0/1 (or true/false) setting. */
const flagOf = (d: '0' | '1') => z.enum(['0', '1', 'true', 'false']).default(d).transform((s) => s === '1' || s === 'true');
const flag = flagOf('0');

const EnvSchema = z.object({
  RCM_DATA_DIR: z.string().min(1).default('./var'),
  RCM_STATE_URL: z.string().refine(isStateUrl, 'RCM_STATE_URL is postgres://user@host:port/database (unset: SQLite in RCM_DATA_DIR)').optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  RCM_LIVE_HOSTS: hostList,
  RCM_TEST_HOSTS: hostList,
  RCM_BASE_URL: z.url().optional(),
  RCM_LIVE_BASE_URL: z.url().optional(),
  RCM_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).default(600),
  RCM_JSON_MAX_DEPTH: z.coerce.number().int().min(4).max(1000).default(64),
  RCM_PUBLIC_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).default(120),
  RCM_AUTH_FAILURES_PER_MIN: z.coerce.number().int().min(1).max(100_000).default(DEFAULTS.authFailuresPerMin),
  RCM_TRUST_PROXY: flag,
  RCM_ADMIN_SECRET: z.string().min(16, 'RCM_ADMIN_SECRET must be at least 16 characters').optional(),
  RCM_CACHE_MAX_MB: z.coerce.number().int().min(1).max(65536).default(DEFAULTS.cacheMaxMb),
  RCM_BODY_BUDGET_MB: z.coerce.number().int().min(1).max(65536).default(DEFAULTS.bodyBudgetMb),
  RCM_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(DEFAULTS.bodyTimeoutMs),
  RCM_HEAP_MB: z.coerce.number().int().min(HEAP_MB_RANGE.min).max(HEAP_MB_RANGE.max).default(DEFAULTS.heapMb),
  RCM_MEMO_MAX_MB: z.coerce.number().int().min(1).max(65536).default(64),
  RCM_PLAYGROUND: flagOf('1'),
  RCM_PLAYGROUND_KEYS_PER_HOUR: z.coerce.number().int().min(1).max(100_000).default(DEFAULTS.playgroundKeysPerHour),
  RCM_ENV: z.enum(['development', 'production']).default('development'),
  CALLBACK_URL_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((s) => s.split(',').map((h) => h.trim().toLowerCase()).filter(Boolean)),
  RCM_AGENT_RUNNER: flagOf('1'),
  RCM_AGENT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  RCM_CALLBACK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  RCM_JOBS_QUEUED_PER_TENANT: z.coerce.number().int().min(1).max(100_000).default(DEFAULTS.jobsQueuedPerTenant),
  RCM_AGENT_LEASE_MS: z.coerce.number().int().min(500).max(3_600_000).default(60_000),
  RCM_JOB_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  RCM_LLM_URL: z.url().optional(),
  RCM_LLM_MODEL: z.string().min(1).optional(),
  RCM_LLM_API_KEY: z.string().min(1).optional(),
  RCM_LLM_ALLOW_TEST: flag,
  RCM_LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(20_000),
  RCM_SNAPSHOT_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  RCM_MCP_SESSIONS_PER_KEY: z.coerce.number().int().min(1).max(10_000).default(20),
  RCM_MCP_SESSIONS_PER_TENANT: z.coerce.number().int().min(1).max(100_000).default(200),
  RCM_MCP_IDLE_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(1_800_000),
  RCM_POLICY_MAX_MB: z.coerce.number().int().min(1).max(1024).default(25),
  RCM_REMIT_MAX_MB: z.coerce.number().int().min(1).max(1024).default(25),
  RCM_REMIT_WORKERS: z.coerce.number().int().min(0).max(64).optional(),
  RCM_REMIT_MAX_SEGMENTS: z.coerce.number().int().min(100).max(100_000_000).default(1_500_000),
  RCM_REMIT_MAX_CLAIMS: z.coerce.number().int().min(1).max(10_000_000).default(100_000),
  RCM_REMIT_CONCURRENT_SEGMENTS: z.coerce.number().int().min(100).max(1_000_000_000).default(1_500_000),
  RCM_REMIT_PLAYGROUND_MAX_MB: z.coerce.number().int().min(1).max(25).default(1),
  RCM_WRITE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
  RCM_POLICY_PARSERS: z.coerce.number().int().min(1).max(64).optional(),
  RCM_POLICY_PLAYGROUND_MAX_MB: z.coerce.number().int().min(1).max(25).default(2),
  RCM_POLICY_MAX_PAGES: z.coerce.number().int().min(1).max(10_000).default(300),
  RCM_POLICY_PARSE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(60_000),
  RCM_NPPES_URL: z.url().default('https://npiregistry.cms.hhs.gov/api/?version=2.1'),
  RCM_NPPES_LIVE: flagOf('1'),
  RCM_UMLS_LICENSED: flag,
  RCM_NPPES_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  RCM_MIN_FREE_MB: z.coerce.number().int().min(0).max(1_048_576).default(DEFAULTS.minFreeMb),
  RCM_READINESS_EVERY_MS: z.coerce.number().int().min(100).max(300_000).default(5_000),
  RCM_INGEST_MEMORY_MB: z.coerce.number().int().min(64).max(1_048_576).default(DEFAULT_INGEST_MEMORY_MB),
  RCM_MAX_REMOVED: z
    .string()
    .default('0.05')
    .transform((s, c) => {
      const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(s.trim());
      const v = m ? (m[2] ? Number(m[1]) / 100 : Number(m[1])) : NaN;
      if (!(v >= 0 && v <= 1)) {
        c.addIssue({ code: 'custom', message: 'RCM_MAX_REMOVED is a share such as 0.05 or 5%' });
        return z.NEVER;
      }
      return v;
    }),
  RCM_ZIP_MAX_MB: z.coerce.number().int().min(1).max(1_048_576).default(4096),
  RCM_REJECT_THRESHOLD: z.coerce.number().min(0).max(1).default(0.01),
  RCM_LOG: z.enum(['json', 'silent']).default('json'),
  RCM_STATE_SYNC: z.enum(['full', 'normal']).default('full'),
  RCM_STATE_BATCH_MAX: z.coerce.number().int().min(1).max(10_000).default(DEFAULT_BATCH_MAX),
  RCM_STATE_POOL: z.coerce.number().int().min(2).max(1000).default(10),
});

export type Config = z.output<typeof EnvSchema>;

/** Parses the environment once; every bad setting is reported as `loc: ['env', NAME]`. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const r = EnvSchema.safeParse(env);
  if (!r.success) throw new ValidationError(toIssues('env', r.error, env), 'invalid configuration');
  return r.data;
}

/** How the state store commits and connects (`RCM_STATE_SYNC`, `RCM_STATE_BATCH_MAX`, `RCM_STATE_POOL`). */
export function stateOptionsOf(c: Config): StateOptions {
  return { sync: c.RCM_STATE_SYNC, batchMax: c.RCM_STATE_BATCH_MAX, poolSize: c.RCM_STATE_POOL };
}

/** OpenAPI `servers` from the configured base URLs (undefined: the serving host itself). */
export function serversOf(c: Config): { url: string; description: string }[] | undefined {
  const out: { url: string; description: string }[] = [];
  if (c.RCM_LIVE_BASE_URL) out.push({ url: c.RCM_LIVE_BASE_URL, description: 'production host: kp_live_ keys' });
  if (c.RCM_BASE_URL) out.push({ url: c.RCM_BASE_URL, description: 'test host: kp_test_ keys' });
  return out.length ? out : undefined;
}
