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
import type { BodyBudget } from './pipeline/body_budget.js';
import { DEFAULTS } from './defaults.js';

export interface HttpOptions {
  /** `RCM_TRUST_PROXY`: take the client address from the first `X-Forwarded-For` hop. */
  trustProxy: boolean;
  /** The request-body bytes held at once (`RCM_BODY_BUDGET_MB`); unbounded when absent (tests of other things). */
  bodies?: BodyBudget;
  /** `RCM_BODY_TIMEOUT_MS`: a body not complete in this time is 408 and its connection closed. */
  bodyTimeoutMs?: number;
  /** `/v1/mcp`, the second adapter over the pipeline. */
  mcp?: McpEndpoint;
  /** `RCM_WRITE_TIMEOUT_MS`: a streamed answer whose reader takes no byte for this long is cut (its connection closed). */
  writeTimeoutMs?: number;
}


/**
 * A streamed answer's writer: each part goes to the socket and the producer waits while the
 * socket's buffer is full (`drain`), so the answer is held at the reader's pace, one window at a
 * time. A reader that takes nothing for `timeoutMs` is cut (the socket destroyed); a closed
 * connection rejects the pending write, so the producer stops and lets go of what it held.
 */
export function socketWriter(res: ServerResponse, timeoutMs: number): (part: Buffer) => Promise<void> {
  return (part) =>
    new Promise<void>((resolve, reject) => {
      if (res.destroyed || res.writableEnded) return reject(new Error('the connection closed before the answer was written'));
      if (res.write(part)) return resolve();
      let timer: NodeJS.Timeout | undefined;
      const done = (err?: Error) => {
        clearTimeout(timer);
        res.off('drain', onDrain);
        res.off('close', onClose);
        if (err) reject(err);
        else resolve();
      };
      const onDrain = () => done();
      const onClose = () => done(new Error('the connection closed before the answer was written'));
      res.on('drain', onDrain);
      res.on('close', onClose);
      timer = setTimeout(() => {
        res.destroy();
        done(new Error(`the reader took no bytes for ${timeoutMs} ms (RCM_WRITE_TIMEOUT_MS): the answer was cut`));
      }, timeoutMs);
      timer.unref();
    });
}

export const MCP_PATH = '/v1/mcp';

/**
 * Header lines a request may carry (`server.maxHeadersCount`): Node silently drops every line past
 * its limit, so a second Host or an X-API-Key after 1,000 fillers would go unseen. A request that
 * reaches the limit is refused (431) instead.
 */
export const MAX_HEADERS = 200;
const MCP_METHODS = ['GET', 'POST', 'DELETE'];

const NO_BODY_LIMIT = 64 * 1024;
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Reads the body, stopping once it passes `limit` (the pipeline then answers 413 and the
 * connection is closed rather than draining whatever else the client sends), or failing with 408
 * when it is not complete within `timeoutMs` (a client trickling bytes holds nothing for long).
 */
function readBody(req: NodeJS.ReadableStream, limit: number, timeoutMs = 0): Promise<{ bytes: Buffer; overLimit: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = timeoutMs > 0 ? setTimeout(() => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
      req.pause();
      reject(new DomainError('request_timeout', `the request body did not arrive within ${timeoutMs} ms (RCM_BODY_TIMEOUT_MS)`));
    }, timeoutMs) : undefined;
    const done = (overLimit: boolean) => {
      clearTimeout(timer);
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
      clearTimeout(timer);
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
    if (req.rawHeaders.length / 2 >= MAX_HEADERS) {
      writeError(res, new DomainError('headers_too_large', `a request carries fewer than ${MAX_HEADERS} header lines`), requestIdOf(req));
      return;
    }
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
  let release = () => undefined as void;
  let read: { bytes: Buffer; overLimit: boolean };
  try {
    // The JSON-RPC body (at most 1 MB) within the same byte budget and time limit as a route's.
    const declared = Number(req.headers['content-length'] || 0);
    if (req.method === 'POST' && opts.bodies) release = opts.bodies.reserve(clientIp(req, opts.trustProxy), Math.min(declared > 0 ? declared : 1 << 20, (1 << 20) + 1));
    read = req.method === 'POST' ? await readBody(req, 1 << 20, opts.bodyTimeoutMs) : { bytes: EMPTY, overLimit: false };
  } catch (e) {
    release();
    if (!(e instanceof DomainError)) throw e;
    pipeline.record('http', req.method ?? 'POST', MCP_PATH, writeError(res, e, requestId), started, requestId);
    return;
  }
  const { bytes, overLimit } = read;
  if (overLimit) {
    const status = writeError(res, new DomainError('payload_too_large', 'request body exceeds 1048576 bytes'), requestId);
    pipeline.record('http', req.method ?? 'POST', MCP_PATH, status, started, requestId);
    return;
  }
  try {
    const status = await mcp.handle(req, res, bytes, clientIp(req, opts.trustProxy), requestId);
    pipeline.record('http', req.method ?? 'POST', MCP_PATH, status, started, requestId);
  } finally {
    release();
  }
}

