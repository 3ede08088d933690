import { DomainError } from '../../warehouse/errors.js';
import type { MountedSnapshot } from '../../warehouse/snapshot.js';
import type { StateStore, TenantStore } from '../../warehouse/tenant_state.js';
import { bodyOf, notReady, statusOf } from '../errors.js';
import { StreamedJson } from '../json_bytes.js';
import type { Logger } from '../logger.js';
import { schemaId } from '../openapi.js';
import { isResult, readsSnapshot, readsTenant, type AuthInfo, type RouteDef } from '../route.js';
import { answerKey, type AnswerCache, type CachedAnswer } from './answer.js';
import { Authorizer, KeyAuthenticator, type Limiters } from './auth.js';
import { CallContext } from './context.js';
import { hostKindOf, type HostKind, type HostRules } from './hosts.js';
import { InputDecoder, type InputRequest, type ValidInput } from './input.js';
import { MemoryRateLimiter } from './limits.js';
import type { Metrics } from './metrics.js';

export interface PipelineConfig {
  hosts: HostRules;
  /** Per API key, requests per minute. */
  rateLimitPerMin: number;
  /** Per client address on `public` routes, requests per minute. */
  publicRateLimitPerMin: number;
  /** `RCM_ADMIN_SECRET`; null disables `X-Admin-Secret`. */
  adminSecret: string | null;
  /** `RCM_AUTH_FAILURES_PER_MIN`: failed authentications per client address a minute before 429 (`DEFAULTS.authFailuresPerMin` unless given). */
  authFailuresPerMin?: number;
  /** `RCM_JSON_MAX_DEPTH`: deepest nesting a JSON body may have (default 64). */
  jsonMaxDepth?: number;
}

export interface PipelineDeps {
  config: PipelineConfig;
  state: StateStore;
  snapshots: { readonly snapshot: MountedSnapshot | null; readonly lastError?: string | null };
  cache: AnswerCache;
  metrics: Metrics;
  logger: Logger;
  now: () => Date;
  /** The rate limiters; in-process sliding windows over `config`'s limits unless given. */
  limiters?: Limiters;
  /** A monotonic clock in milliseconds for latency metrics (`performance.now` unless given). */
  clock?: () => number;
}

/** One call, as any transport hands it over (HTTP and MCP build the same thing). */
export interface InvokeRequest extends InputRequest {
  clientIp: string;
  requestId: string;
  transport: 'http' | 'mcp';
  /**
   * Reads the body, once host, key and rate limit passed (HTTP streams it in only then, within its
   * limit, the byte budget and the time limit). Absent: the body is already in `body`.
   */
  loadBody?(): Promise<void>;
}

