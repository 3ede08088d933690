import { LRUCache } from 'lru-cache';
import { KEY_RE, hashKey, type ApiKeyRecord, type StateStore } from '../../warehouse/state.js';

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
