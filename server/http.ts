import Koa from 'koa';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { DomainError, NotFoundError } from '../warehouse/errors.js';
import { Dispatcher } from './dispatch.js';
import { bodyOf, statusOf } from './errors.js';
import type { McpEndpoint } from './mcp/adapter.js';
import { pageAt } from './pages/index.js';
import type { InvokeRequest, Pipeline } from './pipeline/invoke.js';
import type { RouteDef } from './route.js';

export interface HttpOptions {
  /** `RCM_TRUST_PROXY`: take the client address from the first `X-Forwarded-For` hop. */
  trustProxy: boolean;
  /** `/v1/mcp`, the second adapter over the pipeline. */
  mcp?: McpEndpoint;
}

export const MCP_PATH = '/v1/mcp';
const MCP_METHODS = ['GET', 'POST', 'DELETE'];

const NO_BODY_LIMIT = 64 * 1024;
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Reads the body, stopping once it passes `limit` (the pipeline then answers 413 and the
 * connection is closed rather than draining whatever else the client sends).
 */
function readBody(req: NodeJS.ReadableStream, limit: number): Promise<{ bytes: Buffer; overLimit: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (overLimit: boolean) => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
      resolve({ bytes: Buffer.concat(chunks), overLimit });
    };
    const onData = (c: Buffer) => {
      size += c.length;
      chunks.push(c);
      if (size > limit) {
        req.pause();
        done(true);
      }
    };
    const onEnd = () => done(false);
    const onError = (e: Error) => {
      req.off('data', onData).off('end', onEnd);
      reject(e);
    };
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

function clientIp(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const xff = req.headers['x-forwarded-for'];
    const first = (Array.isArray(xff) ? xff[0] : xff)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? 'unknown';
}

const requestIdOf = (req: IncomingMessage): string => {
  const inbound = req.headers['x-request-id'];
  return typeof inbound === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(inbound) ? inbound : randomUUID();
};

/** How many Host headers a request carried (`rawHeaders` alternates names and values). */
function hostCount(raw: string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') n++;
  return n;
}

/** The path and query of a request target, origin-form (`/v1/x?a=1`) or absolute-form (`http://host/v1/x?a=1`). */
function splitTarget(url: string): { path: string; rawQuery: string } {
  let rest = url;
  if (!rest.startsWith('/')) {
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(rest);
    rest = m ? rest.slice(m[0].length) || '/' : rest;
  }
  const q = rest.indexOf('?');
  return q === -1 ? { path: rest, rawQuery: '' } : { path: rest.slice(0, q), rawQuery: rest.slice(q + 1) };
}

/**
 * The request listener: a route of the table, and `/v1/mcp`, go straight from Node's request to
 * the pipeline and back (Koa's context objects cost more per request than the whole pipeline,
 * measured in `npm run bench`), whatever the target's form; only pages and unmatched paths go
 * through the Koa app.
 */
export function createHttpHandler(pipeline: Pipeline, routes: RouteDef[], opts: HttpOptions): RequestListener {
  const koa = createHttpApp(pipeline, routes).callback();
  const dispatcher = new Dispatcher(routes);
  return (req, res) => {
    // Node keeps the first of two Host headers; which host a request addresses decides test or
    // live data, so an ambiguous one is refused rather than guessed.
    if (hostCount(req.rawHeaders) > 1) {
      writeError(res, new DomainError('invalid_host', 'the request carries more than one Host header'), requestIdOf(req));
      return;
    }
    const { path, rawQuery } = splitTarget(req.url ?? '/');
    if (path === MCP_PATH && opts.mcp && MCP_METHODS.includes(req.method ?? '')) {
      serveMcp(pipeline, opts.mcp, req, res, opts).catch((e: unknown) => {
        res.destroy(e as Error);
      });
      return;
    }
    const m = path === MCP_PATH ? null : dispatcher.match(req.method ?? 'GET', path);
    if (m === null || 'allowed' in m) {
      void koa(req, res);
      return;
    }
    invokeRoute(pipeline, m.route, m.params, req, res, rawQuery, opts).catch((e: unknown) => {
      res.destroy(e as Error);
    });
  };
}

/**
 * Answers an error raised before the pipeline (two Host headers, an oversized MCP body) through the
 * one error model: its status from the status table, its body from `bodyOf`, and the connection
 * closed (what follows on it cannot be trusted). Returns the status.
 */
function writeError(res: ServerResponse, err: DomainError, requestId: string): number {
  const status = statusOf(err);
  const body = JSON.stringify(bodyOf(err, requestId));
  res.writeHead(status, { ...err.headers, 'content-type': JSON_TYPE, 'content-length': String(Buffer.byteLength(body)), connection: 'close', 'x-request-id': requestId }).end(body);
  return status;
}

