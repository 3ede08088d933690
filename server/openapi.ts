import { z } from 'zod';
import type { ErrorCode } from '../warehouse/errors.js';
import { STATUS } from './errors.js';
import { readsSnapshot, scopeOf, TAGS, type RouteCallback, type RouteDef } from './route.js';
import { fieldDescription } from './validation.js';
import { ErrorBodySchema, ValidationErrorSchema } from './schemas.js';

type Json = Record<string, unknown>;

const REF = (id: string) => `#/components/schemas/${id}`;


const unavailableText = (codes: ErrorCode[]): string | undefined => {
  const parts = codes.map((c) => UNAVAILABLE_TEXT[c]).filter((t): t is string => t !== undefined);
  if (!parts.length) return undefined;
  const text = parts.join('; or ');
  return text[0]!.toUpperCase() + text.slice(1);
};

const ERROR_TEXT: Record<number, string> = {
  400: 'The Host header is not a valid host name',
  401: 'Missing or invalid credentials',
  403: 'Key type does not match the host, or the key lacks the scope',
  404: 'Not found',
  409: 'Conflict',
  413: 'Request body too large',
  415: 'Unsupported request body type',
  421: 'Misdirected request: this service does not answer for that host',
  429: 'Rate limit exceeded (see Retry-After)',
  503: 'Not ready: no data snapshot is published yet',
};

/** A header object of the document. */
const header = (description: string, required: boolean, schema: Json = { type: 'string' }): Json => ({ description, required, schema });

/** Every answer, error or not, from a route or `/v1/mcp` (server/http.ts, the MCP adapter). */
const REQUEST_ID = header("the request's id: the caller's X-Request-Id when it is 1 to 64 of A-Z a-z 0-9 . _ -, else a new UUID; a 500's body names it too", true);

/**
 * The rate limiter's headers (server/pipeline/limits.ts), on every answer after the request was
 * counted: per API key, per client address on public routes, per tenant with X-Admin-Secret.
 * `required` on a success, which always was counted.
 */
const rateLimitHeaders = (required: boolean): Record<string, Json> => ({
  'RateLimit-Limit': header('requests allowed per minute (per API key; per client address on public routes)', required, { type: 'integer', minimum: 1 }),
  'RateLimit-Remaining': header('requests left in the current minute', required, { type: 'integer', minimum: 0 }),
  'RateLimit-Reset': header('seconds until the window frees a request', required, { type: 'integer', minimum: 1 }),
});

/** Answers given before the request is counted (the host, the credentials): no RateLimit headers. */
const UNCOUNTED = new Set([400, 401, 421]);

/** Seconds to wait: every 429, and a 503 whose cause passes (the state store, a busy service; not a missing snapshot). */
const retryAfter = (status: 429 | 503): Json =>
  status === 429
    ? header('seconds until the limit frees a request', true, { type: 'integer', minimum: 0 })
    : header('seconds to wait before trying again, when the cause passes by itself (state_unavailable, service_busy); absent when no snapshot is published (not_ready)', false, { type: 'integer', minimum: 0 });

/**
 * The headers of one response of a route: X-Request-Id always, the rate limit's once counted,
 * Retry-After on 429 and 503, and what the route declares (`responseHeaders`) on a success.
 */
function responseHeaders(r: RouteDef, status: number): Record<string, Json> {
  const ok = status < 300;
  const out: Record<string, Json> = { 'X-Request-Id': REQUEST_ID };
  if (r.rateLimit !== false && !UNCOUNTED.has(status)) Object.assign(out, rateLimitHeaders(ok));
  if (status === 429 || status === 503) out['Retry-After'] = retryAfter(status);
  if (ok) for (const [name, h] of Object.entries(r.responseHeaders ?? {})) out[name] = header(h.description, h.always);
  return out;
}

/** A 503 means one of several things: its description names those the route can answer. */
const UNAVAILABLE_TEXT: Partial<Record<ErrorCode, string>> = {
  not_ready: 'not ready: no data snapshot is published yet',
  state_unavailable: 'the state store does not answer (see Retry-After)',
  service_busy: 'busy (see Retry-After)',
  agent_unavailable: 'the agent cannot run now',
};

