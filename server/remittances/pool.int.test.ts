import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSeedSnapshot } from '../../testing/datasets.js';
import { startTestServer, waitUntil, type TestServer } from '../../testing/harness.js';
import { generated835, remit835 } from '../../testing/x12.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { DEFAULT_REMIT_POOL, InProcessExplainer, WorkerRemitExplainer, type ExplainCall } from './pool.js';

/**
 * Remittances off the event loop: the worker pool answers what the main thread answers, byte for
 * byte; playground keys share one thread; the work is bounded by segments and claims; an answer
 * is held only at its reader's pace and let go when the reader stops or leaves.
 */

/** A request whose answer is never read: the socket is paused after the request is written. */
function stalledRequest(port: number, path: string, key: string, body: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => {
      s.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nContent-Type: application/edi-x12\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
      s.write(body, () => {
        s.pause();
        resolve(s);
      });
    });
    s.on('error', reject);
  });
}

const X12 = { 'Content-Type': 'application/edi-x12' };

describe('the remittance worker pool answers what the main thread answers', () => {
  let snap: SnapshotReader & { close(): void };
  beforeAll(async () => {
    snap = await openSeedSnapshot(['x12_codes', 'payers', 'mac_jurisdictions', 'ncci_ptp_prac', 'mpfs_rvu', 'gpci', 'locality_county', 'zip_locality', 'nppes']);
  });
  afterAll(() => snap.close());

  it('byte for byte, on a 300-claim 835, its bounded summary and its posting file', async () => {
    const pool = new WorkerRemitExplainer({ ...DEFAULT_REMIT_POOL, workers: 1 });
    const inline = new InProcessExplainer(DEFAULT_REMIT_POOL);
    try {
      const call = (mode: 'full' | 'summary', format: 'json' | 'posting-csv' = 'json'): ExplainCall => ({ caller: { tenant: 't', playground: false }, snapshot: snap, bytes: Buffer.from(generated835(300)), spec: { asOf: '2026-01-10', at: Date.parse('2026-01-10T12:00:00Z'), where: { locality: '1320201' }, testKey: false, mode, format, redact: false } });
      const [csvA, csvB] = await Promise.all([(await pool.explain(call('full', 'posting-csv'))).joined(), (await inline.explain(call('full', 'posting-csv'))).joined()]);
      expect(csvA.equals(csvB)).toBe(true);
      // A claim row, five line rows and 9 adjustment rows a claim (four lines of two, one of one), and the header.
      expect(csvA.toString('utf8').trimEnd().split('\n')).toHaveLength(1 + 300 * (1 + 5 + 9));
      for (const mode of ['full', 'summary'] as const) {
        const [a, b] = await Promise.all([(await pool.explain(call(mode))).joined(), (await inline.explain(call(mode))).joined()]);
        expect(a.length).toBeGreaterThan(mode === 'full' ? 1_000_000 : 1_000);
        expect(a.equals(b), `${mode}: the pool's ${a.length} bytes differ from the main thread's ${b.length}`).toBe(true);
        const body = JSON.parse(a.toString('utf8'));
        expect(body.summary.claims).toBe(300);
        if (mode === 'summary') expect(body).toMatchObject({ truncated: true, transactions: [{ claims: [] }] });
      }
      expect(pool.started).toBe(1);
      expect(pool.inFlight).toBe(0);
    } finally {
      await pool.close();
    }
  });
});

