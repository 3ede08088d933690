import autocannon from 'autocannon';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seedAll } from '../ingest/seed.js';
import { Warehouse } from '../warehouse/store.js';
import { benchKey, load, toLoadResult, type LoadResult } from './lib.js';
import { spawnApi } from './procs.js';

const ROOT = resolve(import.meta.dirname, '..');
const SECONDS = 5;
const PROTOCOL = '2025-03-26';

/** Opens an MCP session over HTTP and returns its id (what an SDK client does on connect). */
async function session(url: string, key: string): Promise<string> {
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const init = await fetch(`${url}/v1/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  });
  const sid = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !sid) throw new Error(`initialize answered ${init.status}`);
  await fetch(`${url}/v1/mcp`, { method: 'POST', headers: { ...headers, 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': PROTOCOL }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  return sid;
}

let nextId = 1;

/** Tool calls with a fresh JSON-RPC id each, as a client sends them (the SDK routes answers by id). */
async function mcpLoad(url: string, key: string, sid: string, args: Record<string, unknown>): Promise<LoadResult> {
  const r = await autocannon({
    url: `${url}/v1/mcp`,
    connections: 16,
    duration: SECONDS,
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': PROTOCOL },
    requests: [
      {
        method: 'POST',
        setupRequest: (req: Record<string, unknown>) => {
          req.body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'getCodePayment', arguments: args } });
          return req;
        },
      },
    ],
  });
  return toLoadResult('mcp', r);
}

/**
 * An MCP tool call next to the same REST call, on one server (seeds): `tools/call getCodePayment`
 * over Streamable HTTP with a session, against `GET /v1/codes/99213/payment?...`. Both answer
 * from the snapshot cache after the first call, so the figure is the MCP layer's own cost
 * (JSON-RPC parse, session lookup, SDK dispatch, answer wrapping). Alternating rounds, medians.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-mcp-'));
  const wh = new Warehouse(dir);
  await seedAll(wh, join(ROOT, 'seeds'));
  const key = await benchKey(wh.path('state.sqlite'));
  const api = await spawnApi(dir);
  const rows: Record<string, string | number>[] = [];
  try {
    const args = { code: '99213', locality: '1320201', date_of_service: '2026-03-02' };
    const path = '/v1/codes/99213/payment?locality=1320201&date_of_service=2026-03-02';
    const sid = await session(api.url, key);
    // Warm-up of both paths (JIT), not measured.
    await mcpLoad(api.url, key, sid, args);
    await load('warm', api.url, { paths: [path], headers: { 'X-API-Key': key }, connections: 16, seconds: SECONDS });
    const rest: LoadResult[] = [];
    const mcp: LoadResult[] = [];
    for (let i = 0; i < 3; i++) {
      rest.push(await load('rest', api.url, { paths: [path], headers: { 'X-API-Key': key }, connections: 16, seconds: SECONDS }));
      mcp.push(await mcpLoad(api.url, key, sid, args));
    }
    const med = (xs: LoadResult[]) => [...xs].sort((a, b) => a.requests_per_s - b.requests_per_s)[1]!;
    const ratios = rest.map((r, i) => mcp[i]!.requests_per_s / r.requests_per_s).sort((a, b) => a - b);
    const r = med(rest);
    const m = med(mcp);
    rows.push({ case: 'REST GET /v1/codes/99213/payment (16 conns, median of 3)', 'req/s': r.requests_per_s, 'p50 ms': r.p50_ms, 'p99 ms': r.p99_ms, 'non-2xx': r.non_2xx + r.errors, ratio: '1.00' });
    rows.push({ case: 'MCP tools/call getCodePayment, same inputs', 'req/s': m.requests_per_s, 'p50 ms': m.p50_ms, 'p99 ms': m.p99_ms, 'non-2xx': m.non_2xx + m.errors, ratio: `${ratios[1]!.toFixed(2)} (target >= 0.5)` });
  } finally {
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
