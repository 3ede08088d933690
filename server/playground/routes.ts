import type { StateStore } from '../../warehouse/state.js';
import { DomainError } from '../../warehouse/errors.js';
import { rateLimited } from '../errors.js';
import { MemoryRateLimiter } from '../pipeline/limits.js';
import { defineRoute, result, type RouteDef } from '../route.js';
import { PlaygroundSessionSchema } from './schemas.js';

export interface PlaygroundDeps {
  state: StateStore;
  now: () => Date;
  /** `RCM_PLAYGROUND`: false turns the key minting off. */
  enabled: boolean;
  /** `RCM_PLAYGROUND_KEYS_PER_HOUR`: keys one client address may mint per hour. */
  keysPerHour: number;
}

/** The tenant that owns every playground key (isolated from real tenants like any other). */
export const PLAYGROUND_TENANT = 'playground';
const TTL_MS = 3_600_000;

/**
 * `POST /v1/playground/session`: mints a `knowledge` test key that expires in an hour, bound to
 * the `playground` tenant, so the page never holds a real key ("the playground mints a test key
 * server-side and never exposes a live key in the browser"). Public, limited per client address,
 * and refused on the production host: a test key is useless there and minting must not run there.
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
        'Public, limited per client address (RCM_PLAYGROUND_KEYS_PER_HOUR). The key has the knowledge scope, belongs to the playground tenant and expires after one hour. 403 on the production host.',
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
        const tenant = await d.state.admin.getTenant(PLAYGROUND_TENANT).catch(async () =>
          // Two first mints at once: the loser of the insert reads the winner's row.
          d.state.admin.createTenant(PLAYGROUND_TENANT).catch(() => d.state.admin.getTenant(PLAYGROUND_TENANT)),
        );
        await d.state.admin.purgeExpiredKeys(tenant.id, new Date(now().getTime() - TTL_MS));
        const expires = new Date(now().getTime() + TTL_MS);
        const { record, secret } = await d.state.admin.createKey({ tenant: tenant.id, type: 'test', scopes: ['knowledge'], label: 'playground', expiresAt: expires });
        return result(201, { key: secret, key_id: record.id, tenant: PLAYGROUND_TENANT, scopes: record.scopes, expires_at: expires.toISOString() });
      },
    }),
  ];
}
