import { z } from 'zod';
import type { Issue } from '../warehouse/errors.js';

type ZIssue = z.core.$ZodIssue;

/** Zod issue to the spec's 422 item type names (pydantic-style, which clients of such APIs know). */
function typeOf(i: ZIssue, input: unknown): string {
  switch (i.code) {
    case 'invalid_type':
      if (input === undefined) return 'missing';
      return `${i.expected}_type`;
    case 'too_small':
      return i.origin === 'string' ? 'string_too_short' : i.origin === 'array' ? 'too_short' : i.inclusive ? 'greater_than_equal' : 'greater_than';
    case 'too_big':
      return i.origin === 'string' ? 'string_too_long' : i.origin === 'array' ? 'too_long' : i.inclusive ? 'less_than_equal' : 'less_than';
    case 'invalid_format':
      return i.format === 'regex' ? 'string_pattern_mismatch' : `${i.format}_format`;
    case 'invalid_value':
      return 'enum';
    default:
      return i.code;
  }
}

function ctxOf(i: ZIssue): Record<string, unknown> | undefined {
  switch (i.code) {
    case 'too_small':
      return { [i.inclusive ? 'ge' : 'gt']: Number(i.minimum) };
    case 'too_big':
      return { [i.inclusive ? 'le' : 'lt']: Number(i.maximum) };
    case 'invalid_format':
      return i.format === 'regex' && 'pattern' in i ? { pattern: String((i as { pattern?: string }).pattern) } : { format: i.format };
    case 'invalid_value':
      return { expected: i.values.map(String) };
    default:
      return undefined;
  }
}

function inputAt(root: unknown, path: PropertyKey[]): unknown {
  let cur = root;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}

/** The issue for a field the schema does not know (the spec's `extra_forbidden`). */
export function extraIssue(loc: (string | number)[], input: unknown): Issue {
  return { loc, msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input };
}

/**
 * Converts every zod issue (not only the first) into `{loc, msg, type, ctx?, input?}`. Unknown
 * keys of a strict object become one `extra_forbidden` issue per key, so a typo like
 * `callback_secert` is named exactly.
 */
export function toIssues(where: 'path' | 'query' | 'body' | 'env', error: z.ZodError, root: unknown): Issue[] {
  return error.issues.flatMap((i): Issue[] => {
    const path = i.path.map((p) => (typeof p === 'number' ? p : String(p)));
    if (i.code === 'unrecognized_keys') {
      const parent = inputAt(root, i.path);
      return i.keys.map((k) => extraIssue([where, ...path, k], inputAt(parent, [k])));
    }
    const input = i.input !== undefined ? i.input : inputAt(root, i.path);
    const type = typeOf(i, input);
    const msg = type === 'missing' ? 'Field required' : i.message;
    const ctx = ctxOf(i);
    return [{ loc: [where, ...path], msg, type, ...(ctx ? { ctx } : {}), ...(input !== undefined ? { input } : {}) }];
  });
}

/** The schema under optional/nullable/default/pipe wrappers (the input side of a pipe). */
function inner(s: z.ZodType): z.ZodType {
  let t = s as unknown as { _zod: { def: { type: string; innerType?: unknown; in?: unknown } } };
  for (;;) {
    const d = t._zod.def;
    if ((d.type === 'optional' || d.type === 'nullable' || d.type === 'default' || d.type === 'prefault') && d.innerType) t = d.innerType as typeof t;
    else if (d.type === 'pipe' && d.in) t = d.in as typeof t;
    else return t as unknown as z.ZodType;
  }
}

/**
 * The description of an object schema's field (`.describe()`), looking through optional, default
 * and pipe wrappers; undefined when none is set.
 */
export function fieldDescription(schema: z.ZodType, name: string): string | undefined {
  const obj = inner(schema) as unknown as { _zod: { def: { shape?: Record<string, z.ZodType> } } };
  let t = obj._zod.def.shape?.[name] as unknown as { description?: string; _zod: { def: { type: string; innerType?: unknown; in?: unknown } } } | undefined;
  while (t) {
    if (t.description) return t.description;
    const d = t._zod.def;
    t = ((d.type === 'optional' || d.type === 'nullable' || d.type === 'default' || d.type === 'prefault') && d.innerType ? d.innerType : d.type === 'pipe' ? d.in : undefined) as typeof t;
  }
  return undefined;
}

/** Field names of an object schema and whether each takes a list (`?code=a&code=b`). */
/** A query field: a list (repeatable), or a whole number coerced from its text (digits only). */
interface QueryField {
  list: boolean;
  integer: boolean;
}

const fieldsCache = new WeakMap<z.ZodType, Map<string, QueryField> | null>();

/** The fields of an object schema (cached per schema: routes ask on every request). */
export function objectFields(schema: z.ZodType): Map<string, QueryField> | null {
  let f = fieldsCache.get(schema);
  if (f === undefined) fieldsCache.set(schema, (f = computeFields(schema)));
  return f;
}

function computeFields(schema: z.ZodType): Map<string, QueryField> | null {
  const s = inner(schema) as unknown as { _zod: { def: { type: string; shape?: Record<string, z.ZodType> } } };
  if (s._zod.def.type !== 'object' || !s._zod.def.shape) return null;
  const out = new Map<string, QueryField>();
  for (const [k, v] of Object.entries(s._zod.def.shape)) {
    const d = (inner(v) as unknown as { _zod: { def: { type: string; coerce?: boolean } } })._zod.def;
    // Every number a query takes is a whole number (`z.coerce.number().int()`): a limit, a year, a count.
    out.set(k, { list: d.type === 'array', integer: d.type === 'number' && d.coerce === true });
  }
  return out;
}

/**
 * Checks the raw query string against the route's query schema before parsing it: an unknown
 * parameter is `extra_forbidden` (so `qpp_flg=1` never silently prices non-QPP), a scalar sent
 * twice is `repeated_parameter` (which one would win is a guess), and a whole number not written
 * in digits (`0x10`, `+5`, `1e1`) is `int_parsing`. Returns the issues and the
 * query to parse (repeated scalars removed, since they are already reported).
 */
export function checkQueryShape(schema: z.ZodType | undefined, raw: Record<string, string | string[]>): { issues: Issue[]; query: Record<string, unknown> } {
  const fields = schema ? objectFields(schema) : new Map<string, QueryField>();
  const issues: Issue[] = [];
  const query: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const f = fields?.get(name);
    if (!f) {
      issues.push(extraIssue(['query', name], value));
      continue;
    }
    if (Array.isArray(value) && !f.list) {
      issues.push({ loc: ['query', name], msg: `Parameter ${name} was sent ${value.length} times; send it once`, type: 'repeated_parameter', input: value });
      continue;
    }
    // Number() would read '0x10', ' 5', '+5' and '1e1' as numbers: a whole number is written in digits.
    if (f.integer && typeof value === 'string' && !/^-?\d{1,15}$/.test(value)) {
      issues.push({ loc: ['query', name], msg: 'Input should be a whole number written in digits', type: 'int_parsing', input: value });
      continue;
    }
    query[name] = f.list && !Array.isArray(value) ? [value] : value;
  }
  return { issues, query };
}
