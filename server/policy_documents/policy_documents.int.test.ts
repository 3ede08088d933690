import PDFDocument from 'pdfkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdfError } from './errors.js';
import { parsePolicyBytes } from './parse_job.js';
import { WorkerPolicyParser, DEFAULT_PARSER } from './parser.js';
import { queryTerms } from './service.js';
import { parseDate } from './structure.js';
import type { SqliteStateStore } from '../../warehouse/state.js';
import { LIVE_HOST, startTestServer, type TestServer } from '../../testing/harness.js';
import { headingsPdf, outlinePdf, pagesPdf, tocPdf, TWO_COLUMNS } from '../../testing/pdfs.js';

const SECRET = 'admin-secret-for-policy-tests-0123';
const PDF = { 'Content-Type': 'application/pdf' };

let t: TestServer;
let headings: Buffer;
beforeAll(async () => {
  t = await startTestServer({ adminSecret: SECRET, policyDocuments: { maxBytes: 2 * 1024 * 1024, maxPages: 20 } });
  headings = await headingsPdf();
});
afterAll(async () => {
  await t.close();
});

const parse = (body: Buffer | string, opts: { key?: string | null; host?: string; headers?: Record<string, string> } = {}) =>
  t.request('/v1/policy/parse', { method: 'POST', body, ...opts, headers: { ...PDF, ...(opts.headers ?? {}) } });
/** A test key of a new tenant. */
async function tenantKey(prefix: string): Promise<string> {
  const tenant = await t.srv.state.admin.createTenant(`${prefix}-${Math.random().toString(36).slice(2, 8)}`);
  return t.newKey('test', ['knowledge'], tenant.name);
}

const post = (path: string, body: unknown, opts: { key?: string | null; host?: string; headers?: Record<string, string> } = {}) =>
  t.request(path, { method: 'POST', body, ...opts });

describe('structure of generated policies (exact chunks and tree)', () => {
  it('headings by size, a code table, Greek text and a page in two columns', async () => {
    const p = await parsePolicyBytes(headings, 20);
    expect(p.meta).toEqual({ title: 'Gastric Stimulation Policy', policy_number: 'TP-0042', effective_date: '2026-03-01' });
    expect(p.source).toBe('headings');
    expect(p.chunks.map((c) => [c.page_start, c.page_end, c.section_path, c.text])).toEqual([
      [1, 1, [], 'Gastric Stimulation Policy\n\nPolicy Number: TP-0042 Effective Date: March 1, 2026'],
      [1, 1, ['Coverage Rationale'], 'Gastric electrical stimulation is proven and medically necessary when all of the following criteria are met.\n\nSymptoms persist after twelve months of drug therapy.'],
      [1, 1, ['Coverage Rationale', 'Adults'], 'An adult needs a gastric emptying study showing delayed emptying.'],
      [
        1, 1, ['Applicable Codes'],
        'CPT Code  Description\n\n43647  Laparoscopy, implantation of gastric neurostimulator electrodes\n\n' +
          '43648  Laparoscopy, revision or removal of gastric neurostimulator electrodes\n\nE0765  FDA approved nerve stimulator for nausea and vomiting',
      ],
      [1, 1, ['Definitions'], 'Gastroparesis (from Greek γαστήρ, stomach): delayed emptying with diagnosis K31.84 documented.'],
      // The left column is read to its end before the right one starts.
      [2, 2, ['Clinical Evidence'], `${TWO_COLUMNS.left.join(' ')}\n\n${TWO_COLUMNS.right.join(' ')}`],
    ]);
    expect(p.chunks.flatMap((c) => c.codes)).toEqual([
      { code: '43647', system: 'CPT', page: 1 },
      { code: '43648', system: 'CPT', page: 1 },
      { code: 'E0765', system: 'HCPCS', page: 1 },
      { code: 'K31.84', system: 'ICD10CM', page: 1 },
    ]);
    expect(p.headings.map((h) => [h.title, h.level, h.page])).toEqual([
      ['Coverage Rationale', 1, 1],
      ['Adults', 2, 1],
      ['Applicable Codes', 1, 1],
      ['Definitions', 1, 1],
      ['Clinical Evidence', 1, 2],
    ]);
  });

  it('headings from the outline when the text gives no size cue', async () => {
    const p = await parsePolicyBytes(await outlinePdf(), 20);
    expect(p.source).toBe('outline');
    expect(p.chunks.map((c) => [c.page_start, c.section_path, c.text])).toEqual([
      [1, [], 'Vagus Nerve Blocking Policy'],
      [1, ['Coverage Rationale'], 'Vagus nerve blocking is unproven and not medically necessary for obesity.'],
      [2, ['Coverage Rationale', 'Exclusions'], 'Code 64590 is excluded when billed for weight loss.'],
      [2, ['References'], 'Smith J. A trial of vagal blocking. Obesity Journal. 2020.'],
    ]);
    // "Code 64590": a five-digit number its sentence names a code; "2020" and "2019" never are.
    expect(p.chunks.flatMap((c) => c.codes.map((k) => k.code))).toEqual(['64590']);
  });

  it('headings from a printed table of contents, found on the pages it names', async () => {
    const p = await parsePolicyBytes(await tocPdf(), 20);
    expect(p.source).toBe('toc');
    expect(p.headings.map((h) => [h.title, h.page])).toEqual([
      ['Coverage Rationale', 2],
      ['Applicable Codes', 3],
      ['References', 3],
    ]);
    // The contents lines themselves are not text of any section.
    expect(p.chunks.map((c) => [c.section_path, c.text])).toEqual([
      [[], 'Intragastric Balloon Policy\n\nTable of Contents'],
      [['Coverage Rationale'], 'Intragastric balloons are unproven for the treatment of obesity.'],
      [['Applicable Codes'], '43290 Esophagogastroduodenoscopy with deployment of intragastric bariatric balloon'],
      [['References'], 'Jones K. Balloon therapy outcomes. Gut. 2019.'],
    ]);
  });

  it('reads dates as printed, and refuses impossible ones', () => {
    expect(parseDate('May 1, 2025')).toBe('2025-05-01');
    expect(parseDate('05/01/2025')).toBe('2025-05-01');
    expect(parseDate('05.01.2025')).toBe('2025-05-01');
    expect(parseDate('2024-02-29')).toBe('2024-02-29');
    expect(parseDate('02/29/2025')).toBeNull();
    expect(parseDate('Smarch 1, 2025')).toBeNull();
  });
});

