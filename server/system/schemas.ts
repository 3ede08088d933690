import { z } from 'zod';

export const HealthSchema = z.object({ status: z.literal('ok'), version: z.string(), uptime_s: z.number() }).meta({ id: 'Health' });

export const ReadinessSchema = z
  .object({
    status: z.literal('ready'),
    snapshot_id: z.string(),
    checks: z.record(z.string(), z.boolean()),
    warnings: z.array(z.string()).describe('what is served degraded: a dataset version whose file could not be used, a newer snapshot that could not be mounted'),
    checked_at: z.string().describe('when the checks last ran (at start, after a snapshot mount, and every few seconds)'),
  })
  .meta({ id: 'Readiness' });

/** Service version, served snapshot and the versions of every dataset in it. */
export const MetaSchema = z
  .object({
    service: z.string(),
    version: z.string(),
    snapshot_id: z.string().nullable(),
    snapshot_created_at: z.string().nullable(),
    datasets: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        publisher: z.string(),
        versions: z.array(z.object({ version: z.string(), effective_date: z.string().nullable(), rows: z.number(), loaded_at: z.string() })),
      }),
    ),
  })
  .meta({ id: 'ServiceMeta' });