async function invokeRoute(pipeline: Pipeline, route: RouteDef, params: Record<string, string>, req: IncomingMessage, res: ServerResponse, rawQuery: string, opts: HttpOptions): Promise<void> {
  const requestId = requestIdOf(req);
  const limit = route.body ? (route.body.maxBytes ?? 1 << 20) : NO_BODY_LIMIT;
  const declared = Number(req.headers['content-length'] || 0);
  const hasBody = declared > 0 || req.headers['transfer-encoding'] !== undefined;
  const call = new HttpCall(params, rawQuery, req, requestId, clientIp(req, opts.trustProxy), hasBody ? { limit, declared, opts } : null);
  try {
    const out = await pipeline.invoke(route, call);
    // One writeHead with every header (the pipeline hands a fresh object per call): cheaper than a
    // setHeader each, which keeps a second header map.
    const h = out.headers;
    h['X-Request-Id'] = requestId;
    // A streamed answer's length is not known before it is written: chunked.
    if (!out.stream) h['Content-Length'] = String(out.body.length);
    // A body not read (refused on its headers), cut at its limit or timed out: the rest of it is
    // still on the connection, which cannot carry another request.
    if (hasBody && !call.bodyComplete) h.Connection = 'close';
    res.writeHead(out.status, h);
    if (out.stream) {
      if (req.method === 'HEAD') {
        out.stream.cancel();
        res.end();
      } else {
        try {
          await out.stream.pipe(socketWriter(res, opts.writeTimeoutMs ?? DEFAULTS.writeTimeoutMs));
          res.end();
        } catch {
          // Cut mid-answer (the reader left or stalled, or the producer failed): the client sees an
          // incomplete chunked body, never a success.
          res.destroy();
        }
      }
    } else res.end(req.method === 'HEAD' ? undefined : out.body);
  } finally {
    call.release();
  }
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
  body: { bytes: Buffer } = { bytes: EMPTY };
  /** True once the whole body was read (or there was none). */
  bodyComplete: boolean;
  private parsed?: Record<string, string | string[]>;
  private releaseBudget: () => void = () => undefined;

  constructor(
    readonly params: Record<string, string>,
    private readonly rawQuery: string,
    private readonly req: IncomingMessage,
    readonly requestId: string,
    readonly clientIp: string,
    private readonly pending: { limit: number; declared: number; opts: HttpOptions } | null,
  ) {
    // Node joins repeated headers with ', ' already; only set-cookie stays a list (never read).
    this.headers = req.headers as Record<string, string | undefined>;
    this.target = req.url ?? '/';
    this.bodyComplete = pending === null;
  }

  /** Streams the body in, within the byte budget (declared length, else the route's limit) and the time limit. */
  async loadBody(): Promise<void> {
    const p = this.pending;
    if (p === null || this.bodyComplete) return;
    // A body declared past the route's limit is refused unread (413, the connection closed).
    if (p.declared > p.limit) throw new DomainError('payload_too_large', `request body exceeds ${p.limit} bytes`);
    if (p.opts.bodies) this.releaseBudget = p.opts.bodies.reserve(this.clientIp, Math.min(p.declared > 0 ? p.declared : p.limit, p.limit + 1));
    const { bytes, overLimit } = await readBody(this.req, p.limit, p.opts.bodyTimeoutMs);
    this.body = { bytes };
    this.bodyComplete = !overLimit;
  }

  /** Gives the body's reservation back once the answer is sent. */
  release(): void {
    this.releaseBudget();
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