describe('POST /v1/policy/parse', () => {
  it('stores a parsed policy: 201, then 200 with the same id for the same bytes, no duplicate', async () => {
    const first = await parse(headings);
    expect(first.status, first.text).toBe(201);
    expect(first.headers.location).toBe(`/v1/policy/documents/${first.body.document_id}`);
    expect(first.body).toMatchObject({ created: true, title: 'Gastric Stimulation Policy', policy_number: 'TP-0042', effective_date: '2026-03-01', page_count: 2, structure_source: 'headings', chunk_count: 6 });
    expect(first.body.codes).toEqual([
      { code: '43647', system: 'CPT', pages: [1] },
      { code: '43648', system: 'CPT', pages: [1] },
      { code: 'E0765', system: 'HCPCS', pages: [1] },
      { code: 'K31.84', system: 'ICD10CM', pages: [1] },
    ]);
    expect(first.body.chunks[3]).toMatchObject({ chunk_id: `${first.body.document_id}_c4`, section_path: ['Applicable Codes'], codes: ['43647', '43648', 'E0765'] });
    const again = await parse(headings);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ document_id: first.body.document_id, created: false, chunk_count: 6 });
    const list = await t.request('/v1/policy/documents');
    expect(list.body.documents.filter((d: { document_id: string }) => d.document_id === first.body.document_id)).toHaveLength(1);
  });

  it('takes multipart/form-data with the PDF in the field file', async () => {
    const boundary = '----rcm-test-boundary';
    const pdf = await tocPdf();
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="balloon.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      pdf,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const r = await t.request('/v1/policy/parse', { method: 'POST', body, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } });
    expect(r.status, r.text).toBe(201);
    expect(r.body.structure_source).toBe('toc');
    const direct = await parse(pdf);
    expect(direct.status).toBe(200);
    expect(direct.body.document_id).toBe(r.body.document_id);
    const noFile = await t.request('/v1/policy/parse', { method: 'POST', body: `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${boundary}--\r\n`, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } });
    expect(noFile.status).toBe(422);
    expect(noFile.body.detail[0].loc).toEqual(['body', 'file']);
  });

  it('refuses what it cannot read with a 4xx naming the problem, and stores nothing', async () => {
    const before = (await t.request('/v1/policy/documents')).body.total;
    const userPw = await headingsPdf({ userPassword: 'open-sesame', ownerPassword: 'owner', pdfVersion: '1.7' });
    const enc = await parse(userPw);
    expect(enc.status).toBe(422);
    // The spec's 422 body: every issue with loc, msg and type.
    expect(enc.body).toEqual({ detail: [{ loc: ['body'], msg: expect.stringMatching(/password|encrypt/i), type: 'encrypted_pdf' }] });
    const truncated = await parse(headings.subarray(0, Math.floor(headings.length / 3)));
    expect(truncated.status).toBe(422);
    expect(truncated.body.detail[0].type).toBe('invalid_pdf');
    const notPdf = await parse('PK\u0003\u0004 a zip file, not a PDF');
    expect(notPdf.status).toBe(422);
    expect(notPdf.body.detail).toEqual([{ loc: ['body'], msg: expect.stringContaining('not a PDF'), type: 'invalid_pdf' }]);
    const tooMany = await parse(await pagesPdf(21));
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail).toEqual([{ loc: ['body'], msg: expect.stringContaining('RCM_POLICY_MAX_PAGES'), type: 'too_many_pages' }]);
    const tooBig = await parse(Buffer.alloc(2 * 1024 * 1024 + 1, 0x20));
    expect(tooBig.status).toBe(413);
    const wrongType = await t.request('/v1/policy/parse', { method: 'POST', body: headings, headers: { 'Content-Type': 'text/plain' } });
    expect(wrongType.status).toBe(415);
    expect((await t.request('/v1/policy/documents')).body.total).toBe(before);
  });

  it('parses a PDF restricted only by an owner password', async () => {
    const ownerOnly = await outlinePdf().then(() => headingsPdf({ ownerPassword: 'owner-only', permissions: { printing: 'lowResolution', modifying: false }, pdfVersion: '1.7' }));
    const r = await parse(ownerOnly);
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ title: 'Gastric Stimulation Policy', chunk_count: 6 });
  });

  it('names the payer the first page names, from the payers dataset', async () => {
    const pdf = await new Promise<Buffer>((resolve) => {
      const doc = new PDFDocument({ info: { CreationDate: new Date(0) } });
      const parts: Buffer[] = [];
      doc.on('data', (c: Buffer) => parts.push(c)).on('end', () => resolve(Buffer.concat(parts)));
      doc.fontSize(20).text('UnitedHealthcare Commercial Medical Policy').fontSize(11).text('Policy Number: 2026T0001 applies in the United States.');
      doc.end();
    });
    const r = await parse(pdf);
    expect(r.body.payer).toEqual({ slug: 'uhc', name: 'UnitedHealthcare' });
    expect(r.body.reliability.dataset_versions).toHaveProperty('payers');
    // "United States" alone names no payer.
    expect((await parse(await tocPdf())).body.payer).toBeNull();
  });
});

