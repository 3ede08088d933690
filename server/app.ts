import Koa from 'koa';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ValidationError, type Issue } from '../warehouse/errors.js';
import { getDataset } from '../datasets/registry.js';
import type { SnapshotHolder, MountedSnapshot } from '../warehouse/snapshot.js';
import type { StateStore } from '../warehouse/state.js';
import { Dispatcher } from './dispatch.js';
import { bodyOf, HttpError, statusOf } from './errors.js';
import type { Logger } from './logger.js';
import { Metrics } from './middleware/metrics.js';
import { RateLimiter } from './middleware/ratelimit.js';
import type { AuthInfo, Reliability, RouteDef } from './route.js';
import { toIssues } from './validation.js';

export interface ServerConfig {
  /** Hosts (without port) that are the production host; every other host is the test host. */
  liveHosts: string[];
  rateLimitPerMin: number;
  serviceVersion: string;
}

export interface AppDeps {
  config: ServerConfig;
  state: StateStore;
  snapshots: SnapshotHolder;
  routes: RouteDef[];
  logger: Logger;
  now?: () => Date;
  metrics?: Metrics;
}

/** Koa state shared by the middleware of one request. */
interface ReqState {
  requestId: string;
  routeTemplate: string;
  auth: AuthInfo | null;
}

const MAX_BODY = 1 << 20;

async function readJsonBody(ctx: Koa.Context): Promise<unknown> {
  if (!['POST', 'PUT', 'PATCH'].includes(ctx.method)) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of ctx.req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, 'payload_too_large', `request body exceeds ${MAX_BODY} bytes`);
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ValidationError([{ loc: ['body'], msg: `JSON decode error: ${(e as Error).message}`, type: 'json_invalid', input: text.slice(0, 200) }]);
  }
}

function hostOf(ctx: Koa.Context): string {
  return (ctx.get('host') || '').replace(/:\d+$/, '').toLowerCase();
}

/** Builds the reliability object from the manifest of the snapshot a request reads. */
export function makeReliability(snapshot: MountedSnapshot | null, now: () => Date) {
  return (used: string[] | Record<string, string>, opts: { warnings?: string[]; degraded?: boolean } = {}): Reliability => {
    const warnings = [...(opts.warnings ?? [])];
    let degraded = Boolean(opts.degraded);
    const entries = Array.isArray(used) ? used.map((d) => [d, undefined] as const) : Object.entries(used);
    const data_sources: Reliability['data_sources'] = {};
    const dataset_versions: Record<string, string> = {};
    for (const [dataset, label] of entries) {
      const versions = snapshot?.versions(dataset) ?? [];
      const v = label ? versions.find((x) => x.version === label) : versions.at(-1);
      if (!v) {
        degraded = true;
        warnings.push(`dataset ${dataset} is not loaded in snapshot ${snapshot?.id ?? '(none)'}`);
        continue;
      }
      dataset_versions[dataset] = v.version;
      data_sources[dataset] = {
        publisher: getDataset(dataset)?.publisher ?? dataset,
        source_files: v.source_files.map((f) => f.name),
        loaded_at: v.loaded_at,
      };
    }
    return { generated_at: now().toISOString(), data_sources, dataset_versions, degraded, warnings };
  };
}

/**
 * The Koa app: request id + JSON logs + metrics + error mapping, then one Koa route per declared
 * route, each running auth (key, host pairing, scope), the per-key rate limit, zod validation and
 * the handler, in that order.
 */
