import { z } from 'zod';
import type { InvokeRequest, InvokeResult } from '../pipeline/invoke.js';
import { isToolRoute, type RouteDef } from '../route.js';
import { objectFields } from '../validation.js';

type Json = Record<string, unknown>;

/** One MCP tool, generated from one data route (never written by hand). */
export interface ToolDef {
  name: string;
  title: string;
  description: string;
  inputSchema: Json & { type: 'object' };
  outputSchema: Json & { type: 'object' };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  route: RouteDef;
  /** Which argument goes where on the REST call. */
  pathNames: string[];
  queryNames: string[];
  bodyNames: string[];
  /** The REST answer is a JSON array: the tool's structured result wraps it as `{results: [...]}`. */
  wrapsArray: boolean;
}

/** Inline JSON Schema (no component refs: an MCP client resolves nothing outside the tool). */
function inline(s: z.ZodType, io: 'input' | 'output'): Json {
  const j = z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12', metadata: z.registry() }) as Json;
  delete j.$schema;
  return portable(j, io === 'output') as Json;
}

/**
 * An output schema cut to `depth` levels of properties: deeper objects and arrays keep their type
 * and no more (a looser schema the REST answer still satisfies). The full shape is the REST
 * response schema in `/v1/openapi.json`; tools/list stays small enough for a model's context.
 */
function shallow(v: Json, depth: number): Json {
  const cut = (x: Json): Json => {
    const types = x.anyOf ? (x.anyOf as Json[]).map((a) => a.type) : [x.type];
    if (types.includes('object') || types.includes('array')) {
      return x.anyOf ? { anyOf: (x.anyOf as Json[]).map((a) => ({ type: a.type })) } : { type: x.type };
    }
    return x;
  };
  const walk = (x: Json, d: number): Json => {
    if (x.anyOf) return { ...x, anyOf: (x.anyOf as Json[]).map((a) => walk(a, d)) };
    if (x.type === 'array' && x.items) return { ...x, items: d >= depth ? cut(x.items as Json) : walk(x.items as Json, d + 1) };
    if (x.properties) {
      return { ...x, properties: Object.fromEntries(Object.entries(x.properties as Record<string, Json>).map(([k, p]) => [k, d >= depth ? cut(p) : walk(p, d + 1)])) };
    }
    return x;
  };
  return walk(v, 0);
}

/**
 * A schema every MCP client reads: a `type` array (`["string", "null"]`, valid JSON Schema but
 * flagged as not portable by the MCP Inspector) becomes `anyOf` of single types; output schemas
 * also drop descriptions (the REST reference documents the fields; tools/list stays compact), and
 * every schema the safe-integer bounds `z.int()` writes.
 */
function portable(v: unknown, output: boolean): unknown {
  if (Array.isArray(v)) return v.map((x) => portable(x, output));
  if (!v || typeof v !== 'object') return v;
  const o: Json = {};
  for (const [k, x] of Object.entries(v)) {
    if (output && k === 'description') continue;
    // zod's `z.int()` bounds (the safe-integer range) say nothing a client needs: dropped.
    if ((k === 'minimum' || k === 'maximum') && Math.abs(x as number) === Number.MAX_SAFE_INTEGER) continue;
    o[k] = k === 'properties' ? Object.fromEntries(Object.entries(x as Json).map(([p, s]) => [p, portable(s, output)])) : portable(x, output);
  }
  if (Array.isArray(o.type)) {
    const { type, ...rest } = o;
    const types = type as string[];
    if (types.length === 1) return { ...rest, type: types[0] };
    const nonNull = types.filter((t) => t !== 'null');
    const keep: Json = {};
    const moved: Json = {};
    for (const [k, x] of Object.entries(rest)) (k === 'description' || k === 'title' || k === 'default' ? keep : moved)[k] = x;
    return { ...keep, anyOf: [...nonNull.map((t, i) => (i === 0 ? { type: t, ...moved } : { type: t })), ...(types.includes('null') ? [{ type: 'null' }] : [])] };
  }
  return o;
}

const propsOf = (s: z.ZodType | undefined): { props: Record<string, Json>; required: string[] } => {
  if (!s) return { props: {}, required: [] };
  const j = inline(s, 'input');
  return { props: (j.properties ?? {}) as Record<string, Json>, required: (j.required ?? []) as string[] };
};

/**
 * The tools of a route table (every route not declared `mcp: false`): name from `operationId`, description from summary and description,
 * one input schema merged from path, query and body (a name used twice is a definition error),
 * output schema from the response schema, `readOnlyHint` for GET, `destructiveHint` for DELETE.
 */
