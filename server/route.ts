import type { z } from 'zod';
import type { SnapshotReader } from '../warehouse/snapshot.js';
import type { TenantStore } from '../warehouse/state.js';
import type { Issue } from '../warehouse/errors.js';

export type Scope = 'knowledge' | 'agents' | 'audit' | 'admin';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call a route:
 * - `public`: no key (health, the OpenAPI document, the public payer directory); limited per client IP;
 * - `{scope, keyType?}`: an `X-API-Key` with that scope (an `admin` key has every scope), paired
 *   with the host; `keyType: 'live'` also refuses test keys (e.g. `POST /v1/340b/watches`);
 * - `admin_secret_or_test_key`: `X-Admin-Secret` equal to `RCM_ADMIN_SECRET`, or a test key on the
 *   test host (customer policy parsing).
 */
export type Auth = 'public' | { scope: Scope; keyType?: 'live' } | 'admin_secret_or_test_key';

/**
 * What an answer depends on. The answer-cache key derives from it (snapshot id, tenant id and
 * the tenant's state generation), and the handler context only offers what is declared: a handler
 * of a `snapshot` route cannot read tenant state, so no cached answer can mix tenants.
 */
export type Reads = 'none' | 'snapshot' | 'tenant' | 'snapshot+tenant';

/** A JSON request body validated by a zod schema (use `z.strictObject`: unknown fields are 422). */
export interface JsonBody<S extends z.ZodType = z.ZodType> {
  kind: 'json';
  schema: S;
  /** Largest accepted body (default 1 MiB). */
  maxBytes?: number;
}

/** A raw request body (a PDF upload) handed to the handler as bytes. */
export interface RawBody {
  kind: 'raw';
  contentType: string;
  maxBytes: number;
}

export type BodyKind = JsonBody | RawBody;

export const json = <S extends z.ZodType>(schema: S, maxBytes?: number): JsonBody<S> => ({ kind: 'json', schema, ...(maxBytes ? { maxBytes } : {}) });
export const raw = (contentType: string, maxBytes: number): RawBody => ({ kind: 'raw', contentType, maxBytes });

export interface Reliability {
  generated_at: string;
  data_sources: Record<string, { publisher: string; source_files: string[]; loaded_at: string }>;
  dataset_versions: Record<string, string>;
  degraded: boolean;
  warnings: string[];
}

export interface AuthInfo {
  tenant_id: string;
  key_id: string;
  key_type: 'test' | 'live';
  scopes: Scope[];
}

const RESULT = Symbol('result');

/** A handler answer with a status and headers other than 200 (201 + Location, 202 ...). */
export interface Result<B> {
  readonly [RESULT]: true;
  status: number;
  headers: Record<string, string>;
  body: B;
}

export function result<B>(status: number, body: B, headers: Record<string, string> = {}): Result<B> {
  return { [RESULT]: true, status, headers, body };
}

export function isResult(v: unknown): v is Result<unknown> {
  return typeof v === 'object' && v !== null && RESULT in v;
}

/** Everything a handler may use; no transport objects reach handlers. */
export interface RouteContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The snapshot this request reads (only on routes that declare `reads: snapshot...`). */
  readonly snapshot: SnapshotReader;
  /** The caller's tenant state (only on routes that declare `reads: ...tenant`); every query binds the tenant. */
  readonly tenant: TenantStore;
  auth: AuthInfo | null;
  /** Whether the request addressed the production (`live`) or the test host. */
  hostKind: 'live' | 'test';
  requestId: string;
  /** A request header (lower-case name), e.g. `idempotency-key`. */
  header(name: string): string | undefined;
  clientIp: string;
  now: () => Date;
  /**
   * Builds the reliability object. `used` maps each dataset to the version label the answer came
   * from; a plain list means "the latest loaded version". Datasets not loaded mark it degraded.
   */
  reliability(used: string[] | Record<string, string>, opts?: { warnings?: string[]; degraded?: boolean }): Reliability;
}

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;
type InferBody<B> = B extends JsonBody<infer S> ? z.output<S> : B extends RawBody ? Buffer : undefined;
type MaybePromise<T> = T | Promise<T>;

