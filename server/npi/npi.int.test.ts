import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npiProblem } from './provider.js';
import { HttpNppesRegistry } from './registry.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { HIZA } from '../../testing/nppes.js';

/** A loopback stand-in for the registry: answers by NPI, counts calls, can hang. */
let calls = 0;
let hang = false;
let registry: Server;
let url: string;
beforeAll(async () => {
  registry = createServer((req, res) => {
    calls++;
    const npi = new URL(req.url ?? '/', 'http://x').searchParams.get('number');
    if (hang || npi === '1234567893') return; // never answers: the client's timeout decides
    res.setHeader('content-type', 'application/json');
    if (npi === '1720377294') res.end(JSON.stringify({ result_count: 1, results: [HIZA] }));
    else if (npi === '1568946812') res.end(JSON.stringify({ Errors: [{ field: 'number', number: '99', description: 'Something went wrong' }] }));
    else if (npi === '1003000126') res.writeHead(503).end('{}');
    else res.end(JSON.stringify({ result_count: 0, results: [] }));
  });
  await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/api/?version=2.1`;
});
afterAll(async () => {
  registry.closeAllConnections();
  await new Promise((r) => registry.close(r));
});

/** NPI 1720377294 as the spec's provider, from the local copy (no taxonomy descriptions in the bulk file). */
const HIZA_PROVIDER = {
  npi: '1720377294',
  entity_type: 'individual',
  name: 'ELISE AILEEN HIZA',
  credential: 'M.D.',
  gender: 'F',
  enumeration_date: '2011-04-05',
  last_updated: '2018-05-08',
  status: 'active',
  deactivation_date: null,
  primary_taxonomy: { code: '207X00000X', description: null, license: '2017-01132', state: 'NC' },
  other_taxonomies: [{ code: '390200000X', description: null, license: null, state: null }],
  practice_address: { address_1: '111 VICTORIA RD', address_2: null, city: 'ASHEVILLE', state: 'NC', postal_code: '288014811', phone: '828-252-7331', fax: null },
};

describe('the NPI check digit', () => {
  it('accepts real NPIs and the CMS worked example, refuses a wrong last digit and other lengths', () => {
    // CMS: 123456789 -> 80840123456789 -> check digit 3.
    expect(npiProblem('1234567893')).toBeNull();
    expect(npiProblem('1720377294')).toBeNull();
    expect(npiProblem('1568946812')).toBeNull();
    expect(npiProblem('1720377295')).toMatch(/check digit of 1720377295 should be 4/);
    expect(npiProblem('172037729')).toBe('an NPI is 10 digits');
    expect(npiProblem('17203772941')).toBe('an NPI is 10 digits');
    expect(npiProblem('172037729A')).toBe('an NPI is 10 digits');
  });
});

describe('GET /v1/npi/{npi_number} through the live registry', () => {
  let t: TestServer;
  let clock = 0;
  let live: HttpNppesRegistry;
  beforeAll(async () => {
    live = new HttpNppesRegistry({ url, timeoutMs: 200, failuresToOpen: 2, openMs: 30_000, now: () => clock });
    t = await startTestServer({ npi: { registry: live } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('maps a registry record to the provider, keeping the record as raw', async () => {
    const r = await t.request('/v1/npi/1720377294?live=true');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ npi: '1720377294', found: true, source: 'nppes_api', data_sources: ['nppes_api'] });
    expect(r.body.provider).toEqual({
      ...HIZA_PROVIDER,
      primary_taxonomy: { ...HIZA_PROVIDER.primary_taxonomy, description: 'Orthopaedic Surgery' },
      other_taxonomies: [{ ...HIZA_PROVIDER.other_taxonomies[0], description: 'Student in an Organized Health Care Education/Training Program' }],
    });
    expect(r.body.raw.number).toBe(1720377294);
    expect(r.body.reliability.warnings).toEqual(['live=true: the live NPPES registry was asked, not the local copy']);
    expect(r.body.reliability.degraded).toBe(false);
  });

  it('answers found: false (200) for an NPI the registry does not know', async () => {
    const r = await t.request('/v1/npi/1003000118?live=true');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ found: false, provider: null, raw: null, source: null });
    expect(r.body.reliability.degraded).toBe(false);
  });

  it('refuses a malformed NPI or a wrong check digit with a 422 saying which, without calling the registry', async () => {
    const before = calls;
    const short = await t.request('/v1/npi/12345');
    expect(short.status).toBe(422);
    expect(short.body.detail[0]).toMatchObject({ loc: ['path', 'npi_number'], msg: 'an NPI is 10 digits' });
    const check = await t.request('/v1/npi/1720377295?live=maybe');
    expect(check.status).toBe(422);
    expect(check.body.detail.map((i: { loc: string[] }) => i.loc.join('.')).sort()).toEqual(['path.npi_number', 'query.live']);
    expect(check.body.detail.find((i: { loc: string[] }) => i.loc[0] === 'path').msg).toMatch(/should be 4/);
    expect(calls).toBe(before);
  });

  it('an outage is found: false, degraded, naming it; the circuit then opens and stops calling until it may retry', async () => {
    const errors = await t.request('/v1/npi/1568946812?live=true');
    expect(errors.body).toMatchObject({ found: false, reliability: { degraded: true } });
    expect(errors.body.reliability.warnings).toContainEqual(expect.stringContaining('refused the request: Something went wrong (99)'));
    // A success closes the circuit again; then two failures in a row open it.
    await t.request('/v1/npi/1720377294?live=true');
    const slow = await t.request('/v1/npi/1234567893');
    expect(slow.body.reliability.warnings).toContainEqual(expect.stringContaining('did not answer within 200 ms'));
    const down = await t.request('/v1/npi/1003000126');
    expect(down.body.reliability.warnings).toContainEqual(expect.stringContaining('HTTP 503'));
    const before = calls;
    const open = await t.request('/v1/npi/1720377294?live=true');
    expect(open.body).toMatchObject({ found: false, reliability: { degraded: true } });
    expect(open.body.reliability.warnings).toContainEqual(expect.stringContaining('circuit open'));
    expect(calls).toBe(before);
    // Past the open time one call goes through, and its success closes the circuit.
    clock += 30_001;
    const again = await t.request('/v1/npi/1720377294?live=true');
    expect(again.body.found).toBe(true);
    expect(calls).toBe(before + 1);
  });
});

describe('GET /v1/npi/{npi_number} from the local NPPES copy (the seed version)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ npi: { registry: new HttpNppesRegistry({ url, timeoutMs: 200, failuresToOpen: 100, openMs: 1 }) } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers a loaded NPI locally, naming the version, with the local record as raw, without calling the registry', async () => {
    const before = calls;
    const r = await t.request('/v1/npi/1720377294');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ npi: '1720377294', found: true, source: 'nppes_local', data_sources: ['nppes_local@2019-06-09'] });
    // The same person as the registry answers, except that the bulk file has no taxonomy descriptions.
    expect(r.body.provider).toEqual(HIZA_PROVIDER);
    expect(r.body.raw.provider.taxonomies[0].group).toBe('193200000X MULTI-SPECIALTY GROUP');
    expect(r.body.raw.practice_locations.map((l: { city: string }) => l.city)).toEqual(['ATLANTA']);
    expect(r.body.reliability).toMatchObject({ degraded: false, warnings: [] });
    expect(calls).toBe(before);
  });

  it('answers a deactivated NPI found: true, status deactivated with its date', async () => {
    const r = await t.request('/v1/npi/1003000142');
    expect(r.body).toMatchObject({ found: true, source: 'nppes_local', provider: { npi: '1003000142', status: 'deactivated', deactivation_date: '2019-05-20', entity_type: null, primary_taxonomy: null } });
  });

  it('live=true bypasses the local copy and asks the registry', async () => {
    const before = calls;
    const r = await t.request('/v1/npi/1720377294?live=true');
    expect(r.body).toMatchObject({ found: true, source: 'nppes_api', data_sources: ['nppes_api'] });
    expect(r.body.provider.primary_taxonomy.description).toBe('Orthopaedic Surgery');
    expect(r.body.reliability.warnings).toEqual(['live=true: the live NPPES registry was asked, not the local copy']);
    expect(calls).toBe(before + 1);
  });

  it('a local miss falls back to the registry, saying so; a miss in both is found: false', async () => {
    const before = calls;
    const miss = await t.request('/v1/npi/1003000118');
    expect(miss.body).toMatchObject({ found: false, source: null, data_sources: ['nppes_local@2019-06-09', 'nppes_api'], reliability: { degraded: false } });
    expect(miss.body.reliability.warnings).toEqual(['NPI 1003000118 is not in the local NPPES copy (nppes 2019-06-09): the live NPPES registry was asked']);
    const outage = await t.request('/v1/npi/1003000126');
    expect(outage.body).toMatchObject({ found: false, data_sources: ['nppes_local@2019-06-09', 'nppes_api'], reliability: { degraded: true } });
    expect(calls).toBe(before + 2);
  });

  it('keeps a local answer in the answer cache; an answer that used or needed the registry is no-store and asks again every time', async () => {
    const size0 = t.srv.cache.size;
    const local = [await t.request('/v1/npi/1568946812'), await t.request('/v1/npi/1568946812')];
    expect(local.map((r) => r.headers['cache-control'])).toEqual([undefined, undefined]);
    expect(t.srv.cache.size).toBe(size0 + 1);
    const before = calls;
    for (const path of ['/v1/npi/1003000118', '/v1/npi/1720377294?live=true', '/v1/npi/1003000126']) {
      const [a, b] = [await t.request(path), await t.request(path)];
      expect([a.headers['cache-control'], b.headers['cache-control']]).toEqual(['no-store', 'no-store']);
      expect(b.body.found).toBe(a.body.found);
    }
    expect(calls).toBe(before + 6);
    expect(t.srv.cache.size).toBe(size0 + 1);
  });
});

describe('with live lookups off (RCM_NPPES_LIVE=0)', () => {
  it('still answers from the local copy; a local miss is found: false, degraded, saying the registry could not be asked', async () => {
    const t = await startTestServer({ npi: { registry: null } });
    try {
      expect((await t.request('/v1/npi/1568946812')).body).toMatchObject({ found: true, source: 'nppes_local', provider: { name: 'CSP ANESTHESIA LLC', entity_type: 'organization' } });
      const r = await t.request('/v1/npi/1003000118');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ found: false, data_sources: ['nppes_local@2019-06-09'], reliability: { degraded: true } });
      expect(r.body.reliability.warnings).toContainEqual(expect.stringContaining('RCM_NPPES_LIVE=0'));
      // live=true with the registry off: the local copy is loaded but was skipped, and the warning says so.
      const live = await t.request('/v1/npi/1568946812?live=true');
      expect(live.body).toMatchObject({ found: false, data_sources: [], reliability: { degraded: true } });
      expect(live.body.reliability.warnings).toEqual([
        'live NPPES lookups are off on this server (RCM_NPPES_LIVE=0): the registry could not be asked; live=true skipped the local NPPES copy, so nothing was looked up (ask without live=true to use it)',
      ]);
    } finally {
      await t.close();
    }
  });

});

describe('the live registry client stays within its own answers', () => {
  let other: Server;
  let otherUrl: string;
  beforeAll(async () => {
    // Another host: a record the registry did not send, and an endless body (bounded by the test: it stops when the client leaves).
    other = createServer((req, res) => {
      if (req.url?.startsWith('/redirect')) {
        res.writeHead(302, { location: `${otherUrl}/api/?version=2.1&number=1720377294` }).end();
        return;
      }
      if (req.url?.startsWith('/huge')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let sent = 0;
        const pump = () => {
          while (sent < 100 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
          if (sent >= 100 * 1024 * 1024) res.end();
        };
        res.on('drain', pump);
        res.on('close', () => res.off('drain', pump));
        pump();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result_count: 1, results: [{ enumeration_type: 'NPI-1', number: 1720377294, basic: { first_name: 'NOT', last_name: 'THE REGISTRY' } }] }));
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    other.closeAllConnections();
    await new Promise((r) => other.close(r));
  });

  it('does not follow a redirect to another host (the record there is not the registry\'s)', async () => {
    const live = new HttpNppesRegistry({ url: `${otherUrl}/redirect/?version=2.1`, timeoutMs: 2000, failuresToOpen: 100, openMs: 1 });
    expect(await live.lookup('1720377294')).toEqual({ kind: 'unavailable', reason: 'the registry answered a redirect (HTTP 302), which is not followed' });
  });

  it('stops reading an answer past its byte cap', async () => {
    const live = new HttpNppesRegistry({ url: `${otherUrl}/huge/?version=2.1`, timeoutMs: 10_000, failuresToOpen: 100, openMs: 1, maxBytes: 1024 * 1024 });
    expect(await live.lookup('1720377294')).toEqual({ kind: 'unavailable', reason: "the registry's answer is larger than 1048576 bytes; it was not read" });
  });
});
