import { z } from 'zod';
import { DATASETS } from '../../datasets/registry.js';
import type { SnapshotHolder } from '../../warehouse/snapshot.js';
import type { StateStore } from '../../warehouse/state.js';
import { HttpError } from '../errors.js';
import type { Metrics } from '../middleware/metrics.js';
import { buildOpenApi } from '../openapi.js';
import { defineRoute, type RouteDef } from '../route.js';

export interface SystemDeps {
  snapshots: SnapshotHolder;
  state: StateStore;
  metrics: () => Metrics;
  serviceVersion: string;
  /** The whole route table (for the OpenAPI document). */
  routes: () => RouteDef[];
  startedAt: Date;
}

const MetaSchema = z.object({
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
});

/** Health, readiness, metadata, metrics and the OpenAPI document. */
export function systemRoutes(d: SystemDeps): RouteDef[] {
  let openapi: Record<string, unknown> | undefined;
  return [
    defineRoute({
      method: 'get',
      path: '/v1/health',
      operationId: 'health',
      tag: 'system',
      summary: 'Liveness: the process answers',
      scope: null,
      noSnapshot: true,
      response: z.object({ status: z.literal('ok'), version: z.string(), uptime_s: z.number() }),
      handler: ({ now }) => ({ status: 'ok' as const, version: d.serviceVersion, uptime_s: Math.round((now().getTime() - d.startedAt.getTime()) / 1000) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/health/ready',
      operationId: 'healthReady',
      tag: 'system',
      summary: 'Readiness: a snapshot is mounted and the state store answers',
      scope: null,
      noSnapshot: true,
      response: z.object({ status: z.literal('ready'), snapshot_id: z.string(), checks: z.record(z.string(), z.boolean()) }),
      errors: [503],
      handler: () => {
        const snap = d.snapshots.snapshot;
        let stateOk = false;
        try {
          stateOk = d.state.ping();
        } catch {
          stateOk = false;
        }
        if (!snap || !stateOk) {
          throw new HttpError(503, 'not_ready', `not ready: snapshot ${snap ? 'mounted' : 'missing'}, state store ${stateOk ? 'ok' : 'failing'}`);
        }
        return { status: 'ready' as const, snapshot_id: snap.id, checks: { snapshot: true, state_store: stateOk } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/meta',
      operationId: 'meta',
      tag: 'system',
      summary: 'Service version, served snapshot and dataset versions',
      scope: 'knowledge',
      noSnapshot: true,
      response: MetaSchema,
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
      summary: 'Prometheus metrics: request counts and latency histograms by route and status',
      scope: 'admin',
      noSnapshot: true,
      contentType: 'text/plain; version=0.0.4',
      response: z.string(),
      handler: () => d.metrics().render({ rcm_snapshot_swaps_total: d.metrics().snapshotSwaps }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/openapi.json',
      operationId: 'openapi',
      tag: 'system',
      summary: 'OpenAPI 3.1 document generated from the route table',
      scope: 'knowledge',
      noSnapshot: true,
      response: z.record(z.string(), z.unknown()),
      handler: () => (openapi ??= buildOpenApi(d.routes(), d.serviceVersion)),
    }),
  ];
}
