import { createServer, type Server } from 'node:http';
import { SnapshotHolder } from '../warehouse/snapshot.js';
import { openStateStore, stateLocationOf, type StateOptions } from '../warehouse/open_state.js';
import { PgStateStore } from '../warehouse/pg/state.js';
import type { StateStore } from '../warehouse/tenant_state.js';
import { Warehouse } from '../warehouse/store.js';
import { createHttpHandler, MAX_HEADERS } from './http.js';
import { BodyBudget } from './pipeline/body_budget.js';
import { McpEndpoint } from './mcp/adapter.js';
import { warmPtpIndexes } from '../datasets/_ncci_ptp/queries.js';
import { drugDirectory } from './drugs/service.js';
import { conceptIndex } from './concepts/search.js';
import { systemResolver } from './agents/callbacks.js';
import type { JobRunner } from './agents/runner.js';
import { DEFAULT_AGENTS, makeRunner, type AgentOptions } from './agents/wiring.js';
import type { Logger } from './logger.js';
import { AnswerCache } from './pipeline/answer.js';
import { Metrics } from './pipeline/metrics.js';
import type { Limiters } from './pipeline/auth.js';
import { pgLimiters } from './pipeline/pg_limits.js';
import { checkRoute, Pipeline, type PipelineConfig } from './pipeline/invoke.js';
import type { RouteDef } from './route.js';
import { buildRoutes } from './routes/index.js';
import { Heartbeat } from './system/heartbeat.js';
import { Readiness } from './system/readiness.js';
import type { NppesRegistry } from './npi/registry.js';
import type { ConceptRouteDeps } from './routes/concepts.js';
import { X12_RUNNERS, X12_WORKER } from './x12_jobs.js';
import { DEFAULT_REMIT_POOL, InProcessExplainer, WorkerRemitExplainer, type RemitExplainer, type RemitPoolOptions } from './remittances/pool.js';
import { DEFAULT_REMIT_MAX_BYTES } from './routes/remittances.js';
import { DEFAULT_PARSER, DEFAULT_POLICY_MAX_BYTES, WorkerPolicyParser, type ParserOptions, type PolicyParser } from './policy_documents/parser.js';
import { DEFAULTS, MB } from './defaults.js';

export interface RunningServer {
  server: Server;
  port: number;
  snapshots: SnapshotHolder;
  state: StateStore;
  pipeline: Pipeline;
  routes: RouteDef[];
  metrics: Metrics;
  cache: AnswerCache;
  /** The request bodies held now (`RCM_BODY_BUDGET_MB`). */
  bodies: BodyBudget;
  mcp: McpEndpoint;
  readiness: Readiness;
  runner: JobRunner;
  close(): Promise<void>;
}

