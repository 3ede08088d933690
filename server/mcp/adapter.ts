import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  isInitializeRequest,
  type JSONRPCMessage,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { randomUUID } from 'node:crypto';
import { DomainError } from '../../warehouse/errors.js';
import { hashKey, KEY_RE } from '../../warehouse/tenant_state.js';
import { bodyOf, statusOf } from '../errors.js';
import type { Logger } from '../logger.js';
import type { InvokeRequest, Pipeline } from '../pipeline/invoke.js';
import { scopeOf, type AuthInfo, type RouteDef } from '../route.js';
import { canCall } from '../pipeline/auth.js';
import { jsonDepth } from '../pipeline/input.js';
import { POOLED_SHARE, SessionTable, type SessionEntry } from './sessions.js';
import { toInvokeParts, toolResultBytes, toolsFromRoutes, type ToolDef } from './tools.js';

/**
 * A JSON-RPC error as the SDK's protocol layer sends it (`{code, message}`): the SDK's McpError
 * puts "MCP error <code>: " in front of its message, and a client's McpError adds it again, so
 * a client read "MCP error -32602: MCP error -32602: ...". The message goes out without a prefix.
 */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}


/** What a tool call needs from the HTTP request that carried it. */
interface CallerContext {
  auth: AuthInfo;
  headers: Record<string, string | undefined>;
  clientIp: string;
}

interface Session extends SessionEntry {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
}

export interface McpOptions {
  pipeline: Pipeline;
  routes: RouteDef[];
  serviceVersion: string;
  logger: Logger;
  now: () => Date;
  /**
   * Open sessions the process holds at most; the playground's session keys together hold a tenth
   * of them. Past it a new session closes the idlest one of the tenant holding the most (the
   * caller's own when it holds as many as any): see `SessionTable`.
   */
  maxSessions?: number;
  /** `RCM_MCP_SESSIONS_PER_KEY`: open sessions one API key may hold; its own idlest is closed past it. */
  sessionsPerKey?: number;
  /** `RCM_MCP_SESSIONS_PER_TENANT`: open sessions one tenant may hold over all its keys; its own idlest is closed past it. */
  sessionsPerTenant?: number;
  /** `RCM_MCP_IDLE_MS`: a session idle this long is closed. */
  idleMs?: number;
  /** `RCM_JSON_MAX_DEPTH`: how deep tool arguments may nest, as a REST JSON body (default 64). */
  jsonMaxDepth?: number;
}

export const MCP_DEFAULTS = { maxSessions: 1000, sessionsPerKey: 20, sessionsPerTenant: 200, idleMs: 1_800_000, jsonMaxDepth: 64 };

/**
 * Levels a JSON-RPC body adds above a tool's arguments (a batch, the message, its params): the
 * body may nest `RCM_JSON_MAX_DEPTH` plus these, so the arguments get as many as a REST body.
 */
const ENVELOPE_DEPTH = 3;

/** The message of an internal error as the client reads it: generic, with the reference it was logged under. */
const internalMessage = (ref: string) => `internal error (request_id ${ref})`;
const INTERNAL_MESSAGE = /^internal error \(request_id [^)]+\)$/;

const RESOURCES: { uri: string; name: string; title: string; description: string; mimeType: string; operationId: string; query: Record<string, string> }[] = [
  {
    uri: 'rcm://snapshot/datasets',
    name: 'datasets',
    title: 'Dataset versions of the served snapshot',
    description: 'Every dataset with the versions the mounted snapshot holds (GET /v1/meta).',
    mimeType: 'application/json',
    operationId: 'meta',
    query: {},
  },
  {
    uri: 'rcm://data/changes',
    name: 'changes',
    title: 'Dataset change feed',
    description: 'The newest dataset version transitions (GET /v1/data/changes?limit=200).',
    mimeType: 'application/json',
    operationId: 'listDataChanges',
    query: { limit: '200' },
  },
];

