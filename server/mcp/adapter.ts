import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  isInitializeRequest,
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
import { bodyOf, statusOf } from '../errors.js';
import type { Logger } from '../logger.js';
import type { InvokeRequest, Pipeline } from '../pipeline/invoke.js';
import { scopeOf, type AuthInfo, type RouteDef } from '../route.js';
import { canCall } from '../pipeline/auth.js';
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

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  keyId: string;
  lastSeen: number;
}

export interface McpOptions {
  pipeline: Pipeline;
  routes: RouteDef[];
  serviceVersion: string;
  logger: Logger;
  now: () => Date;
  /** Open sessions the process holds at most; past it an initialize is 503 (no tenant's session is closed for another's). */
  maxSessions?: number;
  /** `RCM_MCP_SESSIONS_PER_KEY`: open sessions one API key may hold; its own idlest is closed past it. */
  sessionsPerKey?: number;
  /** `RCM_MCP_IDLE_MS`: a session idle this long is closed. */
  idleMs?: number;
}

export const MCP_DEFAULTS = { maxSessions: 1000, sessionsPerKey: 20, idleMs: 1_800_000 };

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
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly o: McpOptions) {
    this.tools = toolsFromRoutes(o.routes);
    this.byName = new Map(this.tools.map((t) => [t.name, t]));
    this.keyedTools = this.tools.filter((t) => scopeOf(t.route.auth) !== null);
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
      const fixed = RESOURCES.find((x) => x.uri === uri);
      const tpl = fixed ? undefined : TEMPLATES.map((t) => ({ t, m: t.re.exec(uri) })).find((x) => x.m);
      if (!fixed && !tpl) throw new RpcError(ErrorCode.InvalidParams, `unknown resource ${uri}`);
      const route = this.routeOf(fixed ? fixed.operationId : tpl!.t.operationId);
      const parts = fixed ? { params: {}, query: fixed.query } : { params: { [tpl!.t.param]: decodeURIComponent(tpl!.m![1]!) }, query: {} };
      const res = await this.invoke(route, caller(extra), parts);
      const text = res.body.toString('utf8');
      if (res.status >= 400) throw new RpcError(ErrorCode.InvalidRequest, text);
      return { contents: [{ uri, mimeType: 'application/json', text }] };
    }));
    return server;
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
        throw new RpcError(ErrorCode.InternalError, `internal error (request_id ${ref})`);
      }
    };
  }

  private invoke(route: RouteDef, c: CallerContext, parts: Pick<InvokeRequest, 'params' | 'query' | 'body'>) {
    return this.o.pipeline.invoke(route, { ...parts, headers: c.headers, clientIp: c.clientIp, requestId: randomUUID(), transport: 'mcp' });
  }

  private end(id: string, s: Session): void {
    this.sessions.delete(id);
    void s.transport.close();
  }

  private expired(s: Session, now: number): boolean {
    return now - s.lastSeen > (this.o.idleMs ?? MCP_DEFAULTS.idleMs);
  }

  /**
   * Room for one more session of `keyId`: sessions idle past `idleMs` are closed (any key's: they
   * have expired), then this key's own idlest while it holds `sessionsPerKey`. Another key's live
   * session is never closed: past `maxSessions` the answer is 503 instead.
   */
  private makeRoom(keyId: string): DomainError | null {
    const now = this.o.now().getTime();
    for (const [id, s] of this.sessions) if (this.expired(s, now)) this.end(id, s);
    const own = [...this.sessions.entries()].filter(([, s]) => s.keyId === keyId).sort((a, b) => a[1].lastSeen - b[1].lastSeen);
    const perKey = this.o.sessionsPerKey ?? MCP_DEFAULTS.sessionsPerKey;
    for (let i = 0; i <= own.length - perKey; i++) this.end(own[i]![0], own[i]![1]);
    if (this.sessions.size >= (this.o.maxSessions ?? MCP_DEFAULTS.maxSessions)) {
      return new DomainError('service_busy', 'the service holds as many MCP sessions as it can; try again shortly', { headers: { 'retry-after': '30' } });
    }
    return null;
  }

  /** Open sessions per key (for tests and metrics). */
  sessionCount(keyId?: string): number {
    let n = 0;
    for (const s of this.sessions.values()) if (keyId === undefined || s.keyId === keyId) n++;
    return n;
  }

  /** Handles one HTTP request to `/v1/mcp` (POST JSON-RPC, GET event stream, DELETE session end). */
  async handle(req: IncomingMessage, res: ServerResponse, body: Buffer, clientIp: string, requestId: string): Promise<number> {
    const headers: Record<string, string | undefined> = { 'x-request-id': requestId };
    for (const h of FORWARDED) {
      const v = req.headers[h];
      if (v !== undefined) headers[h] = Array.isArray(v) ? v.join(', ') : v;
    }
    let auth: AuthInfo;
    try {
      auth = await this.o.pipeline.identify({ headers, target: req.url });
    } catch (err) {
      const status = statusOf(err);
      // Say which credential this endpoint takes: without it an MCP client (the Inspector) assumes
      // OAuth and starts a discovery the service does not offer.
      if (status === 401) res.setHeader('WWW-Authenticate', 'ApiKey header="X-API-Key", realm="rcm"');
      return this.fail(res, requestId, status, bodyOf(err, requestId));
    }
    const sid = req.headers['mcp-session-id'];
    let session = typeof sid === 'string' ? this.sessions.get(sid) : undefined;
    if (session && this.expired(session, this.o.now().getTime())) {
      this.end(sid as string, session);
      session = undefined;
    }
    if (typeof sid === 'string' && !session) return this.fail(res, requestId, 404, rpcError(-32001, 'Session not found'));
    if (session && session.keyId !== auth.key_id) {
      const err = new DomainError('session_key_mismatch', 'this MCP session belongs to another API key');
      return this.fail(res, requestId, statusOf(err), bodyOf(err, requestId));
    }
    let parsed: unknown;
    if (req.method === 'POST') {
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        return this.fail(res, requestId, 400, rpcError(-32700, 'Parse error: the body is not JSON'));
      }
    }
    if (!session) {
      if (req.method !== 'POST' || !isInitializeRequest(parsed)) return this.fail(res, requestId, 400, rpcError(-32000, 'Bad Request: no valid session; send initialize first'));
      // Opening a session is a request like any other: counted by the key's rate limit, and only
      // for a key that may call at least one tool.
      const limitHeaders: Record<string, string> = {};
      try {
        await this.o.pipeline.count(auth, limitHeaders);
        if (!this.keyedTools.some((t) => canCall(t.route.auth, auth))) {
          throw new DomainError('insufficient_scope', `this key has no scope an MCP tool needs (${[...new Set(this.keyedTools.map((t) => scopeOf(t.route.auth)))].join(', ')})`);
        }
        const full = this.makeRoom(auth.key_id);
        if (full) throw full;
      } catch (err) {
        for (const [k, v] of Object.entries({ ...limitHeaders, ...(err instanceof DomainError ? err.headers : {}) })) res.setHeader(k, v);
        return this.fail(res, requestId, statusOf(err), bodyOf(err, requestId));
      }
      for (const [k, v] of Object.entries(limitHeaders)) res.setHeader(k, v);
      const server = this.newServer();
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          this.sessions.set(id, { transport, server, keyId: auth.key_id, lastSeen: this.o.now().getTime() });
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) this.sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      session = { transport, server, keyId: auth.key_id, lastSeen: 0 };
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
    return this.write(res, answer, requestId);
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
  private async write(res: ServerResponse, answer: Response, requestId: string): Promise<number> {
    const headers: Record<string, string> = { 'x-request-id': requestId };
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
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.transport.close()));
  }
}

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

const CLOSE_BRACE = Buffer.from('}');

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
