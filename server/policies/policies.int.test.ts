import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFiles } from '../../ingest/pipeline.js';
import { macIndex } from '../../datasets/mac_jurisdictions/queries.js';
import { parseContractorFilter, placeByContracts } from './service.js';
import { examplePolicyPdf } from '../policy_documents/example_pdf.js';
import { REPO_ROOT } from '../../testing/datasets.js';
import { startTestServer, waitForSnapshot, type TestServer } from '../../testing/harness.js';

// Seeded world: the real MCD listing rows of seeds/mcd_documents (no code rows: the listing names
// none), the illustrative mcd_coverage export (L99001-L99003, A99001-A99003, NCD 999.1, with
// codes) and the curated MAC jurisdictions. The second listing release
// (test/fixtures/policies/documents_latest.csv, README there) revises, retires and adds documents.

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ now: () => new Date('2026-03-02T12:00:00Z') });
});
afterAll(async () => t.close());

type Doc = { doc_id: string; kind: string; jurisdiction_resolved: boolean | null; jurisdictions: string[]; codes: string[]; illustrative: boolean; sources: string[] };
const list = (q: Record<string, string>) => t.request(`/v1/policies?${new URLSearchParams(q)}`);
const ids = (r: { body: { results: Doc[] } }) => r.body.results.map((d) => d.doc_id);

async function publish(dataset: string, files: string[]) {
  const s = await ingestFiles(t.wh, { dataset, files, allowRemovals: true });
  await waitForSnapshot(t, s.snapshot_id);
}

describe('GET /v1/policies', () => {
  it('lists the Medicare documents that list a code: the billing article and its LCD, marked illustrative', async () => {
    const r = await list({ payer: 'medicare_ffs', code: '64490' });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([
      expect.objectContaining({ doc_id: 'L99001', kind: 'lcd', version: 3, codes: ['64490', '64493', '64633', '64635'], illustrative: true, sources: ['mcd_coverage'], codes_loaded: true }),
      expect.objectContaining({ doc_id: 'A99001', kind: 'article', version: 4, effective_date: '2025-10-01', url: 'https://www.cms.gov/medicare-coverage-database/view/article.aspx?articleid=99001&ver=4' }),
    ]);
    expect(r.body.total).toBe(2);
    expect(r.body.reliability.warnings.join(' ')).toMatch(/illustrative seed documents/);
    expect(r.body.reliability.dataset_versions.mcd_coverage).toBe('2025-10-01');
  });

  it('returns an empty list for a code no document lists (spec)', async () => {
    const r = await list({ payer: 'medicare_ffs', code: '99999' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ results: [], total: 0, next_cursor: null });
  });

  it("keeps the MAC jurisdictions of a state: a single-jurisdiction contractor's documents are resolved, a DME LCD applies, others are left out", async () => {
    const oh = await list({ payer: 'medicare', state: 'OH', limit: '200' });
    const docs = new Map((oh.body.results as Doc[]).map((d) => [d.doc_id, d]));
    // CGS holds J15 (KY, OH) alone among A/B jurisdictions.
    expect(docs.get('L38773')).toMatchObject({ jurisdictions: ['J15'], jurisdiction_resolved: true, sources: ['mcd_documents', 'mac_jurisdictions'], codes: [], codes_loaded: false });
    expect(docs.get('A58364')?.jurisdiction_resolved).toBe(true);
    // CGS and Noridian DME: DME A-D, so every state; several jurisdictions, so unresolved.
    expect(docs.get('L33824')).toMatchObject({ jurisdiction_resolved: false });
    expect(docs.get('L33824')!.jurisdictions.sort()).toEqual(['DME A', 'DME B', 'DME C', 'DME D']);
    // Not placed (HH+H contract, or no listing row): kept, unresolved. NCDs are national.
    expect(docs.get('L33942')).toMatchObject({ jurisdictions: [], jurisdiction_resolved: false });
    expect(docs.get('A99001')).toMatchObject({ jurisdiction_resolved: false });
    expect(docs.get('NCD 999.1')).toMatchObject({ kind: 'ncd', jurisdiction_resolved: null });
    // Palmetto (JJ, JM), First Coast (JN), NGS (J6, JK), Noridian A/B (JE, JF), Novitas (JH, JL): not Ohio.
    for (const id of ['L38765', 'L33930', 'L35936', 'L38803', 'L38229', 'L36668']) expect(docs.has(id), id).toBe(false);
    expect(oh.body.reliability.warnings.join(' ')).toMatch(/placed in OH by their contractor only/);
    expect(oh.body.reliability.dataset_versions).toMatchObject({ mcd_documents: '2025-08-06', mac_jurisdictions: '2026-12-06' });
    // Florida: First Coast's JN documents, not CGS's.
    const fl = ids(await list({ payer: 'medicare', state: 'FL', limit: '200' }));
    expect(fl).toContain('L33930');
    expect(fl).not.toContain('L38773');
  });

  it("shows each document's version in force today, and a retired one with its retirement date", async () => {
    const r = await list({ payer: 'medicare_ffs', q: 'rituximab' });
    // L39297 v6 took effect on 2025-09-07; today is 2026-03-02.
    expect(r.body.results).toEqual([expect.objectContaining({ doc_id: 'L39297', version: 6, effective_date: '2025-09-07', contractors: ['National Government Services, Inc.'] })]);
    const retired = await list({ payer: 'medicare_ffs', q: 'ionized calcium' });
    expect(retired.body.results[0]).toMatchObject({ doc_id: 'L34011', retirement_date: '2025-06-26' });
  });

  it("lists a commercial payer's curated documents (by alias) and never Medicare's for it", async () => {
    const r = await list({ payer: 'uhc', code: '43644' });
    expect(r.body.results).toEqual([
      expect.objectContaining({ payer_slug: 'uhc', doc_id: '2025T0362PP', kind: 'coverage', version: null, codes: ['43644', '43775', '43845'], sources: ['payers'], jurisdiction_resolved: null }),
    ]);
    expect((await list({ payer: 'aetna' })).body.results).toEqual([]);
    expect((await list({ payer: 'uhc', code: '64490' })).body.results).toEqual([]);
  });

  it('pages with next_cursor until every document was seen once', async () => {
    const all = await list({ limit: '200' });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { results: Doc[]; next_cursor: string | null } } = await list({ limit: '4', ...(cursor ? { cursor } : {}) });
      seen.push(...ids(page));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(ids(all));
    expect(new Set(seen).size).toBe(all.body.total);
  });

  it('answers 422 with every issue: an unknown payer, a limit of 0, an unknown parameter, a foreign cursor', async () => {
    const r = await list({ payer: 'nobody', limit: '0', colour: 'red', cursor: 'bogus' });
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['query.colour', 'query.limit', 'query.payer']);
  });

  it('never lists a customer policy document parsed through /v1/policy/parse', async () => {
    const parsed = await t.request('/v1/policy/parse', { method: 'POST', body: examplePolicyPdf(), headers: { 'Content-Type': 'application/pdf' } });
    expect(parsed.status).toBeLessThan(300);
    const r = await list({ limit: '200' });
    expect(JSON.stringify(r.body.results)).not.toContain(parsed.body.document_id);
    expect((r.body.results as Doc[]).every((d) => d.sources.every((s) => ['mcd_documents', 'mcd_coverage', 'mac_jurisdictions', 'payers'].includes(s)))).toBe(true);
  });
});