/**
 * What a parameter means when its schema does not say: the names the contract fixes and every
 * route uses the same way (ARCHITECTURE.md's contract table).
 */
const PARAM_TEXT: Record<string, string> = {
  code: 'CPT/HCPCS code (5 letters or digits; upper-cased)',
  ccn: 'CMS Certification Number of the facility (6 characters): its geography, facility type and your registration',
  modifier: 'CPT/HCPCS modifier (26, TC, 53 select their RVU row; any other modifier prices the unmodified row)',
  date_of_service: 'date of service (YYYY-MM-DD): selects the versions in force; default today (UTC)',
  qpp: 'qualifying APM participant: the QPP conversion factor',
  qpp_flag: '0 or 1; overrides qpp',
  locality: 'Medicare PFS locality: 7 digits, MAC + locality number (1320201 = Manhattan), or 13202-01',
  place_of_service: 'CMS place-of-service code (2 digits); pins the facility or non-facility setting',
  use_facility_rate: 'legacy: true for the facility PE-RVU when neither place_of_service nor ccn decides it',
  hard: 'true: remove the registration with its roster and overrides (default: deactivate)',
  id: 'the id the create call answered',
  dataset: 'a dataset id or family (mpfs matches mpfs_rvu; ncci every ncci_*)',
  from_version: 'only changes from this version label',
  to_version: 'only changes to this version label',
  since: 'only changes effective on or after this date (YYYY-MM-DD)',
  limit: 'at most this many results',
  state: 'two-letter state abbreviation',
  year: 'the release year in force (default: the latest loaded release)',
  column1: 'column 1 code of the pair (either order is accepted)',
  column2: 'column 2 code of the pair',
  include_summary: 'true: add a plain-language summary, audited by the sentinel',
  payer: 'payer slug or alias (medicare, medicaid, aetna, ...)',
  q: 'search text (typo tolerant)',
  payer_type: 'only payers of this type',
  cursor: 'next_cursor of the previous page',
  slug: 'payer slug or alias',
  denial_date: 'the date on the denial notice (YYYY-MM-DD)',
  plan_type: 'plan type (hmo, ppo, group, medicare_advantage, ...): plan-specific rules and overrides',
  as_of: 'the day days_remaining counts from (default today, UTC)',
  decision_date: 'date of the decision at decision_level, from which the next level runs',
  decision_level: 'the level decision_date belongs to (default 1)',
  primary_payment_date: "the primary payer's payment date, for rules that count from it",
  service_category: 'a service category (vein_ablation, blepharoplasty, ...) instead of or beside a code',
  visit_count: 'visits already used, for rules with a visit threshold',
  persist: 'false: answer without storing a determination',
  job_id: 'the job id the submit answered',
};

/**
 * A parameter's example: the first value the route's success examples give it that its schema
 * takes (an error example's bad value never is one), typed as the schema says (`?limit=5` is 5).
 */
function exampleOfParameter(schema: Json, values: unknown[]): { example?: unknown } {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  for (const v of values) {
    if (v === undefined) continue;
    const typed = (types.includes('integer') || types.includes('number')) && typeof v === 'string' ? Number(v) : types.includes('boolean') && (v === 'true' || v === 'false') ? v === 'true' : v;
    if (types.includes('integer') && !Number.isInteger(typed)) continue;
    if (types.includes('number') && !Number.isFinite(typed)) continue;
    if (typeof typed === 'number' && ((typeof schema.minimum === 'number' && typed < schema.minimum) || (typeof schema.maximum === 'number' && typed > schema.maximum))) continue;
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(String(typed))) continue;
    if (Array.isArray(schema.enum) && !schema.enum.includes(typed)) continue;
    return { example: typed };
  }
  return {};
}

/** The error codes of one status among `codes`, as the `x-error-codes` of its response. */
const codesOf = (codes: ErrorCode[], status: number) => codes.filter((c) => STATUS[c] === status);