export function createApp(deps: AppDeps): { app: Koa; metrics: Metrics } {
  const now = deps.now ?? (() => new Date());
  const metrics = deps.metrics ?? new Metrics();
  const limiter = new RateLimiter(deps.config.rateLimitPerMin);
  const liveHosts = new Set(deps.config.liveHosts.map((h) => h.toLowerCase()));
  const app = new Koa();
  app.proxy = false;
  app.silent = true;

  app.use(async (ctx, next) => {
    const started = process.hrtime.bigint();
    const inbound = ctx.get('x-request-id');
    const st = ctx.state as ReqState;
    st.requestId = /^[A-Za-z0-9._-]{1,64}$/.test(inbound) ? inbound : randomUUID();
    st.routeTemplate = 'unmatched';
    ctx.set('X-Request-Id', st.requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { detail: `no route for ${ctx.method} ${ctx.path}`, code: 'not_found' };
      }
    } catch (err) {
      const status = statusOf(err);
      ctx.status = status;
      ctx.body = bodyOf(err, st.requestId);
      if (err instanceof HttpError) for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
      if (status >= 500) deps.logger.error('unhandled error', { request_id: st.requestId, error: (err as Error)?.stack ?? String(err) });
    } finally {
      const secs = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observe(ctx.method, st.routeTemplate, ctx.status, secs);
      deps.logger.info('request', {
        request_id: st.requestId,
        method: ctx.method,
        path: ctx.path,
        route: st.routeTemplate,
        status: ctx.status,
        duration_ms: Math.round(secs * 1e5) / 100,
        tenant_id: st.auth?.tenant_id,
      });
    }
  });

  const dispatcher = new Dispatcher(deps.routes);
  app.use(async (ctx) => {
    const m = dispatcher.match(ctx.method, ctx.path);
    if (m === null) return; // 404 body set by the outer middleware
    if ('allowed' in m) {
      ctx.set('Allow', m.allowed.join(', '));
      throw new HttpError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path} (allowed: ${m.allowed.join(', ')})`);
    }
    const route = m.route;
    const st = ctx.state as ReqState;
    st.routeTemplate = route.path;
    st.auth = route.scope === null ? null : authenticate(ctx, route);
    if (st.auth) {
      const d = limiter.take(st.auth.key_id);
      ctx.set('RateLimit-Limit', String(d.limit));
      ctx.set('RateLimit-Remaining', String(d.remaining));
      ctx.set('RateLimit-Reset', String(d.reset));
      if (!d.allowed) throw new HttpError(429, 'rate_limited', `rate limit of ${d.limit} requests per minute exceeded`, { 'Retry-After': String(d.reset) });
    }
    const validate = async () => {
      const issues: Issue[] = [];
      const parse = <T>(schema: z.ZodType | undefined, where: 'path' | 'query' | 'body', input: unknown): T => {
        if (!schema) return undefined as T;
        const r = schema.safeParse(input);
        if (r.success) return r.data as T;
        issues.push(...toIssues(where, r.error, input));
        return undefined as T;
      };
      const body = route.body ? await readJsonBody(ctx) : undefined;
      const params = parse(route.params, 'path', m.params);
      const query = parse(route.query, 'query', { ...ctx.query });
      const parsedBody = parse(route.body, 'body', body);
      if (issues.length) throw new ValidationError(issues);
      return { params, query, body: parsedBody };
    };

    const snapshot = deps.snapshots.snapshot;
    const answer = (v: { params: unknown; query: unknown; body: unknown }) => {
      if (!snapshot && !route.noSnapshot) throw new HttpError(503, 'not_ready', 'no data snapshot is published yet; run `rcm seed` or `rcm ingest`');
      return route.handler({
        ...v,
        snapshot: snapshot as MountedSnapshot,
        state: deps.state,
        auth: st.auth,
        requestId: st.requestId,
        now,
        reliability: makeReliability(snapshot, now),
      });
    };
    snapshot?.retain();
    try {
      ctx.status = route.status ?? 200;
      if (route.cache && snapshot && route.method === 'get') {
        // A snapshot-immutable answer is kept as serialized JSON, twice keyed: by the raw URL (a
        // repeat skips validation too; only successful answers are kept, so bad input is always
        // checked) and by the validated inputs (equivalent URLs share one computation).
        const day = route.cache === 'daily' ? now().toISOString().slice(0, 10) : '';
        ctx.body = await snapshot.memo(`url\u0000${route.operationId}\u0000${day}\u0000${ctx.path}?${ctx.querystring}`, async () => {
          const v = await validate();
          return snapshot.memo(`${route.operationId}\u0000${day}\u0000${JSON.stringify([v.params, v.query])}`, async () => JSON.stringify(await answer(v)));
        });
        ctx.type = 'application/json';
      } else {
        const result = await answer(await validate());
        if (route.contentType) ctx.type = route.contentType;
        ctx.body = result;
      }
    } finally {
      snapshot?.release();
    }
  });

  function authenticate(ctx: Koa.Context, route: RouteDef): AuthInfo {
    const secret = ctx.get('x-api-key');
    if (!secret) throw new HttpError(401, 'missing_api_key', 'X-API-Key header is required');
    const key = deps.state.authenticate(secret);
    if (!key) throw new HttpError(401, 'invalid_api_key', 'API key is not valid or was revoked');
    const hostKind = liveHosts.has(hostOf(ctx)) ? 'live' : 'test';
    if (key.type !== hostKind) {
      throw new HttpError(403, 'key_host_mismatch', key.type === 'test' ? 'a test key cannot be used on the production host' : 'a live key cannot be used on the test host');
    }
    if (route.scope && !key.scopes.includes(route.scope) && !key.scopes.includes('admin')) {
      throw new HttpError(403, 'insufficient_scope', `this endpoint needs the '${route.scope}' scope`);
    }
    return { tenant_id: key.tenant_id, key_id: key.id, key_type: key.type, scopes: key.scopes };
  }

  return { app, metrics };
}