export function toolsFromRoutes(routes: RouteDef[]): ToolDef[] {
  return routes.filter(isToolRoute).map((r) => {
    const path = propsOf(r.params);
    const query = propsOf(r.query);
    // A text document a raw body carries (an 835) is one string argument of the tool.
    const text = r.body?.kind === 'raw' ? r.body.toolArgument : undefined;
    const body = r.body?.kind === 'json' ? propsOf(r.body.schema) : text ? { props: { [text.name]: { type: 'string', description: text.description } }, required: [text.name] } : { props: {}, required: [] };
    const properties: Record<string, Json> = {};
    const required: string[] = [];
    for (const [where, part] of [
      ['path', path],
      ['query', query],
      ['body', body],
    ] as const) {
      for (const [name, schema] of Object.entries(part.props)) {
        if (name in properties) throw new Error(`tool ${r.operationId}: input ${name} is both a ${where} field and an earlier one`);
        properties[name] = where === 'path' ? { ...schema, description: schema.description ?? `path parameter ${name}` } : schema;
      }
      required.push(...(where === 'path' ? Object.keys(part.props) : part.required));
    }
    const out = shallow(inline(r.response, 'output'), 0);
    const wrapsArray = out.type === 'array';
    const outputSchema = (wrapsArray ? { type: 'object', properties: { results: out }, required: ['results'], additionalProperties: false } : out) as ToolDef['outputSchema'];
    const title = r.summary;
    const description = [r.summary, r.description, wrapsArray ? 'The result wraps the REST array as {results: [...]}.' : '', `REST: ${r.method.toUpperCase()} ${r.path}.`]
      .filter(Boolean)
      .join('\n\n');
    return {
      name: r.operationId,
      title,
      description,
      inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false } as ToolDef['inputSchema'],
      outputSchema,
      annotations: {
        title,
        // A GET that records an audit row (the prior-auth check) is not read-only.
        readOnlyHint: r.method === 'get' && !r.persist,
        destructiveHint: r.method === 'delete',
        idempotentHint: r.method === 'get' || r.method === 'put' || r.method === 'delete',
        openWorldHint: false,
      },
      route: r,
      pathNames: Object.keys(path.props),
      queryNames: [...(objectFields(r.query ?? z.object({}))?.keys() ?? [])],
      bodyNames: Object.keys(body.props),
      wrapsArray,
    };
  });
}

const asQueryValue = (v: unknown): string | string[] => (Array.isArray(v) ? v.map((x) => String(x)) : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

/**
 * Splits tool arguments into the REST call's path, query and body, as the route declares them.
 * An argument the route does not know goes where the pipeline will name it as `extra_forbidden`
 * (the body when the route takes one, else the query), so the tool error carries the same issue.
 */
export function toInvokeParts(tool: ToolDef, args: Record<string, unknown>): Pick<InvokeRequest, 'params' | 'query' | 'body'> & { contentType?: string } {
  // Built from entries (Object.fromEntries defines own properties): an argument named `__proto__`
  // is a key the pipeline refuses by name, never the object's prototype.
  const params: [string, string][] = [];
  const queryEntries: [string, string | string[]][] = [];
  const bodyEntries: [string, unknown][] = [];
  const takesBody = tool.route.body?.kind === 'json';
  const text = tool.route.body?.kind === 'raw' ? tool.route.body.toolArgument : undefined;
  let document: string | undefined;
  for (const [k, v] of Object.entries(args)) {
    if (v === undefined || v === null) continue;
    if (tool.pathNames.includes(k)) params.push([k, String(v)]);
    else if (tool.queryNames.includes(k)) queryEntries.push([k, asQueryValue(v)]);
    else if (text && k === text.name) document = String(v);
    else if (takesBody) bodyEntries.push([k, v]);
    else queryEntries.push([k, asQueryValue(v)]);
  }
  const query = Object.fromEntries(queryEntries);
  const body = Object.fromEntries(bodyEntries);
  if (text && tool.route.body?.kind === 'raw') return { params: Object.fromEntries(params), query, body: { bytes: Buffer.from(document ?? '', 'utf8') }, contentType: tool.route.body.contentType };
  return { params: Object.fromEntries(params), query, body: takesBody ? { value: body } : undefined };
}

/**
 * A tool call's answer (MCP `CallToolResult`) as JSON bytes, built from the REST answer's bytes:
 * the answer as text content and, as it is, as structured content (an array wrapped as
 * `{results: [...]}`); an error answer is `isError` with its text. Built as bytes so a call pays
 * no parse and stringify of the answer, and the answer's bytes are not encoded again; the SDK's
 * handler parses them (one definition for both paths).
 */
export function toolResultBytes(tool: ToolDef, res: InvokeResult): Buffer {
  // A cached answer comes back as the same Buffer each time: its tool result is built once (the
  // text block's escaping was most of an MCP call's own CPU after the socket write).
  const memo = built.get(res.body);
  if (memo && memo.tool === tool && memo.status === res.status) return memo.bytes;
  const content = `{"content":[{"type":"text","text":${JSON.stringify(res.body.toString('utf8'))}}]`;
  const bytes =
    res.status >= 400
      ? Buffer.from(`${content},"isError":true}`)
      : Buffer.concat([Buffer.from(`${content},"structuredContent":${tool.wrapsArray ? '{"results":' : ''}`), res.body, Buffer.from(tool.wrapsArray ? '}}' : '}')]);
  built.set(res.body, { tool, status: res.status, bytes });
  return bytes;
}

/** Tool results by the answer bytes they wrap; held only as long as the answer itself (the answer cache bounds it). */
const built = new WeakMap<Buffer, { tool: ToolDef; status: number; bytes: Buffer }>();
