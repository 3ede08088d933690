import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParsedPolicy } from './parse_job.js';
import { Lane } from '../../lib/lane.js';
import { DEFAULT_PARSER, WorkerPolicyParser, type Job, type ParseCaller, type PolicyParser } from './parser.js';
import { DEFAULT_PDF_LIMITS } from './pdf_limits.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { flateBombPagesPdf, flateBombPdf, fontBombPdf, formBombPdf, headingsPdf, longPolicyPdf, pagesPdf, textOperatorsPdf, tocPdf } from '../../testing/pdfs.js';

const MB = 1024 * 1024;
const PDF = { 'Content-Type': 'application/pdf' };

/** Settles in the order the promises settle: each one's label. */
function finishOrder(named: Record<string, Promise<unknown>>): Promise<string[]> {
  const order: string[] = [];
  return Promise.all(Object.entries(named).map(([k, p]) => p.then(() => order.push(k), () => order.push(k)))).then(() => order);
}

/** A parser that tells who asked it to parse (and when one is asked), then parses on a real one. */
class SpyParser implements PolicyParser {
  readonly callers: ParseCaller[] = [];
  /** The tenant of each parse that finished, in the order they finished. */
  readonly finished: string[] = [];
  private waiters: (() => void)[] = [];
  constructor(readonly real: WorkerPolicyParser) {}
  parse(bytes: Uint8Array, caller: ParseCaller = { tenant: '' }): Promise<ParsedPolicy> {
    this.callers.push(caller);
    for (const w of this.waiters.splice(0)) w();
    const out = this.real.parse(bytes, caller);
    void out.then(() => this.finished.push(caller.tenant), () => undefined);
    return out;
  }
  /** Resolves once `n` parses were asked for. */
  async asked(n: number): Promise<void> {
    while (this.callers.length < n) await new Promise<void>((r) => this.waiters.push(r));
  }
  close() {
    return this.real.close();
  }
}

describe('the parser queues (one per tenant, served in turn)', () => {
  const job = (tenant: string, id: number): Job => ({ req: { id, bytes: new Uint8Array(), maxPages: 1, limits: DEFAULT_PDF_LIMITS }, tenant, resolve: () => undefined, reject: () => undefined });
  const rules = { perTenantRunning: 2, perTenantQueued: 10, perTenantInFlight: Infinity, totalQueued: 100 };

  it('gives free threads to tenants in turn, not in arrival order', () => {
    const lane = new Lane<Job, null>(3, rules, () => null);
    for (let i = 1; i <= 5; i++) lane.enqueue(job('a', i));
    lane.enqueue(job('b', 6));
    lane.enqueue(job('c', 7));
    lane.enqueue(job('b', 8));
    expect([lane.next(), lane.next(), lane.next()].map((j) => j?.req.id)).toEqual([1, 6, 7]);
  });

  it('never gives one tenant every thread, and serves the tenant again when its parse finishes', () => {
    const lane = new Lane<Job, null>(3, rules, () => null);
    for (let i = 1; i <= 4; i++) lane.enqueue(job('a', i));
    const a1 = lane.next()!;
    expect(lane.next()!.req.id).toBe(2);
    // A third thread is free, but tenant a holds its share (2 of 3).
    expect(lane.next()).toBeNull();
    lane.finished(a1);
    expect(lane.next()!.req.id).toBe(3);
  });

  it("bounds a tenant's queue and the lane's queue", () => {
    const lane = new Lane<Job, null>(1, { ...rules, perTenantQueued: 2, totalQueued: 3 }, () => null);
    lane.enqueue(job('a', 1));
    lane.enqueue(job('a', 2));
    expect(lane.refusal('a')).toEqual({ reason: 'tenant_queue', waiting: 2 });
    expect(lane.refusal('b')).toBeNull();
    lane.enqueue(job('b', 3));
    expect(lane.refusal('c')).toEqual({ reason: 'lane_queue', waiting: 3 });
  });

  it('lets a playground tenant have one parse in flight, running or waiting', () => {
    const lane = new Lane<Job, null>(1, { perTenantRunning: 1, perTenantQueued: 1, perTenantInFlight: 1, totalQueued: 4 }, () => null);
    lane.enqueue(job('p1', 1));
    expect(lane.refusal('p1')?.reason).toBe('in_flight');
    lane.next();
    expect(lane.refusal('p1')?.reason).toBe('in_flight');
    expect(lane.refusal('p2')).toBeNull();
  });
});