/** The component id of a response schema (`.meta({id})`), if it has one. */
export function schemaId(s: z.ZodType): string | undefined {
  const id = z.globalRegistry.get(s)?.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * JSON Schema of a request part (inlined) or of a response: every JSON response schema is
 * registered under an id (`.meta({id})`, checked at start-up), so a response is a component `$ref`.
 */
export function jsonSchemaOf(s: z.ZodType, io: 'input' | 'output'): Json {
  const id = schemaId(s);
  if (io === 'output' && id) return { $ref: REF(id) };
  // An empty metadata registry keeps component ids out of an inlined request part; each field's
  // own description (`.describe()`, kept in the global registry) is copied in by `override`.
  const j = z.toJSONSchema(s, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    metadata: z.registry(),
    override: (ctx) => {
      const description = z.globalRegistry.get(ctx.zodSchema)?.description;
      if (description && ctx.jsonSchema.description === undefined) ctx.jsonSchema.description = description;
    },
  }) as Json;
  delete j.$schema;
  return j;
}

function refsIn(v: unknown, out: Set<string>): void {
  if (Array.isArray(v)) v.forEach((x) => refsIn(x, out));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string' && x.startsWith('#/components/schemas/')) out.add(x.slice(21));
      else refsIn(x, out);
    }
  }
}

/** Without configured base URLs: the server that served the document (a relative URL). */
export const DEFAULT_SERVERS = [{ url: '/', description: 'this server: kp_test_ keys on the test host, kp_live_ keys on the production host' }];

/**
 * `/v1/mcp` is served by the MCP SDK's transport, not by a route of the table, so its path item
 * is written here; its tools are the table's data routes. Each status says what answers it: the
 * service's error body (host, key, limits: `server/mcp/adapter.ts` answers them as REST does) or a
 * JSON-RPC error (the transport's own refusals). A tool call the route refuses (its REST 422, 404,
 * 403 ...) is no HTTP error: a 200 whose tool result has `isError: true` and the REST body as text.
 */