describe('POST /v1/remittances/explain on the worker pool', () => {
  let t: TestServer;
  let pool: WorkerRemitExplainer;
  beforeAll(async () => {
    pool = new WorkerRemitExplainer({ ...DEFAULT_REMIT_POOL, workers: 2, maxSegments: 60_000, maxClaims: 2_900, concurrentSegments: 60_000 });
    t = await startTestServer({ remittances: { explainer: pool }, writeTimeoutMs: 1_500, publicRateLimitPerMin: 1_000 });
  });
  afterAll(() => t.close());

  it('refuses work past RCM_REMIT_MAX_SEGMENTS or RCM_REMIT_MAX_CLAIMS with 413 naming the limit, before any explaining', async () => {
    // 3,000 claims of 21 segments each: 63,011 segments, past 60,000.
    const r = await t.request('/v1/remittances/explain', { method: 'POST', body: generated835(3_000), headers: X12 });
    expect(r.status).toBe(413);
    expect(r.body.detail).toMatch(/63,011 segments; one request explains at most 60,000 \(RCM_REMIT_MAX_SEGMENTS\)/);
    // 3,000 claims without lines: few segments, past 2,900 claims.
    const bare = Array.from({ length: 3_000 }, (_, i) => `CLP*P${i}*1*100*100*0*MB*ICN${i}`);
    const claims = await t.request('/v1/remittances/explain', { method: 'POST', body: remit835(bare, { bpr: '300000' }), headers: X12 });
    expect(claims.status).toBe(413);
    expect(claims.body.detail).toMatch(/3,000 claims; one request explains at most 2,900 \(RCM_REMIT_MAX_CLAIMS\)/);
    expect(pool.inFlight).toBe(0);
  });

  it('cuts a reader that stops reading after the write timeout and releases its budget; a second request waits for nothing but the budget', async () => {
    // 2,800 claims: 58,811 segments of the 60,000 the budget admits, an answer of about 16 MB (more than
    // loopback's socket buffers take).
    const stalled = await stalledRequest(t.port, '/v1/remittances/explain', t.key, generated835(2_800));
    expect(await waitUntil(async () => pool.inFlight === 58_811, 10_000)).toBe(true);
    // Another tenant (the first holds its share of the two threads): a thread is free, the budget is not.
    const other = (await t.srv.state.admin.createTenant('pool-other')).name;
    const key = await t.newKey('test', ['knowledge'], other);
    const busy = await t.request('/v1/remittances/explain', { method: 'POST', key, body: generated835(100), headers: X12 });
    expect(busy.status).toBe(503);
    expect(busy.body.code).toBe('service_busy');
    expect(busy.headers['retry-after']).toBeDefined();
    // RCM_WRITE_TIMEOUT_MS (1.5 s here): the reader took nothing, so the answer is cut and the budget released.
    expect(await waitUntil(async () => pool.inFlight === 0, 10_000)).toBe(true);
    // What the stalled reader gets, read now: the headers and part of the answer, never the chunked body's end.
    const got: Buffer[] = [];
    stalled.on('data', (b: Buffer) => got.push(b));
    stalled.resume();
    await new Promise<void>((r) => {
      stalled.once('close', () => r());
      setTimeout(r, 5_000).unref();
    });
    const text = Buffer.concat(got).toString('latin1');
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text.endsWith('0\r\n\r\n')).toBe(false);
    expect(stalled.destroyed).toBe(true);
    expect((await t.request('/v1/remittances/explain', { method: 'POST', body: generated835(100), headers: X12 })).status).toBe(200);
  });

  it('lets go of the budget as soon as the reader leaves', async () => {
    const stalled = await stalledRequest(t.port, '/v1/remittances/explain', t.key, generated835(2_800));
    expect(await waitUntil(async () => pool.inFlight === 58_811, 10_000)).toBe(true);
    stalled.destroy();
    expect(await waitUntil(async () => pool.inFlight === 0, 5_000)).toBe(true);
  });

  it('gives every playground key one thread, one explanation at a time (503 while it is busy), small files only', async () => {
    const mint = async (ip: string) => (await t.request('/v1/playground/session', { method: 'POST', key: null, headers: { 'X-Forwarded-For': ip } })).body.key as string;
    const [a, b] = [await mint('10.9.0.1'), await mint('10.9.0.2')];
    // 983 KB of 835 (about 15 MB of answer) for playground key a, never read.
    const stalled = await stalledRequest(t.port, '/v1/remittances/explain', a, generated835(2_600));
    expect(await waitUntil(async () => pool.inFlight > 0, 10_000)).toBe(true);
    const other = await t.request('/v1/remittances/explain', { method: 'POST', key: b, body: remit835(['CLP*P1*1*100*100*0*MB*ICN1', 'SVC*HC:99213*100*100**1', 'DTM*472*20251201'], { bpr: '100' }), headers: X12 });
    expect(other.status).toBe(503);
    expect(other.body.detail).toMatch(/playground explains one remittance at a time/);
    expect(other.headers['retry-after']).toBeDefined();
    // Refused on its headers, its body unread: the connection closes.
    expect(other.headers.connection).toBe('close');
    // A tenant's key is not held up by the playground's thread.
    expect((await t.request('/v1/remittances/explain', { method: 'POST', body: generated835(5), headers: X12 })).status).toBe(200);
    stalled.destroy();
    expect(await waitUntil(async () => pool.inFlight === 0, 5_000)).toBe(true);
    expect((await t.request('/v1/remittances/explain', { method: 'POST', key: b, body: generated835(5), headers: X12 })).status).toBe(200);
    // Past RCM_REMIT_PLAYGROUND_MAX_MB (1 MB): 413.
    const large = await t.request('/v1/remittances/explain', { method: 'POST', key: b, body: generated835(2_800), headers: X12 });
    expect(large.status).toBe(413);
    expect(large.body.detail).toMatch(/RCM_REMIT_PLAYGROUND_MAX_MB/);
  });
});
