import { z } from 'zod';
import { defineRoute, json, raw, result, type RouteDef } from '../server/route.js';

/**
 * Test-only routes, one per `auth` and body kind the pipeline supports, so each is exercised
 * before a real route needs it (live-key-only watches, admin-secret policy parsing, PDF uploads,
 * 201/202 results, tenant reads). They are mounted with `startTestServer({ extraRoutes })`.
 */
const Echo = z.object({ auth: z.string(), tenant_id: z.string().nullable(), key_type: z.string().nullable() }).meta({ id: 'ProbeEcho' });
const echo = (kind: string) => (ctx: { auth: { tenant_id: string; key_type: string } | null }) => ({
  auth: kind,
  tenant_id: ctx.auth?.tenant_id ?? null,
  key_type: ctx.auth?.key_type ?? null,
});

export const WidgetSchema = z
  .strictObject({
    name: z.string().min(1).max(40),
    callback_url: z.url().optional(),
    callback_secret: z.string().min(8).max(128).optional(),
    tags: z.array(z.string()).max(3).optional(),
  })
  .meta({ id: 'ProbeWidgetInput' });

const Created = z.object({ id: z.string(), name: z.string() }).meta({ id: 'ProbeCreated' });
const Upload = z.object({ bytes: z.number(), starts_with: z.string() }).meta({ id: 'ProbeUpload' });
const KeyList = z.object({ tenant_id: z.string(), generation: z.number(), key_ids: z.array(z.string()) }).meta({ id: 'ProbeKeyList' });
const Revoked = z.object({ id: z.string(), revoked: z.boolean() }).meta({ id: 'ProbeRevoked' });

export const probeRoutes: RouteDef[] = [
  defineRoute({
    method: 'get', path: '/v1/_probe/public', operationId: 'probePublic', tag: 'system', summary: 'public probe',
    auth: 'public', reads: 'none', response: Echo, examples: [{ summary: 'no key' }], handler: echo('public'),
  }),
  defineRoute({
    method: 'get', path: '/v1/_probe/live', operationId: 'probeLive', tag: 'system', summary: 'live-key-only probe',
    auth: { scope: 'knowledge', keyType: 'live' }, reads: 'none', response: Echo, examples: [{ summary: 'live key' }], handler: echo('live'),
  }),
  defineRoute({
    method: 'get', path: '/v1/_probe/admin', operationId: 'probeAdmin', tag: 'system', summary: 'admin-secret probe',
    auth: 'admin_secret_or_test_key', reads: 'none', response: Echo, examples: [{ summary: 'secret or test key' }], handler: echo('admin_secret_or_test_key'),
  }),
  defineRoute({
    method: 'post', path: '/v1/_probe/widgets', operationId: 'probeCreate', tag: 'system', summary: 'json body, 201 with Location',
    auth: { scope: 'knowledge' }, reads: 'tenant', body: json(WidgetSchema, 2048), response: Created,
    examples: [{ summary: 'create', body: { name: 'w' } }],
    handler: ({ body }) => result(201, { id: `w_${body.name}`, name: body.name }, { location: `/v1/_probe/widgets/w_${body.name}` }),
  }),
  defineRoute({
    method: 'post', path: '/v1/_probe/jobs', operationId: 'probeAccept', tag: 'system', summary: '202 accepted',
    auth: { scope: 'agents' }, reads: 'none', body: json(WidgetSchema), response: Created, status: 202,
    examples: [{ summary: 'accept', body: { name: 'j' } }],
    handler: ({ body }) => ({ id: `j_${body.name}`, name: body.name }),
  }),
  defineRoute({
    method: 'post', path: '/v1/_probe/upload', operationId: 'probeUpload', tag: 'system', summary: 'raw PDF body',
    auth: 'admin_secret_or_test_key', reads: 'none', body: raw('application/pdf', 1024), response: Upload,
    examples: [{ summary: 'upload a PDF' }],
    handler: ({ body }) => ({ bytes: body.length, starts_with: body.subarray(0, 5).toString('latin1') }),
  }),
  defineRoute({
    method: 'get', path: '/v1/_probe/keys', operationId: 'probeKeys', tag: 'system', summary: 'tenant read, cached per generation',
    auth: { scope: 'knowledge' }, reads: 'tenant', cache: true, response: KeyList, examples: [{ summary: 'my keys' }],
    handler: async ({ tenant }) => ({
      tenant_id: tenant.tenantId,
      generation: await tenant.generation(),
      key_ids: (await tenant.keys.list()).filter((k) => !k.revoked_at).map((k) => k.id),
    }),
  }),
  defineRoute({
    method: 'delete', path: '/v1/_probe/keys/{id}', operationId: 'probeRevoke', tag: 'system', summary: 'tenant write',
    auth: { scope: 'admin' }, reads: 'tenant', params: z.object({ id: z.string().regex(/^key_[0-9a-f]{16}$/) }), response: Revoked,
    errors: ['not_found'], examples: [{ summary: 'revoke', params: { id: 'key_0000000000000000' } }],
    handler: async ({ params, tenant }) => ({ id: (await tenant.keys.revoke(params.id)).id, revoked: true }),
  }),
  defineRoute({
    method: 'get', path: '/v1/_probe/sneaky', operationId: 'probeSneaky', tag: 'system', summary: 'reads tenant state without declaring it',
    auth: { scope: 'knowledge' }, reads: 'snapshot', response: KeyList, examples: [{ summary: 'must fail' }],
    handler: async ({ tenant }) => ({ tenant_id: tenant.tenantId, generation: 0, key_ids: [] }),
  }),
];
