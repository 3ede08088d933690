import type { MountedSnapshot } from '../../warehouse/snapshot.js';
import type { TenantStore } from '../../warehouse/tenant_state.js';
import { readsTenant, type AuthInfo, type RouteContext, type RouteDef } from '../route.js';
import { Trace, type Reliability } from '../trace.js';
import type { HostKind } from './hosts.js';
import type { ValidInput } from './input.js';

/**
 * What a handler sees. A class, not an object literal: a literal with getters takes V8's slow
 * path on every request (measured ~14 us of a ~90 us `/v1/health` call in `npm run bench cpu`).
 * The snapshot and tenant getters refuse what the route did not declare in `reads`.
 */
export class CallContext implements RouteContext<unknown, unknown, unknown, unknown> {
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
  readonly parts: Readonly<Record<string, Buffer[]>>;
  readonly resolved: unknown;
  private traced?: Trace;

  constructor(
    private readonly route: RouteDef,
    private readonly headers: Record<string, string | undefined>,
    input: ValidInput,
    readonly auth: AuthInfo | null,
    private readonly snap: MountedSnapshot | null,
    private readonly tenantStore: TenantStore | null,
    readonly hostKind: HostKind,
    readonly requestId: string,
    readonly clientIp: string,
    readonly now: () => Date,
    readonly transport: 'http' | 'mcp',
  ) {
    this.params = input.params;
    this.query = input.query;
    this.body = input.body;
    this.parts = input.parts ?? {};
    this.resolved = input.resolved;
  }

  get snapshot(): MountedSnapshot {
    if (!this.snap) throw new Error(`${this.route.operationId} reads the snapshot but declares reads: '${this.route.reads}'`);
    return this.snap;
  }

  get tenant(): TenantStore {
    // A cached POST is a question: its answer may be served again without running it, so it writes nothing.
    if (this.tenantStore) return this.route.method !== 'get' && this.route.cache ? readOnly(this.tenantStore, this.route.operationId) : this.tenantStore;
    if (!readsTenant(this.route.reads)) throw new Error(`${this.route.operationId} reads tenant state but declares reads: '${this.route.reads}'`);
    // The route reads tenant state, but `tenantScoped` said this call's answer does not depend on
    // it (it is shared across tenants): any use of the store is a bug, refused loudly.
    return unscoped(this.route.operationId);
  }

  /** Made on first use: most cached answers never build one. */
  get trace(): Trace {
    return (this.traced ??= new Trace(this.snap, this.now));
  }

  /** Bound, like `reliability`: handlers destructure it. */
  readonly header = (name: string): string | undefined => this.headers[name.toLowerCase()];

  /** Bound, so handlers may destructure it. */
  readonly reliability = (): Reliability => this.trace.reliability();
}

/** A tenant store that refuses every use: what a handler gets on a call answered for every tenant. */
const unscoped = (operationId: string): TenantStore =>
  new Proxy({} as TenantStore, {
    get(_t, name) {
      throw new Error(`${operationId}: tenant state (${String(name)}) read on a call its tenantScoped() declared tenant-independent`);
    },
  });

/** The store's reads only (a cached POST's handler): its `get`, `lookup`, `list` and `search`, and the generation. */
const READS = new Set(['get', 'lookup', 'list', 'search']);
function readOnly(store: TenantStore, operationId: string): TenantStore {
  return new Proxy(store, {
    get(target, name) {
      const v = (target as unknown as Record<string | symbol, unknown>)[name];
      if (name === 'tenantId' || name === 'mode' || name === 'generation') return typeof v === 'function' ? v.bind(target) : v;
      if (name === 'transaction' || typeof v !== 'object' || v === null) {
        throw new Error(`${operationId}: a cached POST answers a question and writes nothing (tenant ${String(name)} refused)`);
      }
      return new Proxy(v, {
        get(repo, method) {
          if (!READS.has(String(method))) throw new Error(`${operationId}: a cached POST answers a question and writes nothing (${String(name)}.${String(method)} refused)`);
          const f = (repo as Record<string | symbol, unknown>)[method];
          return typeof f === 'function' ? f.bind(repo) : f;
        },
      });
    },
  });
}
