import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { umlsConcepts } from '../datasets/umls_concepts/dataset.js';
import { searchConcepts } from '../server/concepts/search.js';
import type { SnapshotReader } from '../warehouse/snapshot.js';
import { openTestSnapshot, REPO_ROOT, writeTempFile } from './helpers/datasets.js';

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
    // The normalised string is read from the version file, not computed per query.
    expect(asked.some((sql) => sql.includes('regexp_replace'))).toBe(false);
  });

  it('counts and shows an atom once when several of its words start with the query', async () => {
    const lines = ['diabetes diabetic thing', 'diabetes other', 'Diabetic foot: diabetes care (diab.)', 'thing diabetic', 'other words'].map(
      (str, i) => `C910000${i}|ENG|P|L${i}|PF|S${i}|Y|A8000000${i}||||MSH|MH|D${i}|${str}|0|N||`,
    );
    const s = await openTestSnapshot([{ dataset: umlsConcepts, files: [await writeTempFile('MRCONSO.2025AB.RRF', `${lines.join('\n')}\n`)] }]);
    try {
      const found = await searchConcepts(s, 'diab', null, 10);
      expect(found.total).toBe(4);
      expect(found.hits.map((h) => h.source_code)).toEqual(['D1', 'D0', 'D2', 'D3']);
      expect((await searchConcepts(s, 'diabetic diab', null, 10)).hits.map((h) => h.source_code)).toEqual(['D2', 'D3', 'D0']);
      expect((await searchConcepts(s, 'diab', null, 2)).total).toBe(4);
    } finally {
      s.close();
    }
  });

  it('answers the same from a version file written before the normalised string and the previous word were stored', async () => {
    const lines = ['diabetes diabetic thing', 'Diabetic foot: diabetes care (diab.)', 'thing diabetic'].map((str, i) => `C920000${i}|ENG|P|L${i}|PF|S${i}|Y|A8100000${i}||||MSH|MH|D${i}|${str}|0|N||`);
    const file = await writeTempFile('MRCONSO.2025AA.RRF', `${(await readFile(join(REPO_ROOT, 'seeds/umls_concepts/MRCONSO.2025AA.illustrative.RRF'), 'utf8')).trimEnd()}\n${lines.join('\n')}\n`);
    const s = await openTestSnapshot([{ dataset: umlsConcepts, files: [file] }]);
    try {
      const table = s.versionTable('umls_concepts', '2025AA', 'word')!;
      const [wrong] = await s.all<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE nrm IS NULL OR nrm <> trim(regexp_replace(lower(strip_accents(str)), '[^a-z0-9]+', ' ', 'g'))`);
      expect(wrong!.n).toBe(0);
      // The same rows without the two columns, as an older version file holds them.
      const older = Object.create(s) as SnapshotReader;
      older.versionTable = () => `(SELECT word, aui, cui, sab, tty, code, str, version FROM ${table}) older`;
      for (const q of ['diabetes', 'type 2 diab', 'E11.9', 'mell', 'zzz', 'diab', 'diabetic diab']) {
        const now = await searchConcepts(s, q, null, 5);
        expect(await searchConcepts(older, q, null, 5), q).toEqual(now);
      }
      expect((await searchConcepts(older, 'diab', null, 10)).hits.filter((h) => h.source_code === 'D0')).toHaveLength(1);
    } finally {
      s.close();
    }
  });
});
