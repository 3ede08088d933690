import type { z } from 'zod';
import type { SnapshotReader } from '../warehouse/snapshot.js';
import type { KeyScope, KeyType, TenantStore } from '../warehouse/tenant_state.js';
import type { ErrorCode, Issue } from '../warehouse/errors.js';
import type { StreamedJson } from './json_bytes.js';
import type { Reliability, Trace } from './trace.js';

/** The spec's capability areas (tags), in its order; a route's `tag` is one of these names. */
export const TAGS = [
  { name: 'policies', description: 'Cited payer policy lookup (list and changes)' },
  { name: 'policy', description: 'Parse and retrieve a customer-owned policy PDF into cited chunks and a folder tree (service-authenticated)' },
  { name: '340B Policy', description: 'Manufacturer contract-pharmacy policy, access resolution, change feed' },
  { name: 'prior-auth', description: 'CRD-style prior-authorization determination' },
  { name: 'payers', description: 'Payer directory: search, filing rules, denial patterns, appeal levels, claim context' },
  { name: 'payers-public', description: 'Public payer directory: the list and each payer without a key; its denial patterns with one' },
  { name: 'knowledge', description: 'Knowledge resolution, payment calculation, dataset change feed' },
  { name: 'fee-schedules', description: 'OPPS, DMEPOS and clinical lab fee lookups' },
  { name: 'ncci', description: 'Medicare NCCI edits (MUE, PTP, add-on) and the Medicaid edit set' },
  { name: 'codes', description: 'Code lookup, RVU data, payment composition, crosswalks' },
  { name: 'agents', description: 'Asynchronous jobs (code research, medical necessity, denial resolution); poll or callback' },
  { name: 'facilities', description: 'Facility registration by CCN, payer roster, prior-auth overrides' },
  { name: 'npi', description: 'Provider identifier lookup' },
  { name: 'drugs', description: 'Drug product lookup by NDC' },
  { name: 'system', description: 'Health checks, service metadata, metrics' },
  { name: 'mcp', description: 'Tool-protocol endpoint at /v1/mcp using the same credential as REST' },
] as const;

export type Tag = (typeof TAGS)[number]['name'];

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call a route:
 * - `public`: no key (health, the OpenAPI document, the public payer directory); limited per client IP;
 * - `{scope, keyType?}`: an `X-API-Key` with that scope (an `admin` key has every scope), paired
 *   with the host; `keyType: 'live'` also refuses test keys (e.g. `POST /v1/340b/watches`);
 * - `admin_secret_or_test_key`: `X-Admin-Secret` equal to `RCM_ADMIN_SECRET`, or a test key on the
 *   test host (customer policy parsing).
 */
/**
 * Who may call a route. A keyed route names its scope, and `alsoScopes` when its answer carries
 * data another scope guards (an agent's result cites payment amounts and edits, the `knowledge`
 * data: an agents-only key would otherwise read through the agent what the REST route refuses).
 */
export type Auth = 'public' | { scope: KeyScope; alsoScopes?: KeyScope[]; keyType?: 'live' } | 'admin_secret_or_test_key';

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
  /** Also accept `multipart/form-data` with the document in this form field (or as the one file part). */
  multipartField?: string;
  /** Other content types taken as the same bytes (an 835 as `text/plain` beside `application/edi-x12`). */
  alsoTypes?: string[];
  /** As an MCP tool, the body is this string argument (a text document: an 835), sent as `contentType`. */
  toolArgument?: { name: string; description: string };
  /** Other file parts a `multipart/form-data` body may carry beside `multipartField`, one or more each (the 837s behind an 835): the handler's `parts`. */
  multipartExtra?: { name: string; description: string }[];
}

export type BodyKind = JsonBody | RawBody;

/**
 * A request the service sends later because of a call (an agent job's callback POST), documented
 * as the operation's OpenAPI `callbacks`.
 */
export interface RouteCallback {
  /** The key in the operation's `callbacks` (`jobFinished`). */
  name: string;
  /** Where it goes, as an OpenAPI runtime expression (`{$request.body#/callback_url}`). */
  url: string;
  summary: string;
  description: string;
  /** The JSON body it POSTs. */
  body: z.ZodType;
  /** Headers it carries besides Content-Type (name -> description). */
  headers: Record<string, string>;
}

/** A response header a route declares: what it says, and whether every success answer carries it. */
export interface ResponseHeader {
  description: string;
  /** True when every success answer carries it (a 202's Location); false when only some do (X-Degraded). */
  always: boolean;
}

export const json = <S extends z.ZodType>(schema: S, maxBytes?: number): JsonBody<S> => ({ kind: 'json', schema, ...(maxBytes ? { maxBytes } : {}) });
export const raw = (contentType: string, maxBytes: number, multipartField?: string, alsoTypes?: string[], toolArgument?: RawBody['toolArgument'], multipartExtra?: RawBody['multipartExtra']): RawBody => ({
  kind: 'raw',
  contentType,
  maxBytes,
  ...(multipartField ? { multipartField } : {}),
  ...(alsoTypes?.length ? { alsoTypes } : {}),
  ...(toolArgument ? { toolArgument } : {}),
  ...(multipartExtra?.length ? { multipartExtra } : {}),
});

