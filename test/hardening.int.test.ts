import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jsonDepth } from '../server/pipeline/input.js';
import { stateFailure } from '../server/pipeline/invoke.js';
import { LIVE_HOST, startTestServer, type TestServer } from '../testing/harness.js';

// Issue 20 (hardening): each case answered badly (or not at all) before.

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => t.close());

describe('deeply nested JSON bodies', () => {
  it('answer 422 json_too_deep before parsing (5,000 levels closed the connection with no answer)', async () => {
    const deep = `{"date_of_service":"2026-08-01","setting":"prac","lines":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const r = await t.request('/v1/ncci/validate', { method: 'POST', body: deep });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'json_too_deep', ctx: { max_depth: 64 } })]);
    // An ordinary body is unaffected.
    const ok = await t.request('/v1/ncci/validate', { method: 'POST', body: { date_of_service: '2026-08-01', setting: 'prac', lines: [{ code: '99213' }] } });
    expect(ok.status).toBe(200);
  });

  it('counts depth without being fooled by brackets inside strings', () => {
    expect(jsonDepth('{"a":[1,{"b":"[[[[{{{{"}]}', 10)).toBe(3);
    expect(jsonDepth('"\\"[[["', 10)).toBe(0);
    expect(jsonDepth('['.repeat(100), 10)).toBe(11);
  });
});

describe('smaller ones (item 8)', () => {
  it('refuses a request with two Host headers (400) instead of taking the first', async () => {
    const { connect } = await import('node:net');
    const raw = await new Promise<string>((resolve, reject) => {
      const s = connect(t.port, '127.0.0.1', () => {
        s.write(`GET /v1/codes/99213 HTTP/1.1\r\nHost: localhost\r\nHost: api.example.test\r\nX-API-Key: ${t.key}\r\nConnection: close\r\n\r\n`);
      });
      let out = '';
      s.on('data', (c) => (out += c.toString()));
      s.on('end', () => resolve(out));
      s.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toContain('"code":"invalid_host"');
    expect(raw).not.toContain('allowed_phy_payment');
  });

  it('answers 422 for a date the deadline arithmetic cannot reach (9999-12-31 was a 500)', async () => {
    const r = await t.request('/v1/payers/medicare_ffs/timely-filing?date_of_service=9999-12-31');
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ['query', 'date_of_service'], msg: expect.stringContaining('between 1900-01-01 and 2199-12-31') });
    expect((await t.request('/v1/payers/medicare_ffs/timely-filing?date_of_service=2199-12-31')).status).toBe(200);
  });
});

describe('the runner keeps claiming after its slots were full', () => {
  it('starts the next delivery when one frees a slot (a full-slots call left the claim guard set for good)', async () => {
    const hanging: (() => void)[] = [];
    const s = await startTestServer({
      agents: {
        callbackConcurrency: 1,
        resolve: async () => [{ address: '93.184.215.14', family: 4 }],
        http: () => new Promise((res) => hanging.push(() => res({ status: 200, retryAfter: undefined }))),
      },
    });
    try {
      for (const code of ['99213', '99214']) {
        expect((await s.request('/v1/agents/code-research', { method: 'POST', body: { code, callback_url: 'https://rx.example.test/hook' } })).status).toBe(202);
      }
      for (let i = 0; i < 50 && hanging.length < 1; i++) {
        await s.srv.runner.tick();
        await new Promise((r) => setTimeout(r, 20));
      }
      // Both jobs done, one delivery in flight; ticks while the only slot is busy must not wedge the claimer.
      for (let i = 0; i < 3; i++) await s.srv.runner.tick();
      expect(hanging.length).toBe(1);
      hanging[0]!();
      for (let i = 0; i < 50 && hanging.length < 2; i++) {
        await s.srv.runner.tick();
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(hanging.length).toBe(2);
    } finally {
      hanging.forEach((release) => release());
      await s.close();
    }
  });
});

describe('callback targets (item 3): every special-purpose range that is not globally reachable', () => {
  // One row per range (IANA special-purpose registries), and per way an IPv6 address embeds IPv4.
  const refused: [string, string][] = [
    ['0.0.0.1', 'this network 0/8'],
    ['10.1.2.3', 'private 10/8'],
    ['100.64.0.1', 'shared CGNAT 100.64/10'],
    ['169.254.169.254', 'link-local / cloud metadata'],
    ['172.16.0.1', 'private 172.16/12'],
    ['192.0.0.8', 'IETF protocol assignments 192.0.0/24'],
    ['192.0.2.1', 'documentation TEST-NET-1'],
    ['198.51.100.1', 'documentation TEST-NET-2'],
    ['203.0.113.5', 'documentation TEST-NET-3'],
    ['198.18.0.1', 'benchmarking 198.18/15'],
    ['192.168.1.1', 'private 192.168/16'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved 240/4'],
    ['255.255.255.255', 'limited broadcast'],
    ['::', 'unspecified'],
    ['fe80::1', 'IPv6 link-local'],
    ['fc00::1', 'unique local'],
    ['ff02::1', 'IPv6 multicast'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata, hex'],
    ['::ffff:0:a9fe:a9fe', 'IPv4-translated metadata'],
    ['::a9fe:a9fe', 'IPv4-compatible metadata'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:a9fe:a9fe::1', '6to4 of metadata'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of metadata'],
    ['64:ff9b:1::1', 'local-use NAT64 /48'],
    ['2001:0:a9fe:a9fe::1', 'Teredo with a metadata server'],
  ];
  it.each(refused)('refuses %s (%s)', async (ip) => {
    const { addressRefusal } = await import('../server/agents/callbacks.js');
    expect(addressRefusal(ip, false)).toMatch(/not globally reachable|loopback/);
    // Outside production only plain loopback is let through, not these.
    if (!/^(::127\.0\.0\.1|2002:7f00:1::|64:ff9b::7f00:1)$/.test(ip)) expect(addressRefusal(ip, true)).not.toBeNull();
  });
  it('allows global unicast addresses, also embedded in a well-known NAT64 or mapped form', async () => {
    const { addressRefusal } = await import('../server/agents/callbacks.js');
    for (const ip of ['8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808']) expect(addressRefusal(ip, false), ip).toBeNull();
    expect(addressRefusal('127.0.0.1', false)).toMatch(/loopback/);
    expect(addressRefusal('127.0.0.1', true)).toBeNull();
    expect(addressRefusal('::1', true)).toBeNull();
  });
});

describe('a silent callback receiver (item 1)', () => {
  it("does not stall another tenant's job: deliveries run apart from job execution", async () => {
    // A receiver that never answers (until released), reached through the injected HTTP client.
    const hanging: (() => void)[] = [];
    const s = await startTestServer({
      agents: {
        resolve: async () => [{ address: '93.184.215.14', family: 4 }],
        http: (url) =>
          url.hostname === 'silent.example.test'
            ? new Promise((res) => hanging.push(() => res({ status: 200, retryAfter: undefined })))
            : Promise.resolve({ status: 200, retryAfter: undefined }),
      },
    });
    try {
      const b = await s.srv.state.admin.createTenant('tenant-b-silent');
      const keyB = await s.newKey('test', ['agents', 'knowledge'], b.name);
      for (const code of ['99213', '99214']) {
        const r = await s.request('/v1/agents/code-research', { method: 'POST', key: keyB, body: { code, callback_url: 'https://silent.example.test/hook' } });
        expect(r.status).toBe(202);
      }
      // B's two jobs run and finish; their deliveries start and hang.
      for (let i = 0; i < 100 && hanging.length < 2; i++) {
        await s.srv.runner.tick();
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(hanging.length).toBe(2);
      // Tenant A's job is claimed and completed while B's receivers stay silent.
      const a = await s.request('/v1/agents/code-research', { method: 'POST', body: { code: '99215' } });
      let status = '';
      for (let i = 0; i < 100 && status !== 'completed'; i++) {
        await s.srv.runner.tick();
        await new Promise((r) => setTimeout(r, 20));
        status = (await s.request(`/v1/agents/jobs/${a.body.job_id}`)).body.status;
      }
      expect(status).toBe('completed');
      expect(hanging.length).toBe(2); // still in flight
    } finally {
      hanging.forEach((release) => release());
      await s.close();
    }
  });
});

describe('callback delivery is fair by tenant', () => {
  it("delivers tenant A's callback at once while tenant B's 18 callbacks hang on a silent receiver (B holds at most half the slots)", async () => {
    const hanging: (() => void)[] = [];
    const delivered: string[] = [];
    const s = await startTestServer({
      agents: {
        resolve: async () => [{ address: '93.184.215.14', family: 4 }],
        http: (url) => {
          if (url.hostname === 'silent.example.test') return new Promise((res) => hanging.push(() => res({ status: 200, retryAfter: undefined })));
          delivered.push(url.hostname);
          return Promise.resolve({ status: 200, retryAfter: undefined });
        },
      },
    });
    try {
      const b = await s.srv.state.admin.createTenant('tenant-b-flood-callbacks');
      const keyB = await s.newKey('test', ['agents', 'knowledge'], b.name);
      for (let i = 0; i < 18; i++) {
        const r = await s.request('/v1/agents/code-research', { method: 'POST', key: keyB, body: { code: '99213', callback_url: 'https://silent.example.test/hook' } });
        expect(r.status).toBe(202);
      }
      // B's jobs finish and their deliveries take what B may hold: half of the 4 slots.
      for (let i = 0; i < 100 && hanging.length < 2; i++) {
        await s.srv.runner.tick();
        await new Promise((r) => setTimeout(r, 20));
      }
      const a = await s.request('/v1/agents/code-research', { method: 'POST', body: { code: '99215', callback_url: 'https://receiver-a.example.test/hook' } });
      expect(a.status).toBe(202);
      for (let i = 0; i < 100 && !delivered.includes('receiver-a.example.test'); i++) {
        await s.srv.runner.tick();
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(delivered).toContain('receiver-a.example.test');
      expect(hanging.length).toBe(2);
    } finally {
      hanging.forEach((release) => release());
      await s.close();
    }
  });
});

describe('the job queue (item 5): bounded per tenant, fair across tenants', () => {
  it("answers 429 queue_full past a tenant's bound, and claims another tenant's job ahead of a flood", async () => {
    const s = await startTestServer({ agents: { maxQueuedPerTenant: 5 } });
    try {
      const flood = await s.srv.state.admin.createTenant('flooder');
      const keyF = await s.newKey('test', ['agents', 'knowledge'], flood.name);
      const codes = ['99211', '99212', '99213', '99214', '99215'];
      for (const code of codes) expect((await s.request('/v1/agents/code-research', { method: 'POST', key: keyF, body: { code } })).status).toBe(202);
      const sixth = await s.request('/v1/agents/code-research', { method: 'POST', key: keyF, body: { code: '99202' } });
      expect(sixth.status).toBe(429);
      expect(sixth.body).toMatchObject({ code: 'queue_full' });
      expect(sixth.headers['retry-after']).toBe('10');
      // Another tenant submits after the flood; its job is claimed second, not sixth.
      const a = await s.request('/v1/agents/code-research', { method: 'POST', body: { code: '99203' } });
      expect(a.status).toBe(202);
      const order: string[] = [];
      for (let i = 0; i < 6; i++) {
        const job = await s.srv.state.jobs.claim('test-worker', new Date(), 60_000);
        order.push(job!.tenant_id);
      }
      expect(order[0]).toBe(flood.id);
      expect(order[1]).toBe(s.tenantId);
      expect(order.filter((x) => x === flood.id)).toHaveLength(5);
    } finally {
      await s.close();
    }
  });
});

describe('MCP sessions (item 4): per-key limits, counted, scope-checked, idle expiry', () => {
  let m: TestServer;
  let clock = Date.parse('2026-08-01T12:00:00Z');
  beforeAll(async () => {
    m = await startTestServer({ rateLimitPerMin: 20, now: () => new Date(clock), mcp: { sessionsPerKey: 3, maxSessions: 8, idleMs: 60_000 } });
  });
  afterAll(async () => m.close());

  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } },
  };
  const ACCEPT = 'application/json, text/event-stream';
  const open = (key: string) => m.request('/v1/mcp', { method: 'POST', key, body: initialize, headers: { Accept: ACCEPT } });
  const listTools = (key: string, sid: string) =>
    m.request('/v1/mcp', { method: 'POST', key, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers: { Accept: ACCEPT, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' } });

  it("lets no tenant close a smaller tenant's session, bounds each key, counts initialize and expires idle sessions", async () => {
    const a = await open(m.key);
    expect(a.status).toBe(200);
    const sidA = a.headers['mcp-session-id'] as string;
    expect(a.headers['ratelimit-remaining']).toBeDefined();

    // Another tenant opens 10 sessions (the 1,100 of the review closed tenant A's): it keeps 3.
    await m.srv.state.admin.createTenant('mcp-flood');
    const b = await m.newKey('test', ['knowledge'], 'mcp-flood');
    const bSids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await open(b);
      expect(r.status).toBe(200);
      bSids.push(r.headers['mcp-session-id'] as string);
    }
    expect(m.srv.mcp.sessionCount()).toBe(4);
    expect((await listTools(b, bSids[0]!)).status).toBe(404);
    expect((await listTools(b, bSids[9]!)).status).toBe(200);
    expect((await listTools(m.key, sidA)).status).toBe(200);

    // initialize is counted: the 21st in a minute from one key is 429 with Retry-After.
    await m.srv.state.admin.createTenant('mcp-rate');
    const e = await m.newKey('test', ['knowledge'], 'mcp-rate');
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await open(e)).status);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    const limited = await open(e);
    expect(limited.status, JSON.stringify(limited.body)).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(m.srv.mcp.sessionCount()).toBe(7);

    // At the process total, a new tenant within its fair share still gets a session: the tenant
    // holding the most (mcp-flood) gives up its idlest, never a smaller tenant's.
    await m.srv.state.admin.createTenant('mcp-c');
    expect((await open(await m.newKey('test', ['knowledge'], 'mcp-c'))).status).toBe(200);
    await m.srv.state.admin.createTenant('mcp-d');
    const d = await open(await m.newKey('test', ['knowledge'], 'mcp-d'));
    expect(d.status).toBe(200);
    expect(m.srv.mcp.sessionCount()).toBe(8);
    expect((await listTools(m.key, sidA)).status).toBe(200);

    // Idle past RCM_MCP_IDLE_MS: the session is gone (404; the client opens a new one).
    clock += 61_000;
    expect((await listTools(m.key, sidA)).status).toBe(404);
    expect((await open(m.key)).status).toBe(200);
    expect(m.srv.mcp.sessionCount()).toBe(1);
  });

  it('sends the headers of GET /v1/mcp (the event stream) at once, before any event', async () => {
    const { request } = await import('node:http');
    const sid = (await open(m.key)).headers['mcp-session-id'] as string;
    const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: m.port, path: '/v1/mcp', headers: { 'X-API-Key': m.key, Accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' } }, resolve);
      req.on('error', reject);
      req.end();
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    res.destroy();
  });

  it('refuses to open a session for a key that may call no tool (403 insufficient_scope)', async () => {
    const k = await m.newKey('test', [] as never[]);
    const r = await open(k);
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'insufficient_scope' });
  });
});

describe('readiness names what is wrong (item 8): every mounted version file, the mount, the disk', () => {
  const versionFiles = (s: TestServer) => [...s.srv.snapshots.snapshot!.files.keys()];

  it('is 503 naming a version file damaged, changed or deleted after the mount (ready said ready, the dataset answered 500)', async () => {
    const s = await startTestServer();
    try {
      expect((await s.request('/v1/health/ready', { key: null })).body.checks).toEqual({ snapshot: true, version_files: true, state_store: true, disk: true });
      const [damaged, deleted] = versionFiles(s);
      await writeFile(damaged!, 'not a database');
      await rm(deleted!);
      await s.srv.readiness.refresh();
      const r = await s.request('/v1/health/ready', { key: null });
      expect(r.status).toBe(503);
      // Named by dataset and version: the public answer carries no path of the server's disk.
      const label = (path: string) => s.srv.snapshots.snapshot!.files.get(path)!.label;
      expect(r.body.detail).toContain(`${label(damaged!)}: its version file is not a DuckDB database`);
      expect(r.body.detail).toContain(`${label(deleted!)}: its version file is missing`);
      expect(r.body.detail).not.toContain(s.dataDir);
    } finally {
      await s.close();
    }
  });

  it('after a restart with one dataset\'s file gone, serves every other dataset and answers that one degraded, naming it (it took every dataset down)', async () => {
    const s = await startTestServer();
    const dir = s.dataDir;
    const [gone, was] = [...s.srv.snapshots.snapshot!.files].find(([, f]) => f.label.startsWith('gpci '))!;
    await s.srv.close();
    await rm(gone);
    const again = await startTestServer({ seeded: false, dataDir: dir });
    try {
      const ready = await again.request('/v1/health/ready', { key: null });
      expect(ready.status).toBe(200);
      expect(ready.body.warnings).toEqual([`${was.label} is not served: its version file is missing`]);
      expect(JSON.stringify(ready.body)).not.toContain(dir);
      expect((await again.request('/v1/codes/99213')).status).toBe(200);
      const pay = await again.request('/v1/codes/99213/payment?ccn=330101');
      expect(pay.status).toBe(200);
      expect(pay.body.reliability.degraded).toBe(true);
      expect(pay.body.reliability.warnings.join(' ')).toMatch(/gpci/);
    } finally {
      await again.close();
    }
  });

  it('a CURRENT that names no readable snapshot keeps the last good one served, said in readiness warnings, with no path in the answer', async () => {
    const s = await startTestServer();
    try {
      const served = s.srv.snapshots.snapshot!.id;
      await writeFile(join(s.dataDir, 'CURRENT'), 'no-such-snapshot\n');
      await s.srv.snapshots.refresh();
      await s.srv.readiness.refresh();
      const ready = await s.request('/v1/health/ready', { key: null });
      expect(ready.status).toBe(200);
      expect(ready.body.snapshot_id).toBe(served);
      expect(ready.body.warnings).toEqual([`the published snapshot could not be mounted (snapshot no-such-snapshot not found); still serving ${served}`]);
    } finally {
      await s.close();
    }
  });

  it('is 503 when the data dir runs out of room, and a write that meets a full disk is 507 with nothing written (it was a 500)', async () => {
    let free = 10 * 1024 * 1024 * 1024;
    const s = await startTestServer({ freeBytes: async () => free });
    try {
      expect((await s.request('/v1/health/ready', { key: null })).status).toBe(200);
      free = 5 * 1024 * 1024;
      await s.srv.readiness.refresh();
      const r = await s.request('/v1/health/ready', { key: null });
      expect(r.status).toBe(503);
      expect(r.body.detail).toContain('5 MB free');
      // SQLite at its page limit answers SQLITE_FULL, as on a full disk.
      const db = (s.srv.state as unknown as { db: { pragma(s: string): unknown } }).db;
      const pages = (db.pragma('page_count') as { page_count: number }[])[0]!.page_count;
      db.pragma(`max_page_count = ${pages}`);
      const statuses = new Set<number>();
      let last = '';
      for (let i = 0; i < 300 && !statuses.has(507); i++) {
        const put = await s.request(`/v1/facilities/05${String(1000 + i).padStart(4, '0')}`, { method: 'PUT', body: { name: `Hospital ${'x'.repeat(180)} ${i}`, state: 'CA' } });
        statuses.add(put.status);
        last = JSON.stringify(put.body);
      }
      expect([...statuses].filter((x) => x !== 201), last.slice(0, 300)).toEqual([507]);
      db.pragma('max_page_count = 1073741823');
    } finally {
      await s.close();
    }
  });

  it("reads a full disk the same way on PostgreSQL (disk_full, 53100) and in the file system (ENOSPC), and nothing else as one", () => {
    for (const code of ['SQLITE_FULL', '53100', 'ENOSPC']) expect(stateFailure(Object.assign(new Error('full'), { code }))?.code).toBe('storage_full');
    for (const code of ['23505', 'SQLITE_CONSTRAINT', undefined]) expect(stateFailure(Object.assign(new Error('other'), { code }))).toBeNull();
    // Busy past its timeout (the CLI holding the write lock) is unavailable for now: 503 with Retry-After.
    expect(stateFailure(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))).toMatchObject({ code: 'state_unavailable', headers: { 'retry-after': '5' } });
  });
});

describe("an agent's result is knowledge data (item 8)", () => {
  it('refuses an agents-only key a submit and a poll, naming the knowledge scope (it read payment amounts through code research)', async () => {
    const agentsOnly = await t.newKey('test', ['agents']);
    const submit = await t.request('/v1/agents/code-research', { method: 'POST', key: agentsOnly, body: { code: '99213', query: 'payment?' } });
    expect(submit.status).toBe(403);
    expect(submit.body).toMatchObject({ code: 'insufficient_scope', detail: expect.stringContaining("missing 'knowledge'") });
    const job = await t.request('/v1/agents/code-research', { method: 'POST', body: { code: '99213', query: 'payment?' } });
    expect(job.status).toBe(202);
    const poll = await t.request(`/v1/agents/jobs/${job.body.job_id}`, { key: agentsOnly });
    expect(poll.status).toBe(403);
    const both = await t.newKey('test', ['agents', 'knowledge']);
    expect((await t.request(`/v1/agents/jobs/${job.body.job_id}`, { key: both })).status).toBe(200);
  });
});

describe('test and live data apart (item 2)', () => {
  it("a tenant's test key neither reads nor changes what its live key wrote, through any route", async () => {
    const s = await startTestServer();
    try {
      const live = await s.newKey('live', ['knowledge', 'agents', 'audit']);
      const test = await s.newKey('test', ['knowledge', 'agents', 'audit']);
      const asLive = (path: string, o: Parameters<TestServer['request']>[1] = {}) => s.request(path, { ...o, key: live, host: LIVE_HOST });
      const asTest = (path: string, o: Parameters<TestServer['request']>[1] = {}) => s.request(path, { ...o, key: test });
      const check = '/v1/prior-auth/check?payer=medicare_ffs&code=64490&ccn=050454&date_of_service=2026-08-01';
      // The live answer, then a test-key override that used to flip it.
      expect((await asLive(check)).body.determination).toBe('required');
      const reg = await asLive('/v1/facilities/050454', { method: 'PUT', body: { name: 'Live hospital' } });
      expect(reg.status).toBe(201);
      const ov = await asTest('/v1/facilities/050454/pa-overrides', { method: 'POST', body: { code: '64490', pa_required: false, reason: 'test data' } });
      expect(ov.status).toBe(201);
      const liveAnswer = await asLive(check);
      expect(liveAnswer.body).toMatchObject({ determination: 'required', resolution_tier: 'national' });
      expect((await asTest(check)).body).toMatchObject({ determination: 'not_required', resolution_tier: 'facility_override' });
      // Rows the live key wrote are not the test key's: registration, overrides, determinations, jobs.
      expect((await asLive('/v1/facilities')).body.total).toBe(1);
      expect((await asTest('/v1/facilities')).body.facilities.map((f: { name: string }) => f.name)).not.toContain('Live hospital');
      expect((await asLive('/v1/facilities/050454/pa-overrides')).body.total).toBe(0);
      expect((await asTest(`/v1/prior-auth/determinations/${liveAnswer.body.determination_id}`)).status).toBe(404);
      expect((await asLive(`/v1/prior-auth/determinations/${liveAnswer.body.determination_id}`)).status).toBe(200);
      const job = await asLive('/v1/agents/code-research', { method: 'POST', body: { code: '99213', query: 'live job' } });
      expect(job.status).toBe(202);
      expect((await asTest(`/v1/agents/jobs/${job.body.job_id}`)).status).toBe(404);
      expect((await asLive(`/v1/agents/jobs/${job.body.job_id}`)).status).toBe(200);
      // Rosters: a test-key roster note is not the live roster's (playground visitors read these once).
      const roster = await asTest('/v1/facilities/050454/payers', { method: 'POST', body: { payer_slug: 'uhc', network_status: 'in_network', notes: 'test note' } });
      expect(roster.status).toBe(201);
      expect((await asLive('/v1/facilities/050454/payers')).body.payers).toEqual([]);
      expect((await asTest('/v1/facilities/050454/payers')).body.payers.map((p: { notes: string }) => p.notes)).toEqual(['test note']);
      // The test world cannot delete the live registration either.
      expect((await asTest('/v1/facilities/050454?hard=true', { method: 'DELETE' })).status).not.toBe(500);
      expect((await asLive('/v1/facilities/050454')).body).toMatchObject({ registered: true, name: 'Live hospital' });
    } finally {
      await s.close();
    }
  });
});

describe('MCP internal errors (item 8)', () => {
  it('reach the client as a generic internal error with a reference, never their own text, and are logged', async () => {
    const { McpEndpoint } = await import('../server/mcp/adapter.js');
    const { ErrorCode } = await import('@modelcontextprotocol/sdk/types.js');
    const logged: unknown[] = [];
    const logger = { error: (o: unknown) => logged.push(o) } as never;
    const ep = new McpEndpoint({ pipeline: {} as never, routes: [], serviceVersion: 'x', logger, now: () => new Date() });
    const guarded = (ep as unknown as { guard: (f: () => Promise<never>) => () => Promise<never> }).guard(async () => {
      throw new Error('SQLITE_CORRUPT at /var/lib/rcm/state.sqlite');
    });
    const err = await guarded().catch((e: unknown) => e);
    // A JSON-RPC error (code -32603) whose message carries no "MCP error" prefix: the client adds one.
    expect(err).toMatchObject({ code: ErrorCode.InternalError });
    expect((err as Error).message).toMatch(/^internal error \(request_id [0-9a-f-]{36}\)$/);
    expect((err as Error).message).not.toContain('SQLITE_CORRUPT');
    expect(logged).toHaveLength(1);
  });
});
