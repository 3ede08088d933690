import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rxnorm } from '../../datasets/rxnorm/dataset.js';
import { searchConcepts } from '../../server/concepts/search.js';
import { openTestSnapshot, parseAll, writeTempFile } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';
import { readFile } from 'node:fs/promises';

// The real RXNCONSO extract (../shared/data/rxnorm/SOURCE.md): 433 atoms of 103 concepts of the
// 2023-11-06 full release, every source RxNorm carries, lines unmodified.
const present = requireShared('rxnorm/rxnorm_2023-11-06.RRF');
const FILE = join(sharedDataDir(), 'rxnorm/rxnorm_2023-11-06.RRF');

describe.skipIf(!present)('rxnorm on the real RXNCONSO.RRF extract', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    // Named as NLM names the file inside its zip; the release date is given as a data team would.
    const copy = await writeTempFile('RXNCONSO_2023-11-06.RRF', await readFile(FILE));
    snap = await openTestSnapshot([{ dataset: rxnorm, files: [copy] }]);
  });
  afterAll(() => snap?.close());

  it('reads all 433 atoms with no rejects, by source as SOURCE.md counts them', async () => {
    const { rows, rejects } = await parseAll(rxnorm, FILE);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(433);
    const bySab = Object.fromEntries([...new Set(rows.map((r) => r.sab))].map((s) => [s, rows.filter((r) => r.sab === s).length]));
    expect(bySab).toEqual({ RXNORM: 156, DRUGBANK: 144, MMSL: 48, MTHSPL: 43, ATC: 17, VANDF: 16, USP: 9 });
  });

  it('answers only SAB=RXNORM atoms without the UMLS licence, every source with it', async () => {
    const open = await searchConcepts(snap, 'cisplatin', null, 100, false);
    expect(open.hits.length).toBeGreaterThan(0);
    expect(new Set(open.hits.filter((h) => h.dataset === 'rxnorm').map((h) => h.sab))).toEqual(new Set(['RXNORM']));
    expect(open.hits).toContainEqual(expect.objectContaining({ term: 'cisplatin', sab: 'RXNORM', source_code: '2555', term_type: 'IN', dataset: 'rxnorm', version: '2023-11-06' }));
    const licensed = await searchConcepts(snap, 'cisplatin', null, 100, true);
    expect(new Set(licensed.hits.map((h) => h.sab)).size).toBeGreaterThan(1);
  });
});