function mcpPathItem(errorResponse: (s: number) => Json, errSchema: Json): Json {
  const rpcErrorObject = {
    type: 'object',
    required: ['code', 'message'],
    properties: {
      code: { type: 'integer', description: 'JSON-RPC error code (-32700 parse error, -32600 invalid request, -32602 invalid params, -32603 internal, -32000/-32001 transport)' },
      message: { type: 'string', description: 'what was wrong (an internal error names only a reference)' },
      data: { description: 'more about the error (json_too_deep: the depth allowed)' },
    },
  };
  const rpcError = {
    type: 'object',
    required: ['jsonrpc', 'error'],
    properties: { jsonrpc: { const: '2.0', description: 'JSON-RPC version' }, id: { type: ['string', 'integer', 'null'], description: 'the request id, null when it could not be read' }, error: rpcErrorObject },
  };
  const withHeaders = (status: number, r: Json, extra: Record<string, Json> = {}): Json => ({
    ...r,
    headers: {
      'X-Request-Id': REQUEST_ID,
      ...(UNCOUNTED.has(status) || status === 404 ? {} : rateLimitHeaders(false)),
      ...(status === 429 || status === 503 ? { 'Retry-After': retryAfter(status) } : {}),
      ...extra,
    },
  });
  const body = (description: string, schema: Json): Json => ({ description, content: { 'application/json': { schema } } });
  const rpc = (description: string) => body(description, rpcError);
  const either = (description: string) => body(description, { anyOf: [errSchema, rpcError] });
  const errors = (extra: Record<number, Json>): Json =>
    Object.fromEntries(
      Object.entries({
        400: either('A bad Host header (the service error body); or a JSON-RPC error: no session (send initialize first), a body that is not JSON or nested deeper than RCM_JSON_MAX_DEPTH, an unsupported Mcp-Protocol-Version'),
        401: errorResponse(401),
        403: errorResponse(403),
        404: rpc('Session not found: the Mcp-Session-Id names no session (it expired after RCM_MCP_IDLE_MS, or its key was revoked); open a new one'),
        421: errorResponse(421),
        429: errorResponse(429),
        500: rpc('Internal error: a JSON-RPC error naming only a reference (quote it)'),
        503: body('The service holds as many MCP sessions, or request bodies in flight, as it can (service_busy), or the state store does not answer (state_unavailable)', errSchema),
        ...extra,
      }).map(([st, r]) => [st, withHeaders(Number(st), r, st === '401' ? { 'WWW-Authenticate': header('`ApiKey header="X-API-Key", realm="rcm"`: the credential this endpoint takes (no OAuth)', true) } : {})]),
    );
  const common = (method: string, summary: string, description: string, ok: Record<string, Json>, extra: Record<number, Json>) => ({
    operationId: `mcp${method}`,
    tags: ['mcp'],
    summary,
    description: `${description}\n\nSame X-API-Key and host pairing as REST; each tool call runs the REST pipeline (scopes, rate limit, validation). Example: initialize, then tools/list and tools/call getCodePayment.`,
    parameters: method === 'Post' ? [] : [{ name: 'Mcp-Session-Id', in: 'header', required: true, description: 'session id from the initialize answer', schema: { type: 'string' } }],
    responses: { ...Object.fromEntries(Object.entries(ok).map(([st, r]) => [st, withHeaders(Number(st), r, { 'Mcp-Session-Id': header('the session: returned by initialize, sent back on every later request', false) })])), ...errors(extra) },
    security: [{ ApiKey: [] }],
  });
  const request = {
    type: 'object',
    required: ['jsonrpc'],
    properties: {
      jsonrpc: { const: '2.0', description: 'JSON-RPC version' },
      id: { type: ['string', 'integer'], description: 'request id, echoed in the answer (absent: a notification)' },
      method: { type: 'string', description: 'initialize, tools/list, tools/call, resources/list, resources/read ...' },
      params: { type: 'object', description: "the method's parameters (tools/call: name and arguments)" },
    },
  };
  // A tool result (tools/call): the REST answer as structured content and as text; a refusal as text only, with isError.
  const toolResult = {
    type: 'object',
    description: "the method's result. For tools/call, a tool result: the REST answer in `structuredContent` and as text; a call the route refuses has `isError: true` and the REST error body as its text (a 422: HTTPValidationError, every issue)",
    properties: {
      content: {
        type: 'array',
        description: 'the REST answer as text',
        items: {
          type: 'object',
          required: ['type', 'text'],
          properties: { type: { const: 'text', description: 'a text block' }, text: { type: 'string', contentMediaType: 'application/json', description: 'the REST body as sent' } },
        },
      },
      structuredContent: { type: 'object', description: 'the REST answer (a bare array wrapped as {results}); absent when isError' },
      isError: { type: 'boolean', description: 'true when the route refused the call: the text is its error body' },
    },
    if: { required: ['isError'], properties: { isError: { const: true } } },
    then: { properties: { content: { items: { properties: { text: { contentSchema: { anyOf: [{ $ref: REF('HTTPValidationError') }, errSchema] } } } } } } },
  };
  const answer = {
    type: 'object',
    required: ['jsonrpc'],
    properties: { jsonrpc: { const: '2.0', description: 'JSON-RPC version' }, id: { type: ['string', 'integer', 'null'], description: "the request's id" }, result: toolResult, error: rpcErrorObject },
  };
  const refused = {
    jsonrpc: '2.0',
    id: 2,
    result: {
      content: [{ type: 'text', text: JSON.stringify({ detail: [{ loc: ['query', 'qpp_flag'], msg: 'Invalid option: expected one of "0"|"1"', type: 'invalid_value', input: '2' }] }) }],
      isError: true,
    },
  };
  return {
    post: {
      ...common(
        'Post',
        'MCP JSON-RPC (Streamable HTTP): initialize, tools/list, tools/call, resources/list, resources/read',
        'Model Context Protocol over Streamable HTTP (protocol 2025-03-26 and later). A tool call whose arguments its route refuses is answered like any tool result (HTTP 200), `isError: true`, its text the REST answer: the 422 body with every issue, a 404, a 403.',
        {
          '200': {
            description: 'JSON-RPC answer (an array for a batch). A tools/call its route refuses (REST 422, 404, 403 ...) is a tool result with `isError: true` whose text is the REST error body',
            content: {
              'application/json': {
                schema: { anyOf: [answer, { type: 'array', items: answer }] },
                examples: {
                  toolCall: { summary: 'tools/call getCode', value: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '{"code":"99213", ...}' }], structuredContent: { code: '99213' } } } },
                  validationError: { summary: "a tools/call its route answers 422: the REST 422 body (every issue) as the tool result's text, isError true", value: refused },
                },
              },
            },
          },
          '202': { description: 'Accepted: the message carried only notifications or responses (no body)' },
        },
        {
          406: rpc('Not Acceptable: the Accept header must list application/json and text/event-stream'),
          413: errorResponse(413),
          415: rpc('Unsupported Media Type: the body must be application/json'),
        },
      ),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: request, example: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getCode', arguments: { code: '99213' } } } } },
      },
    },
    get: common('Get', 'MCP server-to-client event stream of a session', "Opens the session's Server-Sent Events stream.", { '200': { description: 'event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } } }, {
      406: rpc('Not Acceptable: the Accept header must list text/event-stream'),
      409: rpc('Conflict: the session already has an open stream'),
    }),
    delete: common('Delete', 'End an MCP session', 'Closes the session named by Mcp-Session-Id.', { '200': { description: 'session ended' } }, {}),
  };
}