describe('parser threads shared between tenants', () => {
  it("starts another tenant's parse at once while one tenant's queue is full", async () => {
    const p = new WorkerPolicyParser({ ...DEFAULT_PARSER, parsers: 2 });
    try {
      const slow = await pagesPdf(60);
      const small = await headingsPdf();
      const a = [1, 2, 3].map(() => p.parse(slow, { tenant: 'a' }));
      const b = p.parse(small, { tenant: 'b' });
      // Tenant a holds one of the two threads: b's parse runs at once beside a's first, while a's
      // second and third wait (read when the parses are handed out, not from finishing times).
      expect(p.running()).toEqual([
        { tenant: 'a', id: 1 },
        { tenant: 'b', id: 4 },
      ]);
      expect(p.started).toBe(2);
      for (const x of a) expect((await x).page_count).toBe(60);
      expect((await b).chunks).toHaveLength(6);
    } finally {
      await p.close();
    }
  });
});

describe('playground keys parse within a budget of their own', () => {
  let t: TestServer;
  let spy: SpyParser;
  beforeAll(async () => {
    // One thread for tenants: the playground must not take it.
    spy = new SpyParser(new WorkerPolicyParser({ ...DEFAULT_PARSER, parsers: 1 }));
    t = await startTestServer({ policyDocuments: { parser: spy } });
  });
  afterAll(async () => {
    await t.close();
  });

  const playgroundKey = async () => {
    const r = await t.request('/v1/playground/session', { method: 'POST', key: null });
    expect(r.status, r.text).toBe(201);
    expect(r.body.tenant).toMatch(/^playground-/);
    return { key: r.body.key as string, tenant: (await t.srv.state.admin.getTenant(r.body.tenant)).id };
  };
  const parse = (body: Buffer, key?: string) => t.request('/v1/policy/parse', { method: 'POST', body, headers: PDF, ...(key ? { key } : {}) });

  it('refuses a playground PDF over 2 MB with 413, before parsing it', async () => {
    const key = await playgroundKey();
    const asked = spy.callers.length;
    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2 * MB, 0x20)]);
    const r = await parse(big, key.key);
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ code: 'payload_too_large', detail: expect.stringContaining('playground') });
    expect(spy.callers.slice(asked)).toEqual([{ tenant: expect.any(String), playground: true }]);
    // A tenant's key sends the same size (under RCM_POLICY_MAX_MB) to the parser.
    expect((await parse(big)).status).toBe(422);
  });

  it('parses one PDF at a time per playground key, on a thread no tenant waits for', async () => {
    const long = await longPolicyPdf(300);
    expect(long.length).toBeLessThan(2 * MB);
    const [p, q] = [await playgroundKey(), await playgroundKey()];
    const asked = spy.callers.length;
    const first = parse(long, p.key);
    await spy.asked(asked + 1);
    // The same key again while its first runs: 503, and nothing queued.
    const again = await parse(await tocPdf(), p.key);
    expect(again.status).toBe(503);
    expect(again.body).toMatchObject({ code: 'service_busy', detail: expect.stringContaining('one PDF at a time') });
    // Another playground key waits for the playground's one thread ...
    const other = parse(await tocPdf(), q.key);
    // ... while a tenant's parse runs on the tenants' thread and is answered first.
    const tenant = parse(await headingsPdf());
    const order = await finishOrder({ first, other, tenant });
    expect(order.indexOf('tenant')).toBeLessThan(order.indexOf('first'));
    expect(spy.finished.slice(-3)).toEqual([t.tenantId, p.tenant, q.tenant]);
    expect((await first).status).toBe(201);
    expect((await first).body.page_count).toBe(300);
    expect((await other).status).toBe(201);
    expect((await tenant).status).toBe(201);
    expect(spy.real.started).toBe(2);
  }, 120_000);
});

