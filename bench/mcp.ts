import autocannon from 'autocannon';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seedAll } from '../ingest/seed.js';
import { Warehouse } from '../warehouse/store.js';
import { benchKey, load, type LoadResult, median, toLoadResult } from './lib.js';
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

/**
 * Tool calls with a fresh JSON-RPC id each, as a client sends them (the SDK routes answers by id).
 * `batched`: each call as a one-message JSON-RPC batch, which the service hands to the SDK's own
 * transport (the path every call took without the direct path).
 */
async function mcpLoad(url: string, key: string, sid: string, args: Record<string, unknown>, batched = false): Promise<LoadResult> {
  const r = await autocannon({
    url: `${url}/v1/mcp`,
    connections: 16,
    duration: SECONDS,
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': PROTOCOL },
    requests: [
      {
        method: 'POST',
        setupRequest: (req: Record<string, unknown>) => {
          const call = { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'getCodePayment', arguments: args } };
          req.body = JSON.stringify(batched ? [call] : call);
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
 * (JSON-RPC parse, session lookup, answer wrapping). Compared in requests and in bytes a second:
 * a tool result carries the answer twice (as structured content and as text). The same call as a
 * one-message batch goes through the SDK's transport, the path of every call without the direct path.
 * Alternating rounds, medians.
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
    await mcpLoad(api.url, key, sid, args, true);
    const rest: LoadResult[] = [];
    const mcp: LoadResult[] = [];
    const sdk: LoadResult[] = [];
    for (let i = 0; i < 3; i++) {
      rest.push(await load('rest', api.url, { paths: [path], headers: { 'X-API-Key': key }, connections: 16, seconds: SECONDS }));
      mcp.push(await mcpLoad(api.url, key, sid, args));
      sdk.push(await mcpLoad(api.url, key, sid, args, true));
    }
    const row = (label: string, xs: LoadResult[]) => ({
      case: label,
      'req/s': median(xs.map((x) => x.requests_per_s)),
      'MB/s': (median(xs.map((x) => x.bytes_per_s)) / 1e6).toFixed(1),
      'bytes/answer': Math.round(median(xs.map((x) => x.bytes_per_s / x.requests_per_s))),
      'p50 ms': median(xs.map((x) => x.p50_ms)),
      'p99 ms': median(xs.map((x) => x.p99_ms)),
      'non-2xx': xs.reduce((a, x) => a + x.non_2xx + x.errors, 0),
      'ratio req/s': xs === rest ? '1.00' : median(xs.map((x, i) => x.requests_per_s / rest[i]!.requests_per_s)).toFixed(2),
      'ratio bytes/s': xs === rest ? '1.00' : median(xs.map((x, i) => x.bytes_per_s / rest[i]!.bytes_per_s)).toFixed(2),
    });
    rows.push(row('REST GET /v1/codes/99213/payment (16 conns, medians of 3 alternating rounds)', rest));
    rows.push(row('MCP tools/call getCodePayment, same inputs (target >= 0.5)', mcp));
    rows.push(row("the same call as a one-message batch, through the SDK's transport", sdk));
  } finally {
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
