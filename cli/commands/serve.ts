import { InvalidArgumentError, type Command } from 'commander';
import { seedAll } from '../../ingest/seed.js';
import { createLogger, silentLogger, type Logger } from '../../server/logger.js';
import { startServer } from '../../server/server.js';
import { HttpNppesRegistry } from '../../server/npi/registry.js';
import { worker } from '../../server/worker.js';
import { agentOptionsOf, SERVICE_VERSION, serversOf, stateOptionsOf, type Config } from '../config.js';
import { SEEDS_DIR, type CliContext } from '../context.js';

const loggerOf = (c: Config, ctx: CliContext): Logger => (c.RCM_LOG === 'silent' ? silentLogger : createLogger({ write: (l: string) => ctx.io.stdout(l) }));

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

export function register(program: Command, ctx: CliContext): void {
  const addServe = (name: string, description: string, prepare: boolean) =>
    program
      .command(name)
      .description(description)
      .option('--port <port>', 'port (default: PORT or 8080)', (v) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number');
        return n;
      })
      .action(async (o: { port?: number }) => {
        const c = ctx.cfg();
        const w = ctx.wh();
        if (prepare) await prepareDemo(ctx);
        const srv = await startServer({
          dataDir: w.dir,
          stateUrl: c.RCM_STATE_URL,
          port: o.port ?? c.PORT,
          host: c.HOST,
          hosts: { liveHosts: c.RCM_LIVE_HOSTS, testHosts: c.RCM_TEST_HOSTS },
          rateLimitPerMin: c.RCM_RATE_LIMIT_PER_MIN,
          jsonMaxDepth: c.RCM_JSON_MAX_DEPTH,
          publicRateLimitPerMin: c.RCM_PUBLIC_RATE_LIMIT_PER_MIN,
          adminSecret: c.RCM_ADMIN_SECRET ?? null,
          trustProxy: c.RCM_TRUST_PROXY,
          cacheMaxBytes: c.RCM_CACHE_MAX_MB * 1024 * 1024,
          memoMaxBytes: c.RCM_MEMO_MAX_MB * 1024 * 1024,
          servers: serversOf(c),
          playground: { enabled: c.RCM_PLAYGROUND, keysPerHour: c.RCM_PLAYGROUND_KEYS_PER_HOUR },
          agents: agentOptionsOf(c),
          state: stateOptionsOf(c),
          serviceVersion: SERVICE_VERSION,
          pollMs: c.RCM_SNAPSHOT_POLL_MS,
          readinessEveryMs: c.RCM_READINESS_EVERY_MS,
          minFreeBytes: c.RCM_MIN_FREE_MB * 1024 * 1024,
          mcp: { sessionsPerKey: c.RCM_MCP_SESSIONS_PER_KEY, idleMs: c.RCM_MCP_IDLE_MS },
          npi: { registry: c.RCM_NPPES_LIVE ? new HttpNppesRegistry({ url: c.RCM_NPPES_URL, timeoutMs: c.RCM_NPPES_TIMEOUT_MS, failuresToOpen: 5, openMs: 30_000 }) : null },
          policyDocuments: { maxBytes: c.RCM_POLICY_MAX_MB * 1024 * 1024, maxPages: c.RCM_POLICY_MAX_PAGES, timeoutMs: c.RCM_POLICY_PARSE_TIMEOUT_MS },
          logger: loggerOf(c, ctx),
        });
        ctx.io.stderr(`rcm ${SERVICE_VERSION} serving snapshot ${srv.snapshots.snapshot?.id ?? '(none yet)'} on http://localhost:${srv.port}/v1 (data dir ${w.dir}; docs at /docs, playground at /playground)\n`);
        await (ctx.io.untilSignal?.() ?? new Promise(() => {}));
        await srv.close();
      });
  addServe('serve', 'Serve the /v1 API and /v1/mcp over the current snapshot (hot-swaps when a new one is published); runs agent jobs unless RCM_AGENT_RUNNER=0', false);
  addServe('start', 'First-run friendly serve: load seeds when no snapshot exists, create a demo tenant and test key (knowledge, agents, audit) when none exists, then serve', true);

  program
    .command('worker')
    .description('Run agent jobs and deliver their callbacks without serving HTTP (for a deployment that separates them; set RCM_AGENT_RUNNER=0 on the servers)')
    .option('--once', 'run what is due now, then exit')
    .action(async (o: { once?: boolean }) => {
      const c = ctx.cfg();
      const agents = agentOptionsOf(c);
      const wk = await worker({ dataDir: ctx.wh().dir, stateUrl: c.RCM_STATE_URL, logger: loggerOf(c, ctx), serviceVersion: SERVICE_VERSION, agents, pollMs: c.RCM_SNAPSHOT_POLL_MS, state: stateOptionsOf(c) });
      if (o.once) {
        await wk.runner.settle();
      } else {
        ctx.io.stderr(`rcm ${SERVICE_VERSION} worker ${wk.runner.owner} running agent jobs (data dir ${ctx.wh().dir})\n`);
        wk.runner.start(agents.pollMs, { keepAlive: true });
        await (ctx.io.untilSignal?.() ?? new Promise(() => {}));
      }
      await wk.close();
    });
}