export interface AuthInfo {
  tenant_id: string;
  key_id: string;
  key_type: KeyType;
  scopes: KeyScope[];
  /** A key minted for a session (the playground's, expiring): its calls never store durable records (`persist`). */
  ephemeral?: boolean;
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
export interface RouteContext<P, Q, B, X = undefined> {
  params: P;
  query: Q;
  body: B;
  /** A raw body's other multipart file parts by name (`RawBody.multipartExtra`); empty otherwise. */
  parts: Readonly<Record<string, Buffer[]>>;
  /** What the route's `resolve` step looked up from the input (a payer row, the NCCI files). */
  resolved: X;
  /** The snapshot this request reads (only on routes that declare `reads: snapshot...`). */
  readonly snapshot: SnapshotReader;
  /** The caller's tenant state (only on routes that declare `reads: ...tenant`); every query binds the tenant. */
  readonly tenant: TenantStore;
  auth: AuthInfo | null;
  /** Whether the request addressed the production (`live`) or the test host. */
  hostKind: KeyType;
  requestId: string;
  /** A request header (lower-case name), e.g. `idempotency-key`. */
  header(name: string): string | undefined;
  clientIp: string;
  /** How the call came: HTTP (an answer may stream at the reader's pace) or an MCP tool call (answered whole). */
  transport: 'http' | 'mcp';
  now: () => Date;
  /** What this answer used (dataset versions, warnings, fallbacks): record on it while computing. */
  readonly trace: Trace;
  /** `trace.reliability()`: the reliability object of what the trace recorded. */
  reliability(): Reliability;
}

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;
type InferBody<B> = B extends JsonBody<infer S> ? z.output<S> : B extends RawBody ? Buffer : undefined;
type MaybePromise<T> = T | Promise<T>;

/**
 * An example request: documents the call and is run by the contract test against a freshly
 * seeded server (test/contract.int.test.ts), which checks its status, that the status is documented,
 * that the body matches the documented schema and that an error's code is among the operation's
 * `x-error-codes`. The first example is the one the OpenAPI document shows: the success case
 * where a seeded server has one. Every route also carries at least one error example (a code
 * that does not exist, a bad parameter, no key).
 *
 * Examples run in declaration order, routes in table order, on one server: an example may rely
 * on an earlier one's write (a PUT answering 201 then 200, a DELETE answering 200 then 404).
 */
export interface RouteExample {
  summary: string;
  /**
   * The status it answers. Omitted: the route's success status (`status`, 200 by default, or one
   * of `alsoStatus`).
   */
  status?: number;
  /** `'none'`: sent without an API key (a keyed route's 401). Public routes never send one. */
  key?: 'none';
  /** `'live'`: sent to the production host with a live key (a live-only route's success, the playground's 403); the test host otherwise. */
  host?: 'live';
  /**
   * Path parameters as sent. A whole value `{job}`, `{override}`, `{determination}`,
   * `{policy_document}` or `{watch}` (also as a top-level JSON body value) stands for
   * the id of an agent job, a facility PA override (facility 050454), a persisted prior-auth
   * determination or a live 340B watch the contract test creates first; the OpenAPI document shows the first example
   * only, so that one never holds a placeholder.
   */
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

/** The raw input a `resolve` step sees: path and query as sent, the body decoded once (JSON). */
export interface RawInput {
  /** The caller (null on public routes). */
  auth: AuthInfo | null;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  body: unknown;
  /**
   * A request header by lower-case name (`idempotency-key`). Uncached body routes only: a
   * body-less route's validated input is memoised by its target, and a cached route's by its
   * target and body, so their `resolve` must not read headers.
   */
  header(name: string): string | undefined;
}

/** What a `resolve` step found: its issues join the schema's in one 422; `value` reaches the handler. */
export interface Resolution<X> {
  issues: Issue[];
  value: X;
}

export interface RouteSpec<P extends z.ZodType | undefined, Q extends z.ZodType | undefined, B extends BodyKind | undefined, R extends z.ZodType, X = undefined> {
  method: Method;
  /** OpenAPI-style path, e.g. `/v1/codes/{code}`. */
  path: string;
  operationId: string;
  tag: Tag;
  /** `false`: not an MCP tool (system routes, the playground, non-JSON answers). */
  mcp?: false;
  summary: string;
  description?: string;
  auth: Auth;
  /** `false`: a public probe never rate limited (health and readiness behind a load balancer). */
  rateLimit?: false;
  /**
   * Refuses a call before its body is read, from what the headers say (the caller, the declared
   * length): a playground key's remittance while the playground's thread is busy is 503 without
   * reading its megabyte. Throws the refusal; the connection is then closed (the body is unread).
   */
  preflight?: (c: { auth: AuthInfo | null; declaredBytes: number | null }) => void;
  /** Request headers the route reads besides the credentials (name -> description), e.g. `Idempotency-Key`. */
  headers?: Record<string, string>;
  /**
   * Headers its success answers carry besides the pipeline's own (X-Request-Id, RateLimit-*), by
   * name: `Location` of a create, `X-Dataset-Versions` of a bare array. Declared in the OpenAPI
   * document; the contract test fails on a header an answer carries that no declaration names.
   */
  responseHeaders?: Record<string, ResponseHeader>;
  /** The request the service sends back later (a finished job's callback POST). */
  callback?: RouteCallback;
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
  /**
   * Error codes this route's handler raises besides the pipeline's own (host, key, scope, limit,
   * validation, body, readiness): they become the operation's documented error responses.
   */
  errors?: ErrorCode[];
  /**
   * The answer depends only on what `reads` names plus the validated input: memoise it (key:
   * snapshot id, tenant id and state generation, validated input). `'daily'` when it also depends
   * on today's date (a date parameter defaulting to today): the UTC date joins the key. GET
   * routes, and POST routes that only read the snapshot (a JSON body that is a question, not a
   * write: pricing a stay), whose validated body joins the key.
   */
  cache?: boolean | 'daily';
  /**
   * For a route that reads tenant state: whether this call's answer depends on the tenant (default
   * always). When it says no, the answer is cached once for every tenant and the handler gets no
   * tenant store (reading it throws), so no tenant's data can reach a shared answer.
   */
  tenantScoped?(input: { params: Infer<P>; query: Infer<Q> }): boolean;
  examples: RouteExample[];
  /**
   * Looks up what the input names (a payer slug in the loaded payers dataset, a callback host):
   * runs after the schemas, even when they failed, so its issues join theirs in one 422; what it
   * found reaches the handler as `resolved`, so nothing is looked up twice. `snapshot` is null on
   * routes that read none.
   */
  resolve?(input: RawInput, snapshot: SnapshotReader | null): Promise<Resolution<X>>;
  handler(ctx: RouteContext<Infer<P>, Infer<Q>, InferBody<B>, X>): MaybePromise<z.output<R> | Result<z.output<R>> | StreamedJson<z.output<R>>>;
  /**
   * A durable write after the answer (which may come from the cache): it records the answer in
   * the tenant's state and returns fields that join the body (a persisted determination's id), or
   * null to skip (e.g. `persist=false`). `answer.value()` parses the answer only when the write
   * needs it; `answer.json` is its text as sent (stored as is, not serialised again). Keyed routes only.
   */
  persist?(ctx: PersistContext<Infer<P>, Infer<Q>>, answer: PersistedAnswer<z.output<R>>): Promise<Record<string, unknown> | null>;
}

/** The answer a `persist` step records: parsed on demand, and its JSON text. */
export interface PersistedAnswer<T> {
  /** The parsed answer, shared by every call answered with the same cached answer: read it, never change it. */
  value(): T;
  readonly json: string;
}

export interface PersistContext<P, Q> {
  params: P;
  query: Q;
  tenant: TenantStore;
  snapshotId: string;
  now: Date;
}

/** The erased form kept in the route table. */
export interface RouteDef extends Omit<RouteSpec<z.ZodType | undefined, z.ZodType | undefined, BodyKind | undefined, z.ZodType, unknown>, 'handler' | 'resolve' | 'tenantScoped'> {
  tenantScoped?(input: { params: any; query: any }): boolean;
  resolve?(input: RawInput, snapshot: SnapshotReader | null): Promise<Resolution<unknown>>;
  handler(ctx: RouteContext<any, any, any, any>): MaybePromise<unknown>;
  persist?(ctx: PersistContext<any, any>, answer: PersistedAnswer<any>): Promise<Record<string, unknown> | null>;
}

/**
 * Declares a route once; `server/routes/index.ts` lists them, and from that one declaration come the
 * HTTP route, validation, the OpenAPI document, the MCP tools and the contract tests. The
 * handler's return type is checked against the response schema.
 */
export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends BodyKind | undefined = undefined,
  R extends z.ZodType = z.ZodType,
  X = undefined,
>(def: RouteSpec<P, Q, B, R, X>): RouteDef {
  return def as unknown as RouteDef;
}

/** The scope a keyed route needs (null for `public`). */
export function scopeOf(auth: Auth): KeyScope | null {
  // A customer-document route takes a test key holding `knowledge` (the admin secret aside).
  return typeof auth === 'object' ? auth.scope : auth === 'admin_secret_or_test_key' ? 'knowledge' : null;
}

export const readsSnapshot = (r: Reads) => r === 'snapshot' || r === 'snapshot+tenant';
export const readsTenant = (r: Reads) => r === 'tenant' || r === 'snapshot+tenant';

/** Whether a route is an MCP tool: every data route unless it says `mcp: false`. */
export const isToolRoute = (r: RouteDef): boolean => r.mcp !== false;
