import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { headingsPdf } from '../testing/pdfs.js';
import { generated835 } from '../testing/x12.js';
import { rssOf } from './lib.js';
import { seededPair } from './procs.js';

/**
 * Availability under attack: `GET /v1/health` latency (p50, p99 of 300 sequential calls) and a
 * tenant's policy-PDF parse time while each attack runs, beside the same server idle in the same
 * run. The attacks: keyless 25 MB uploads that trickle, multipart bodies of 400,000 parts, PDFs
 * whose pages declare a size of 1e9 points, playground keys looping their largest allowed 835,
 * 16 concurrent small 835s, and connections that never read a large explanation (the server's
 * heap and array buffers after they close, round after round). Server RSS after each attack.
 */

/** Milliseconds of `n` sequential GET /v1/health calls, sorted. */
async function healthMs(url: string, n = 300): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await new Promise<void>((res, rej) => {
      const r = request(`${url}/v1/health`, (resp) => {
        resp.resume();
        resp.on('end', () => res());
      });
      r.on('error', rej);
      r.end();
    });
    out.push(performance.now() - t0);
  }
  return out.sort((a, b) => a - b);
}
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

/** Keyless POSTs declaring 25 MB and sending 64 KB, held open until `release`. */
function trickle(url: string, n: number): { release(): void } {
  const { hostname, port } = new URL(url);
  const socks: Socket[] = [];
  for (let i = 0; i < n; i++) {
    const s = connect(Number(port), hostname);
    s.on('error', () => undefined);
    s.on('connect', () => {
      s.write(`POST /v1/policy/parse HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/pdf\r\nContent-Length: ${25 * 1024 * 1024}\r\n\r\n`);
      s.write(Buffer.alloc(64 * 1024, 0x20));
    });
    socks.push(s);
  }
  return { release: () => socks.forEach((s) => s.destroy()) };
}

/**
 * An attacker in a thread of its own (its own event loop, so the health probe's latency is the
 * server's, not the load generator's): POSTs `body` to `url` in a loop, at most `rounds` times,
 * until stopped.
 */
