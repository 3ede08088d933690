import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rxnorm } from '../../datasets/rxnorm/dataset.js';
import { conceptIndex, searchConcepts } from './search.js';
import { openTestSnapshot } from '../../testing/datasets.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';
import { Warehouse } from '../../warehouse/store.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const search = async (qs: string) => (await t.request(`/v1/concepts/umls/search?${qs}`)).body;
const rows = (b: { results: { sab: string; source_code: string }[] }) => b.results.map((r) => `${r.sab}:${r.source_code}`);

describe('RxNorm in the concept search (dataset rxnorm, RXNCONSO.RRF)', () => {
  it('answers real RxNorm concepts by name and by RXCUI, naming the dataset and source', async () => {
    const byName = await search('q=acetaminophen&sab=RXNORM');
    expect(byName.results).toContainEqual({ cui: null, term: 'acetaminophen', sab: 'RXNORM', source_code: '161', term_type: 'IN', dataset: 'rxnorm', version: '2023-11-06' });
    expect(byName.reliability.dataset_versions).toMatchObject({ rxnorm: '2023-11-06' });
    const byCode = await search('q=161');
    expect(byCode.results[0]).toMatchObject({ sab: 'RXNORM', source_code: '161', term: 'acetaminophen', dataset: 'rxnorm' });
    // A brand RxNorm marks obsolete (SUPPRESS O) is not answered.
    expect((await search('q=platinol')).results.filter((r: { dataset: string }) => r.dataset === 'rxnorm')).toEqual([]);
  });

  it('answers the sources RxNorm carries under the UMLS licence only when the server says the licence is held', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcm-rxn-'));
    const file = join(dir, 'RXNCONSO_2023-11-06.RRF');
    await writeFile(file, '161|ENG||||||2022406||||MMSL|IN|d00049|acetaminophen||N||\n161|ENG||||||12250420|12250420|161||RXNORM|IN|161|acetaminophen||N|4096|\n');
    const snap = await openTestSnapshot([{ dataset: rxnorm, files: [file] }]);
    try {
      const open = await searchConcepts(snap, 'acetaminophen', null, 10, false);
      expect(open.hits.map((h) => h.sab)).toEqual(['RXNORM']);
      const licensed = await searchConcepts(snap, 'acetaminophen', null, 10, true);
      expect(licensed.hits.map((h) => `${h.sab}:${h.source_code}`).sort()).toEqual(['MMSL:d00049', 'RXNORM:161']);
    } finally {
      snap.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('GET /v1/concepts/umls/search', () => {
  it('finds a UMLS concept and the ICD-10-CM code by words, UMLS atoms with their CUI', async () => {
    const b = await search('q=type%202%20diabetes%20mellitus%20without&limit=10');
    expect(b.results[0]).toMatchObject({ cui: 'C9000001', sab: 'ICD10CM', source_code: 'E11.9', term: 'Type 2 diabetes mellitus without complications', dataset: 'umls_concepts', term_type: 'PT' });
    // A code of the icd10cm dataset (the seed's real lines): no CUI, its own version.
    const cholera = await search('q=cholera%20due%20to%20vibrio%20cholerae%2001%2C%20biovar%20eltor');
    expect(cholera.results[0]).toMatchObject({ cui: null, sab: 'ICD10CM', source_code: 'A00.1', term: 'Cholera due to Vibrio cholerae 01, biovar eltor', dataset: 'icd10cm', term_type: 'PT' });
    expect(b.reliability.dataset_versions).toMatchObject({ umls_concepts: '2025AA-illustrative' });
    expect(b.reliability.warnings).toContainEqual(expect.stringContaining('umls_concepts 2025AA-illustrative is an illustrative seed'));
    expect(b.reliability.degraded).toBe(true);
  });

  it('puts the code itself first, typed with or without its dot', async () => {
    for (const q of ['E11.9', 'e119']) {
      const b = await search(`q=${q}`);
      expect(rows(b)[0], q).toEqual('ICD10CM:E11.9');
      expect(b.results[0].cui).toBe('C9000001');
    }
    for (const q of ['A00.1', 'a001']) expect(rows(await search(`q=${q}`))[0], q).toEqual('ICD10CM:A00.1');
  });

  it('reads CPT descriptors of the RVU file and keeps to the sources asked', async () => {
    const cpt = await search('q=99213');
    expect(cpt.results[0]).toMatchObject({ cui: null, sab: 'CPT', source_code: '99213', term_type: 'SD', dataset: 'mpfs_rvu' });
    const only = await search('q=diabetes&sab=MSH,MTH');
    expect(only.results.map((r: { sab: string }) => r.sab).every((s: string) => s === 'MSH' || s === 'MTH')).toBe(true);
    expect(only.results.map((r: { term: string }) => r.term)).toContain('Diabetes Mellitus, Type 2');
  });

  it("answers RxNorm ids from the FDA directory's openFDA fields, by name or by RxCUI", async () => {
    const byName = await search('q=lorazepam&sab=RXNORM');
    expect(byName.results).toContainEqual({ cui: null, term: 'Lorazepam', sab: 'RXNORM', source_code: '197900', term_type: 'openfda_brand', dataset: 'fda_ndc', version: expect.any(String) });
    const byCode = await search('q=197900');
    expect(byCode.results[0]).toMatchObject({ sab: 'RXNORM', source_code: '197900', term: 'Lorazepam' });
    expect(byCode.reliability.dataset_versions).toHaveProperty('fda_ndc');
  });

  it('leaves out obsolete and non-English atoms', async () => {
    expect((await search('q=dimethylbiguanide')).results).toEqual([]);
    expect((await search('q=gastrectomia')).results).toEqual([]);
    const sleeve = await search('q=sleeve%20gastrec');
    expect(sleeve.results.map((r: { term: string }) => r.term)).toContain('Sleeve gastrectomy');
  });

  it('ranks a whole-term match above a term that merely contains the words, and counts every match', async () => {
    const b = await search('q=cholera&limit=1');
    expect(b.results).toHaveLength(1);
    expect(b.results[0]).toMatchObject({ term: 'Cholera', source_code: 'A00' });
    expect(b.total_count).toBeGreaterThan(1);
    const all = await search('q=cholera&limit=100');
    expect(all.total_count).toBe(all.results.length);
  });

  it('refuses a short query, a bad source and a limit out of range with every issue', async () => {
    const r = await t.request('/v1/concepts/umls/search?q=a&sab=icd10cm&limit=0');
    expect(r.status).toBe(422);
    expect(r.body.detail.map((i: { loc: string[] }) => i.loc.join('.')).sort()).toEqual(['query.limit', 'query.q', 'query.sab']);
  });
});

describe('the concept index across snapshots', () => {
  it('is built once for the same source files: a second snapshot of them shares it', async () => {
    const wh = new Warehouse(t.dataDir);
    const manifest = (await wh.current())!;
    const a = await MountedSnapshot.open(wh, manifest, { connections: 1, threads: 1 });
    const b = await MountedSnapshot.open(wh, manifest, { connections: 1, threads: 1 });
    try {
      const first = await conceptIndex(a);
      expect(first.entries.length).toBeGreaterThan(0);
      // UMLS atoms are searched in DuckDB (the release's word table), never held in this index
      expect(first.entries.some((e) => e.dataset === 'umls_concepts')).toBe(false);
      expect(await conceptIndex(b)).toBe(first);
    } finally {
      a.close();
      b.close();
    }
  });
});
