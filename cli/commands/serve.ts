import { seedAll } from '../../ingest/seed.js';
import type { Logger } from '../../server/logger.js';
import { startServer, type StartOptions } from '../../server/server.js';
import { HttpNppesRegistry } from '../../server/npi/registry.js';
import { agentOptionsOf, loggerOf } from '../serving.js';
import { serversOf, stateOptionsOf, type Config } from '../config.js';
import { SEEDS_DIR, type CliContext } from '../context.js';
import { SERVICE_VERSION } from '../io.js';
import { MB } from '../../server/defaults.js';
import { DEFAULT_REMIT_POOL } from '../../server/remittances/pool.js';
import { DEFAULT_PARSER, defaultParsers } from '../../server/policy_documents/parser.js';

/** First run: seeds when nothing is published, and a demo tenant with a test key shown once. */
async function prepareDemo(ctx: CliContext): Promise<void> {
  const w = ctx.wh();
  if (!(await w.currentId())) {
    ctx.io.stderr('no snapshot yet: loading seeds/ ...\n');
    const res = await seedAll(w, SEEDS_DIR);
    ctx.io.stderr(`published snapshot ${res.snapshotId} (${res.staged.map((s) => `${s.summary.dataset} ${s.summary.version}`).join(', ')})\n`);
  }
  await ctx.withState(async (st) => {
    if ((await st.admin.findTenants()).length > 0) return;
    await st.admin.createTenant('demo');
    const { record, secret } = await st.admin.createKey({ tenant: 'demo', type: 'test', scopes: ['knowledge', 'agents', 'audit'], label: 'demo key created by rcm start' });
    ctx.io.stderr(`created tenant 'demo' and test key ${record.id} (scopes knowledge, agents, audit); key (shown once, stored hashed):\n  ${secret}\n`);
  });
}

/**
 * What `rcm serve` passes `startServer`: every setting, its default included (cli/config.ts takes
 * the shared ones from server/defaults.ts), so the server's own fallbacks never decide for the CLI.
 */
export function serverOptionsOf(c: Config, dataDir: string, o: { port?: number; logger: Logger }): StartOptions {
  return {
    dataDir,
    stateUrl: c.RCM_STATE_URL,
    port: o.port ?? c.PORT,
    host: c.HOST,
    hosts: { liveHosts: c.RCM_LIVE_HOSTS, testHosts: c.RCM_TEST_HOSTS },
    rateLimitPerMin: c.RCM_RATE_LIMIT_PER_MIN,
    jsonMaxDepth: c.RCM_JSON_MAX_DEPTH,
    publicRateLimitPerMin: c.RCM_PUBLIC_RATE_LIMIT_PER_MIN,
    adminSecret: c.RCM_ADMIN_SECRET ?? null,
    authFailuresPerMin: c.RCM_AUTH_FAILURES_PER_MIN,
    trustProxy: c.RCM_TRUST_PROXY,
    cacheMaxBytes: c.RCM_CACHE_MAX_MB * MB,
    bodyBudgetBytes: c.RCM_BODY_BUDGET_MB * MB,
    bodyTimeoutMs: c.RCM_BODY_TIMEOUT_MS,
    memoMaxBytes: c.RCM_MEMO_MAX_MB * MB,
    servers: serversOf(c),
    playground: { enabled: c.RCM_PLAYGROUND, keysPerHour: c.RCM_PLAYGROUND_KEYS_PER_HOUR },
    agents: agentOptionsOf(c),
    state: stateOptionsOf(c),
    serviceVersion: SERVICE_VERSION,
    pollMs: c.RCM_SNAPSHOT_POLL_MS,
    readinessEveryMs: c.RCM_READINESS_EVERY_MS,
    minFreeBytes: c.RCM_MIN_FREE_MB * MB,
    mcp: { sessionsPerKey: c.RCM_MCP_SESSIONS_PER_KEY, sessionsPerTenant: c.RCM_MCP_SESSIONS_PER_TENANT, idleMs: c.RCM_MCP_IDLE_MS },
    concepts: { licensed: c.RCM_UMLS_LICENSED },
    remittances: {
      maxBytes: c.RCM_REMIT_MAX_MB * MB,
      pool: { workers: c.RCM_REMIT_WORKERS ?? DEFAULT_REMIT_POOL.workers, maxSegments: c.RCM_REMIT_MAX_SEGMENTS, maxClaims: c.RCM_REMIT_MAX_CLAIMS, concurrentSegments: c.RCM_REMIT_CONCURRENT_SEGMENTS, playgroundMaxBytes: c.RCM_REMIT_PLAYGROUND_MAX_MB * MB },
    },
    writeTimeoutMs: c.RCM_WRITE_TIMEOUT_MS,
    npi: { registry: c.RCM_NPPES_LIVE ? new HttpNppesRegistry({ url: c.RCM_NPPES_URL, timeoutMs: c.RCM_NPPES_TIMEOUT_MS, failuresToOpen: 5, openMs: 30_000 }) : null },
    policyDocuments: {
      maxBytes: c.RCM_POLICY_MAX_MB * MB,
      maxPages: c.RCM_POLICY_MAX_PAGES,
      timeoutMs: c.RCM_POLICY_PARSE_TIMEOUT_MS,
      parsers: c.RCM_POLICY_PARSERS ?? defaultParsers(),
      playground: { ...DEFAULT_PARSER.playground, maxBytes: c.RCM_POLICY_PLAYGROUND_MAX_MB * MB },
    },
    logger: o.logger,
  };
}

/** Serves the /v1 API until a signal, after preparing a first run for `rcm start`. */
async function serveUntilSignal(ctx: CliContext, o: { port?: number }, prepare: boolean): Promise<void> {
  const c = ctx.cfg();
  const w = ctx.wh();
  if (prepare) await prepareDemo(ctx);
  const srv = await startServer(serverOptionsOf(c, w.dir, { port: o.port, logger: loggerOf(c, (l) => ctx.io.stdout(l)) }));
  ctx.io.stderr(`rcm ${SERVICE_VERSION} serving snapshot ${srv.snapshots.snapshot?.id ?? '(none yet)'} on http://localhost:${srv.port}/v1 (data dir ${w.dir}; docs at /docs, playground at /playground)\n`);
  await (ctx.io.untilSignal?.() ?? new Promise(() => {}));
  await srv.close();
}

/** `rcm serve`: the /v1 API and /v1/mcp over the current snapshot. */
export function serve(ctx: CliContext, o: { port?: number }): Promise<void> {
  return serveUntilSignal(ctx, o, false);
}

/** `rcm start`: seeds and a demo key on a first run, then `rcm serve`. */
export function start(ctx: CliContext, o: { port?: number }): Promise<void> {
  return serveUntilSignal(ctx, o, true);
}