describe('structure, retrieve, list and delete', () => {
  let id: string;
  beforeAll(async () => {
    id = (await parse(headings)).body.document_id;
  });

  it('answers the heading tree with each node chunk ids', async () => {
    const r = await post('/v1/policy/structure', { document_id: id });
    expect(r.status).toBe(200);
    expect(r.body.source).toBe('headings');
    expect(r.body.front_matter_chunk_ids).toEqual([`${id}_c1`]);
    const shape = (n: { title: string; page: number; chunk_ids: string[]; children: unknown[] }): unknown => [n.title, n.page, n.chunk_ids.map((c) => c.slice(id.length)), (n.children as (typeof n)[]).map(shape)];
    expect(r.body.tree.map(shape)).toEqual([
      ['Coverage Rationale', 1, ['_c2'], [['Adults', 1, ['_c3'], []]]],
      ['Applicable Codes', 1, ['_c4'], []],
      ['Definitions', 1, ['_c5'], []],
      ['Clinical Evidence', 2, ['_c6'], []],
    ]);
  });

  it('retrieves the chunk that answers, within top_k, and boosts chunks listing a code', async () => {
    const emptying = await post('/v1/policy/retrieve', { query: 'what gastric emptying study does an adult need?', top_k: 2 });
    expect(emptying.status).toBe(200);
    expect(emptying.body.results.map((h: { chunk_id: string }) => h.chunk_id)).toContain(`${id}_c3`);
    expect(emptying.body.results[0]).toMatchObject({ document_id: id, document_title: 'Gastric Stimulation Policy', page_start: 1, section_path: ['Coverage Rationale', 'Adults'] });
    // The code is printed only in the table: the code boost finds the table chunk.
    const byCode = await post('/v1/policy/retrieve', { query: 'which codes are listed', codes: ['43648'], document_id: id, top_k: 1 });
    expect(byCode.body.results[0]).toMatchObject({ chunk_id: `${id}_c4`, codes_matched: ['43648'] });
    const inQuery = await post('/v1/policy/retrieve', { query: 'is E0765 covered?', top_k: 3 });
    expect(inQuery.body.codes).toEqual(['E0765']);
    expect(inQuery.body.results.map((h: { chunk_id: string }) => h.chunk_id)).toContain(`${id}_c4`);
    const bad = await post('/v1/policy/retrieve', { query: '', top_k: 0, codes: ['not a code'], extra: 1 });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((i: { loc: unknown[] }) => i.loc.join('.')).sort()).toEqual(['body.codes.0', 'body.extra', 'body.query', 'body.top_k']);
  });

  it('turns a question into terms and codes', () => {
    expect(queryTerms('What does this policy require for 43775 and K31.84?', ['e0765'])).toEqual({ terms: ['require', '43775', 'k31', '84'], codes: ['E0765', '43775', 'K31.84'] });
  });

  it('deletes a document with its chunks and index rows in one go', async () => {
    const pdf = await outlinePdf();
    const doc = (await parse(pdf)).body;
    const hit = await post('/v1/policy/retrieve', { query: 'vagal blocking trial', document_id: doc.document_id });
    expect(hit.body.results.length).toBeGreaterThan(0);
    const del = await t.request(`/v1/policy/documents/${doc.document_id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ document_id: doc.document_id, deleted: true, chunks_deleted: doc.chunk_count });
    expect((await post('/v1/policy/structure', { document_id: doc.document_id })).status).toBe(404);
    const after = await post('/v1/policy/retrieve', { query: 'vagal blocking trial' });
    expect(after.body.results.filter((h: { document_id: string }) => h.document_id === doc.document_id)).toEqual([]);
    const db = (t.srv.state as SqliteStateStore).db;
    expect(db.prepare('SELECT count(*) AS n FROM policy_chunks WHERE document_id = ?').get(doc.document_id)).toEqual({ n: 0 });
    expect(db.prepare("SELECT count(*) AS n FROM policy_postings WHERE term = 'vagal'").get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT count(*) AS n FROM policy_chunk_codes WHERE code = ?').get('64590')).toEqual({ n: 0 });
    expect((await t.request(`/v1/policy/documents/${doc.document_id}`, { method: 'DELETE' })).status).toBe(404);
    // Parsing it again stores it again, under the same id.
    const back = await parse(pdf);
    expect(back.status).toBe(201);
    expect(back.body.document_id).toBe(doc.document_id);
  });
});

describe('ownership: tenants and modes', () => {
  it('a document is its tenant own: another tenant gets 404 on every route and never its chunks', async () => {
    const mine = (await parse(headings)).body.document_id;
    const other = await tenantKey('policy-other');
    expect((await post('/v1/policy/structure', { document_id: mine }, { key: other })).status).toBe(404);
    expect((await post('/v1/policy/retrieve', { query: 'gastric', document_id: mine }, { key: other })).status).toBe(404);
    expect((await t.request(`/v1/policy/documents/${mine}`, { method: 'DELETE', key: other })).status).toBe(404);
    const theirs = await post('/v1/policy/retrieve', { query: 'gastric emptying stimulation', codes: ['43647'] }, { key: other });
    expect(theirs.body.results).toEqual([]);
    expect((await t.request('/v1/policy/documents', { key: other })).body.documents).toEqual([]);
    // The same bytes in the other tenant are another document, with an id that does not reveal the first.
    const copy = await parse(headings, { key: other });
    expect(copy.status).toBe(201);
    expect(copy.body.document_id).not.toBe(mine);
    expect((await post('/v1/policy/structure', { document_id: mine })).status).toBe(200);
  });

  it('X-Admin-Secret acts for the tenant X-Tenant-Id names, in the mode of the host', async () => {
    const admin = { 'X-Admin-Secret': SECRET, 'X-Tenant-Id': t.tenantId };
    const onTest = await t.request('/v1/policy/documents', { key: null, headers: admin });
    expect(onTest.status).toBe(200);
    const testIds = onTest.body.documents.map((d: { document_id: string }) => d.document_id);
    expect(testIds.length).toBeGreaterThan(0);
    // The production host is the tenant's live world: none of its test documents.
    const live = await t.request('/v1/policy/documents', { key: null, host: LIVE_HOST, headers: admin });
    expect(live.body.documents).toEqual([]);
    const liveParse = await parse(headings, { key: null, host: LIVE_HOST, headers: admin });
    expect(liveParse.status).toBe(201);
    expect(testIds).not.toContain(liveParse.body.document_id);
    expect((await post('/v1/policy/structure', { document_id: liveParse.body.document_id })).status).toBe(404);
    // Nor can the live world read, search or delete a test document (or the test world a live one).
    const onLive = { key: null, host: LIVE_HOST, headers: admin };
    const testId = testIds[0]!;
    expect((await post('/v1/policy/structure', { document_id: testId }, onLive)).status).toBe(404);
    expect((await post('/v1/policy/retrieve', { query: 'gastric', document_id: testId }, onLive)).status).toBe(404);
    expect((await t.request(`/v1/policy/documents/${testId}`, { method: 'DELETE', ...onLive })).status).toBe(404);
    const liveHits = (await post('/v1/policy/retrieve', { query: 'gastric stimulation emptying', top_k: 50 }, onLive)).body.results;
    expect(liveHits.map((h: { document_id: string }) => h.document_id).every((d: string) => d === liveParse.body.document_id)).toBe(true);
    expect((await t.request(`/v1/policy/documents/${liveParse.body.document_id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await post('/v1/policy/structure', { document_id: testId })).status).toBe(200);
    // A live key is refused (the routes take the secret, or a test key on the test host).
    const liveKey = await t.newKey('live', ['admin']);
    const refused = await t.request('/v1/policy/documents', { key: liveKey, host: LIVE_HOST });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('admin_secret_required');
    const unknownTenant = await t.request('/v1/policy/documents', { key: null, headers: { ...admin, 'X-Tenant-Id': 'nobody' } });
    expect(unknownTenant.status).toBe(404);
  });

  it('scores use only the tenant own chunks: another tenant documents do not move them', async () => {
    const k = await tenantKey('policy-scores');
    await parse(await tocPdf(), { key: k });
    const q = { query: 'intragastric balloon obesity treatment', top_k: 3 };
    const before = (await post('/v1/policy/retrieve', q, { key: k })).body.results.map((h: { chunk_id: string; score: number }) => [h.chunk_id, h.score]);
    expect(before.length).toBeGreaterThan(0);
    // Other tenants add documents full of the same words.
    for (let i = 0; i < 2; i++) {
      const o = await tenantKey(`policy-noise-${i}`);
      await parse(await tocPdf(), { key: o });
      await parse(await outlinePdf(), { key: o });
    }
    const after = (await post('/v1/policy/retrieve', q, { key: k })).body.results.map((h: { chunk_id: string; score: number }) => [h.chunk_id, h.score]);
    expect(after).toEqual(before);
  });
});

describe('the parser thread', () => {
  it('stops a parse that runs past its time, and the next parse gets a fresh thread', async () => {
    const p = new WorkerPolicyParser({ ...DEFAULT_PARSER, timeoutMs: 1 });
    try {
      await expect(p.parse(headings)).rejects.toSatisfy((e: unknown) => e instanceof PdfError && e.problem === 'invalid_pdf' && /RCM_POLICY_PARSE_TIMEOUT_MS/.test(e.message));
    } finally {
      await p.close();
    }
    const q = new WorkerPolicyParser(DEFAULT_PARSER);
    try {
      expect((await q.parse(headings)).chunks).toHaveLength(6);
      expect((await q.parse(await tocPdf())).source).toBe('toc');
    } finally {
      await q.close();
    }
  });

  it('refuses more waiting parses than it queues: 503 service_busy, not an unbounded queue', async () => {
    const p = new WorkerPolicyParser({ ...DEFAULT_PARSER, maxQueued: 1 });
    try {
      const running = p.parse(headings);
      const queued = p.parse(headings);
      await expect(p.parse(headings)).rejects.toMatchObject({ code: 'service_busy' });
      await Promise.all([running, queued]);
    } finally {
      await p.close();
    }
  });
});
