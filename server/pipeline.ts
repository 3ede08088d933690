import { createHash, timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';
import { LRUCache } from 'lru-cache';
import { getDataset } from '../datasets/registry.js';
import { approxBytes } from '../warehouse/sizeof.js';
import { ValidationError, type Issue } from '../warehouse/errors.js';
import type { MountedSnapshot } from '../warehouse/snapshot.js';
import type { StateStore, TenantStore } from '../warehouse/state.js';
import { bodyOf, HttpError, statusOf } from './errors.js';
import type { Logger } from './logger.js';
import { schemaId } from './openapi.js';
import { KeyAuthenticator } from './middleware/auth.js';
import type { AnswerCache, CachedAnswer } from './middleware/cache.js';
import { hostKindOf, type HostKind, type HostRules } from './middleware/hosts.js';
import type { Metrics } from './middleware/metrics.js';
import { RateLimiter, type RateDecision } from './middleware/ratelimit.js';
import { isResult, readsSnapshot, readsTenant, type AuthInfo, type Reliability, type RouteContext, type RouteDef } from './route.js';
import { checkQueryShape, toIssues } from './validation.js';

/** Tenant id under which `X-Admin-Secret` callers (service-authenticated policy routes) act. */
export const SERVICE_TENANT = '_service';

export interface PipelineConfig {
  hosts: HostRules;
  /** Per API key, requests per minute. */
  rateLimitPerMin: number;
  /** Per client address on `public` routes, requests per minute. */
  publicRateLimitPerMin: number;
  /** `RCM_ADMIN_SECRET`; null disables `X-Admin-Secret`. */
  adminSecret: string | null;
}

export interface PipelineDeps {
  config: PipelineConfig;
  state: StateStore;
  snapshots: { readonly snapshot: MountedSnapshot | null };
  cache: AnswerCache;
  metrics: Metrics;
  logger: Logger;
  now: () => Date;
}

/** One call, as any transport hands it over (HTTP and MCP build the same thing). */
export interface InvokeRequest {
  /** Raw, decoded path parameters. */
  params: Record<string, string>;
  /** Raw query: a name sent twice is an array. */
  query: Record<string, string | string[]>;
  /** Request headers by lower-case name. */
  headers: Record<string, string | undefined>;
  /** The raw request target when the transport has one (absolute-form authority wins over Host). */
  target?: string;
  /** Body bytes (HTTP) or an already-decoded JSON value (MCP tool arguments). */
  body?: { bytes: Buffer } | { value: unknown };
  clientIp: string;
  requestId: string;
  transport: 'http' | 'mcp';
}

/** What every transport sends back: the serialized body exactly as the REST answer carries it. */
export interface InvokeResult {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** For logs and metrics. */
  tenantId?: string;
}

/** Validated path, query and body; `cacheKey` their answer-cache form once computed. */
interface ValidInput {
  params: unknown;
  query: unknown;
  body: unknown;
  cacheKey?: string;
}

let lastDay = { n: NaN, iso: '' };
/** `YYYY-MM-DD` (UTC) of a time, remembered for the day it was last asked about. */
function dayOf(t: Date): string {
  const n = Math.floor(t.getTime() / 86_400_000);
  if (n !== lastDay.n) lastDay = { n, iso: t.toISOString().slice(0, 10) };
  return lastDay.iso;
}

/**
 * What a handler sees. A class, not an object literal: a literal with getters takes V8's slow
 * path on every request (measured ~14 us of a ~90 us `/v1/health` call in `npm run bench cpu`).
 */
class CallContext implements RouteContext<unknown, unknown, unknown> {
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
  readonly requestId: string;
  readonly clientIp: string;
  private rel?: ReturnType<typeof makeReliability>;

  constructor(
    private readonly route: RouteDef,
    private readonly req: InvokeRequest,
    input: ValidInput,
    readonly auth: AuthInfo | null,
    private readonly snap: MountedSnapshot | null,
    private readonly tenantStore: TenantStore | null,
    readonly hostKind: HostKind,
    readonly now: () => Date,
  ) {
    this.params = input.params;
    this.query = input.query;
    this.body = input.body;
    this.requestId = req.requestId;
    this.clientIp = req.clientIp;
  }

  get snapshot(): MountedSnapshot {
    if (!this.snap) throw new Error(`${this.route.operationId} reads the snapshot but declares reads: '${this.route.reads}'`);
    return this.snap;
  }

  get tenant(): TenantStore {
    if (!this.tenantStore) throw new Error(`${this.route.operationId} reads tenant state but declares reads: '${this.route.reads}'`);
    return this.tenantStore;
  }

  /** Bound, like `reliability`: handlers destructure it. */
  readonly header = (name: string): string | undefined => this.req.headers[name.toLowerCase()];

  /** Bound, so handlers may pass it around as a plain function. */
  readonly reliability = (used: string[] | Record<string, string>, opts?: { warnings?: string[]; degraded?: boolean }): Reliability =>
    (this.rel ??= makeReliability(this.snap, this.now))(used, opts);
}

/** UTF-8 of `text` in a Buffer that owns its memory (not a slice of Node's shared pool). */
function ownBuffer(text: string): Buffer {
  const b = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  b.write(text);
  return b;
}

const inputKey = (input: ValidInput): string => JSON.stringify([input.params ?? null, input.query ?? null]);

/** One validated call on its way to the handler. */
interface Call {
  route: RouteDef;
  req: InvokeRequest;
  input: ValidInput;
  auth: AuthInfo | null;
  snapshot: MountedSnapshot | null;
  hostKind: HostKind;
}

const DEFAULT_JSON_MAX = 1 << 20;
const JSON_TYPE = 'application/json; charset=utf-8';

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

function secretsEqual(a: string, b: string): boolean {
  const h = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(h(a), h(b));
}

/** Checks a route declaration is coherent (a public route cannot read tenant state, ...). */
export function checkRoute(r: RouteDef): void {
  if (r.auth === 'public' && readsTenant(r.reads)) throw new Error(`${r.operationId}: a public route cannot read tenant state`);
  if (r.persist && (r.auth === 'public' || !readsTenant(r.reads))) throw new Error(`${r.operationId}: a route that persists must be keyed and read tenant state`);
  if (r.cache && r.method !== 'get') throw new Error(`${r.operationId}: only GET answers are cached`);
  if (r.cache && r.reads === 'none') throw new Error(`${r.operationId}: a cached route must say what it reads`);
  if (r.examples.length === 0) throw new Error(`${r.operationId}: every route carries at least one example`);
  if (!r.contentType && !schemaId(r.response)) throw new Error(`${r.operationId}: name the response schema with .meta({ id }) (it becomes an OpenAPI component)`);
}

/**
 * The one request pipeline (medplum's `FhirRouter.handleRequest` idea): host pairing, auth,
 * scope, rate limit, validation, answer cache, snapshot retain/release and reliability, for
 * every transport. The Koa app and the MCP endpoint are thin adapters over `invoke`.
 */
export class Pipeline {
  readonly keys: KeyAuthenticator;
  private readonly keyLimiter: RateLimiter;
  private readonly ipLimiter: RateLimiter;

  /** Whether request lines are logged at all (`RCM_LOG=silent` skips building them). */
  private readonly logRequests: boolean;

  constructor(private readonly deps: PipelineDeps) {
    this.logRequests = deps.logger.isLevelEnabled('info');
    const ms = () => deps.now().getTime();
    this.keys = new KeyAuthenticator(deps.state, deps.now);
    this.keyLimiter = new RateLimiter(deps.config.rateLimitPerMin, ms);
    this.ipLimiter = new RateLimiter(deps.config.publicRateLimitPerMin, ms);
  }

  async invoke(route: RouteDef, req: InvokeRequest): Promise<InvokeResult> {
    const started = process.hrtime.bigint();
    const headers: Record<string, string> = {};
    let auth: AuthInfo | null = null;
    let snapshot: MountedSnapshot | null = null;
    let out: InvokeResult;
    try {
      const hostKind = hostKindOf(this.deps.config.hosts, req.headers.host, req.target);
      auth = await this.authorize(route, req, hostKind, headers);
      if (readsSnapshot(route.reads)) {
        snapshot = this.deps.snapshots.snapshot;
        if (!snapshot) throw new HttpError(503, 'not_ready', 'no data snapshot is published yet; run `rcm seed` or `rcm ingest`');
        snapshot.retain();
      }
      const input = await this.validateAll(route, req, snapshot);
      const call = { route, req, input, auth, snapshot, hostKind };
      const answer = route.persist ? await this.persist(call, await this.answer(call)) : await this.answer(call);
      // `headers` is this call's own object (rate-limit headers so far): the answer's join it.
      for (const k in answer.headers) if (!(k in headers)) headers[k] = answer.headers[k]!;
      out = { status: answer.status, headers, body: answer.body };
    } catch (err) {
      const status = statusOf(err);
      if (status >= 500 && !(err instanceof HttpError)) {
        this.deps.logger.error({ request_id: req.requestId, route: route.path, err }, 'unhandled error');
      }
      if (err instanceof HttpError) Object.assign(headers, err.headers);
      out = { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: Buffer.from(JSON.stringify(bodyOf(err, req.requestId))) };
    } finally {
      snapshot?.release();
    }
    out.tenantId = auth?.tenant_id;
    this.record(req.transport, route.method.toUpperCase(), route.path, out.status, started, req.requestId, auth?.tenant_id);
    return out;
  }

  /**
   * The caller of an endpoint outside the route table (`/v1/mcp`): host pairing and the key, as for
   * a keyed route. Throws the same HttpErrors (400/421 host, 401 key, 403 mismatch).
   */
  async identify(req: Pick<InvokeRequest, 'headers' | 'target'>): Promise<AuthInfo> {
    const hostKind = hostKindOf(this.deps.config.hosts, req.headers.host, req.target);
    return this.keyFor(req, hostKind);
  }

  /** Metrics and one log line per call (the HTTP adapter also records calls no route matched). */
  record(transport: 'http' | 'mcp', method: string, route: string, status: number, started: bigint, requestId: string, tenantId?: string): void {
    const secs = Number(process.hrtime.bigint() - started) / 1e9;
    this.deps.metrics.observe(method, route, status, secs, transport);
    if (this.logRequests) this.deps.logger.info(
      { request_id: requestId, transport, method, route, status, tenant_id: tenantId, latency_ms: Math.round(secs * 1e5) / 100 },
      'request',
    );
  }

  private limit(d: RateDecision, headers: Record<string, string>): void {
    headers['ratelimit-limit'] = String(d.limit);
    headers['ratelimit-remaining'] = String(d.remaining);
    headers['ratelimit-reset'] = String(d.reset);
    if (!d.allowed) throw new HttpError(429, 'rate_limited', `rate limit of ${d.limit} requests per minute exceeded`, { 'retry-after': String(d.reset) });
  }

  private async authorize(route: RouteDef, req: InvokeRequest, hostKind: HostKind, headers: Record<string, string>): Promise<AuthInfo | null> {
    const a = route.auth;
    if (a === 'public') {
      this.limit(this.ipLimiter.take(`ip:${req.clientIp}`), headers);
      return null;
    }
    if (a === 'admin_secret_or_test_key') {
      const given = req.headers['x-admin-secret'];
      if (given !== undefined) {
        const secret = this.deps.config.adminSecret;
        if (!secret || !secretsEqual(given, secret)) throw new HttpError(401, 'invalid_admin_secret', 'X-Admin-Secret is not valid');
        this.limit(this.keyLimiter.take('admin-secret'), headers);
        return { tenant_id: SERVICE_TENANT, key_id: 'admin_secret', key_type: hostKind, scopes: ['admin'] };
      }
      const key = await this.keyFor(req, hostKind);
      if (key.key_type !== 'test') throw new HttpError(403, 'admin_secret_required', 'this endpoint takes X-Admin-Secret, or a test key on the test host');
      this.limit(this.keyLimiter.take(key.key_id), headers);
      return key;
    }
    const key = await this.keyFor(req, hostKind);
    if (a.keyType === 'live' && key.key_type !== 'live') throw new HttpError(403, 'live_key_required', 'this endpoint needs a live (kp_live_) key');
    if (!key.scopes.includes(a.scope) && !key.scopes.includes('admin')) {
      throw new HttpError(403, 'insufficient_scope', `this endpoint needs the '${a.scope}' scope`);
    }
    this.limit(this.keyLimiter.take(key.key_id), headers);
    return key;
  }

  /** The key of `X-API-Key`, paired with the host kind (a mismatch returns no data). */
  private async keyFor(req: Pick<InvokeRequest, 'headers'>, hostKind: HostKind): Promise<AuthInfo> {
    const secret = req.headers['x-api-key'];
    if (!secret) throw new HttpError(401, 'missing_api_key', 'X-API-Key header is required');
    const key = await this.keys.authenticate(secret);
    if (!key) throw new HttpError(401, 'invalid_api_key', 'API key is not valid, expired or was revoked');
    if (key.type !== hostKind) {
      throw new HttpError(403, 'key_host_mismatch', key.type === 'test' ? 'a test key cannot be used on the production host' : 'a live key cannot be used on the test host');
    }
    return { tenant_id: key.tenant_id, key_id: key.id, key_type: key.type, scopes: key.scopes };
  }

  /**
   * Validated inputs of body-less requests by their raw form (route, snapshot, params, query): a
   * repeated lookup skips the schemas. Bounded by bytes like the answer cache; only successes are
   * kept, and the snapshot id is in the key because `checkInput` reads the snapshot.
   */
  private readonly validated = new LRUCache<string, ValidInput>({
    maxSize: 16 * 1024 * 1024,
    sizeCalculation: (v, k) => k.length * 2 + approxBytes(v),
  });

  /** `validate`, plus the route's checks against the snapshot, in one 422 with every issue. */
  private async validateAll(route: RouteDef, req: InvokeRequest, snapshot: MountedSnapshot | null): Promise<ValidInput> {
    if (route.body || (req.body && !('bytes' in req.body && req.body.bytes.length === 0))) return this.validateOnce(route, req, snapshot);
    // An origin-form HTTP target decides params and query alone; other callers key by their parts.
    const raw = req.target !== undefined && req.target.startsWith('/') ? req.target : `${JSON.stringify(req.params)}\u0000${JSON.stringify(req.query)}`;
    const key = `${route.operationId}\u0000${snapshot?.id ?? ''}\u0000${raw}`;
    const hit = this.validated.get(key);
    if (hit) return hit;
    const input: ValidInput = await this.validateOnce(route, req, snapshot);
    // A cached route's answer key, computed once with the memo entry (and counted in its size).
    if (route.cache) input.cacheKey = inputKey(input);
    this.validated.set(key, input);
    return input;
  }

  private async validateOnce(route: RouteDef, req: InvokeRequest, snapshot: MountedSnapshot | null): Promise<{ params: unknown; query: unknown; body: unknown }> {
    if (!route.checkInput || !snapshot) return this.validate(route, req);
    let issues: Issue[] = [];
    let input: { params: unknown; query: unknown; body: unknown } | undefined;
    try {
      input = this.validate(route, req);
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      issues = e.issues;
    }
    issues.push(...(await route.checkInput({ params: req.params, query: req.query, body: route.body?.kind === 'json' ? peekJson(req) : undefined }, snapshot)));
    if (issues.length) throw new ValidationError(issues);
    return input!;
  }

  /** Parses path, query and body; every issue of all three is reported at once. */
  private validate(route: RouteDef, req: InvokeRequest): { params: unknown; query: unknown; body: unknown } {
    const issues: Issue[] = [];
    const parse = (schema: z.ZodType | undefined, where: 'path' | 'query' | 'body', input: unknown): unknown => {
      if (!schema) return undefined;
      const r = schema.safeParse(input);
      if (r.success) return r.data;
      issues.push(...toIssues(where, r.error, input));
      return undefined;
    };
    const params = parse(route.params, 'path', req.params);
    const shaped = checkQueryShape(route.query, req.query);
    issues.push(...shaped.issues);
    const query = route.query ? parse(route.query, 'query', shaped.query) : undefined;
    let body: unknown;
    const b = route.body;
    if (b?.kind === 'json') {
      const value = this.jsonBody(req, b.maxBytes ?? DEFAULT_JSON_MAX, issues);
      if (value !== NO_BODY) body = parse(b.schema, 'body', value);
    } else if (b?.kind === 'raw') {
      body = this.rawBody(req, b.contentType, b.maxBytes);
    } else if (req.body && 'bytes' in req.body && req.body.bytes.length > 0) {
      issues.push({ loc: ['body'], msg: 'This endpoint takes no request body', type: 'extra_forbidden' });
    }
    if (issues.length) throw new ValidationError(issues);
    return { params, query, body };
  }

  private jsonBody(req: InvokeRequest, maxBytes: number, issues: Issue[]): unknown {
    if (!req.body) return undefined;
    if ('value' in req.body) return req.body.value;
    const bytes = req.body.bytes;
    if (bytes.length > maxBytes) throw new HttpError(413, 'payload_too_large', `request body exceeds ${maxBytes} bytes`);
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (bytes.length > 0 && type !== '' && type !== 'application/json' && !type.endsWith('+json')) {
      throw new HttpError(415, 'unsupported_media_type', `send the body as application/json (got ${type})`);
    }
    const text = bytes.toString('utf8');
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text);
    } catch (e) {
      issues.push({ loc: ['body'], msg: `JSON decode error: ${(e as Error).message}`, type: 'json_invalid', input: text.slice(0, 200) });
      return NO_BODY;
    }
  }

  private rawBody(req: InvokeRequest, contentType: string, maxBytes: number): Buffer {
    const bytes = req.body && 'bytes' in req.body ? req.body.bytes : Buffer.alloc(0);
    if (bytes.length > maxBytes) throw new HttpError(413, 'payload_too_large', `request body exceeds ${maxBytes} bytes`);
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== contentType) throw new HttpError(415, 'unsupported_media_type', `send the body as ${contentType} (got ${type || 'no content type'})`);
    if (bytes.length === 0) throw new ValidationError([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
    return bytes;
  }

  /** Runs the handler, through the answer cache when the route allows it. */
  private async answer(call: Call): Promise<CachedAnswer> {
    const { route, input, auth, snapshot } = call;
    const tenant = readsTenant(route.reads) && auth ? this.deps.state.forTenant(auth.tenant_id) : null;
    if (!route.cache || route.method !== 'get') return this.run(call, tenant);
    let key = `\u0000${route.operationId}`;
    if (snapshot) key += `\u0000s:${snapshot.id}`;
    if (tenant) key += `\u0000t:${tenant.tenantId}:${await tenant.generation()}`;
    if (route.cache === 'daily') key += `\u0000d:${dayOf(this.deps.now())}`;
    key += `\u0000${input.cacheKey ?? inputKey(input)}`;
    const metrics = this.deps.metrics;
    const hit = this.deps.cache.peek(key);
    if (hit) {
      metrics.cacheLookup(true);
      return hit;
    }
    metrics.cacheLookup(false);
    const answer = await this.deps.cache.fill(key, snapshot?.id ?? '', () => this.run(call, tenant));
    metrics.cacheBytes.set(this.deps.cache.bytes);
    return answer;
  }

  /**
   * The route's durable write after its (possibly cached) answer: a persisted prior-auth
   * determination. Its fields join the body; the write commits before the answer leaves.
   */
  private async persist(call: Call, answer: CachedAnswer): Promise<CachedAnswer> {
    const { route, input, auth, snapshot } = call;
    if (answer.status >= 300 || !auth) return answer;
    let body: Record<string, unknown> | undefined;
    const parsed = () => (body ??= JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>);
    const ctx = { params: input.params, query: input.query, tenant: this.deps.state.forTenant(auth.tenant_id), snapshotId: snapshot?.id ?? '', now: this.deps.now() };
    const extra = await route.persist!(ctx, parsed);
    if (!extra) return answer;
    return { ...answer, body: Buffer.from(JSON.stringify({ ...extra, ...parsed() })) };
  }

  private async run({ route, req, input, auth, snapshot, hostKind }: Call, tenant: TenantStore | null): Promise<CachedAnswer> {
    const ctx = new CallContext(route, req, input, auth, snapshot, tenant, hostKind, this.deps.now);
    const value = await route.handler(ctx);
    const r = isResult(value) ? value : { status: route.status ?? 200, headers: {}, body: value };
    if (route.contentType) {
      return { status: r.status, headers: { 'content-type': route.contentType, ...r.headers }, body: Buffer.from(String(r.body)) };
    }
    const text = JSON.stringify(r.body);
    // A cached answer gets its own allocation right away (the cache would copy a pooled slice).
    return { status: r.status, headers: { 'content-type': JSON_TYPE, ...r.headers }, body: route.cache ? ownBuffer(text) : Buffer.from(text) };
  }
}

const NO_BODY = Symbol('no body');

/** The JSON value of a request body for a route's own checks, or undefined (the schema reports why). */
function peekJson(req: InvokeRequest): unknown {
  if (!req.body) return undefined;
  if ('value' in req.body) return req.body.value;
  try {
    return JSON.parse(req.body.bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
