import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef, RouteExample } from '../server/route.js';
import { routeCatalog } from '../server/routes/index.js';
import { objectFields } from '../server/validation.js';
import { LIVE_HOST, startTestServer, type TestServer } from '../testing/harness.js';

/**
 * The route table fuzzed with the names an object's prototype answers to: each of them sent as
 * every string parameter (path and query) of every route, the other parameters and the body as the
 * route's own success example has them. A lookup of a plain object keyed by caller text reads the
 * prototype for these (`GET /v1/data/changes?dataset=constructor` was a 500); every answer must be
 * a 2xx or a 4xx. Bounded: one request per route, parameter and name, and a deadline.
 */
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
/** Stands for a placeholder id of an example (`{job}`, `{watch}` ...): a well-formed id of nothing. */
const SOME_ID = '00000000-0000-4000-8000-000000000000';
const MAX_CASES = 2_000;
const DEADLINE_MS = 90_000;

let t: TestServer;
let liveKey: string;
beforeAll(async () => {
  t = await startTestServer();
  liveKey = await t.newKey('live', ['knowledge', 'agents', 'audit', 'admin']);
});
afterAll(() => t.close());

/** The example a case starts from: the route's first success example sent with a key, else its first. */
function baseOf(r: RouteDef): RouteExample {
  return r.examples.find((e) => (e.status === undefined || e.status < 300) && e.key !== 'none') ?? r.examples[0]!;
}

const placeholder = (v: string) => (/^\{\w+\}$/.test(v) ? SOME_ID : v);

interface Case {
  route: RouteDef;
  where: 'path' | 'query';
  name: string;
  value: string;
}

/** Every (route, string parameter, name) of the table. */
function cases(): Case[] {
  const out: Case[] = [];
  for (const route of routeCatalog()) {
    for (const name of [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)) for (const value of PROTOTYPE_NAMES) out.push({ route, where: 'path', name, value });
    const fields = route.query ? objectFields(route.query) : null;
    // A whole number is refused before any lookup (digits only): the string parameters are the rest.
    for (const [name, f] of fields ?? []) if (!f.integer) for (const value of PROTOTYPE_NAMES) out.push({ route, where: 'query', name, value });
  }
  return out;
}

/** The request of a case: the base example with the one parameter replaced. */
function requestOf(c: Case): { path: string; method: string; body?: unknown; headers: Record<string, string>; live: boolean } {
  const ex = baseOf(c.route);
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(ex.params ?? {})) params[k] = placeholder(v);
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(ex.query ?? {})) if (!(c.where === 'query' && k === c.name)) query.set(k, placeholder(v));
  if (c.where === 'path') params[c.name] = c.value;
  else query.set(c.name, c.value);
  const path = c.route.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(params[n] ?? SOME_ID)) + (query.size ? `?${query}` : '');
  const raw = c.route.body?.kind === 'raw';
  const body = ex.body === undefined ? undefined : raw && typeof ex.body !== 'string' ? undefined : ex.body;
  const headers: Record<string, string> = raw ? { 'Content-Type': c.route.body!.kind === 'raw' ? c.route.body!.contentType : 'application/json' } : {};
  return { path, method: c.route.method.toUpperCase(), body, headers, live: ex.host === 'live' };
}

describe('every string parameter of every route, sent a name of the object prototype', () => {
  it('answers constructor, __proto__, toString, hasOwnProperty and valueOf with no 5xx', async () => {
    const all = cases();
    // Every route with a string parameter is covered, and the run stays bounded.
    expect(all.length).toBeGreaterThan(100);
    expect(all.length).toBeLessThanOrEqual(MAX_CASES);
    const deadline = Date.now() + DEADLINE_MS;
    const failures: string[] = [];
    let sent = 0;
    for (const c of all) {
      if (Date.now() > deadline) throw new Error(`the fuzz run passed its ${DEADLINE_MS} ms deadline after ${sent} of ${all.length} requests`);
      const q = requestOf(c);
      const r = await t.request(q.path, { method: q.method, body: q.body, headers: q.headers, ...(q.live ? { host: LIVE_HOST, key: liveKey } : {}) });
      sent++;
      if (r.status >= 500) failures.push(`${q.method} ${q.path} (${c.where} ${c.name}): ${r.status} ${r.text.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
    expect(sent).toBe(all.length);
  }, 120_000);
});