/** One example request per operation: documents the call and is run by the contract tests. */
export interface RouteExample {
  summary: string;
  /** The status this example answers on a freshly seeded server when not 2xx (a lookup of an id that does not exist yet). */
  status?: number;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

export interface RouteSpec<P extends z.ZodType | undefined, Q extends z.ZodType | undefined, B extends BodyKind | undefined, R extends z.ZodType> {
  method: Method;
  /** OpenAPI-style path, e.g. `/v1/codes/{code}`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  auth: Auth;
  reads: Reads;
  params?: P;
  query?: Q;
  body?: B;
  /** Schema of the success body: drives the OpenAPI document, MCP output schema and contract tests. */
  response: R;
  /** Content type of a non-JSON answer (metrics); the handler then returns a string. */
  contentType?: string;
  /** Success status when the handler returns a bare body (200 unless stated). */
  status?: number;
  /** Other success statuses answering the same body (an upsert's 201 created beside its 200 updated). */
  alsoStatus?: number[];
  /** Error statuses besides the pipeline's own (401/403/422/429/500/503) that this route answers. */
  errors?: number[];
  /**
   * The answer depends only on what `reads` names plus the validated input: memoise it (key:
   * snapshot id, tenant id and state generation, validated input). `'daily'` when it also depends
   * on today's date (a date parameter defaulting to today): the UTC date joins the key.
   */
  cache?: boolean | 'daily';
  examples: RouteExample[];
  /**
   * Checks of the raw input that need the snapshot (a payer slug exists in the loaded payers
   * dataset): their issues join the schema's in one 422, so every issue is still reported at once.
   */
  checkInput?(raw: { params: Record<string, string>; query: Record<string, string | string[]>; body?: unknown }, snapshot: SnapshotReader): Promise<Issue[]>;
  handler(ctx: RouteContext<Infer<P>, Infer<Q>, InferBody<B>>): MaybePromise<z.output<R> | Result<z.output<R>>>;
  /**
   * A durable write after the answer (which may come from the cache): it records the answer in
   * the tenant's state and returns fields that join the body (a persisted determination's id), or
   * null to skip (e.g. `persist=false`). `body()` parses the answer only when the write needs it.
   * Keyed routes only.
   */
  persist?(ctx: PersistContext<Infer<P>, Infer<Q>>, body: () => z.output<R>): Promise<Record<string, unknown> | null>;
}

export interface PersistContext<P, Q> {
  params: P;
  query: Q;
  tenant: TenantStore;
  snapshotId: string;
  now: Date;
}

/** The erased form kept in the route table. */
export interface RouteDef extends Omit<RouteSpec<z.ZodType | undefined, z.ZodType | undefined, BodyKind | undefined, z.ZodType>, 'handler'> {
  handler(ctx: RouteContext<any, any, any>): MaybePromise<unknown>;
  persist?(ctx: PersistContext<any, any>, body: () => any): Promise<Record<string, unknown> | null>;
}

/**
 * Declares a route once; `server/routes.ts` lists them, and from that one declaration come the
 * HTTP route, validation, the OpenAPI document, the MCP tools and the contract tests. The
 * handler's return type is checked against the response schema.
 */
export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends BodyKind | undefined = undefined,
  R extends z.ZodType = z.ZodType,
>(def: RouteSpec<P, Q, B, R>): RouteDef {
  return def as unknown as RouteDef;
}

/** The scope a keyed route needs (null for `public`). */
export function scopeOf(auth: Auth): Scope | null {
  return typeof auth === 'object' ? auth.scope : null;
}

export const readsSnapshot = (r: Reads) => r === 'snapshot' || r === 'snapshot+tenant';
export const readsTenant = (r: Reads) => r === 'tenant' || r === 'snapshot+tenant';
