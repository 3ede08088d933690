import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/harness.js';

/**
 * A raw HTTP/1.1 request whose body is declared but only partly sent: resolves with the status
 * line and headers of the answer, and whether the server closed the connection after it.
 */
function partialPost(port: number, path: string, headers: Record<string, string>, declared: number, sent: number): Promise<{ status: number; head: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const s: Socket = connect(port, '127.0.0.1');
    let text = '';
    let answered: { status: number; head: string } | null = null;
    s.on('error', () => undefined);
    s.on('data', (d) => {
      text += d.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (!answered && end >= 0) answered = { status: Number(text.slice(9, 12)), head: text.slice(0, end) };
    });
    s.on('close', () => (answered ? resolve({ ...answered, closed: true }) : reject(new Error(`closed without an answer: ${text.slice(0, 200)}`))));
    s.on('connect', () => {
      const h = { Host: '127.0.0.1', 'Content-Type': 'application/pdf', 'Content-Length': String(declared), ...headers };
      s.write(`POST ${path} HTTP/1.1\r\n${Object.entries(h).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`);
      s.write(Buffer.alloc(sent, 0x20));
    });
  });
}

describe('request bodies are read only after the headers pass, within a byte budget and a time limit', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ bodyBudgetBytes: 4 * 1024 * 1024, bodyTimeoutMs: 400 });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 401 to 40 keyless 25 MB uploads without waiting for (or holding) their bodies', async () => {
    // Each sends 64 KB of a declared 25 MB: a server that read bodies first would never answer.
    const answers = await Promise.all(Array.from({ length: 40 }, () => partialPost(t.port, '/v1/policy/parse', {}, 25 * 1024 * 1024, 64 * 1024)));
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(401));
    expect(answers.every((a) => a.closed)).toBe(true);
    expect(t.srv.bodies.inFlight).toBe(0);
  });

  it('refuses a body declared past its route\'s limit with 413 before reading it', async () => {
    // A keyed upload declaring 26 MB (the limit is 25): answered at once, the connection closed.
    const r = await partialPost(t.port, '/v1/policy/parse', { 'X-API-Key': t.key }, 26 * 1024 * 1024, 1024);
    expect(r.status).toBe(413);
    expect(r.closed).toBe(true);
    expect(t.srv.bodies.inFlight).toBe(0);
  });

  it('refuses a body over the client address share of the budget with 503 service_busy, reading none of it', async () => {
    // 4 MB budget: a client address may hold 1 MB at once.
    const r = await partialPost(t.port, '/v1/policy/parse', { 'X-API-Key': t.key }, 2 * 1024 * 1024, 1024);
    expect(r.status).toBe(503);
    expect(r.head).toMatch(/retry-after: 1/i);
    expect(t.srv.bodies.inFlight).toBe(0);
  });

  it('ends a body that trickles past RCM_BODY_TIMEOUT_MS with 408, closes the connection and frees its budget', async () => {
    const r = await partialPost(t.port, '/v1/policy/parse', { 'X-API-Key': t.key }, 100 * 1024, 10 * 1024);
    expect(r.status).toBe(408);
    expect(r.closed).toBe(true);
    expect(t.srv.bodies.inFlight).toBe(0);
    // The server still answers everyone else.
    expect((await t.request('/v1/health', { key: null })).status).toBe(200);
  });
});