/** The POST a route's callback sends (the receiver's side): its body, its headers and what each answer makes the service do. */
function callbackOperation(operationId: string, c: RouteCallback): Json {
  return {
    operationId: `${operationId}Callback`,
    summary: c.summary,
    description: c.description,
    parameters: Object.entries(c.headers).map(([name, description]) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } })),
    requestBody: { required: true, content: { 'application/json': { schema: jsonSchemaOf(c.body, 'output') } } },
    responses: {
      '2XX': { description: 'Received: any 2xx within 10 seconds ends the delivery' },
      '429': { description: 'Tried again (about 2 s, then 8 s after the previous attempt; its Retry-After honoured up to 8 s); 3 attempts in all' },
      '4XX': { description: 'Any other 4xx is final: not tried again (poll the job)' },
      '5XX': { description: 'Tried again, as a timeout (10 s) or a connection error is: 3 attempts in all, then the job must be polled' },
    },
  };
}

export interface OpenApiOptions {
  version: string;
  servers: { url: string; description: string }[];
  /** A real success answer per operationId (`server/openapi-examples.json`, captured from the seeded server by the contract test). */
  examples?: Record<string, unknown>;
}

/**
 * The OpenAPI 3.1 document, generated from the same route declarations that run the pipeline,
 * so the served contract cannot drift from what the handlers validate. Response schemas
 * registered with an id become named components; each operation carries its declared example.
 */
