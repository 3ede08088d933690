import { z } from 'zod';
import type { RouteDef } from './route.js';
import { ErrorBodySchema, ValidationErrorSchema } from './schemas.js';

type Json = Record<string, unknown>;

function schemaOf(s: z.ZodType, io: 'input' | 'output'): Json {
  const j = z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
  delete j.$schema;
  return j;
}

const ERROR_TEXT: Record<number, string> = {
  401: 'Missing or invalid API key',
  403: 'Key type does not match the host, or the key lacks the scope',
  404: 'Not found',
  409: 'Conflict',
  429: 'Rate limit exceeded (see Retry-After)',
  503: 'No data snapshot is published yet',
};

/**
 * The OpenAPI 3.1 document, generated from the same route declarations that build the router,
 * so the served contract cannot drift from what the handlers validate.
 */
export function buildOpenApi(routes: RouteDef[], version: string): Json {
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    const parameters: Json[] = [];
    for (const [where, schema] of [
      ['path', r.params],
      ['query', r.query],
    ] as const) {
      if (!schema) continue;
      const js = schemaOf(schema, 'input');
      const props = (js.properties ?? {}) as Record<string, Json>;
      const required = new Set((js.required ?? []) as string[]);
      for (const [name, p] of Object.entries(props)) {
        parameters.push({ name, in: where, required: where === 'path' || required.has(name), schema: p, ...(p.description ? { description: p.description } : {}) });
      }
    }
    if (r.scope !== null) parameters.push({ name: 'X-API-Key', in: 'header', required: true, schema: { type: 'string' } });
    const responses: Json = {
      [String(r.status ?? 200)]: {
        description: 'Success',
        content: { [r.contentType ?? 'application/json']: { schema: r.contentType ? { type: 'string' } : schemaOf(r.response, 'output') } },
      },
      '422': { description: 'Validation error', content: { 'application/json': { schema: schemaOf(ValidationErrorSchema, 'output') } } },
      '500': { description: 'Internal error', content: { 'application/json': { schema: schemaOf(ErrorBodySchema, 'output') } } },
    };
    const errs = new Set(r.errors ?? []);
    if (r.scope !== null) [401, 403, 429].forEach((s) => errs.add(s));
    if (!r.noSnapshot) errs.add(503);
    for (const s of errs) {
      responses[String(s)] = { description: ERROR_TEXT[s] ?? 'Error', content: { 'application/json': { schema: schemaOf(ErrorBodySchema, 'output') } } };
    }
    const op: Json = {
      operationId: r.operationId,
      tags: [r.tag],
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      parameters,
      responses,
      ...(r.scope ? { security: [{ ApiKey: [] }], 'x-required-scope': r.scope } : { security: [] }),
    };
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: schemaOf(r.body, 'input') } } };
    (paths[r.path] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Revenue-cycle knowledge API', version },
    components: { securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } },
    paths,
  };
}
