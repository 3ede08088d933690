import { z } from 'zod';
import { ValidationError } from '../warehouse/errors.js';
import { toIssues } from '../server/validation.js';

/** Service version reported by /v1/meta and the OpenAPI document (spec revision 0.1.1). */
export const SERVICE_VERSION = '0.1.1';

const EnvSchema = z.object({
  RCM_DATA_DIR: z.string().min(1).default('./var'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  RCM_LIVE_HOSTS: z
    .string()
    .default('')
    .transform((s) => s.split(',').map((h) => h.trim().toLowerCase()).filter(Boolean)),
  RCM_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).default(600),
  RCM_SNAPSHOT_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  RCM_REJECT_THRESHOLD: z.coerce.number().min(0).max(1).default(0.01),
  RCM_LOG: z.enum(['json', 'silent']).default('json'),
});

export type Config = z.output<typeof EnvSchema>;

/** Parses the environment once; every bad setting is reported as `loc: ['env', NAME]`. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const r = EnvSchema.safeParse(env);
  if (!r.success) throw new ValidationError(toIssues('env', r.error, env), 'invalid configuration');
  return r.data;
}