export function buildOpenApi(routes: RouteDef[], opts: OpenApiOptions): Json {
  const paths: Record<string, Json> = {};
  const errSchema = jsonSchemaOf(ErrorBodySchema, 'output');
  const errorResponse = (s: number, codes?: ErrorCode[]) => ({
    description: (s === 503 && codes?.length ? unavailableText(codes) : undefined) ?? ERROR_TEXT[s] ?? 'Error',
    content: { 'application/json': { schema: errSchema } },
    ...(codes?.length ? { 'x-error-codes': codes } : {}),
  });
  const validation = jsonSchemaOf(ValidationErrorSchema, 'output');
  // A 422 lists every issue; a route whose handler also refuses input as a whole (a PDF it cannot
  // read) answers those as `{detail, code}`.
  const unprocessable = (codes: ErrorCode[]) => {
    const others = codes.filter((c) => c !== 'validation_error');
    return {
      description: others.length ? `Validation error: every issue of path, query and body; or the input as a whole refused (${others.join(', ')})` : 'Validation error: every issue of path, query and body',
      content: { 'application/json': { schema: others.length ? { oneOf: [validation, errSchema] } : validation } },
      'x-error-codes': ['validation_error', ...others],
    };
  };
  for (const r of routes) {
    const example = r.examples[0]!;
    const parameters: Json[] = [];
    for (const [where, schema] of [
      ['path', r.params],
      ['query', r.query],
    ] as const) {
      if (!schema) continue;
      const js = jsonSchemaOf(schema, 'input');
      const props = (js.properties ?? {}) as Record<string, Json>;
      const required = new Set((js.required ?? []) as string[]);
      for (const [name, p] of Object.entries(props)) {
        const { description: inline, ...pschema } = p;
        const description = (inline as string | undefined) ?? fieldDescription(schema, name) ?? PARAM_TEXT[name];
        if (!description) throw new Error(`${r.operationId}: describe the ${where} parameter ${name} (.describe() on its schema, or PARAM_TEXT)`);
        parameters.push({
          name,
          in: where,
          required: where === 'path' || required.has(name),
          ...(description ? { description } : {}),
          schema: pschema,
          ...exampleOfParameter(pschema, r.examples.filter((e) => (e.status ?? 200) < 400).map((e) => (where === 'path' ? e.params : e.query)?.[name])),
        });
      }
    }
    const scope = scopeOf(r.auth);
    // The API key is the ApiKey security scheme only (not also a header parameter), so a generated
    // client sets it once instead of on every call.
    for (const [name, description] of Object.entries(r.headers ?? {})) parameters.push({ name, in: 'header', required: false, description, schema: { type: 'string' } });
    const answered = opts.examples?.[r.operationId];
    const exampleOf = answered === undefined ? {} : { example: answered };
    const success = r.contentType
      ? { description: 'Success', content: { [r.contentType.split(';')[0]!]: { schema: { type: 'string' }, ...exampleOf } } }
      : { description: 'Success', content: { 'application/json': { schema: jsonSchemaOf(r.response, 'output'), ...exampleOf } } };
    const codes = routeErrorCodes(r);
    const responses: Json = {
      [String(r.status ?? 200)]: success,
      ...Object.fromEntries((r.alsoStatus ?? []).map((st) => [String(st), { ...success, description: st === 201 ? 'Created' : 'Success' }])),
      '422': unprocessable(codesOf(codes, 422)),
      '500': { description: 'Internal error (no internals; quote request_id)', content: { 'application/json': { schema: errSchema } }, 'x-error-codes': ['internal_error'] },
    };
    const statuses = new Set(codes.map((c) => STATUS[c]).filter((st) => st !== 422 && st !== 500));
    for (const st of [...statuses].sort()) responses[String(st)] = errorResponse(st, codesOf(codes, st));
    for (const [st, resp] of Object.entries(responses)) responses[st] = { ...(resp as Json), headers: responseHeaders(r, Number(st)) };
    const security =
      r.auth === 'public' ? [] : r.auth === 'admin_secret_or_test_key' ? [{ AdminSecret: [] }, { ApiKey: [] }] : [{ ApiKey: [] }];
    // `x-key-type`: the one key type the ApiKey alternative takes (`live`: 340B watches; `test`:
    // customer documents, whose production alternative is X-Admin-Secret). With `security` and the
    // scopes it says in full who may call an operation, so a client (the playground page) can list
    // only what its key can call, by the same rule as the pipeline's `refusal`.
    const keyType = typeof r.auth === 'object' ? r.auth.keyType : r.auth === 'admin_secret_or_test_key' ? 'test' : undefined;
    const op: Json = {
      operationId: r.operationId,
      tags: [r.tag],
      summary: r.summary,
      description: [r.description, `Example: ${example.summary}.`].filter(Boolean).join('\n\n'),
      parameters,
      responses,
      security,
      ...(scope ? { 'x-required-scope': scope } : {}),
      ...(typeof r.auth === 'object' && r.auth.alsoScopes ? { 'x-also-required-scopes': r.auth.alsoScopes } : {}),
      ...(keyType ? { 'x-key-type': keyType } : {}),
    };
    if (r.callback) op.callbacks = { [r.callback.name]: { [r.callback.url]: { post: callbackOperation(r.operationId, r.callback) } } };
    if (r.body?.kind === 'json') {
      op.requestBody = {
        required: true,
        content: { 'application/json': { schema: jsonSchemaOf(r.body.schema, 'input'), ...(example.body !== undefined ? { example: example.body } : {}) } },
      };
    } else if (r.body?.kind === 'raw') {
      const file = { type: 'string', contentMediaType: r.body.contentType, description: `the file (${r.body.contentType}), at most ${Math.round(r.body.maxBytes / 1024 / 1024)} MB` };
      op.requestBody = {
        required: true,
        content: {
          [r.body.contentType]: { schema: file },
          ...Object.fromEntries((r.body.alsoTypes ?? []).map((t) => [t, { schema: { ...file, contentMediaType: t } }])),
          ...(r.body.multipartField
            ? { 'multipart/form-data': { schema: { type: 'object', required: [r.body.multipartField], properties: { [r.body.multipartField]: file, ...Object.fromEntries((r.body.multipartExtra ?? []).map((x) => [x.name, { type: 'array', items: { type: 'string', contentMediaType: file.contentMediaType }, description: x.description }])) } } } }
            : {}),
        },
      };
    }
    (paths[r.path] ??= {})[r.method] = op;
  }
  paths['/v1/mcp'] = mcpPathItem(errorResponse, errSchema);
  // Components: every registered schema the operations reference, and what those reference.
  const all = z.toJSONSchema(z.globalRegistry, { io: 'output', unrepresentable: 'any', target: 'draft-2020-12', uri: REF }).schemas as Record<string, Json>;
  const used = new Set<string>();
  refsIn(paths, used);
  const schemas: Record<string, Json> = {};
  const queue = [...used];
  while (queue.length) {
    const id = queue.pop()!;
    if (schemas[id] || !all[id]) continue;
    // A component carries no `$id`: a fragment-only one ("#/components/schemas/X") makes a
    // validator resolve the component's own $refs against it, and fail.
    const { $schema: _s, id: _id, $id: _dollarId, ...body } = all[id]!;
    schemas[id] = body;
    const inner = new Set<string>();
    refsIn(body, inner);
    for (const x of inner) if (!schemas[x]) queue.push(x);
  }
  const usedTags = new Set<string>([...routes.map((r) => r.tag), 'mcp']);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Revenue-cycle knowledge API',
      version: opts.version,
      description:
        'Versioned, cited revenue-cycle knowledge (Medicare fee schedules, NCCI edits, payer rules) over HTTP/JSON and MCP. ' +
        'Every data answer carries a `reliability` object naming the dataset versions and source files it came from. ' +
        'Date-dependent answers default to today (UTC) when no date is given.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: opts.servers,
    tags: TAGS.filter((t) => usedTags.has(t.name)),
    security: [{ ApiKey: [] }],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'kp_test_ keys on the test host, kp_live_ keys on the production host' },
        AdminSecret: { type: 'apiKey', in: 'header', name: 'X-Admin-Secret', description: 'Service authentication for customer-document routes (RCM_ADMIN_SECRET)' },
      },
    },
  };
}

