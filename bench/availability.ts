import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { headingsPdf } from '../test/helpers/pdfs.js';
import { rssOf } from './lib.js';
import { seededPair } from './procs.js';

/**
 * Availability under attack: `GET /v1/health` latency (p50, p99 of 300 sequential calls) and a
 * tenant's policy-PDF parse time while each attack runs, beside the same server idle in the same
 * run. The attacks are the issue's: keyless 25 MB uploads that trickle, multipart bodies of
 * 400,000 parts, PDFs whose pages declare a size of 1e9 points. Server RSS after each attack.
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
function attacker(url: string, headers: Record<string, string>, body: Buffer, rounds: number): { stop(): Promise<void> } {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    let on = true;
    parentPort.on('message', () => { on = false; });
    (async () => {
      for (let i = 0; i < workerData.rounds && on; i++) {
        const body = Buffer.concat([Buffer.from(workerData.body), Buffer.from('\\n% ' + i + ' ' + Math.random() + '\\n')]);
        await fetch(workerData.url, { method: 'POST', headers: workerData.headers, body }).then((r) => r.arrayBuffer()).catch(() => undefined);
      }
      parentPort.postMessage('done');
    })();`;
  const w = new Worker(code, { eval: true, workerData: { url, headers, body, rounds } });
  const done = new Promise<void>((res) => w.once('message', () => res()));
  return {
    async stop() {
      w.postMessage('stop');
      await done;
      await w.terminate();
    },
  };
}

export async function run(): Promise<Record<string, string | number>[]> {
  const p = await seededPair('rcm-bench-availability-');
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
  } finally {
    await p.stop();
  }
  return rows;
}
