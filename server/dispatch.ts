import type { RouteDef } from './route.js';

interface Compiled {
  route: RouteDef;
  /** Path segments; `null` marks a parameter, named in `names` at the same index. */
  segs: (string | null)[];
  names: (string | null)[];
  statics: number;
}

export type Match = { route: RouteDef; params: Record<string, string> } | { allowed: string[] } | null;

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // a malformed escape stays as sent; the route's schema then answers 422
  }
}

/**
 * Matches a request against the route table by path segments. It replaces @koa/router: the
 * route table is the single source anyway, and in `npm run bench` the router's per-request chain
 * building cost about a quarter of a bare Koa route's throughput.
 */
export class Dispatcher {
  private readonly byMethod = new Map<string, Map<number, Compiled[]>>();

  constructor(routes: RouteDef[]) {
    for (const route of routes) {
      const parts = route.path.split('/');
      const segs = parts.map((p) => (/^\{\w+\}$/.test(p) ? null : p));
      const names = parts.map((p) => (/^\{(\w+)\}$/.exec(p)?.[1] ?? null));
      const c: Compiled = { route, segs, names, statics: segs.filter((s) => s !== null).length };
      const method = route.method.toUpperCase();
      let bySize = this.byMethod.get(method);
      if (!bySize) this.byMethod.set(method, (bySize = new Map()));
      const list = bySize.get(segs.length) ?? [];
      list.push(c);
      // More literal segments first: `/v1/codes/crosswalk/{code}` before `/v1/codes/{code}/payment`.
      list.sort((a, b) => b.statics - a.statics);
      bySize.set(segs.length, list);
    }
  }

  private find(method: string, parts: string[]): Compiled | undefined {
    for (const c of this.byMethod.get(method)?.get(parts.length) ?? []) {
      let ok = true;
      for (let i = 1; i < parts.length; i++) {
        const s = c.segs[i];
        if (s === null ? parts[i] === '' : s !== parts[i]) {
          ok = false;
          break;
        }
      }
      if (ok) return c;
    }
    return undefined;
  }

  /** The route and decoded path parameters; `{allowed}` when only other methods match (405). */
  match(method: string, path: string): Match {
    const parts = path.split('/');
    const m = method === 'HEAD' ? 'GET' : method;
    const c = this.find(m, parts);
    if (c) {
      const params: Record<string, string> = {};
      for (let i = 1; i < parts.length; i++) if (c.names[i]) params[c.names[i]!] = decode(parts[i]!);
      return { route: c.route, params };
    }
    const allowed = [...this.byMethod.keys()].filter((k) => this.find(k, parts));
    return allowed.length ? { allowed } : null;
  }
}