describe('policy rules in payment and claim intelligence, by MAC jurisdiction', () => {
  it('payment composition carries the Medicare rules of the code (article, then its LCD)', async () => {
    const r = await t.request('/v1/codes/64490/payment?locality=1320201&date_of_service=2025-11-03');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.policy_rules.map((x: { doc_id: string }) => x.doc_id)).toEqual(['A99001', 'L99001']);
    expect(r.body.policy_rules[1]).toMatchObject({ kind: 'lcd', discovery_depth: 1, source_key: 'cms_mcd', payer_slug: 'medicare_ffs' });
    expect(r.body.policy_rules[1].rule_text).toMatch(/Documentation: Records must show moderate to severe axial pain.*Billing and coding: A99001/);
  });
});

describe("placing a document by the MCD download's contracts", () => {
  const contract = (name: string | null, o: { number?: string; dme_region?: string; states?: string[] } = {}) => ({ contractor_id: 1, contractor_type_id: 1, contractor_version: 1, name, number: o.number ?? null, dme_region: o.dme_region ?? null, states: o.states ?? null });

  it('places an A/B contract by name, kept to the states it covers; a DME contract by its region', async () => {
    const mac = (await macIndex(t.srv.snapshots.snapshot!))!;
    const ids = (p: ReturnType<typeof placeByContracts>) => [p.jurisdictions.map((j) => j.jurisdiction).sort(), p.resolved, p.unplaced];
    // Noridian holds JE and JF: by name alone both, unresolved; its 01112 contract covers CA: JE.
    expect(ids(placeByContracts(mac, [contract('Noridian Healthcare Solutions, LLC')], null))).toEqual([['JE', 'JF'], false, []]);
    expect(ids(placeByContracts(mac, [contract('Noridian Healthcare Solutions, LLC', { number: '01112', states: ['CA'] })], ['CA']))).toEqual([['JE'], true, []]);
    expect(ids(placeByContracts(mac, [contract('CGS Administrators, LLC', { dme_region: 'B' })], null))).toEqual([['DME B'], true, []]);
    expect(ids(placeByContracts(mac, [contract(null, { number: '99999' })], null))).toEqual([[], false, ['contractor 1 (99999)']]);
  });

  it('reads a jurisdiction, a contract number or a name as the context names a contractor', () => {
    expect(['jl', 'DME-b', 'dme b', '01112', 'Noridian'].map(parseContractorFilter)).toEqual([{ jurisdiction: 'JL' }, { jurisdiction: 'DME B' }, { jurisdiction: 'DME B' }, { number: '01112' }, { name: 'Noridian' }]);
  });
});

