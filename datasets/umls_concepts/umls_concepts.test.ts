import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTableSql } from '../_shared/table.js';
import { loadMrconsoNative } from './native.js';
import { toSourceFile } from '../_shared/source.js';
import { detectFile, openTestSnapshot, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { ingestFiles } from '../../ingest/pipeline.js';
import { RangeFile, rangesPath } from '../../lib/sidecar/range.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';
import { Warehouse } from '../../warehouse/store.js';
import { storageOf } from '../storage.js';
import { UMLS_ATOM_FIELDS, UMLS_WORD_FIELDS, umlsConcepts } from './dataset.js';

const SEED = join(REPO_ROOT, 'seeds/umls_concepts/MRCONSO.2025AA.illustrative.RRF');
const UGLY = join(REPO_ROOT, 'test/fixtures/umls_concepts/MRCONSO.2025AB.RRF');

describe('umls_concepts parser (MRCONSO.RRF)', () => {
  it('detects MRCONSO lines and takes the release from the file name (AA from May, AB from November)', async () => {
    expect(await detectFile(umlsConcepts, SEED)).toEqual({ detected: true, version: { label: '2025AA-illustrative', effective_date: '2025-05-01' } });
    expect((await detectFile(umlsConcepts, UGLY)).version).toEqual({ label: '2025AB', effective_date: '2025-11-01' });
    const noRelease = await writeTempFile('MRCONSO.RRF', 'C9000001|ENG|P|L9000001|PF|S9000001|Y|A90000001||||MSH|MH|D1|x|0|N||\n');
    expect(await detectFile(umlsConcepts, noRelease)).toEqual({ detected: true, version: null });
  });

  it('reads the 18 fields in order, empty optional ids as null, SRL as a number', async () => {
    const { rows, rejects } = await parseAll(umlsConcepts, SEED);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(9);
    expect(rows[0]).toEqual({
      cui: 'C9000001', lat: 'ENG', ts: 'P', lui: 'L9000001', stt: 'PF', sui: 'S9000001', ispref: 'Y', aui: 'A90000001',
      saui: null, scui: null, sdui: null, sab: 'ICD10CM', tty: 'PT', code: 'E11.9', str: 'Type 2 diabetes mellitus without complications', srl: 0, suppress: 'N', cvf: null,
    });
  });

  it('rejects a short CUI, a line without its trailing bar and an empty string, naming line and field; keeps UTF-8', async () => {
    const { rows, rejects } = await parseAll(umlsConcepts, UGLY);
    expect(rejects.map((r) => [r.line, r.issues[0]!.loc.at(-1)])).toEqual([
      [2, 'cui'],
      [3, 'row'],
      [5, 'str'],
    ]);
    expect(rows.find((r) => r.aui === 'A90000022')).toMatchObject({ str: 'Gmünd — UTF-8 γαστήρ', cvf: '256' });
  });
});

let mem: { run: (sql: string) => Promise<Record<string, unknown>[]>; close(): void };
beforeAll(async () => {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  await conn.run(createTableSql('umls_concepts', umlsConcepts.columns));
  mem = { run: async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[], close: () => (conn.closeSync(), inst.closeSync()) };
});
afterAll(() => mem.close());

describe('umls_concepts ingest', () => {
  it('loads natively (DuckDB read_csv), value for value what the row parser reads; a file with bad lines goes to the parser, which names them', async () => {
    const native = await loadMrconsoNative([await toSourceFile(SEED)], [], mem.run, 'umls_concepts', 'v1');
    expect(native).toEqual({ rows: 9, rejects: [] });
    const stored = await mem.run('SELECT * EXCLUDE (version) FROM umls_concepts ORDER BY aui');
    const parsed = (await parseAll(umlsConcepts, SEED)).rows.sort((a, b) => (a.aui < b.aui ? -1 : 1));
    expect(stored).toEqual(parsed);
    await mem.run('DELETE FROM umls_concepts');
    expect(await loadMrconsoNative([await toSourceFile(UGLY)], [], mem.run, 'umls_concepts', 'v1')).toBeNull();
    expect(await mem.run('SELECT count(*)::INTEGER AS n FROM umls_concepts')).toEqual([{ n: 0 }]);
  });

  it('stores one row per word of each English, unsuppressed atom and one per code; diffs and counts leave it out', async () => {
    const snap = await openTestSnapshot([{ dataset: umlsConcepts, files: [SEED] }]);
    try {
      const v = snap.versions('umls_concepts')[0]!;
      expect(v.rows).toBe(9);
      expect(snap.manifest.changes.at(-1)!.counts).toEqual({ added: 9, removed: 0, changed: 0, unchanged: 0 });
      const words = await snap.all<{ word: string; aui: string }>('SELECT word, aui FROM umls_concepts__word');
      expect(v.tables!.word).toBe(words.length);
      const e119 = words.filter((w) => w.aui === 'A90000001').map((w) => w.word);
      expect(e119.sort()).toEqual(['#E119', '2', 'complications', 'diabetes', 'mellitus', 'type', 'without']);
      // the obsolete and the Spanish atom have no words
      const atoms = await snap.all<{ aui: string }>("SELECT aui FROM umls_concepts WHERE lat <> 'ENG' OR suppress IN ('O', 'E', 'Y')");
      expect(atoms.length).toBe(2);
      expect(words.some((w) => atoms.some((a) => a.aui === w.aui))).toBe(false);
    } finally {
      snap.close();
    }
  });

  it('writes its version file in row groups of the declared size (finer zone maps for the word ranges)', async () => {
    // 2,500 atoms of 8 words: about 22,500 word rows, more than one group of 16,384.
    const lines = Array.from({ length: 2500 }, (_, i) => {
      const str = Array.from({ length: 8 }, (_, k) => `w${(i * 8 + k) % 997}`).join(' ');
      return `C${String(9100000 + i)}|ENG|P|L${i}|PF|S${i}|Y|A${80000000 + i}||||MSH|MH|D${i}|${str}|0|N||`;
    });
    const file = await writeTempFile('MRCONSO.2025AB.RRF', `${lines.join('\n')}\n`);
    const snap = await openTestSnapshot([{ dataset: umlsConcepts, files: [file] }]);
    try {
      const table = snap.versionTable('umls_concepts', '2025AB', 'word')!;
      const groups = await snap.all<{ n: number }>(`SELECT row_group_id, sum(count)::INTEGER AS n FROM pragma_storage_info('${table.replace(/'/g, "''")}') WHERE column_name = 'word' AND segment_type <> 'VALIDITY' GROUP BY 1 ORDER BY 1`);
      expect(storageOf(umlsConcepts.id).rowGroupSize).toBe(16_384);
      expect(groups.map((g) => g.n)).toEqual([16_384, 22_500 - 16_384]);
    } finally {
      snap.close();
    }
  });
});

describe('the range sidecars of a version', () => {
  it('hold the word rows in word order and one row per atom in rank order; written with the version, left nowhere by a dry run', async () => {
    const wh = new Warehouse(await mkdtemp(join(tmpdir(), 'rcm-umls-ranges-')));
    try {
      await ingestFiles(wh, { dataset: umlsConcepts.id, files: [UGLY], dryRun: true, rejectThreshold: 1 });
      expect(await readdir(wh.path('tmp'))).toEqual([]);
      expect(existsSync(wh.path('datasets', umlsConcepts.id))).toBe(false);
      await ingestFiles(wh, { dataset: umlsConcepts.id, files: [UGLY], rejectThreshold: 1 });
      const m = (await wh.current())!;
      const file = wh.path(m.datasets.umls_concepts![0]!.file);
      const name = (p: string) => p.split('/').at(-1)!;
      expect((await readdir(wh.path('datasets', umlsConcepts.id))).sort()).toEqual([name(file), name(rangesPath(file, 'atoms')), name(rangesPath(file, 'words'))]);
      expect(await readdir(wh.path('tmp'))).toEqual([]);
      const snap = await MountedSnapshot.open(wh, m, { connections: 1, threads: 1 });
      try {
        const table = snap.versionTable('umls_concepts', '2025AB', 'word')!;
        const text = (rows: Record<string, unknown>[]) => rows.map((r) => Object.values(r).map((v) => (v === null ? '' : String(v))));
        const words = await snap.all(`SELECT ${UMLS_WORD_FIELDS.join(', ')} FROM ${table} ORDER BY word, aui`);
        expect((await RangeFile.open(rangesPath(file, 'words')))!.rows('', '\u{10FFFF}')).toEqual(text(words));
        // Rank order: shorter strings first, then code, string and AUI (DuckDB's length counts code points).
        const atoms = await snap.all(`SELECT DISTINCT lpad(CAST(ord AS VARCHAR), 9, '0') AS k, ${UMLS_ATOM_FIELDS.slice(1).join(', ')}, length(str) AS n FROM ${table} ORDER BY n, code, str, aui`);
        expect(atoms.map((a) => Number(a.k))).toEqual(atoms.map((_, i) => i + 1));
        expect((await RangeFile.open(rangesPath(file, 'atoms')))!.rows('', '\u{10FFFF}')).toEqual(text(atoms.map(({ n: _, ...a }) => a)));
        expect(atoms.some((a) => String(a.str).includes('γαστήρ'))).toBe(true);
      } finally {
        snap.close();
      }
    } finally {
      await rm(wh.dir, { recursive: true, force: true });
    }
  });
});