/** What every transport sends back: the serialized body exactly as the REST answer carries it. */
export interface InvokeResult {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** An answer written as it is produced (HTTP pipes it at the reader's pace; `body` is then empty). */
  stream?: StreamedJson;
  /** For logs and metrics. */
  tenantId?: string;
}

/** One validated call on its way to the handler. */
interface Call {
  route: RouteDef;
  req: InvokeRequest;
  input: ValidInput;
  auth: AuthInfo | null;
  snapshot: MountedSnapshot | null;
  hostKind: HostKind;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** UTF-8 of `text` in a Buffer that owns its memory (not a slice of Node's shared pool). */
function ownBuffer(text: string): Buffer {
  const b = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  b.write(text);
  return b;
}

/** Checks a route declaration is coherent (a public route cannot read tenant state, ...). */
export function checkRoute(r: RouteDef): void {
  if (r.auth === 'public' && readsTenant(r.reads)) throw new Error(`${r.operationId}: a public route cannot read tenant state`);
  if (r.persist && (r.auth === 'public' || !readsTenant(r.reads))) throw new Error(`${r.operationId}: a route that persists must be keyed and read tenant state`);
  // A POST answer is cached only when it is a question in a JSON body that reads the snapshot (pricing a stay; with
  // tenant state too, knowledge resolve): never a write. Its handler gets a tenant store that refuses writes.
  if (r.cache && r.method !== 'get' && (r.method !== 'post' || !readsSnapshot(r.reads) || r.persist || r.body?.kind !== 'json')) {
    throw new Error(`${r.operationId}: only GET answers, and POST questions that read the snapshot (and maybe tenant state) and write nothing, are cached`);
  }
  if (r.cache && r.reads === 'none') throw new Error(`${r.operationId}: a cached route must say what it reads`);
  if (r.examples.length === 0) throw new Error(`${r.operationId}: every route carries at least one example`);
  if (r.rateLimit === false && (r.auth !== 'public' || r.reads !== 'none')) throw new Error(`${r.operationId}: only a public probe that reads nothing may skip the rate limit`);
  if (r.contentType && r.mcp !== false) throw new Error(`${r.operationId}: a non-JSON answer cannot be an MCP tool (say mcp: false)`);
  if (!r.contentType && !schemaId(r.response)) throw new Error(`${r.operationId}: name the response schema with .meta({ id }) (it becomes an OpenAPI component)`);
}

/**
 * The one request pipeline (medplum's `FhirRouter.handleRequest` idea): host pairing, auth,
 * scope, rate limit, validation and resolution, answer cache, snapshot retain/release and the
 * trace, for every transport. The HTTP listener and the MCP endpoint are thin adapters over
 * `invoke`; each step lives in its own module beside this one.
 */
export class Pipeline {
  readonly keys: KeyAuthenticator;
  private readonly authorizer: Authorizer;
  private readonly inputs: InputDecoder;
  private readonly clock: () => number;

  /** Whether request lines are logged at all (`RCM_LOG=silent` skips building them). */
  private readonly logRequests: boolean;

  constructor(private readonly deps: PipelineDeps) {
    this.logRequests = deps.logger.isLevelEnabled('info');
    this.clock = deps.clock ?? (() => performance.now());
    this.inputs = new InputDecoder(deps.config.jsonMaxDepth ?? 64, deps.logger);
    const ms = () => deps.now().getTime();
    this.keys = new KeyAuthenticator(deps.state, deps.now);
    const limiters = deps.limiters ?? { key: new MemoryRateLimiter(deps.config.rateLimitPerMin, ms), ip: new MemoryRateLimiter(deps.config.publicRateLimitPerMin, ms) };
    this.authorizer = new Authorizer(this.keys, limiters, deps.config.adminSecret, ms, deps.config.authFailuresPerMin);
  }

  /** The monotonic clock the pipeline times calls with (adapters time calls outside the table with it). */
  started(): number {
    return this.clock();
  }

  async invoke(route: RouteDef, req: InvokeRequest): Promise<InvokeResult> {
    const started = this.clock();
    const headers: Record<string, string> = {};
    let auth: AuthInfo | null = null;
    let snapshot: MountedSnapshot | null = null;
    let out: InvokeResult;
    try {
      const hostKind = hostKindOf(this.deps.config.hosts, req.headers.host, req.target);
      auth = await this.authorizer.authorize(route.auth, req, hostKind, headers, route.rateLimit !== false);
      // No byte of a body is read for a caller the headers already refuse.
      if (route.preflight) route.preflight({ auth, declaredBytes: Number(req.headers['content-length']) || null });
      if (req.loadBody) await req.loadBody();
      if (readsSnapshot(route.reads)) {
        snapshot = this.deps.snapshots.snapshot;
        if (!snapshot) {
          const why = this.deps.snapshots.lastError;
          throw notReady(why ? `the published snapshot could not be mounted: ${why}` : 'no data snapshot is published yet; run `rcm seed` or `rcm ingest`');
        }
        snapshot.retain();
      }
      const input = await this.inputs.decode(route, req, snapshot, auth);
      const call = { route, req, input, auth, snapshot, hostKind };
      const answer = route.persist ? await this.persist(call, await this.answer(call)) : await this.answer(call);
      // `headers` is this call's own object (rate-limit headers so far): the answer's join it.
      for (const k in answer.headers) if (!(k in headers)) headers[k] = answer.headers[k]!;
      // A streamed answer is piped by HTTP at its reader's pace; MCP wraps the answer whole (its requests are small).
      if (req.transport === 'mcp' && answer.stream) out = { status: answer.status, headers, body: await answer.stream.joined() };
      else out = { status: answer.status, headers, body: answer.body, ...(answer.stream ? { stream: answer.stream } : {}) };
    } catch (err) {
      out = this.failure(err, req, route.path, headers);
    } finally {
      snapshot?.release();
    }
    out.tenantId = auth?.tenant_id;
    this.record(req.transport, route.method.toUpperCase(), route.path, out.status, started, req.requestId, auth?.tenant_id);
    return out;
  }

  /** The answer to an error: its status and body from the one error model; unknown errors logged, never shown. */
  private failure(thrown: unknown, req: InvokeRequest, path: string, headers: Record<string, string>): InvokeResult {
    const err = stateFailure(thrown) ?? thrown;
    if (err !== thrown) this.deps.logger.error({ request_id: req.requestId, route: path, err: thrown }, 'state store failure');
    if (err instanceof DomainError) Object.assign(headers, err.headers);
    else this.deps.logger.error({ request_id: req.requestId, route: path, err }, 'unhandled error');
    const status = statusOf(err);
    return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: Buffer.from(JSON.stringify(bodyOf(err, req.requestId))) };
  }

  /**
   * The caller of an endpoint outside the route table (`/v1/mcp`): host pairing and the key, as for
   * a keyed route. Throws the same errors (400/421 host, 401 key, 403 mismatch).
   */
  async identify(req: Pick<InvokeRequest, 'headers' | 'target'> & { clientIp?: string }): Promise<AuthInfo> {
    const hostKind = hostKindOf(this.deps.config.hosts, req.headers.host, req.target);
    return this.authorizer.keyFor(req.headers, hostKind, req.clientIp ?? 'unknown');
  }

  /**
   * Counts one request of `key` against its per-key rate limit outside the route table (opening
   * an MCP session): RateLimit headers go into `out`; a full window throws 429 with Retry-After.
   */
  count(key: AuthInfo, out: Record<string, string>): void | Promise<void> {
    return this.authorizer.count(key.key_id, out);
  }

  /** Metrics and one log line per call (the HTTP adapter also records calls no route matched). */
  record(transport: 'http' | 'mcp', method: string, route: string, status: number, started: number, requestId: string, tenantId?: string): void {
    const secs = (this.clock() - started) / 1e3;
    this.deps.metrics.observe(method, route, status, secs, transport);
    if (this.logRequests) this.deps.logger.info(
      { request_id: requestId, transport, method, route, status, tenant_id: tenantId, latency_ms: Math.round(secs * 1e5) / 100 },
      'request',
    );
  }

  /** Runs the handler, through the answer cache when the route allows it. */
  private async answer(call: Call): Promise<CachedAnswer> {
    const { route, input, auth, snapshot } = call;
    const scoped = readsTenant(route.reads) && auth !== null && (route.tenantScoped?.({ params: input.params, query: input.query }) ?? true);
    // The mode is the key's type, which the host already matched (the admin secret takes the host's).
    const tenant = scoped ? this.deps.state.forTenant(auth.tenant_id, auth.key_type) : null;
    if (!route.cache) return this.run(call, tenant);
    const key = answerKey(route, snapshot, tenant ? { id: `${tenant.mode}:${tenant.tenantId}`, generation: await tenant.generation() } : null, this.deps.now, input);
    const metrics = this.deps.metrics;
    const hit = this.deps.cache.peek(key);
    if (hit) {
      metrics.cacheLookup(true);
      return hit;
    }
    metrics.cacheLookup(false);
    const answer = await this.deps.cache.fill(key, snapshot?.id ?? '', async () =>
      this.run({ ...call, input: await this.inputs.complete(route, call.req, snapshot, auth, input) }, tenant),
    );
    metrics.cacheBytes.set(this.deps.cache.bytes);
    return answer;
  }

  /**
   * The route's durable write after its (possibly cached) answer: a persisted prior-auth
   * determination. Its fields join the body; the write commits before the answer leaves.
   */
  private async persist(call: Call, answer: CachedAnswer): Promise<CachedAnswer> {
    const { route, input, auth, snapshot } = call;
    // A session key (the playground's) gets the answer but no durable record of it.
    if (answer.status >= 300 || !auth || auth.ephemeral) return answer;
    // A cached answer is one Buffer for every call it answers: its text and parsed form are read once.
    let read = readAnswers.get(answer.body);
    if (!read) readAnswers.set(answer.body, (read = { json: answer.body.toString('utf8') }));
    const { json } = read;
    const value = () => (read.value ??= JSON.parse(json) as Record<string, unknown>);
    const ctx = { params: input.params, query: input.query, tenant: this.deps.state.forTenant(auth.tenant_id, auth.key_type), snapshotId: snapshot?.id ?? '', now: this.deps.now() };
    const extra = await route.persist!(ctx, { value, json });
    if (!extra) return answer;
    return { ...answer, body: withFieldsFirst(extra, answer.body) };
  }

  private async run({ route, req, input, auth, snapshot, hostKind }: Call, tenant: TenantStore | null): Promise<CachedAnswer> {
    const ctx = new CallContext(route, req.headers, input, auth, snapshot, tenant, hostKind, req.requestId, req.clientIp, this.deps.now, req.transport);
    const value = await route.handler(ctx);
    const r = isResult(value) ? value : { status: route.status ?? 200, headers: {}, body: value };
    if (route.contentType) {
      return { status: r.status, headers: { 'content-type': route.contentType, ...r.headers }, body: Buffer.from(String(r.body)) };
    }
    // An answer written as it is produced: HTTP pipes it (never cached or persisted: `checkRoute`).
    if (r.body instanceof StreamedJson) return { status: r.status, headers: { 'content-type': r.body.contentType ?? JSON_TYPE, ...r.headers }, body: Buffer.alloc(0), stream: r.body };
    const text = JSON.stringify(r.body);
    // A cached answer gets its own allocation right away (the cache would copy a pooled slice).
    return { status: r.status, headers: { 'content-type': JSON_TYPE, ...r.headers }, body: route.cache ? ownBuffer(text) : Buffer.from(text) };
  }
}

/** Answers a `persist` step read, by the Buffer that carries them (a cached answer's is shared; see `persist`). */
const readAnswers = new WeakMap<Buffer, { json: string; value?: Record<string, unknown> }>();

/**
 * `{...fields, ...answer}` as JSON text without parsing the answer again: the fields' members go
 * in front of the answer object's own (a member the answer has too appears twice, and JSON
 * readers keep the last, the answer's, as the spread would).
 */
export function withFieldsFirst(fields: Record<string, unknown>, answer: Buffer): Buffer {
  const head = JSON.stringify(fields);
  if (head === '{}') return answer;
  const empty = /^\{\s*\}$/.test(answer.toString('utf8', 0, Math.min(answer.length, 16)));
  if (answer[0] !== 0x7b || empty) return Buffer.from(JSON.stringify({ ...fields, ...(JSON.parse(answer.toString('utf8')) as object) }));
  return Buffer.concat([Buffer.from(`${head.slice(0, -1)},`), answer.subarray(1)]);
}

/**
 * A state-store failure that is not a bug, as its answer (null: any other error). A write that
 * met a full disk (SQLite's SQLITE_FULL, PostgreSQL's disk_full 53100, an ENOSPC) is 507
 * `storage_full`, and did not happen (the engine rolls the transaction back); SQLite busy past
 * its timeout is 503 `state_unavailable` (the PostgreSQL store raises that one itself: `pgFailure`).
 */
export function stateFailure(err: unknown): DomainError | null {
  const code = (err as { code?: unknown } | null)?.code;
  // Another process (the CLI) held SQLite's write lock past busy_timeout: unavailable for now, not broken.
  if (code === 'SQLITE_BUSY') return new DomainError('state_unavailable', 'the state store is busy with another writer; try again shortly', { headers: { 'retry-after': '5' } });
  if (code !== 'SQLITE_FULL' && code !== '53100' && code !== 'ENOSPC') return null;
  return new DomainError('storage_full', 'the service has no disk space left for this write; nothing was written, try again later');
}
