/** What the session budget knows of one open MCP session. */
export interface SessionEntry {
  keyId: string;
  /** SHA-256 of the key (`hashKey`, never the secret): a revoked key's sessions are found by it when the key is next presented. */
  keyHash: string;
  tenantId: string;
  /** A session key's (the playground's): all of them share one pool. */
  pooled: boolean;
  /** When the key stops working (epoch ms), or null for a key that does not expire. */
  expiresAt: number | null;
  lastSeen: number;
}

/** How many sessions each holder may keep open. */
export interface SessionBudget {
  /** The process. */
  maxSessions: number;
  /** One API key (`RCM_MCP_SESSIONS_PER_KEY`). */
  sessionsPerKey: number;
  /** One tenant, over all its keys (`RCM_MCP_SESSIONS_PER_TENANT`). */
  sessionsPerTenant: number;
  /** All session keys (the playground's tenants) together. */
  pooledSessions: number;
  /** A session idle this long is closed (`RCM_MCP_IDLE_MS`). */
  idleMs: number;
}

/** The share of the process's sessions the playground's tenants hold together. */
export const POOLED_SHARE = 0.1;

/**
 * Who holds a session for the process-wide share: a tenant, or the playground's pool as one
 * holder (its anonymous visitors are many tenants of one key each, and together one guest).
 */
const holderOf = (s: Pick<SessionEntry, 'pooled' | 'tenantId'>): string => (s.pooled ? 'pool' : `t:${s.tenantId}`);

/**
 * The open MCP sessions and their budget: per key, per tenant, the playground's pool, the
 * process. A new session is always made room for, by closing sessions of its own holders first
 * and past the process cap the idlest session of the holder with the most (the caller's own when
 * it holds as many as any): so no tenant's sessions refuse another's, and a tenant within its
 * fair share always gets one. Sessions idle past `idleMs` or whose key expired are closed by
 * `sweep`. `close` is called for every session the table drops (not for `delete`).
 */
export class SessionTable<S extends SessionEntry> {
  private readonly sessions = new Map<string, S>();

  constructor(
    readonly budget: SessionBudget,
    private readonly close: (id: string, s: S) => void,
  ) {}

  get(id: string): S | undefined {
    return this.sessions.get(id);
  }

  set(id: string, s: S): void {
    this.sessions.set(id, s);
  }

  /** Forgets a session that closed by itself (its transport ended). */
  delete(id: string): void {
    this.sessions.delete(id);
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Every session, removed from the table (shutdown). */
  drain(): S[] {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    return all;
  }

  private end(id: string, s: S): void {
    this.sessions.delete(id);
    this.close(id, s);
  }

  /** True when `s` may no longer be used at `now`: idle past `idleMs`, or its key expired. */
  stale(s: SessionEntry, now: number): boolean {
    return now - s.lastSeen > this.budget.idleMs || (s.expiresAt !== null && s.expiresAt <= now);
  }

  /** Closes every stale session; returns how many. */
  sweep(now: number): number {
    let n = 0;
    for (const [id, s] of this.sessions) {
      if (this.stale(s, now)) {
        this.end(id, s);
        n++;
      }
    }
    return n;
  }

  /** Closes every session of the key whose hash is `keyHash` (it was refused: revoked, expired or deleted); returns how many. */
  closeKey(keyHash: string): number {
    let n = 0;
    for (const [id, s] of this.sessions) {
      if (s.keyHash === keyHash) {
        this.end(id, s);
        n++;
      }
    }
    return n;
  }

  /** Open sessions, of one key or one tenant when asked. */
  count(filter: { keyId?: string; tenantId?: string } = {}): number {
    let n = 0;
    for (const s of this.sessions.values()) if ((filter.keyId === undefined || s.keyId === filter.keyId) && (filter.tenantId === undefined || s.tenantId === filter.tenantId)) n++;
    return n;
  }

  /**
   * Makes room for one more session of `caller`: stale sessions are swept, then the caller's key,
   * tenant and (a session key) the pool give up their own idlest past their budgets, and at the
   * process cap the holder with the most sessions gives up its idlest. Returns false only when no
   * room could be made (a cap below one).
   */
  makeRoom(caller: Omit<SessionEntry, 'lastSeen'>, now: number): boolean {
    const b = this.budget;
    this.sweep(now);
    this.trimOwn((s) => s.keyId === caller.keyId, b.sessionsPerKey);
    this.trimOwn((s) => s.tenantId === caller.tenantId, b.sessionsPerTenant);
    if (caller.pooled) this.trimFair((s) => s.pooled, (s) => s.tenantId, b.pooledSessions, caller.tenantId);
    this.trimFair(() => true, holderOf, b.maxSessions, holderOf(caller));
    return this.sessions.size < b.maxSessions;
  }

  /** Closes the idlest of the sessions `mine` selects while they number `limit` or more. */
  private trimOwn(mine: (s: S) => boolean, limit: number): void {
    const own = [...this.sessions].filter(([, s]) => mine(s)).sort((x, y) => x[1].lastSeen - y[1].lastSeen);
    for (let i = 0; i <= own.length - limit && i < own.length; i++) this.end(own[i]![0], own[i]![1]);
  }

  /**
   * While the sessions `within` selects number `limit` or more, closes the idlest session of the
   * group (by `groupOf`) holding the most of them: the caller's own group (`own`) when it holds as
   * many as any, so a group never gives up a session for a bigger one; between two others, the
   * one whose idlest session is idler.
   */
  private trimFair(within: (s: S) => boolean, groupOf: (s: S) => string, limit: number, own: string): void {
    for (;;) {
      const groups = new Map<string, { n: number; idlest: [string, S] }>();
      let total = 0;
      for (const e of this.sessions) {
        if (!within(e[1])) continue;
        total++;
        const name = groupOf(e[1]);
        const g = groups.get(name);
        if (!g) groups.set(name, { n: 1, idlest: e });
        else {
          g.n++;
          if (e[1].lastSeen < g.idlest[1].lastSeen) g.idlest = e;
        }
      }
      if (total < limit || total === 0) return;
      let pick: { name: string; n: number; idlest: [string, S] } | undefined;
      for (const [name, g] of groups) {
        const better =
          !pick || g.n > pick.n || (g.n === pick.n && (name === own || (pick.name !== own && g.idlest[1].lastSeen < pick.idlest[1].lastSeen)));
        if (better) pick = { name, ...g };
      }
      this.end(pick!.idlest[0], pick!.idlest[1]);
    }
  }
}