export interface StartOptions extends PipelineConfig {
  dataDir: string;
  /** `RCM_STATE_URL`: PostgreSQL shared by replicas; unset, SQLite in the data dir. */
  stateUrl?: string;
  port: number;
  host?: string;
  serviceVersion: string;
  logger: Logger;
  /** How often CURRENT is checked for a newly published snapshot. */
  pollMs?: number;
  /** Bytes the answer cache may hold (`RCM_CACHE_MAX_MB`). */
  cacheMaxBytes?: number;
  /** Bytes each snapshot's per-input memo may hold (`RCM_MEMO_MAX_MB`). */
  memoMaxBytes?: number;
  trustProxy?: boolean;
  /** `RCM_BODY_BUDGET_MB`: request-body bytes held at once (a quarter of it per client address). */
  bodyBudgetBytes?: number;
  /** `RCM_BODY_TIMEOUT_MS`: time a request body has to arrive in full (408 after). */
  bodyTimeoutMs?: number;
  /** `RCM_PLAYGROUND` and `RCM_PLAYGROUND_KEYS_PER_HOUR`. */
  playground?: { enabled: boolean; keysPerHour: number };
  /** OpenAPI `servers` (from RCM_BASE_URL / RCM_LIVE_BASE_URL). */
  servers?: { url: string; description: string }[];
  now?: () => Date;
  /** Agent jobs: callback rules, the runner (off when `rcm worker` runs jobs elsewhere), the optional LLM writer. */
  agents?: AgentOptions;
  /** How the state store commits (`RCM_STATE_SYNC`, `RCM_STATE_BATCH_MAX`). */
  state?: StateOptions;
  /** Extra routes (the test suite's probes of each auth and body kind). */
  extraRoutes?: RouteDef[];
  /** Rate limiters shared by replicas (a networked store); in-process windows when not given. */
  limiters?: Limiters;
  /** How often readiness re-checks the snapshot and the state store (`RCM_READINESS_EVERY_MS`, default 5 s). */
  readinessEveryMs?: number;
  /** `RCM_MIN_FREE_MB` in bytes: readiness fails below this much free space in the data dir (default `DEFAULTS.minFreeMb`). */
  minFreeBytes?: number;
  /** Free bytes of the data dir's file system (tests inject a full disk). */
  freeBytes?: (dir: string) => Promise<number>;
  /** MCP sessions: per key (`RCM_MCP_SESSIONS_PER_KEY`), per tenant (`RCM_MCP_SESSIONS_PER_TENANT`), idle expiry (`RCM_MCP_IDLE_MS`), process total. */
  mcp?: { sessionsPerKey?: number; sessionsPerTenant?: number; idleMs?: number; maxSessions?: number };
  /** The live NPPES registry (`RCM_NPPES_URL`, `RCM_NPPES_LIVE`); none when not given (tests inject a local one). */
  npi?: { registry: NppesRegistry | null };
  /** `RCM_UMLS_LICENSED`: the operator holds a UMLS licence, so the concept search may answer RxNorm atoms of UMLS-licensed sources. */
  concepts?: ConceptRouteDeps;
  /**
   * `RCM_REMIT_MAX_MB` (bytes): the largest 835 `POST /v1/remittances/explain` takes (413 above);
   * the worker pool's settings (`RCM_REMIT_WORKERS`, `_MAX_SEGMENTS`, `_MAX_CLAIMS`,
   * `_CONCURRENT_SEGMENTS`, `_PLAYGROUND_MAX_MB`; workers 0 explains in process), or an explainer (tests).
   */
  remittances?: { maxBytes?: number; pool?: Partial<RemitPoolOptions>; explainer?: RemitExplainer };
  /** `RCM_WRITE_TIMEOUT_MS`: a streamed answer whose reader takes nothing this long is cut. */
  writeTimeoutMs?: number;
  /** Customer policy PDFs: `RCM_POLICY_MAX_MB` (bytes), `RCM_POLICY_MAX_PAGES`, `RCM_POLICY_PARSE_TIMEOUT_MS`; or a parser (tests). */
  policyDocuments?: Partial<ParserOptions> & { maxBytes?: number; parser?: PolicyParser };
}