function attacker(url: string, headers: Record<string, string>, body: Buffer, rounds: number): { stop(): Promise<Record<string, number>> } {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    let on = true;
    const statuses = {};
    parentPort.on('message', () => { on = false; });
    (async () => {
      for (let i = 0; i < workerData.rounds && on; i++) {
        const body = Buffer.concat([Buffer.from(workerData.body), Buffer.from('\\n% ' + i + ' ' + Math.random() + '\\n')]);
        const status = await fetch(workerData.url, { method: 'POST', headers: workerData.headers, body }).then(async (r) => { await r.arrayBuffer(); return r.status; }).catch(() => 'error');
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
      parentPort.postMessage(statuses);
    })();`;
  const w = new Worker(code, { eval: true, workerData: { url, headers, body, rounds } });
  const done = new Promise<Record<string, number>>((res) => w.once('message', (m) => res(m)));
  return {
    async stop() {
      w.postMessage('stop');
      const statuses = await done;
      await w.terminate();
      return statuses;
    },
  };
}

/** Statuses summed over attackers, as `200 x12, 503 x3`. */
function answers(all: Record<string, number>[]): string {
  const sum: Record<string, number> = {};
  for (const s of all) for (const [k, v] of Object.entries(s)) sum[k] = (sum[k] ?? 0) + v;
  return Object.entries(sum).map(([k, v]) => `${k} x${v}`).join(', ');
}

export async function run(): Promise<Record<string, string | number>[]> {
  // --expose-gc: rcm_heap_used_and_array_buffers_bytes is read after a full collection.
  const p = await seededPair('rcm-bench-availability-', ['knowledge', 'admin'], { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --expose-gc`.trim() });
  const rows: Record<string, string | number>[] = [];
  const url = p.api.url;
  const json = { 'X-API-Key': p.key };
  const pdf = await headingsPdf();
  const variant = (i: number) => Buffer.concat([pdf, Buffer.from(`\n% bench ${i} ${Math.random()}\n`)]);
  const parseSeconds = async (i: number) => {
    const t0 = performance.now();
    const r = await fetch(`${url}/v1/policy/parse`, { method: 'POST', headers: { ...json, 'Content-Type': 'application/pdf' }, body: variant(i) });
    await r.arrayBuffer();
    if (r.status !== 201) throw new Error(`parse answered ${r.status}`);
    return (performance.now() - t0) / 1000;
  };
  const boundary = 'bench';
  // 400,000 parts: 21 MB, under the route's 25 MB limit, so the parser sees them.
  const manyParts = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="n"\r\n\r\n\r\n`.repeat(400_000)), Buffer.from(`--${boundary}--\r\n`)]);
  const hugePage = Buffer.from(pdf.toString('latin1').replace(/\/MediaBox \[0 0 612 792\]/g, '/MediaBox [0 0 1e9 792]'), 'latin1');
  try {
    await parseSeconds(0); // the parser thread starts on the first parse
    const idle = await healthMs(url);
    const idleParse = await parseSeconds(1);
    const row = (attack: string, h: number[], parse: number) =>
      rows.push({
        attack,
        'health p50 ms': pct(h, 0.5).toFixed(2),
        'health p99 ms': pct(h, 0.99).toFixed(2),
        'idle p99 ms': pct(idle, 0.99).toFixed(2),
        'p99 ratio': (pct(h, 0.99) / pct(idle, 0.99)).toFixed(2),
        'tenant parse s': parse.toFixed(2),
        'idle parse s': idleParse.toFixed(2),
        'server RSS MB': 0,
      });
    const rss = async () => Math.round((await rssOf(p.api.proc.pid!)) / 1048576);

    row('none (idle)', idle, idleParse);
    rows.at(-1)!['server RSS MB'] = await rss();

    const t = trickle(url, 120);
    await new Promise((r) => setTimeout(r, 500));
    row('120 keyless 25 MB uploads trickling', await healthMs(url), await parseSeconds(2));
    rows.at(-1)!['server RSS MB'] = await rss();
    t.release();

    const mp = [0, 1].map(() => attacker(`${url}/v1/policy/parse`, { ...json, 'Content-Type': `multipart/form-data; boundary=${boundary}` }, manyParts, 1000));
    row('2 clients posting 400,000-part multipart bodies (21 MB)', await healthMs(url), await parseSeconds(3));
    rows.at(-1)!['server RSS MB'] = await rss();
    await Promise.all(mp.map((l) => l.stop()));

    const bombs = [0, 1].map(() => attacker(`${url}/v1/policy/parse`, { ...json, 'Content-Type': 'application/pdf' }, hugePage, 20));
    row('2 clients posting PDFs whose pages declare 1e9 points', await healthMs(url), await parseSeconds(4));
    rows.at(-1)!['server RSS MB'] = await rss();
    await Promise.all(bombs.map((l) => l.stop()));

    // 10 playground keys (anonymous visitors) opening MCP sessions in a loop, then a paying
    // tenant's initialize: the tenant must still get a session.
    const minted: string[] = [];
    for (let i = 0; i < 10; i++) minted.push(((await (await fetch(`${url}/v1/playground/session`, { method: 'POST' })).json()) as { key: string }).key);
    const initialize = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } }));
    const mcpAccept = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const flood = minted.map((k) => attacker(`${url}/v1/mcp`, { ...mcpAccept, 'X-API-Key': k }, initialize, 200));
    const h = await healthMs(url);
    const mine = await fetch(`${url}/v1/mcp`, { method: 'POST', headers: { ...mcpAccept, 'X-API-Key': p.key }, body: initialize });
    await mine.arrayBuffer();
    row(`10 playground keys opening MCP sessions in a loop (a tenant's initialize: ${mine.status})`, h, await parseSeconds(5));
    rows.at(-1)!['server RSS MB'] = await rss();
    await Promise.all(flood.map((l) => l.stop()));

    await remittanceAttacks(url, p.key, minted, rows, row, rss);
  } finally {
    await p.stop();
  }
  return rows;
}

