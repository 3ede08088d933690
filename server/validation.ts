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
    case 'unrecognized_keys':
      return 'extra_forbidden';
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

/** Converts every zod issue (not only the first) into `{loc, msg, type, ctx?, input?}`. */
export function toIssues(where: 'path' | 'query' | 'body' | 'env', error: z.ZodError, root: unknown): Issue[] {
  return error.issues.map((i) => {
    const path = i.path.map((p) => (typeof p === 'number' ? p : String(p)));
    const input = i.input !== undefined ? i.input : inputAt(root, i.path);
    const type = typeOf(i, input);
    const msg = type === 'missing' ? 'Field required' : i.message;
    const ctx = ctxOf(i);
    return { loc: [where, ...path], msg, type, ...(ctx ? { ctx } : {}), ...(input !== undefined ? { input } : {}) };
  });
}