describe('GET /v1/policies/changes', () => {
  it('is empty while only one version of each source is loaded, and says why', async () => {
    const r = await t.request('/v1/policies/changes');
    expect(r.status).toBe(200);
    expect(r.body.changes).toEqual([]);
    expect(r.body.reliability.warnings.join(' ')).toMatch(/feed fills once a second one is/);
  });

  it('lists nothing for a release that replaces the seed: the sample it replaced is no earlier release', async () => {
    const other = await startTestServer({ now: () => new Date('2026-03-02T12:00:00Z') });
    try {
      const s = await ingestFiles(other.wh, { dataset: 'mcd_documents', files: [join(REPO_ROOT, 'test/fixtures/policies/documents_latest.csv')], allowRemovals: true });
      await waitForSnapshot(other, s.snapshot_id);
      expect(s.change).toMatchObject({ from_version: '2025-08-06', replaces_seed: true });
      const r = await other.request('/v1/policies/changes');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.changes).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('lists nothing when the seed\'s own rows are loaded as the real release of its label', async () => {
    await publish('mcd_documents', [join(REPO_ROOT, 'seeds/mcd_documents/documents_latest.csv')]);
    const r = await t.request('/v1/policies/changes');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.changes).toEqual([]);
  });

  it('after a second listing release: revised, retired (dropped and in place) and new documents, newest first', async () => {
    await publish('mcd_documents', [join(REPO_ROOT, 'test/fixtures/policies/documents_latest.csv')]);
    const r = await t.request('/v1/policies/changes?limit=200');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const got = r.body.changes.map((c: { doc_id: string; change_type: string; from_version: number | null; to_version: number | null; effective_date: string | null }) => [
      c.doc_id,
      c.change_type,
      c.from_version,
      c.to_version,
      c.effective_date,
    ]);
    expect(got).toEqual([
      ['L35936', 'retired', 55, 55, '2025-09-15'],
      ['L38773', 'revised', 26, 27, '2025-09-01'],
      // No longer listed: dated by the release (2025-08-25), its own retirement date unknown.
      ['L36668', 'retired', 45, null, null],
      ['A99001', 'new', null, 1, '2025-08-20'],
      ['A99002', 'new', null, 1, '2025-08-20'],
      ['L99001', 'new', null, 1, '2025-08-20'],
      ['L99002', 'new', null, 1, '2025-08-20'],
    ]);
    expect(r.body.changes[2].date).toBe('2025-08-25');
    expect(r.body.changes[1]).toMatchObject({ payer_slug: 'medicare_ffs', kind: 'lcd', dataset: 'mcd_documents', dataset_from_version: '2025-08-06', dataset_to_version: '2025-08-25', url: expect.stringContaining('ver=27') });
    // since, payer and paging.
    expect((await t.request('/v1/policies/changes?since=2025-09-01')).body.changes.map((c: { doc_id: string }) => c.doc_id)).toEqual(['L35936', 'L38773']);
    expect((await t.request('/v1/policies/changes?payer=uhc')).body.changes).toEqual([]);
    const first = await t.request('/v1/policies/changes?limit=3');
    const second = await t.request(`/v1/policies/changes?limit=10&cursor=${first.body.next_cursor}`);
    expect([...first.body.changes, ...second.body.changes].map((c: { id: string }) => c.id)).toEqual(r.body.changes.map((c: { id: string }) => c.id));
    expect(second.body.next_cursor).toBeNull();
  });

  it('places the illustrative documents by their listed contractor: a rule applies only in its jurisdictions', async () => {
    // A99002/L99002 (36475) are CGS's (J15: KY, OH) in the second release; A99001/L99001 Palmetto's (JJ, JM).
    const ky = await t.request('/v1/payers/medicare_ffs/claim-intelligence?code=36475&state=KY');
    expect(ky.body.policy_rules.map((x: { doc_id: string; jurisdiction_resolved: boolean }) => [x.doc_id, x.jurisdiction_resolved])).toEqual([
      ['A99002', true],
      ['L99002', true],
    ]);
    const ca = await t.request('/v1/payers/medicare_ffs/claim-intelligence?code=36475&state=CA');
    expect(ca.body.policy_rules).toEqual([]);
    // Alabama (010001) is JJ: Palmetto's facet documents apply there, unresolved (Palmetto also holds JM).
    const al = await t.request('/v1/codes/64490/payment?ccn=010001&date_of_service=2026-03-02');
    expect(al.body.policy_rules.map((x: { doc_id: string; jurisdictions: string[] }) => [x.doc_id, x.jurisdictions])).toEqual([
      ['A99001', ['JJ', 'JM']],
      ['L99001', ['JJ', 'JM']],
    ]);
    expect(al.body.reliability.warnings.join(' ')).toMatch(/placed in AL by their contractor only/);
    const ny = await t.request('/v1/codes/64490/payment?ccn=330101&date_of_service=2026-03-02');
    expect(ny.body.policy_rules).toEqual([]);
  });
});
