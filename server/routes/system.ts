import { z } from 'zod';
import { DATASETS } from '../../datasets/registry.js';
import type { SnapshotHolder } from '../../warehouse/snapshot.js';
import type { StateStore } from '../../warehouse/tenant_state.js';
import { notReady } from '../errors.js';
import type { Metrics } from '../pipeline/metrics.js';
import OPENAPI_EXAMPLES from '../openapi-examples.json' with { type: 'json' };
import { buildOpenApi, type OpenApiOptions } from '../openapi.js';
import { defineRoute, type RouteDef } from '../route.js';
import type { Readiness } from '../system/readiness.js';
import { HealthSchema, MetaSchema, ReadinessSchema } from '../system/schemas.js';

export interface SystemDeps {
  snapshots: SnapshotHolder;
  state: StateStore;
  /** Readiness as last computed (at mount and on a timer), never per request. */
  readiness: Pick<Readiness, 'last'>;
  metrics: Metrics;
  serviceVersion: string;
  /** The whole route table (for the OpenAPI document). */
  routes: () => RouteDef[];
  servers: OpenApiOptions['servers'];
  startedAt: Date;
}

/** Health, readiness, metadata, metrics and the OpenAPI document. */
export function systemRoutes(d: SystemDeps): RouteDef[] {
  let openapi: Record<string, unknown> | undefined;
  return [
    defineRoute({
      method: 'get',
      path: '/v1/health',
      operationId: 'health',
      tag: 'system',
      mcp: false,
      summary: 'Liveness: the process answers',
      auth: 'public',
      // A load balancer may probe as often as it likes, from one address behind a proxy.
      rateLimit: false,
      reads: 'none',
      response: HealthSchema,
      examples: [
        { summary: 'is the process up' },
        { summary: 'an unknown query parameter', status: 422, query: { verbose: '1' } },
      ],
      handler: ({ now }) => ({ status: 'ok' as const, version: d.serviceVersion, uptime_s: Math.round((now().getTime() - d.startedAt.getTime()) / 1000) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/health/ready',
      operationId: 'healthReady',
      tag: 'system',
      mcp: false,
      summary: 'Readiness: a snapshot is mounted, its files intact, the state store answers and the disk has room',
      description: 'Never rate limited, and cheap: it reads the state computed at start, after each snapshot mount and every few seconds (`checked_at`). A 503 names each problem: the version file missing, damaged or changed since the mount, why the published snapshot could not be mounted, the state store, the free space.',
      auth: 'public',
      rateLimit: false,
      reads: 'none',
      response: ReadinessSchema,
      errors: ['not_ready'],
      examples: [
        { summary: 'can the service answer data requests' },
        { summary: 'an unknown query parameter', status: 422, query: { x: '1' } },
      ],
      handler: () => {
        const r = d.readiness.last;
        if (!r.ready || !r.snapshot_id) {
          throw notReady(`not ready (checked ${r.checked_at}): ${r.problems.join('; ')}`);
        }
        return { status: 'ready' as const, snapshot_id: r.snapshot_id, checks: r.checks, warnings: r.warnings, checked_at: r.checked_at };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/meta',
      operationId: 'meta',
      tag: 'system',
      mcp: false,
      summary: 'Service version, served snapshot and dataset versions',
      auth: { scope: 'knowledge' },
      reads: 'none',
      response: MetaSchema,
      examples: [
        { summary: 'which dataset versions does the served snapshot hold' },
        { summary: 'no API key', status: 401, key: 'none' },
      ],
      handler: () => {
        const snap = d.snapshots.snapshot;
        return {
          service: 'rcm-knowledge',
          version: d.serviceVersion,
          snapshot_id: snap?.id ?? null,
          snapshot_created_at: snap?.manifest.created_at ?? null,
          datasets: DATASETS.map((ds) => ({
            id: ds.id,
            title: ds.title,
            publisher: ds.publisher,
            versions: (snap?.versions(ds.id) ?? []).map((v) => ({ version: v.version, effective_date: v.effective_date, rows: v.rows, loaded_at: v.loaded_at })),
          })),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/metrics',
      operationId: 'metrics',
      tag: 'system',
      mcp: false,
      summary: 'Prometheus metrics: requests and latency by route, answer cache, snapshot swaps, process',
      auth: { scope: 'admin' },
      reads: 'none',
      contentType: 'text/plain; version=0.0.4; charset=utf-8',
      response: z.string(),
      examples: [
        { summary: 'scrape the metrics (admin key)' },
        { summary: 'no API key', status: 401, key: 'none' },
      ],
      handler: () => d.metrics.render(),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/openapi.json',
      operationId: 'openapi',
      tag: 'system',
      mcp: false,
      summary: 'OpenAPI 3.1 document generated from the route table',
      auth: 'public',
      reads: 'none',
      response: z.record(z.string(), z.unknown()).meta({ id: 'OpenApiDocument' }),
      examples: [
        { summary: 'the API description' },
        { summary: 'an unknown query parameter (the document is JSON only)', status: 422, query: { format: 'yaml' } },
      ],
      handler: () => (openapi ??= buildOpenApi(d.routes(), { version: d.serviceVersion, servers: d.servers, examples: OPENAPI_EXAMPLES })),
    }),
  ];
}