/**
 * Every code a route can answer: the pipeline's own for its declaration (host, key, scope, limit,
 * validation, body, readiness) and the handler's (`errors`). The OpenAPI document lists them per
 * status, and the contract test checks every answered code is among them.
 */
export function routeErrorCodes(r: RouteDef): ErrorCode[] {
  const codes = new Set<ErrorCode>(['invalid_host', 'misdirected_request', 'validation_error', 'internal_error']);
  if (r.rateLimit !== false) codes.add('rate_limited');
  const add = (...cs: ErrorCode[]) => cs.forEach((c) => codes.add(c));
  // X-Tenant-Id naming no tenant: 404.
  if (r.auth === 'admin_secret_or_test_key') add('invalid_admin_secret', 'admin_secret_required', 'missing_api_key', 'invalid_api_key', 'key_host_mismatch', 'not_found');
  else if (r.auth !== 'public') {
    add('missing_api_key', 'invalid_api_key', 'key_host_mismatch', 'insufficient_scope');
    if (r.auth.keyType === 'live') add('live_key_required');
  }
  if (readsSnapshot(r.reads)) add('not_ready');
  // Keys, tenant state and (on PostgreSQL) the shared rate limits live in the state store.
  if (r.auth !== 'public' || r.rateLimit !== false) add('state_unavailable');
  // A body is read within the byte budget of bodies in flight (RCM_BODY_BUDGET_MB): past it, 503 service_busy with Retry-After.
  if (r.body) add('payload_too_large', 'unsupported_media_type', 'service_busy');
  add(...(r.errors ?? []));
  return [...codes];
}
