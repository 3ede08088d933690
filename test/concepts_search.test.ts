import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { umlsConcepts } from '../datasets/umls_concepts/dataset.js';
import { searchConcepts } from '../server/concepts/search.js';
import type { SnapshotReader } from '../warehouse/snapshot.js';
import { openTestSnapshot, REPO_ROOT } from './helpers/datasets.js';

let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
beforeAll(async () => {
  snap = await openTestSnapshot([{ dataset: umlsConcepts, files: [join(REPO_ROOT, 'seeds/umls_concepts/MRCONSO.2025AA.illustrative.RRF')] }]);
});
afterAll(() => snap.close());

describe('UMLS concept search', () => {
  it("asks the version's own word table, and answers what the view over versions answers", async () => {
    const asked: string[] = [];
    const all = snap.all.bind(snap);
    const spied = Object.create(snap) as SnapshotReader;
    spied.all = ((sql: string, params?: never[]) => (asked.push(sql), all(sql, params))) as typeof snap.all;
    // The same snapshot without `versionTable`: every query goes through the view.
    const viewOnly = Object.create(snap) as SnapshotReader;
    viewOnly.versionTable = undefined;
    for (const q of ['diabetes', 'type 2 diab', 'E11.9', 'mell', 'zzz']) {
      asked.length = 0;
      const own = await searchConcepts(spied, q, null, 5);
      expect(asked.length, q).toBeGreaterThan(0);
      expect(asked.every((sql) => sql.includes(snap.versionTable('umls_concepts', snap.versions('umls_concepts')[0]!.version, 'word')!)), q).toBe(true);
      expect(own, q).toEqual(await searchConcepts(viewOnly, q, null, 5));
    }
    expect((await searchConcepts(spied, 'diabetes', null, 5)).hits.length).toBeGreaterThan(0);
  });
});