describe('PDF bombs: refused with the bound they pass, the thread replaced, nothing stored', () => {
  let t: TestServer;
  let parser: WorkerPolicyParser;
  beforeAll(async () => {
    parser = new WorkerPolicyParser({ ...DEFAULT_PARSER, parsers: 1 });
    t = await startTestServer({ policyDocuments: { parser } });
    // The thread is up before the first bomb: each bomb then costs it, and its next parse starts one.
    await parser.parse(await tocPdf());
  });
  afterAll(async () => {
    await t.close();
  });
  const parse = (body: Buffer) => t.request('/v1/policy/parse', { method: 'POST', body, headers: PDF });

  const bombs: [string, () => Buffer | Promise<Buffer>, RegExp][] = [
    ['a content stream inflating 400 MB from 2 KB', () => flateBombPdf(400 * MB), /stream .* more than 32 MB \(the per-stream bound\)/],
    ['a font file inflating 1 GB from 4 KB', () => fontBombPdf(1024 * MB), /stream .* more than 32 MB \(the per-stream bound\)/],
    ['a page of 300,000 text operators', () => textOperatorsPdf(300_000), /page .* more than 200,000 operators \(the per-page bound\)/],
    ['forms drawing forms: 100 million operators from 1 KB', () => formBombPdf(), /page .* more than 200,000 operators \(the per-page bound\)/],
  ];
  for (const [what, make, bound] of bombs) {
    it(`refuses ${what} with 422 naming the bound, and parses the next PDF on a new thread`, async () => {
      const pdf = await make();
      expect(pdf.length).toBeLessThan(32 * 1024);
      const before = (await t.request('/v1/policy/documents')).body.total;
      const started = parser.started;
      const r = await parse(pdf);
      expect(r.status, r.text).toBe(422);
      expect(r.body.detail).toEqual([{ loc: ['body'], msg: expect.stringMatching(bound), type: 'invalid_pdf' }]);
      expect((await t.request('/v1/policy/documents')).body.total).toBe(before);
      const next = await parse(await pagesPdf(2 + started));
      expect(next.status, next.text).toBe(201);
      expect(parser.started).toBe(started + 1);
    });
  }

  it('bounds the bytes all streams decode to, and the thread buffer memory', async () => {
    const p = new WorkerPolicyParser({ ...DEFAULT_PARSER, parsers: 1, limits: { ...DEFAULT_PDF_LIMITS, maxStreamBytes: 8 * MB, maxDocumentBytes: 20 * MB } });
    const q = new WorkerPolicyParser({ ...DEFAULT_PARSER, parsers: 1, limits: { ...DEFAULT_PDF_LIMITS, maxStreamBytes: 256 * MB, maxArrayBufferBytes: 48 * MB } });
    try {
      // Three pages of 7 MB each: every stream within its bound, the document past its own.
      await expect(p.parse(flateBombPagesPdf(3, 7 * MB))).rejects.toMatchObject({ problem: 'invalid_pdf', message: expect.stringMatching(/more than 20 MB \(the per-document bound\)/) });
      expect((await p.parse(flateBombPagesPdf(2, 7 * MB))).page_count).toBe(2);
      await expect(q.parse(flateBombPdf(100 * MB))).rejects.toMatchObject({ problem: 'invalid_pdf', message: expect.stringMatching(/more than 48 MB of buffers \(the parser's memory bound\)/) });
      expect((await q.parse(await tocPdf())).source).toBe('toc');
    } finally {
      await Promise.all([p.close(), q.close()]);
    }
  });
});
