import { cp, mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { silentLogger, type Logger } from '../server/logger.js';
import type { RouteDef } from '../server/route.js';
import { DEFAULT_AGENTS, type AgentOptions } from '../server/agents/wiring.js';
import { startServer, type RunningServer, type StartOptions } from '../server/server.js';
import type { KeyScope, KeyType } from '../warehouse/tenant_state.js';
import { Warehouse } from '../warehouse/store.js';
import type { Limiters } from '../server/pipeline/auth.js';

export interface TestResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: T;
}

export interface RequestOptions {
  /** API key; `null` sends none. Defaults to the all-scopes test key. */
  key?: string | null;
  host?: string;
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestServer {
  port: number;
  dataDir: string;
  wh: Warehouse;
  srv: RunningServer;
  tenantId: string;
  /** test key with every scope */
  key: string;
  newKey(type: KeyType, scopes: KeyScope[], tenant?: string): Promise<string>;
  request<T = any>(path: string, opts?: RequestOptions): Promise<TestResponse<T>>;
  close(): Promise<void>;
}

export const LIVE_HOST = 'api.example.test';

/** Raw HTTP (fetch cannot set Host, and host pairing is part of what is tested). */
export function rawRequest(port: number, path: string, opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/**
 * Starts a real server over a private copy of the seeded data dir, with a demo tenant and an
 * all-scopes test key. `seeded: false` starts from an empty data dir.
 */
export async function startTestServer(
  o: {
    seeded?: boolean;
    liveHosts?: string[];
    testHosts?: string[];
    rateLimitPerMin?: number;
    publicRateLimitPerMin?: number;
    adminSecret?: string;
    /** `RCM_AUTH_FAILURES_PER_MIN` (default 30). */
    authFailuresPerMin?: number;
    trustProxy?: boolean;
    cacheMaxBytes?: number;
    pollMs?: number;
    logger?: Logger;
    now?: () => Date;
    extraRoutes?: RouteDef[];
    agents?: Partial<AgentOptions>;
    limiters?: Limiters;
    mcp?: { sessionsPerKey?: number; sessionsPerTenant?: number; idleMs?: number; maxSessions?: number };
    freeBytes?: (dir: string) => Promise<number>;
    policyDocuments?: StartOptions['policyDocuments'];
    npi?: StartOptions['npi'];
    remittances?: StartOptions['remittances'];
    /** An existing data dir to serve (a restart); a fresh copy of the seeded one when not given. */
    dataDir?: string;
    /** `RCM_STATE_URL`: a PostgreSQL state store instead of the data dir's SQLite file. */
    stateUrl?: string;
    /** `RCM_BODY_BUDGET_MB` (in bytes) and `RCM_BODY_TIMEOUT_MS`. */
    bodyBudgetBytes?: number;
    bodyTimeoutMs?: number;
    /** `RCM_WRITE_TIMEOUT_MS`. */
    writeTimeoutMs?: number;
  } = {},
): Promise<TestServer> {
  const dataDir = o.dataDir ?? (await mkdtemp(join(tmpdir(), 'rcm-test-')));
  if (o.seeded !== false && !o.dataDir) await cp(inject('seededDir'), dataDir, { recursive: true });
  const srv = await startServer({
    dataDir,
    stateUrl: o.stateUrl,
    port: 0,
    host: '127.0.0.1',
    hosts: { liveHosts: o.liveHosts ?? [LIVE_HOST], testHosts: o.testHosts ?? [] },
    rateLimitPerMin: o.rateLimitPerMin ?? 100_000,
    publicRateLimitPerMin: o.publicRateLimitPerMin ?? 100_000,
    adminSecret: o.adminSecret ?? null,
    authFailuresPerMin: o.authFailuresPerMin,
    trustProxy: o.trustProxy,
    bodyBudgetBytes: o.bodyBudgetBytes,
    bodyTimeoutMs: o.bodyTimeoutMs,
    writeTimeoutMs: o.writeTimeoutMs,
    cacheMaxBytes: o.cacheMaxBytes,
    extraRoutes: o.extraRoutes,
    limiters: o.limiters,
    mcp: o.mcp,
    freeBytes: o.freeBytes,
    policyDocuments: o.policyDocuments,
    npi: o.npi,
    remittances: o.remittances,
    agents: { ...DEFAULT_AGENTS, runner: false, ...o.agents },
    serviceVersion: '0.1.1',
    pollMs: o.pollMs ?? 100,
    logger: o.logger ?? silentLogger,
    now: o.now,
  });
  const tenant = await srv.state.admin.createTenant(`t-${Math.random().toString(36).slice(2, 8)}`);
  const newKey = async (type: KeyType, scopes: KeyScope[], t = tenant.name) => (await srv.state.admin.createKey({ tenant: t, type, scopes })).secret;
  const key = await newKey('test', ['knowledge', 'agents', 'audit', 'admin']);
  return {
    port: srv.port,
    dataDir,
    wh: new Warehouse(dataDir),
    srv,
    tenantId: tenant.id,
    key,
    newKey,
    request(path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      const k = opts.key === undefined ? key : opts.key;
      if (k !== null) headers['X-API-Key'] = k;
      if (opts.host) headers.Host = opts.host;
      let body: string | Buffer | undefined;
      if (opts.body !== undefined) {
        body = typeof opts.body === 'string' || Buffer.isBuffer(opts.body) ? opts.body : JSON.stringify(opts.body);
        if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
        headers['Content-Length'] = String(Buffer.byteLength(body));
      }
      return rawRequest(srv.port, path, { method: opts.method, headers, body });
    },
    async close() {
      await srv.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A port nothing listens on now (for a child process told to listen there). */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createNetServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
    s.on('error', rej);
  });
}

/** Polls `check` until it holds or `ms` pass (bounded: a process test waits for real time, never forever). */
export async function waitUntil(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Waits (bounded) until the test server serves snapshot `id`, polling its holder: a publish in a
 * test is seen after the server's next poll of CURRENT. Fails the test naming both ids otherwise.
 */
export async function waitForSnapshot(t: TestServer, id: string | null | undefined, ms = 10_000): Promise<void> {
  if (!(await waitUntil(async () => t.srv.snapshots.snapshot?.id === id, ms))) {
    throw new Error(`the test server still serves ${t.srv.snapshots.snapshot?.id ?? 'no snapshot'} after ${ms} ms, not ${id}`);
  }
}

/**
 * A copy of the seeded data dir for this test file's child processes (servers, workers), made
 * before its tests and removed after them; call at the top of the file, read the path in tests.
 */
export function useSeededDir(prefix: string): () => string {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    await cp(inject('seededDir'), dir, { recursive: true });
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));
  return () => dir;
}

/** A seeded test server for the enclosing describe block (or file): started before its tests, closed after. */
export function useTestServer(o?: Parameters<typeof startTestServer>[0]): () => TestServer {
  let t: TestServer | undefined;
  beforeAll(async () => {
    t = await startTestServer(o);
  });
  afterAll(async () => t?.close());
  return () => t!;
}