/** Resources named by a URI template: `{name}` is the route's path parameter. */
const TEMPLATES: { uriTemplate: string; name: string; title: string; description: string; mimeType: string; operationId: string; param: string; re: RegExp }[] = [
  {
    uriTemplate: 'rcm://codes/{code}',
    name: 'code',
    title: 'A CPT/HCPCS code',
    description: 'Descriptor, status and RVUs of a code across the loaded releases (GET /v1/codes/{code}).',
    mimeType: 'application/json',
    operationId: 'getCode',
    param: 'code',
    re: /^rcm:\/\/codes\/([^/]+)$/,
  },
  {
    uriTemplate: 'rcm://payers/{slug}',
    name: 'payer',
    title: 'A payer profile',
    description: 'Identity, EDI payer ids, filing rules and appeal levels of a payer, each cited (GET /v1/directory/payers/{slug}).',
    mimeType: 'application/json',
    operationId: 'getDirectoryPayer',
    param: 'slug',
    re: /^rcm:\/\/payers\/([^/]+)$/,
  },
];

const FORWARDED = ['host', 'x-api-key', 'x-admin-secret', 'x-tenant-id', 'x-request-id'];

/**
 * `/v1/mcp`: the Model Context Protocol's Streamable HTTP transport through the official SDK's
 * low-level `Server`, as a second adapter over the same pipeline as REST. Tools are generated
 * from the route table; every tool call is `pipeline.invoke` with the caller's own headers, so
 * the same key, host pairing, scopes, rate limit, 422 issues and answer bytes apply.
 */
export class McpEndpoint {
  readonly tools: ToolDef[];
  private readonly byName: Map<string, ToolDef>;
  /** Tools a key's scope opens (not the public ones): a session needs at least one. */
  private readonly keyedTools: ToolDef[];
  private readonly table: SessionTable<Session>;
  private readonly sweeper: NodeJS.Timeout;
  private readonly maxDepth: number;

  constructor(private readonly o: McpOptions) {
    this.tools = toolsFromRoutes(o.routes);
    this.byName = new Map(this.tools.map((t) => [t.name, t]));
    this.keyedTools = this.tools.filter((t) => scopeOf(t.route.auth) !== null);
    this.maxDepth = o.jsonMaxDepth ?? MCP_DEFAULTS.jsonMaxDepth;
    const maxSessions = o.maxSessions ?? MCP_DEFAULTS.maxSessions;
    const idleMs = o.idleMs ?? MCP_DEFAULTS.idleMs;
    this.table = new SessionTable<Session>(
      {
        maxSessions,
        sessionsPerKey: o.sessionsPerKey ?? MCP_DEFAULTS.sessionsPerKey,
        sessionsPerTenant: o.sessionsPerTenant ?? MCP_DEFAULTS.sessionsPerTenant,
        pooledSessions: Math.max(1, Math.floor(maxSessions * POOLED_SHARE)),
        idleMs,
      },
      (_id, s) => void s.transport.close(),
    );
    // Idle sessions and those of expired keys are closed even when no one opens a new one.
    this.sweeper = setInterval(() => this.sweep(), Math.min(idleMs, 60_000));
    this.sweeper.unref();
  }

  private routeOf(operationId: string): RouteDef {
    const r = this.o.routes.find((x) => x.operationId === operationId);
    if (!r) throw new Error(`no route ${operationId}`);
    return r;
  }

