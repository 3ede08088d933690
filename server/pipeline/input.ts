import type { z } from 'zod';
import { LRUCache } from 'lru-cache';
import { DomainError, ValidationError, type Issue } from '../../warehouse/errors.js';
import type { MountedSnapshot } from '../../warehouse/snapshot.js';
import { approxBytes } from '../../warehouse/sizeof.js';
import type { AuthInfo, RawBody, RawInput, RouteDef } from '../route.js';
import { multipartFile } from './multipart.js';
import type { Logger } from '../logger.js';
import { checkQueryShape, toIssues } from '../validation.js';

/** One call's input as a transport hands it over (the fields of `InvokeRequest` the input uses). */
export interface InputRequest {
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  headers: Record<string, string | undefined>;
  target?: string;
  body?: { bytes: Buffer } | { value: unknown };
}

/** Validated path, query and body, what `resolve` found, and the answer-cache form once computed. */
export interface ValidInput {
  params: unknown;
  query: unknown;
  body: unknown;
  /** A raw body's other multipart parts by name (`RawBody.multipartExtra`). */
  parts?: Record<string, Buffer[]>;
  resolved: unknown;
  cacheKey?: string;
  /**
   * The memoised form of a JSON body: its answer key, path and query only (`body` and `resolved`
   * are not kept); `InputDecoder.complete` decodes the body again when its answer is not cached.
   */
  keyOnly?: true;
}

const DEFAULT_JSON_MAX = 1 << 20;
const NO_BODY = Symbol('no body');

/** Every object key anywhere in `v` (validated values: plain objects and arrays). */
function keysOf(v: unknown, out: Set<string>): void {
  if (v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (const x of v) keysOf(x, out);
    return;
  }
  for (const k of Object.keys(v)) {
    out.add(k);
    keysOf((v as Record<string, unknown>)[k], out);
  }
}

/** JSON with every object's keys sorted, through sorted copies (only for a body with a `__proto__` key, see below). */
const sortedCopy = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(sortedCopy) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortedCopy((v as Record<string, unknown>)[k])])) : v;

/**
 * `JSON.stringify(v)` with every object's keys sorted: two bodies that differ only in field order
 * are one question. Written by `JSON.stringify` itself with the sorted list of every key in `v` as
 * its property list (which orders each object's members by the list): 11 us for a 20-line claim,
 * where sorted copies of every object took 18 us and a string built member by member 20 us (its
 * many-piece string then cost the cache lookup another 10 us to flatten). A listed key an object
 * lacks is read from its prototype, where only `__proto__` is not a function (functions are left
 * out), so a body with that key takes the sorted copies.
 */
function canonicalJson(v: unknown): string {
  const keys = new Set<string>();
  keysOf(v, keys);
  return keys.has('__proto__') ? JSON.stringify(sortedCopy(v)) : JSON.stringify(v, [...keys].sort());
}

/** The validated input as a cache key: path and query, and the body (keys sorted) of a cached POST read. */
export const inputKey = (input: ValidInput): string =>
  input.body === undefined ? JSON.stringify([input.params ?? null, input.query ?? null]) : canonicalJson([input.params ?? null, input.query ?? null, input.body]);

/**
 * Turns a raw call into a validated input: the body decoded once, path, query and body parsed by
 * the route's schemas, then the route's `resolve` step (even when the schemas failed), with every
 * issue of all of them in one 422.
 */
/** Largest JSON body whose validated form is memoised (a cached route's body, e.g. one stay to price). */
const MEMO_BODY_MAX = 4096;