/** `/v1/mcp`: the body read and bounded here, the rest (each answer with its X-Request-Id) is the MCP adapter's. */
async function serveMcp(pipeline: Pipeline, mcp: McpEndpoint, req: IncomingMessage, res: ServerResponse, opts: HttpOptions): Promise<void> {
  const started = pipeline.started();
  const requestId = requestIdOf(req);
  const { bytes, overLimit } = req.method === 'POST' ? await readBody(req, 1 << 20) : { bytes: EMPTY, overLimit: false };
  if (overLimit) {
    const status = writeError(res, new DomainError('payload_too_large', 'request body exceeds 1048576 bytes'), requestId);
    pipeline.record('http', req.method ?? 'POST', MCP_PATH, status, started, requestId);
    return;
  }
  const status = await mcp.handle(req, res, bytes, clientIp(req, opts.trustProxy), requestId);
  pipeline.record('http', req.method ?? 'POST', MCP_PATH, status, started, requestId);
}

async function invokeRoute(pipeline: Pipeline, route: RouteDef, params: Record<string, string>, req: IncomingMessage, res: ServerResponse, rawQuery: string, opts: HttpOptions): Promise<void> {
  const requestId = requestIdOf(req);
  const limit = route.body ? (route.body.maxBytes ?? 1 << 20) : NO_BODY_LIMIT;
  const hasBody = Number(req.headers['content-length'] || 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  const { bytes, overLimit } = hasBody ? await readBody(req, limit) : { bytes: EMPTY, overLimit: false };
  const out = await pipeline.invoke(route, new HttpCall(params, rawQuery, req, requestId, clientIp(req, opts.trustProxy), bytes));
  // One writeHead with every header (the pipeline hands a fresh object per call): cheaper than a
  // setHeader each, which keeps a second header map.
  const h = out.headers;
  h['X-Request-Id'] = requestId;
  h['Content-Length'] = String(out.body.length);
  if (overLimit) h.Connection = 'close';
  res.writeHead(out.status, h);
  res.end(req.method === 'HEAD' ? undefined : out.body);
}

const EMPTY = Buffer.alloc(0);

/**
 * One HTTP call as the pipeline takes it. A class (a getter in an object literal takes V8's slow
 * path each request): the query is parsed on first use, so a repeated lookup answered from the
 * memo keyed by the target never parses it.
 */
class HttpCall implements InvokeRequest {
  readonly transport = 'http' as const;
  readonly headers: Record<string, string | undefined>;
  readonly target: string;
  readonly body: { bytes: Buffer };
  private parsed?: Record<string, string | string[]>;

  constructor(
    readonly params: Record<string, string>,
    private readonly rawQuery: string,
    req: IncomingMessage,
    readonly requestId: string,
    readonly clientIp: string,
    bytes: Buffer,
  ) {
    // Node joins repeated headers with ', ' already; only set-cookie stays a list (never read).
    this.headers = req.headers as Record<string, string | undefined>;
    this.target = req.url ?? '/';
    this.body = { bytes };
  }

  get query(): Record<string, string | string[]> {
    return (this.parsed ??= this.rawQuery ? (parseQuery(this.rawQuery) as Record<string, string | string[]>) : {});
  }
}

/**
 * The Koa app behind the listener: the pages (`/docs`, `/playground`) and the 404/405 answers of
 * paths no route matches. Routes of the table and `/v1/mcp` never reach it.
 */
function createHttpApp(pipeline: Pipeline, routes: RouteDef[]): Koa {
  const app = new Koa();
  app.proxy = false;
  app.silent = true;
  const dispatcher = new Dispatcher(routes);
  app.use(async (ctx) => {
    const started = pipeline.started();
    const requestId = requestIdOf(ctx.req);
    ctx.set('X-Request-Id', requestId);
    const page = ctx.method === 'GET' || ctx.method === 'HEAD' ? pageAt(ctx.path) : undefined;
    if (page) {
      for (const [k, v] of Object.entries(page.headers)) ctx.set(k, v);
      ctx.body = page.body;
      pipeline.record('http', ctx.method, ctx.path, 200, started, requestId);
      return;
    }
    const m = dispatcher.match(ctx.method, ctx.path);
    const allowed = m && 'allowed' in m ? m.allowed : null;
    const err = allowed
      ? new DomainError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path} (allowed: ${allowed.join(', ')})`, { headers: { allow: allowed.join(', ') } })
      : new NotFoundError(`no route for ${ctx.method} ${ctx.path}`);
    ctx.status = statusOf(err);
    for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
    ctx.type = JSON_TYPE;
    ctx.body = bodyOf(err, requestId);
    pipeline.record('http', ctx.method, 'unmatched', ctx.status, started, requestId);
  });
  return app;
}
