import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { umlsConcepts } from '../../datasets/umls_concepts/dataset.js';
import { searchConcepts } from './search.js';
import { RangeFile, rangesPath } from '../../lib/sidecar/range.js';
import { sidecarFallbacks, type SnapshotReader } from '../../warehouse/snapshot.js';
import { openTestSnapshot, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';

let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
beforeAll(async () => {
  snap = await openTestSnapshot([{ dataset: umlsConcepts, files: [join(REPO_ROOT, 'seeds/umls_concepts/MRCONSO.2025AA.illustrative.RRF')] }]);
});
afterAll(() => snap.close());

/** The same snapshot read only through DuckDB: no data directory, so no version's range sidecar is found. */
function duckdbOnly(s: SnapshotReader): SnapshotReader {
  return Object.create(s, { location: { value: undefined } }) as SnapshotReader;
}

/** `s` with every SQL text it is asked recorded in `asked`. */
function spy(s: SnapshotReader, asked: string[]): SnapshotReader {
  const all = s.all.bind(s);
  const spied = Object.create(s) as SnapshotReader;
  spied.all = ((sql: string, params?: never[]) => (asked.push(sql), all(sql, params))) as typeof s.all;
  return spied;
}

describe('UMLS concept search', () => {
  it("asks the version's own word table, and answers what the view over versions answers", async () => {
    const asked: string[] = [];
    const all = snap.all.bind(snap);
    const spied = Object.create(duckdbOnly(snap)) as SnapshotReader;
    spied.all = ((sql: string, params?: never[]) => (asked.push(sql), all(sql, params))) as typeof snap.all;
    // The same snapshot without `versionTable`: every query goes through the view.
    const viewOnly = Object.create(duckdbOnly(snap)) as SnapshotReader;
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

  it('answers a version without its range sidecars from DuckDB, counted as missing', async () => {
    const lines = ['diabetes thing', 'diabetic foot', 'other words'].map((str, i) => `C930000${i}|ENG|P|L${i}|PF|S${i}|Y|A8200000${i}||||MSH|MH|D${i}|${str}|0|N||`);
    const s = await openTestSnapshot([{ dataset: umlsConcepts, files: [await writeTempFile('MRCONSO.2025AB.RRF', `${lines.join('\n')}\n`)] }]);
    try {
      // As a version ingested before the sidecars existed: the files gone before the first search.
      const file = join(s.location!, s.versions('umls_concepts')[0]!.file);
      for (const name of ['words', 'atoms']) await rm(rangesPath(file, name));
      const missing = () => sidecarFallbacks().find((f) => f.dataset === 'umls_concepts' && f.sidecar === 'words' && f.reason === 'missing')?.count ?? 0;
      const before = missing();
      const found = await searchConcepts(s, 'diab', null, 10);
      expect(found.hits.map((h) => h.source_code)).toEqual(['D1', 'D0']);
      expect(found).toEqual(await searchConcepts(duckdbOnly(s), 'diab', null, 10));
      expect(missing() - before).toBe(1);
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
      const older = Object.create(duckdbOnly(s)) as SnapshotReader;
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

describe('UMLS concept search from the range sidecar', () => {
  // 34,000 atoms over a small vocabulary (many atoms per word, words sharing prefixes, atoms with several words of one prefix), ICD-style
  // dotted codes, several sources, accents and an astral character; every atom holds a `zz...`
  // word, so the prefix `zz` spans more blocks than a search reads from the sidecar.
  const VOCAB = ['diabetes', 'diabetic', 'diab', 'type', 'mellitus', 'foot', 'ulcer', 'renal', 'réna', 'care', 'cardiac', 'card', '2', '10', 'e11'];
  const SABS = ['MSH', 'ICD10CM', 'SNOMEDCT_US', 'RXNORM'];
  const lines = Array.from({ length: 34_000 }, (_, i) => {
    const n = 1 + (i % 4);
    // Neighbouring words of the vocabulary: many atoms hold two or three words of one prefix (diab, diabetes, diabetic).
    const words = Array.from({ length: n }, (_, k) => VOCAB[(i * 7 + k + Math.floor(i / 15)) % VOCAB.length]!);
    words.splice(i % (n + 1), 0, `zzw${i % 60}`);
    if (i % 7 === 0) words.push(`zzx${i % 13}`);
    const str = (i % 997 === 0 ? `${words.join(' ')} \u{1F600}` : words.join(i % 3 ? ' ' : ', ')).replace(/^d/, i % 2 ? 'D' : 'd');
    const sab = SABS[i % SABS.length]!;
    const code = sab === 'ICD10CM' ? `E${10 + (i % 3)}.${i % 10}` : String(100 + (i % 250));
    return `C${String(3000000 + Math.floor(i / 2)).padStart(7, '0')}|ENG|P|L${i}|PF|S${i}|Y|A${70000000 + i}||||${sab}|PT|${code}|${str}|0|${i % 41 === 0 ? 'O' : 'N'}||`;
  });
  let s: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    s = await openTestSnapshot([{ dataset: umlsConcepts, files: [await writeTempFile('MRCONSO.2025AB.RRF', `${lines.join('\n')}\n`)] }]);
  });
  afterAll(() => s.close());
  const sidecar = (name: string) => rangesPath(join(s.location!, s.versions('umls_concepts')[0]!.file), name);
  const QUERIES = ['diab', 'diabetes', 'Diabetes Mellitus', 'type 2 diab', 'mell type', 'card', 'rena', 'réna care', 'E11.3', 'e110', '150', 'zzw7', 'zzw1 foot', 'ulcer zzw', '2', 'foot, ulcer!', 'zzz', 'e11', 'zz f', 'zzw ca', 'diab 1', 'ulcer zzw7 d'];

  it('answers every query, source filter and limit as DuckDB does, without a query to DuckDB', async () => {
    expect(existsSync(sidecar('words')) && existsSync(sidecar('atoms'))).toBe(true);
    const asked: string[] = [];
    const spied = spy(s, asked);
    for (const q of QUERIES) {
      for (const sabs of [null, ['ICD10CM', 'RXNORM']]) {
        for (const limit of [1, 50]) {
          const fromSidecar = await searchConcepts(spied, q, sabs, limit);
          expect(fromSidecar, `${q} ${String(sabs)} ${limit}`).toEqual(await searchConcepts(duckdbOnly(s), q, sabs, limit));
        }
      }
    }
    expect((await searchConcepts(spied, 'diab', null, 5)).total).toBeGreaterThan(1000);
    expect(asked.filter((sql) => sql.includes("word"))).toEqual([]);
  });

  it('counts and ranks a one-word search from the block summaries, reading a few blocks of a wide prefix, as DuckDB answers', async () => {
    const read = vi.spyOn(RangeFile.prototype, 'blockLines');
    try {
      const words = (await RangeFile.open(sidecar('words')))!;
      const asked: string[] = [];
      // Every prefix of every word of the vocabulary (and of the zz words), at several limits.
      const prefixes = [...new Set([...VOCAB, 'zzw17', 'zzw5'].flatMap((w) => Array.from(w.normalize('NFKD').replace(/\p{M}/gu, ''), (_, k) => w.slice(0, k + 1))))];
      for (const q of [...prefixes, 'zz', 'z', 'diab diab', 'Diabetes, diabetes']) {
        for (const limit of [0, 1, 3, 50]) {
          read.mockClear();
          const fromSidecar = await searchConcepts(spy(s, asked), q, null, limit);
          expect(fromSidecar, `${q} ${limit}`).toEqual(await searchConcepts(duckdbOnly(s), q, null, limit));
          // A range of many blocks is counted from their summaries: its edges and the best bounds read.
          const { first, end } = words.span(q.toLowerCase(), `${q.toLowerCase()}\u007f`);
          if (q === 'zz' || q === 'z') expect(read.mock.calls.length, `${q} ${limit}`).toBeLessThan((end - first) / 4);
        }
      }
      expect(asked.filter((sql) => sql.includes('word'))).toEqual([]);
      expect((await searchConcepts(s, 'zz', null, 10)).total).toBeGreaterThan(30_000);
    } finally {
      read.mockRestore();
    }
  });

  it('leaves a wide prefix it must read whole (a source filter, every word wide), and a damaged sidecar, to DuckDB with the same answers', async () => {
    /** Answers the words sidecar left to DuckDB so far, for `reason`. */
    const fellBack = (reason: string) => sidecarFallbacks().find((f) => f.dataset === 'umls_concepts' && f.sidecar === 'words' && f.reason === reason)?.count ?? 0;
    const [wideBefore, damagedBefore] = [fellBack('wide'), fellBack('damaged')];
    for (const [q, sabs] of [['zz', ['MSH']], ['zz zzw', null]] as [string, string[] | null][]) {
      const asked: string[] = [];
      const wide = await searchConcepts(spy(s, asked), q, sabs, 10);
      expect(wide.total).toBeGreaterThan(1_000);
      expect(asked.some((sql) => sql.includes('word'))).toBe(true);
      expect(wide).toEqual(await searchConcepts(duckdbOnly(s), q, sabs, 10));
    }
    // Either sidecar's blocks overwritten after it was opened: a read fails to inflate.
    for (const name of ['atoms', 'words']) {
      const bytes = await readFile(sidecar(name));
      const head = bytes.indexOf(10) + 1;
      await writeFile(sidecar(name), Buffer.concat([bytes.subarray(0, head), Buffer.alloc(bytes.length - head - 1024, 7), bytes.subarray(bytes.length - 1024)]));
      for (const q of ['diab', 'type 2 diab', 'E11.3']) expect(await searchConcepts(s, q, null, 5), `${name} ${q}`).toEqual(await searchConcepts(duckdbOnly(s), q, null, 5));
    }
    // Counted for /metrics: the two wide prefixes, and the searches that met a damaged block (at least the three over the words sidecar).
    expect(fellBack('wide') - wideBefore).toBe(2);
    expect(fellBack('damaged') - damagedBefore).toBeGreaterThanOrEqual(3);
  });
});