export class InputDecoder {
  constructor(
    private readonly maxDepth: number,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  /**
   * Validated inputs of body-less requests, and of cached routes' JSON bodies, by their raw form
   * (route, snapshot, params, query, body bytes): a repeated lookup skips the schemas and `resolve`. Bounded by bytes like the answer cache; only
   * successes are kept, and the snapshot id is in the key because `resolve` reads the snapshot.
   */
  private readonly validated = new LRUCache<string, ValidInput>({
    maxSize: 16 * 1024 * 1024,
    sizeCalculation: (v, k) => k.length * 2 + approxBytes(v),
  });

  async decode(route: RouteDef, req: InputRequest, snapshot: MountedSnapshot | null, auth: AuthInfo | null): Promise<ValidInput> {
    const bodyBytes = req.body && 'bytes' in req.body ? req.body.bytes : undefined;
    // A cached route's JSON body is part of its input, so the same bytes validate the same way
    // (a read such as pricing a stay); any other route with a body is decoded every time.
    const memoBody = route.cache && route.body?.kind === 'json' && bodyBytes !== undefined && bodyBytes.length <= MEMO_BODY_MAX;
    if (!memoBody && (route.body || (req.body && !(bodyBytes && bodyBytes.length === 0)))) return this.decodeOnce(route, req, snapshot, auth);
    // An origin-form HTTP target decides params and query alone; other callers key by their parts.
    const raw = req.target !== undefined && req.target.startsWith('/') ? req.target : `${JSON.stringify(req.params)}\u0000${JSON.stringify(req.query)}`;
    const key = `${route.operationId}\u0000${snapshot?.id ?? ''}\u0000${raw}${memoBody ? `\u0000${req.headers['content-type'] ?? ''}\u0000${bodyBytes.toString('latin1')}` : ''}`;
    const hit = this.validated.get(key);
    if (hit) return hit;
    const input = await this.decodeOnce(route, req, snapshot, auth);
    // A cached route's answer key, computed once with the memo entry (and counted in its size).
    if (route.cache) input.cacheKey = inputKey(input);
    // A body is kept as its answer key alone: a repeat is answered from the answer cache without
    // the schemas, and a stream of distinct claims does not keep every validated claim alive
    // (tens of objects each, which the garbage collector then copied: measured 10-15% of a new
    // claim's time). On the rare repeat whose answer is gone, the body is decoded again.
    this.validated.set(key, memoBody ? { params: input.params, query: input.query, body: undefined, resolved: undefined, cacheKey: input.cacheKey, keyOnly: true } : input);
    return input;
  }

  /** `input` with its body and resolution, decoding them again when only its answer key was kept. */
  async complete(route: RouteDef, req: InputRequest, snapshot: MountedSnapshot | null, auth: AuthInfo | null, input: ValidInput): Promise<ValidInput> {
    return input.keyOnly ? { ...(await this.decodeOnce(route, req, snapshot, auth)), cacheKey: input.cacheKey } : input;
  }

  private async decodeOnce(route: RouteDef, req: InputRequest, snapshot: MountedSnapshot | null, auth: AuthInfo | null): Promise<ValidInput> {
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
    let parts: Record<string, Buffer[]> | undefined;
    let decoded: unknown;
    const b = route.body;
    if (b?.kind === 'json') {
      decoded = jsonBody(req, b.maxBytes ?? DEFAULT_JSON_MAX, issues, this.maxDepth);
      if (issues.some((i) => i.type === 'json_too_deep')) this.logger.warn({ route: route.operationId, max_depth: this.maxDepth }, 'JSON body refused: nested too deep');
      if (decoded !== NO_BODY) body = parse(b.schema, 'body', decoded);
      else decoded = undefined;
    } else if (b?.kind === 'raw') {
      ({ bytes: body, parts } = await rawBody(req, b));
    } else if (req.body && 'bytes' in req.body && req.body.bytes.length > 0) {
      issues.push({ loc: ['body'], msg: 'This endpoint takes no request body', type: 'extra_forbidden' });
    }
    let resolved: unknown;
    if (route.resolve) {
      const raw: RawInput = { auth, params: req.params, query: req.query, body: decoded, header: (n) => req.headers[n.toLowerCase()] };
      const r = await route.resolve(raw, snapshot);
      issues.push(...r.issues);
      resolved = r.value;
    }
    if (issues.length) throw new ValidationError(issues);
    return { params, query, body, resolved, ...(parts ? { parts } : {}) };
  }
}

/**
 * How deeply `text` nests arrays and objects, counted without parsing (brackets inside strings
 * ignored), so a body nested thousands of levels never reaches the parser or the schemas, whose
 * recursion it would exhaust. Stops counting past `limit`.
 */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** The nesting depth of a decoded value (MCP tool arguments), stopping past `limit`. */
function valueDepth(v: unknown, limit: number, d = 0): number {
  if (d > limit || v === null || typeof v !== 'object') return d;
  let max = d + 1;
  for (const x of Array.isArray(v) ? v : Object.values(v)) if ((max = Math.max(max, valueDepth(x, limit, d + 1))) > limit) break;
  return max;
}

const tooDeep = (limit: number): Issue => ({ loc: ['body'], msg: `JSON nested deeper than ${limit} levels (RCM_JSON_MAX_DEPTH)`, type: 'json_too_deep', ctx: { max_depth: limit } });

/** The decoded JSON body (undefined when empty), or NO_BODY when it is not JSON or too deep (the issue is added). */
function jsonBody(req: InputRequest, maxBytes: number, issues: Issue[], maxDepth: number): unknown {
  if (!req.body) return undefined;
  if ('value' in req.body) {
    if (valueDepth(req.body.value, maxDepth) > maxDepth) {
      issues.push(tooDeep(maxDepth));
      return NO_BODY;
    }
    return req.body.value;
  }
  const bytes = req.body.bytes;
  if (bytes.length > maxBytes) throw new DomainError('payload_too_large', `request body exceeds ${maxBytes} bytes`);
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (bytes.length > 0 && type !== '' && type !== 'application/json' && !type.endsWith('+json')) {
    throw new DomainError('unsupported_media_type', `send the body as application/json (got ${type})`);
  }
  const text = bytes.toString('utf8');
  if (text.trim() === '') return undefined;
  if (jsonDepth(text, maxDepth) > maxDepth) {
    issues.push(tooDeep(maxDepth));
    return NO_BODY;
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    issues.push({ loc: ['body'], msg: `JSON decode error: ${(e as Error).message}`, type: 'json_invalid', input: text.slice(0, 200) });
    return NO_BODY;
  }
}

async function rawBody(req: InputRequest, b: RawBody): Promise<{ bytes: Buffer; parts?: Record<string, Buffer[]> }> {
  const { contentType, maxBytes } = b;
  let bytes = req.body && 'bytes' in req.body ? req.body.bytes : Buffer.alloc(0);
  if (bytes.length > maxBytes) throw new DomainError('payload_too_large', `request body exceeds ${maxBytes} bytes`);
  const header = req.headers['content-type'] ?? '';
  const type = header.split(';')[0]!.trim().toLowerCase();
  let parts: Record<string, Buffer[]> | undefined;
  if (type === 'multipart/form-data' && b.multipartField) {
    ({ bytes, parts } = await multipartFile(bytes, header, b.multipartField, (b.multipartExtra ?? []).map((x) => x.name)));
  } else if (type !== contentType && !(b.alsoTypes ?? []).includes(type)) {
    throw new DomainError('unsupported_media_type', `send the body as ${[contentType, ...(b.alsoTypes ?? [])].join(' or ')}${b.multipartField ? ` or multipart/form-data (field '${b.multipartField}')` : ''} (got ${type || 'no content type'})`);
  }
  if (bytes.length === 0) throw new ValidationError([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  return { bytes, ...(parts ? { parts } : {}) };
}