/** A request whose answer is never read (the socket paused once the request is sent). */
function stalled(url: string, key: string, body: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => {
      s.write(`POST /v1/remittances/explain HTTP/1.1\r\nHost: ${hostname}\r\nX-API-Key: ${key}\r\nContent-Type: application/edi-x12\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
      s.write(body, () => {
        s.pause();
        resolve(s);
      });
    });
    s.on('error', reject);
  });
}

/** The server's V8 heap used plus array buffers after a full collection (`--expose-gc`), in MB. */
async function heapAfterGc(url: string, adminKey: string): Promise<number> {
  const text = await (await fetch(`${url}/v1/metrics`, { headers: { 'X-API-Key': adminKey } })).text();
  return Math.round(Number(/^rcm_heap_used_and_array_buffers_bytes ([0-9.e+]+)$/m.exec(text)?.[1] ?? NaN) / 1048576);
}

/**
 * The remittance attacks: one and three playground keys looping their largest allowed 835 (1 MB),
 * 16 concurrent 375 KB 835s of a tenant, and three rounds of three connections that never read a
 * 5 MB 835's explanation, then close (heap and array buffers after a forced GC before and after,
 * RSS each round).
 */
async function remittanceAttacks(url: string, key: string, playground: string[], rows: Record<string, string | number>[], row: (attack: string, h: number[], parse: number) => void, rss: () => Promise<number>): Promise<void> {
  const x12 = { 'Content-Type': 'application/edi-x12' };
  // The largest 835 a playground key may send (RCM_REMIT_PLAYGROUND_MAX_MB, 1 MB): 2,600 claims, 983 KB.
  const largest = Buffer.from(generated835(2_600));
  const small = Buffer.from(generated835(990)); // 375 KB
  await fetch(`${url}/v1/remittances/explain`, { method: 'POST', headers: { ...x12, 'X-API-Key': key }, body: small }).then((r) => r.arrayBuffer()); // threads start
  for (const n of [1, 3]) {
    const loops = playground.slice(0, n).map((k) => attacker(`${url}/v1/remittances/explain`, { ...x12, 'X-API-Key': k }, largest, 1000));
    await new Promise((r) => setTimeout(r, 500));
    row(`${n} playground key${n > 1 ? 's' : ''} looping a 1 MB 835 (their largest)`, await healthMs(url), 0);
    rows.at(-1)!['server RSS MB'] = await rss();
    rows.at(-1)!.answers = answers(await Promise.all(loops.map((l) => l.stop())));
  }
  const sixteen = Array.from({ length: 16 }, () => attacker(`${url}/v1/remittances/explain`, { ...x12, 'X-API-Key': key }, small, 1000));
  await new Promise((r) => setTimeout(r, 500));
  row('16 concurrent 375 KB 835s of a tenant', await healthMs(url), 0);
  rows.at(-1)!['server RSS MB'] = await rss();
  rows.at(-1)!.answers = answers(await Promise.all(sixteen.map((l) => l.stop())));
  // Three non-reading connections on a 5 MB 835 (14,000 claims, 294,011 segments each: 882,033 of the
  // 1,500,000 the budget admits), held 3 s and closed; three rounds.
  const admin = key; // the bench key has the admin scope
  const big = generated835(14_000);
  const before = await heapAfterGc(url, admin);
  for (let round = 1; round <= 3; round++) {
    const socks = await Promise.all([0, 1, 2].map(() => stalled(url, key, big)));
    await new Promise((r) => setTimeout(r, 3_000));
    for (const s of socks) s.destroy();
    await new Promise((r) => setTimeout(r, 500));
    rows.push({ attack: `3 connections never reading a 5 MB 835's answer, round ${round}, closed`, 'heap+buffers after GC MB': await heapAfterGc(url, admin), 'before MB': before, 'server RSS MB': await rss() });
  }
}