  private newServer(): Server {
    const server = new Server(
      { name: 'rcm-knowledge', version: this.o.serviceVersion },
      {
        capabilities: { tools: { listChanged: false }, resources: {} },
        instructions:
          'Revenue-cycle knowledge: Medicare fee schedules, payment composition, NCCI edits and payer rules. Each tool is one REST endpoint; its answer is the REST JSON, cited by reliability.dataset_versions.',
      },
    );
    const caller = (extra: { authInfo?: { extra?: Record<string, unknown> } }): CallerContext => {
      const c = extra.authInfo?.extra?.caller as CallerContext | undefined;
      if (!c) throw new RpcError(ErrorCode.InternalError, 'no caller context');
      return c;
    };
    server.setRequestHandler(ListToolsRequestSchema, this.guard(async (_req, extra) => {
      const c = caller(extra);
      return {
        tools: this.tools
          .filter((t) => canCall(t.route.auth, c.auth))
          .map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: t.annotations })),
      };
    }));
    server.setRequestHandler(CallToolRequestSchema, this.guard(async (req, extra) => {
      const tool = this.byName.get(req.params.name);
      if (!tool) throw new RpcError(ErrorCode.InvalidParams, `unknown tool ${req.params.name}`);
      const res = await this.invoke(tool.route, caller(extra), toInvokeParts(tool, (req.params.arguments ?? {}) as Record<string, unknown>));
      return JSON.parse(toolResultBytes(tool, res).toString('utf8')) as CallToolResult;
    }));
    server.setRequestHandler(ListResourcesRequestSchema, this.guard(async () => ({
      resources: RESOURCES.map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })),
    })));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, this.guard(async () => ({
      resourceTemplates: TEMPLATES.map(({ uriTemplate, name, title, description, mimeType }) => ({ uriTemplate, name, title, description, mimeType })),
    })));
    server.setRequestHandler(ReadResourceRequestSchema, this.guard(async (req, extra) => {
      const uri = req.params.uri;
      const found = this.resourceCall(uri);
      if (!found) throw new RpcError(ErrorCode.InvalidParams, `unknown resource ${uri}`);
      const res = await this.invoke(found.route, caller(extra), found.parts);
      const text = res.body.toString('utf8');
      if (res.status >= 400) throw new RpcError(ErrorCode.InvalidRequest, text);
      return { contents: [{ uri, mimeType: 'application/json', text }] };
    }));
    return server;
  }

  /** The route call that reads resource `uri`, or null for a URI no resource has. */
  private resourceCall(uri: string): { route: RouteDef; parts: Pick<InvokeRequest, 'params' | 'query'> } | null {
    const fixed = RESOURCES.find((x) => x.uri === uri);
    if (fixed) return { route: this.routeOf(fixed.operationId), parts: { params: {}, query: fixed.query } };
    for (const t of TEMPLATES) {
      const m = t.re.exec(uri);
      if (!m) continue;
      let value: string;
      try {
        value = decodeURIComponent(m[1]!);
      } catch {
        return null; // a malformed escape names no resource
      }
      return { route: this.routeOf(t.operationId), parts: { params: { [t.param]: value }, query: {} } };
    }
    return null;
  }

  /**
   * A handler whose unexpected failures reach the client as a generic internal error with a
   * reference, never the error's own text (which can carry internals); the error is logged.
   */
  private guard<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args: A) => {
      try {
        return await fn(...args);
      } catch (err) {
        if (err instanceof RpcError) throw err;
        const ref = randomUUID();
        this.o.logger.error({ request_id: ref, err }, 'MCP handler failed');
        throw new RpcError(ErrorCode.InternalError, internalMessage(ref));
      }
    };
  }

  private invoke(route: RouteDef, c: CallerContext, parts: Pick<InvokeRequest, 'params' | 'query' | 'body'>) {
    // A text document argument travels as the route's raw body, with the route's content type.
    const { contentType, ...rest } = parts as typeof parts & { contentType?: string };
    const headers = contentType ? { ...c.headers, 'content-type': contentType } : c.headers;
    return this.o.pipeline.invoke(route, { ...rest, headers, clientIp: c.clientIp, requestId: randomUUID(), transport: 'mcp' });
  }

  /** Closes idle sessions and those whose key expired (run periodically and before a session opens); returns how many. */
  sweep(): number {
    return this.table.sweep(this.o.now().getTime());
  }

  /** Open sessions, of one key or one tenant when asked (for tests and metrics). */
  sessionCount(filter: { keyId?: string; tenantId?: string } = {}): number {
    return this.table.count(filter);
  }

  /** Handles one HTTP request to `/v1/mcp` (POST JSON-RPC, GET event stream, DELETE session end). */
  async handle(req: IncomingMessage, res: ServerResponse, body: Buffer, clientIp: string, requestId: string): Promise<number> {
    try {
      return await this.serve(req, res, body, clientIp, requestId);
    } catch (err) {
      // Anything unexpected is logged and answered without its text, never a dropped connection.
      this.o.logger.error({ request_id: requestId, err }, 'MCP request failed');
      if (res.headersSent) {
        res.destroy();
        return 500;
      }
      return this.fail(res, requestId, 500, rpcError(ErrorCode.InternalError, internalMessage(requestId)));
    }
  }

  private async serve(req: IncomingMessage, res: ServerResponse, body: Buffer, clientIp: string, requestId: string): Promise<number> {
    const headers: Record<string, string | undefined> = { 'x-request-id': requestId };
    for (const h of FORWARDED) {
      const v = req.headers[h];
      if (v !== undefined) headers[h] = Array.isArray(v) ? v.join(', ') : v;
    }
    let auth: AuthInfo;
    try {
      auth = await this.o.pipeline.identify({ headers, target: req.url, clientIp });
    } catch (err) {
      // A key that stopped working (revoked, expired, its tenant deleted) frees its sessions as it is presented.
      const secret = headers['x-api-key'];
      if (err instanceof DomainError && err.code === 'invalid_api_key' && secret !== undefined && KEY_RE.test(secret)) this.table.closeKey(hashKey(secret));
      const status = statusOf(err);
      // Say which credential this endpoint takes: without it an MCP client (the Inspector) assumes
      // OAuth and starts a discovery the service does not offer.
      if (status === 401) res.setHeader('WWW-Authenticate', 'ApiKey header="X-API-Key", realm="rcm"');
      return this.fail(res, requestId, status, bodyOf(err, requestId));
    }
    const sid = req.headers['mcp-session-id'];
    let session = typeof sid === 'string' ? this.table.get(sid) : undefined;
    if (session && this.table.stale(session, this.o.now().getTime())) {
      this.table.delete(sid as string);
      void session.transport.close();
      session = undefined;
    }
    if (typeof sid === 'string' && !session) return this.fail(res, requestId, 404, rpcError(-32001, 'Session not found'));
    if (session && session.keyId !== auth.key_id) {
      const err = new DomainError('session_key_mismatch', 'this MCP session belongs to another API key');
      return this.fail(res, requestId, statusOf(err), bodyOf(err, requestId));
    }
    let parsed: unknown;
    if (req.method === 'POST') {
      const text = body.toString('utf8');
      // A message nested thousands deep reaches recursive code (the SDK's zod parse, a 422 that
      // echoes the value): refused as a REST body is, before any parse, and without echoing it.
      const limit = this.maxDepth + ENVELOPE_DEPTH;
      if (jsonDepth(text, limit) > limit) {
        this.o.logger.warn({ request_id: requestId, max_depth: this.maxDepth }, 'MCP body refused: nested too deep');
        const message = `JSON nested too deep: tool arguments may nest at most ${this.maxDepth} levels (RCM_JSON_MAX_DEPTH)`;
        return this.fail(res, requestId, 400, rpcError(ErrorCode.InvalidRequest, message, { type: 'json_too_deep', max_depth: this.maxDepth }));
      }
      try {
        parsed = JSON.parse(text);
      } catch {
        return this.fail(res, requestId, 400, rpcError(-32700, 'Parse error: the body is not JSON'));
      }
    }
    // RateLimit headers of this request's counts, sent with its answer.
    const limitHeaders: Record<string, string> = {};
    if (!session) {
      if (req.method !== 'POST' || !isInitializeRequest(parsed)) return this.fail(res, requestId, 400, rpcError(-32000, 'Bad Request: no valid session; send initialize first'));
      // Opening a session is a request like any other: counted by the key's rate limit, and only
      // for a key that may call at least one tool.
      let entry: Omit<SessionEntry, 'lastSeen'>;
      try {
        await this.o.pipeline.count(auth, limitHeaders);
        if (!this.keyedTools.some((t) => canCall(t.route.auth, auth))) {
          throw new DomainError('insufficient_scope', `this key has no scope an MCP tool needs (${[...new Set(this.keyedTools.map((t) => scopeOf(t.route.auth)))].join(', ')})`);
        }
        const secret = headers['x-api-key']!;
        // The key's end (a playground key's hour) closes its sessions at the sweep.
        const expires = (await this.o.pipeline.keys.authenticate(secret))?.expires_at;
        entry = { keyId: auth.key_id, keyHash: hashKey(secret), tenantId: auth.tenant_id, pooled: auth.ephemeral === true, expiresAt: expires ? Date.parse(expires) : null };
        if (!this.table.makeRoom(entry, this.o.now().getTime())) {
          throw new DomainError('service_busy', 'the service holds as many MCP sessions as it can; try again shortly', { headers: { 'retry-after': '30' } });
        }
      } catch (err) {
        for (const [k, v] of Object.entries({ ...limitHeaders, ...(err instanceof DomainError ? err.headers : {}) })) res.setHeader(k, v);
        return this.fail(res, requestId, statusOf(err), bodyOf(err, requestId));
      }
      const server = this.newServer();
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => this.table.set(id, opened),
      });
      const opened: Session = { ...entry, transport, server, lastSeen: this.o.now().getTime() };
      transport.onclose = () => {
        if (transport.sessionId && this.table.get(transport.sessionId) === opened) this.table.delete(transport.sessionId);
      };
      this.redactInternalErrors(transport);
      await server.connect(transport);
      session = opened;
    } else if (req.method === 'POST') {
      // Every request of an open session counts against the key's rate limit, as a tool call does
      // (a tool call and a resource read are counted by the pipeline they go through).
      try {
        for (let n = this.adapterCounted(parsed); n > 0; n--) await this.o.pipeline.count(auth, limitHeaders);
      } catch (err) {
        for (const [k, v] of Object.entries({ ...limitHeaders, ...(err instanceof DomainError ? err.headers : {}) })) res.setHeader(k, v);
        return this.fail(res, requestId, statusOf(err), bodyOf(err, requestId));
      }
    }
    session.lastSeen = this.o.now().getTime();
    const direct = req.method === 'POST' ? this.directCall(req, parsed) : null;
    if (direct) {
      const out = await this.invoke(direct.tool.route, { auth, headers, clientIp }, toInvokeParts(direct.tool, direct.args));
      const body = Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(direct.id)},"result":`), toolResultBytes(direct.tool, out), CLOSE_BRACE]);
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': sid as string, 'content-length': String(body.length), 'x-request-id': requestId });
      res.end(body);
      return 200;
    }
    const authInfo = { token: '', clientId: auth.key_id, scopes: auth.scopes, extra: { caller: { auth, headers, clientIp } satisfies CallerContext } };
    // The SDK's web-standard transport takes a Request and the already-parsed body; the body was
    // read (and bounded) by the HTTP adapter, so only the headers cross over.
    const webHeaders = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) webHeaders.set(k, Array.isArray(v) ? v.join(', ') : v);
    const answer = await session.transport.handleRequest(new Request(`http://mcp.local${req.url ?? '/v1/mcp'}`, { method: req.method, headers: webHeaders }), {
      authInfo,
      parsedBody: parsed,
    });
    return this.write(res, answer, requestId, limitHeaders);
  }

  /**
   * How many requests of a POSTed message (or batch) this adapter counts against the key's rate
   * limit: every JSON-RPC request (not a notification or a response), except a call of a known
   * tool and a read of a known resource, which the pipeline counts as it runs their route.
   */
  private adapterCounted(m: unknown): number {
    let n = 0;
    for (const x of Array.isArray(m) ? m : [m]) {
      if (!isRecord(x) || typeof x.method !== 'string' || x.id === undefined) continue;
      const p = isRecord(x.params) ? x.params : {};
      if (x.method === 'tools/call' && typeof p.name === 'string' && this.byName.has(p.name)) continue;
      if (x.method === 'resources/read' && typeof p.uri === 'string' && this.resourceCall(p.uri)) continue;
      n++;
    }
    return n;
  }

  /**
   * Every internal error (-32603) a session's server sends goes out with a generic message and a
   * reference, its text logged: the SDK answers one itself when its zod parse of a request's
   * params fails (before any handler, so `guard` never sees it), with zod's issue list as text.
   */
  private redactInternalErrors(transport: WebStandardStreamableHTTPServerTransport): void {
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options) => {
      if ('error' in message && message.error.code === ErrorCode.InternalError && !INTERNAL_MESSAGE.test(message.error.message)) {
        const ref = randomUUID();
        this.o.logger.error({ request_id: ref, rpc_id: message.id, detail: message.error.message.slice(0, 2000) }, 'MCP internal error');
        return send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InternalError, message: internalMessage(ref) } }, options);
      }
      return send(message, options);
    };
  }

  /**
   * A `tools/call` of an open session that the SDK's transport would accept and hand to the tool
   * handler unchanged, answered here without the transport: the same checks in the same words
   * (Accept, Content-Type with the SDK's own media-type test, a supported Mcp-Protocol-Version,
   * one JSON-RPC request naming a known tool, no task), the same pipeline call and the same
   * result (`toolResultBytes`). Measured: the transport's per-call Request, Response and stream
   * objects, its zod parses of the message and the result, and a chunked write cost 300 us of
   * server CPU a call against 20 us for the same REST call (`npm run bench -- mcp`). Anything
   * else (initialize, lists, resources, batches, errors, GET and DELETE) goes to the SDK.
   */
  private directCall(req: IncomingMessage, m: unknown): { id: string | number; tool: ToolDef; args: Record<string, unknown> } | null {
    const accept = req.headers.accept;
    if (typeof accept !== 'string' || !accept.includes('application/json') || !accept.includes('text/event-stream')) return null;
    if (!isJsonContentType(req.headers['content-type'] ?? null)) return null;
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) return null;
    if (!isRecord(m) || m.jsonrpc !== '2.0' || m.method !== 'tools/call') return null;
    const id = m.id;
    if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))) return null;
    const p = m.params;
    if (!isRecord(p) || typeof p.name !== 'string' || 'task' in p) return null;
    const args = p.arguments;
    if (args !== undefined && !isRecord(args)) return null;
    const tool = this.byName.get(p.name);
    return tool ? { id, tool, args: args ?? {} } : null;
  }

  /** Writes a web Response (a JSON answer, or the event stream of GET) to the Node response. */
  private async write(res: ServerResponse, answer: Response, requestId: string, extra: Record<string, string> = {}): Promise<number> {
    const headers: Record<string, string> = { ...extra, 'x-request-id': requestId };
    answer.headers.forEach((v, k) => (headers[k] = v));
    res.writeHead(answer.status, headers);
    // An event stream's headers leave at once: a client waits for them before it reads events.
    if ((headers['content-type'] ?? '').startsWith('text/event-stream')) res.flushHeaders();
    if (!answer.body) {
      res.end();
      return answer.status;
    }
    if ((headers['content-type'] ?? '').startsWith('text/event-stream')) {
      const stream = Readable.fromWeb(answer.body as unknown as WebReadableStream);
      res.on('close', () => stream.destroy());
      stream.pipe(res);
      return answer.status;
    }
    res.end(await answer.text());
    return answer.status;
  }

  private fail(res: ServerResponse, requestId: string, status: number, body: unknown): number {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId });
    res.end(JSON.stringify(body));
    return status;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all(this.table.drain().map((s) => s.transport.close()));
  }
}

/** A JSON-RPC error answered for no particular request (`id: null`): the HTTP request itself was refused. */
const rpcError = (code: number, message: string, data?: Record<string, unknown>) => ({ jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id: null });

const CLOSE_BRACE = Buffer.from('}');

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