/** Mounts the current snapshot read-only, opens the state store and listens. */
export async function startServer(o: StartOptions): Promise<RunningServer> {
  const now = o.now ?? (() => new Date());
  const wh = new Warehouse(o.dataDir);
  await wh.init();
  const state = await openStateStore(stateLocationOf(wh.dir, o.stateUrl), now, o.state);
  // On PostgreSQL the rate limits are shared by the replicas too (one counter table beside the state).
  const limiters = o.limiters ?? (state instanceof PgStateStore ? await pgLimiters(state.pool, o, () => now().getTime()) : undefined);
  const metrics = new Metrics();
  const cache = new AnswerCache(o.cacheMaxBytes ?? DEFAULTS.cacheMaxMb * MB);
  let readiness: Readiness | undefined;
  let heartbeat: Heartbeat | undefined;
  const snapshots = new SnapshotHolder(wh, {
    memoMaxBytes: o.memoMaxBytes,
    onError: (message) => o.logger.error({ error: message }, 'the published snapshot could not be mounted'),
    // Whole-table lookup indexes (PTP, the drug directory, the concept index) are built right after a mount, not on the first request.
    onMount: (s) => {
      const t0 = Date.now();
      // Held like a request, so a shutdown closes the snapshot only after the build.
      s.retain();
      return Promise.all([warmPtpIndexes(s), drugDirectory(s), conceptIndex(s, o.concepts?.licensed ?? false)])
        .finally(() => s.release())
        .then(
        () => o.logger.info({ snapshot: s.id, ms: Date.now() - t0 }, 'lookup indexes ready'),
        (err: unknown) => o.logger.error({ snapshot: s.id, err }, 'lookup index build failed; lookups query DuckDB'),
      );
    },
    onSwap: (from, to) => {
      if (from) {
        metrics.snapshotSwaps.inc();
        cache.dropSnapshot(from);
      }
      o.logger.info({ from, to }, 'snapshot mounted');
      // The paths go to the log only; answers and readiness name the dataset and version.
      for (const u of snapshots.snapshot?.unmounted ?? []) o.logger.error({ snapshot: to, dataset: u.dataset, version: u.version, path: u.path, reason: u.reason }, 'dataset version not served: its file cannot be used');
      void readiness?.refresh();
      void heartbeat?.beat();
    },
  });
  heartbeat = new Heartbeat(state.replicas, () => snapshots.snapshot?.id ?? null, now, o.logger);
  readiness = new Readiness(snapshots, state, now, { dataDir: o.dataDir, minFreeBytes: o.minFreeBytes ?? DEFAULTS.minFreeMb * MB, freeBytes: o.freeBytes });
  await snapshots.refresh();
  snapshots.start(o.pollMs ?? 500);
  await heartbeat.beat();
  heartbeat.start();
  await readiness.refresh();
  readiness.start(o.readinessEveryMs ?? 5_000);
  const startedAt = now();
  const agents = { ...DEFAULT_AGENTS, ...o.agents };
  metrics.watchJobs(() => state.jobs.countByStatus());
  const runner = makeRunner({ state, snapshots, logger: o.logger, now, metrics, serviceVersion: o.serviceVersion, agents });
  const wake = () => {
    if (agents.runner) setImmediate(() => void runner.tick().catch(() => undefined));
  };
  const pd = o.policyDocuments ?? {};
  const policyParser = pd.parser ?? new WorkerPolicyParser({ ...DEFAULT_PARSER, ...pd });
  const policyDocuments = { parser: policyParser, maxBytes: pd.maxBytes ?? DEFAULT_POLICY_MAX_BYTES };
  const remitPool = { ...DEFAULT_REMIT_POOL, runners: X12_RUNNERS, workerScript: X12_WORKER, ...o.remittances?.pool };
  const explainer = o.remittances?.explainer ?? (remitPool.workers > 0 ? new WorkerRemitExplainer(remitPool) : new InProcessExplainer(remitPool));
  const remittances = { maxBytes: o.remittances?.maxBytes ?? DEFAULT_REMIT_MAX_BYTES, explainer };
  const routes = [...buildRoutes({ snapshots, state, readiness, metrics, serviceVersion: o.serviceVersion, startedAt, servers: o.servers, policyDocuments, npi: o.npi ?? { registry: null }, concepts: o.concepts, remittances, writer: agents.llm, playground: { enabled: true, keysPerHour: DEFAULTS.playgroundKeysPerHour, ...o.playground, now }, agents: { policy: agents.policy, resolve: agents.resolve ?? systemResolver, idempotencyWindowMs: DEFAULTS.idempotencyWindowMs, maxQueuedPerTenant: agents.maxQueuedPerTenant ?? DEFAULTS.jobsQueuedPerTenant, onSubmit: wake } }), ...(o.extraRoutes ?? [])];
  routes.forEach(checkRoute);
  const pipeline = new Pipeline({ config: o, state, snapshots, cache, metrics, logger: o.logger, now, limiters });
  const mcp = new McpEndpoint({ pipeline, routes, serviceVersion: o.serviceVersion, logger: o.logger, now, jsonMaxDepth: o.jsonMaxDepth, ...o.mcp });
  const bodies = new BodyBudget(o.bodyBudgetBytes ?? DEFAULTS.bodyBudgetMb * MB);
  const handler = createHttpHandler(pipeline, routes, { trustProxy: o.trustProxy ?? false, mcp, bodies, bodyTimeoutMs: o.bodyTimeoutMs ?? DEFAULTS.bodyTimeoutMs, writeTimeoutMs: o.writeTimeoutMs ?? DEFAULTS.writeTimeoutMs });
  if (agents.runner) runner.start(agents.pollMs);
  const server = createServer(handler);
  server.maxHeadersCount = MAX_HEADERS;
  server.listen(o.port, o.host ?? '0.0.0.0');
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((res, rej) => {
    server.once('listening', res);
    server.once('error', rej);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  return {
    server,
    port,
    snapshots,
    state,
    pipeline,
    routes,
    metrics,
    cache,
    bodies,
    mcp,
    readiness: readiness!,
    runner,
    async close() {
      readiness?.stop();
      heartbeat?.stop();
      await runner.drain();
      await mcp.close();
      await new Promise<void>((res) => {
        server.close(() => res());
        server.closeIdleConnections?.();
      });
      await policyParser.close();
      await explainer.close();
      await snapshots.stop();
      await state.close();
    },
  };
}
