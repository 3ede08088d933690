import { randomUUID } from 'node:crypto';
import type { StateStore } from '../../warehouse/tenant_state.js';
import { DomainError } from '../../warehouse/errors.js';
import { MemoryRateLimiter, rateLimited } from '../pipeline/limits.js';
import { defineRoute, result, type RouteDef } from '../route.js';
import { PlaygroundSessionSchema } from '../playground/schemas.js';

export interface PlaygroundDeps {
  state: StateStore;
  now: () => Date;
  /** `RCM_PLAYGROUND`: false turns the key minting off. */
  enabled: boolean;
  /** `RCM_PLAYGROUND_KEYS_PER_HOUR`: keys one client address may mint per hour. */
  keysPerHour: number;
}

/** Playground tenants are named `playground-<random>`: one per minted key. */
export const PLAYGROUND_TENANT = 'playground';
const TTL_MS = 3_600_000;

/**
 * `POST /v1/playground/session`: mints a `knowledge` test key that expires in an hour, in a
 * tenant of its own made for it, so the page never holds a real key ("the playground mints a test
 * key server-side and never exposes a live key in the browser") and visitors never see each
 * other's facilities, rosters or notes. The key stores no prior-auth determinations (`persist` is
 * off for session keys); each mint deletes the tenants whose keys expired, with all they stored.
 * Public, limited per client address, and refused on the production host.
 */
export function playgroundRoutes(d: PlaygroundDeps): RouteDef[] {
  const perIp = new MemoryRateLimiter(d.keysPerHour, () => d.now().getTime(), 100_000, TTL_MS);
  return [
    defineRoute({
      method: 'post',
      path: '/v1/playground/session',
      operationId: 'createPlaygroundSession',
      tag: 'system',
      mcp: false,
      summary: 'Mint a one-hour test key for the playground page (test host only)',
      description:
        'Public, limited per client address (RCM_PLAYGROUND_KEYS_PER_HOUR). The key has the knowledge scope, a tenant of its own (deleted with everything it stored once the key expires) and expires after one hour; it stores no prior-auth determinations. 403 on the production host.',
      auth: 'public',
      reads: 'none',
      response: PlaygroundSessionSchema,
      status: 201,
      errors: ['playground_disabled', 'playground_not_on_production'],
      examples: [
        { summary: 'get a key for the playground' },
        { summary: 'on the production host', status: 403, host: 'live' },
      ],
      handler: async ({ hostKind, clientIp, now }) => {
        if (!d.enabled) throw new DomainError('playground_disabled', 'the playground is turned off on this server (RCM_PLAYGROUND=0)');
        if (hostKind === 'live') throw new DomainError('playground_not_on_production', 'the playground mints test keys on the test host only');
        const decision = perIp.take(clientIp);
        if (!decision.allowed) throw rateLimited(decision, `${d.keysPerHour} playground keys per hour from one address`);
        await d.state.admin.purgeSessionTenants(PLAYGROUND_TENANT, now());
        const tenant = await d.state.admin.createTenant(`${PLAYGROUND_TENANT}-${randomUUID().slice(0, 13)}`);
        const expires = new Date(now().getTime() + TTL_MS);
        const { record, secret } = await d.state.admin.createKey({ tenant: tenant.id, type: 'test', scopes: ['knowledge'], label: 'playground', expiresAt: expires });
        return result(201, { key: secret, key_id: record.id, tenant: tenant.name, scopes: record.scopes, expires_at: expires.toISOString() });
      },
    }),
  ];
}
