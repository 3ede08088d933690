import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isToolRoute, type Auth, type RouteDef } from '../server/route.js';
import { routeCatalog } from '../server/routes/index.js';
import { expectGolden } from '../testing/golden.js';

const GOLDEN = join(resolve(import.meta.dirname), 'golden/routes.jsonl');

/** `public`, `<scope>` or `<scope>:live` (live keys only), `admin_secret_or_test_key`. */
const authOf = (a: Auth): string => (typeof a === 'object' ? `${[a.scope, ...(a.alsoScopes ?? [])].join('+')}${a.keyType ? `:${a.keyType}` : ''}` : a);

/** One reviewed line per route: `METHOD path operationId auth reads cache mcp`. */
const routeLine = (r: RouteDef): string =>
  [
    r.method.toUpperCase(),
    r.path,
    r.operationId,
    authOf(r.auth),
    r.reads,
    r.cache === 'daily' ? 'cache:daily' : r.cache ? 'cache' : 'no-cache',
    isToolRoute(r) ? 'mcp' : 'no-mcp',
  ].join(' ');

describe('the route table', () => {
  it('is the reviewed golden: one line per route (method, path, operationId, auth, reads, cache, MCP tool)', async () => {
    await expectGolden(GOLDEN, routeCatalog().map(routeLine));
  });

  it('answers reliability (dataset_versions) from every route that reads the snapshot', () => {
    const keysOf = (schema: unknown): string[] => Object.keys((schema as { shape?: object } | undefined)?.shape ?? {});
    const without = routeCatalog()
      .filter((r) => r.reads.startsWith('snapshot') && !keysOf(r.response).includes('reliability'))
      .map((r) => r.operationId);
    // The spec shapes these two as bare arrays: they name their datasets in X-Dataset-Versions (server/payers/payers.int.test.ts).
    expect(without).toEqual(['searchPayers', 'listPayerDenialPatterns']);
  });

  it('declares each operationId once and each method and path once', () => {
    const routes = routeCatalog();
    const dup = (xs: string[]) => xs.filter((x, i) => xs.indexOf(x) !== i);
    expect(dup(routes.map((r) => r.operationId))).toEqual([]);
    expect(dup(routes.map((r) => `${r.method} ${r.path}`))).toEqual([]);
  });

  it('lists declarations only: a catalog handler that reaches a dependency throws', async () => {
    const ready = routeCatalog().find((r) => r.operationId === 'healthReady')!;
    await expect(async () => ready.handler({} as never)).rejects.toThrow(/handlers must not be called/);
  });
});
