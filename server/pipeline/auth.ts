import { createHash, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { DomainError, NotFoundError, ValidationError } from '../../warehouse/errors.js';
import { KEY_RE, hashKey, type ApiKeyRecord, type StateStore } from '../../warehouse/tenant_state.js';
import type { Auth, AuthInfo } from '../route.js';
import type { HostKind } from './hosts.js';
import { DEFAULTS } from '../defaults.js';
import { MemoryRateLimiter, takeOrThrow, type RateLimiter } from './limits.js';

/**
 * Looks keys up in the state store, answering repeats from memory while the store is unchanged:
 * the store's change marker moves whenever any process (the server, `rcm keys`) commits, and is
 * read at most every `checkEveryMs`, so a key created or revoked by the CLI counts within that
 * time without a hash and a query per request. Cached by the key's hash (never the secret), in
 * a bounded LRU; a string that is not shaped like a key is refused without a lookup or an entry.
 */
export class KeyAuthenticator {
  private readonly cache = new LRUCache<string, ApiKeyRecord | false>({ max: 10_000 });
  private marker = '';
  private checkedAt = -Infinity;

  constructor(
    private readonly state: StateStore,
    private readonly now: () => Date,
    readonly checkEveryMs = 200,
  ) {
    // This process's own writes (a key revoked through the API) count at the next request.
    state.onWrite(() => {
      this.cache.clear();
      this.checkedAt = -Infinity;
    });
  }

  /**
   * The tenant an `X-Admin-Secret` call names by id in `X-Tenant-Id` (the operator's backend acts
   * for one of its tenants): 422 without it, 404 for an id that is no tenant's.
   */
  async namedTenant(id: string | undefined): Promise<string> {
    if (id === undefined || id.trim() === '') {
      throw new ValidationError([{ loc: ['header', 'x-tenant-id'], msg: 'X-Tenant-Id is required with X-Admin-Secret: the id of the tenant that owns the data', type: 'missing' }]);
    }
    const t = await this.state.admin.getTenant(id).catch(() => null);
    // getTenant also matches a name; the header takes an id only.
    if (!t || t.id !== id) throw new NotFoundError(`tenant ${id} not found`);
    return t.id;
  }

  async authenticate(secret: string): Promise<ApiKeyRecord | null> {
    if (!KEY_RE.test(secret)) return null;
    const t = this.now();
    if (t.getTime() - this.checkedAt >= this.checkEveryMs) {
      this.checkedAt = t.getTime();
      const m = await this.state.changeMarker();
      if (m !== this.marker) {
        this.cache.clear();
        this.marker = m;
      }
    }
    const hash = hashKey(secret);
    let key = this.cache.get(hash);
    if (key === undefined) {
      key = (await this.state.admin.findActiveKeyByHash(hash, t)) ?? false;
      this.cache.set(hash, key);
    }
    // An expiring key (playground) stops at its time even while cached.
    if (key && key.expires_at && key.expires_at <= t.toISOString()) return null;
    return key || null;
  }
}

/**
 * Why a paired key may not call a route with `auth`, or null when it may: the one rule for the
 * pipeline (which answers the error) and MCP's tool list (which hides what the key cannot call).
 */
export function refusal(auth: Auth, key: Pick<AuthInfo, 'scopes' | 'key_type'>): DomainError | null {
  if (auth === 'public') return null;
  if (auth === 'admin_secret_or_test_key') {
    if (key.key_type !== 'test') return new DomainError('admin_secret_required', 'this endpoint takes X-Admin-Secret, or a test key on the test host');
    // An agents-only or audit-only key reads and deletes no customer document.
    return key.scopes.includes('knowledge') || key.scopes.includes('admin') ? null : new DomainError('insufficient_scope', "this endpoint needs the 'knowledge' scope");
  }
  if (auth.keyType === 'live' && key.key_type !== 'live') return new DomainError('live_key_required', 'this endpoint needs a live (kp_live_) key');
  if (key.scopes.includes('admin')) return null;
  const needed = [auth.scope, ...(auth.alsoScopes ?? [])];
  const missing = needed.filter((s) => !key.scopes.includes(s));
  if (missing.length === 0) return null;
  const q = (xs: string[]) => xs.map((s) => `'${s}'`);
  return new DomainError(
    'insufficient_scope',
    needed.length === 1 ? `this endpoint needs the '${auth.scope}' scope` : `this endpoint needs the ${q(needed).join(' and ')} scopes (missing ${q(missing).join(', ')})`,
  );
}

/** True when a key (already paired with its host) may call a route with `auth`. */
export const canCall = (auth: Auth, key: Pick<AuthInfo, 'scopes' | 'key_type'>): boolean => refusal(auth, key) === null;

function secretsEqual(a: string, b: string): boolean {
  const h = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(h(a), h(b));
}

/** The per-key and per-address limiters the pipeline applies (injected: a shared store can replace them). */
export interface Limiters {
  /** Per API key (and the admin secret), requests per minute. */
  key: RateLimiter;
  /** Per client address on `public` routes, requests per minute. */
  ip: RateLimiter;
}

type Headers = Record<string, string | undefined>;

/**
 * Failed authentications per client address (`RCM_AUTH_FAILURES_PER_MIN`, a sliding minute): an
 * unknown, expired or revoked key or a wrong admin secret past the limit is 429 with Retry-After
 * instead of 401, so keys and the admin secret cannot be guessed at line speed (2,000 tries in
 * 2.4 s before). Only failures are counted and only failures refused: a valid key or the right
 * secret always passes, whatever its address sent before (an office behind one NAT, a guesser
 * beside a real client). Held in a `MemoryRateLimiter` (a bounded LRU of addresses, the injected clock).
 */
class AuthFailures {
  private readonly counter: MemoryRateLimiter;

  constructor(
    now: () => number,
    private readonly limit: number,
  ) {
    this.counter = new MemoryRateLimiter(limit, now);
  }

  /** The error for a failed authentication from `ip`: `failure` itself, or 429 once the address is past its limit. */
  refuse(ip: string, failure: DomainError): DomainError {
    const d = this.counter.take(ip);
    if (d.allowed) return failure;
    return new DomainError('rate_limited', `too many failed authentications from this address (${this.limit} per minute); try again in ${d.reset} s`, { headers: { 'retry-after': String(d.reset) } });
  }
}

/** Who is calling and whether they may: key pairing with the host, scope, admin secret, rate limits. */
export class Authorizer {
  private readonly failures: AuthFailures;

  constructor(
    readonly keys: KeyAuthenticator,
    private readonly limiters: Limiters,
    /** `RCM_ADMIN_SECRET`; null disables `X-Admin-Secret`. */
    private readonly adminSecret: string | null,
    now: () => number = () => Date.now(),
    /** `RCM_AUTH_FAILURES_PER_MIN`: failed authentications an address may make a minute before they are 429. */
    authFailuresPerMin: number = DEFAULTS.authFailuresPerMin,
  ) {
    this.failures = new AuthFailures(now, authFailuresPerMin);
  }

  /** The caller of a route (null on public routes), after its rate limit; RateLimit headers go into `out`. */
  async authorize(auth: Auth, req: { headers: Headers; clientIp: string }, hostKind: HostKind, out: Record<string, string>, limit = true): Promise<AuthInfo | null> {
    if (auth === 'public') {
      if (!limit) return null;
      const limited = takeOrThrow(this.limiters.ip, `ip:${req.clientIp}`, out);
      if (limited) await limited;
      return null;
    }
    if (auth === 'admin_secret_or_test_key') {
      const given = req.headers['x-admin-secret'];
      if (given !== undefined) {
        if (!this.adminSecret || !secretsEqual(given, this.adminSecret)) {
          throw this.failures.refuse(req.clientIp, new DomainError('invalid_admin_secret', 'X-Admin-Secret is not valid'));
        }
        const tenantId = await this.keys.namedTenant(req.headers['x-tenant-id']);
        // Limited per named tenant: one tenant's uploads through the operator do not starve another's.
        const limited = this.count(`admin-secret:${tenantId}`, out);
        if (limited) await limited;
        // The host decides the mode, as for keys: the test host's calls read and write test data.
        return { tenant_id: tenantId, key_id: 'admin_secret', key_type: hostKind, scopes: ['admin'] };
      }
    }
    const key = await this.keyFor(req.headers, hostKind, req.clientIp);
    const refused = refusal(auth, key);
    if (refused) throw refused;
    const limited = this.count(key.key_id, out);
    if (limited) await limited;
    return key;
  }

  /**
   * Takes one request of `keyId` from the per-key limiter (429 when its window is full); a promise
   * only for a networked limiter, so the in-process path adds none.
   */
  count(keyId: string, out: Record<string, string>): void | Promise<void> {
    return takeOrThrow(this.limiters.key, keyId, out);
  }

  /**
   * The key of `X-API-Key`, paired with the host kind (a mismatch returns no data). An unknown,
   * expired or revoked key counts against the client address's failed authentications
   * (`AuthFailures`); a valid one is never refused by them.
   */
  async keyFor(headers: Headers, hostKind: HostKind, clientIp: string): Promise<AuthInfo> {
    const secret = headers['x-api-key'];
    if (!secret) throw new DomainError('missing_api_key', 'X-API-Key header is required');
    const key = await this.keys.authenticate(secret);
    if (!key) throw this.failures.refuse(clientIp, new DomainError('invalid_api_key', 'API key is not valid, expired or was revoked'));
    if (key.type !== hostKind) {
      throw new DomainError('key_host_mismatch', key.type === 'test' ? 'a test key cannot be used on the production host' : 'a live key cannot be used on the test host');
    }
    return { tenant_id: key.tenant_id, key_id: key.id, key_type: key.type, scopes: key.scopes, ...(key.expires_at ? { ephemeral: true } : {}) };
  }
}
