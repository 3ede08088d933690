import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import type { Issue } from '../../warehouse/errors.js';
import type { Dataset } from '../types.js';
import type { DatasetVersion, Manifest } from '../../warehouse/manifest.js';
import { MountedSnapshot, quoteIdent } from '../../warehouse/snapshot.js';
import { Warehouse } from '../../warehouse/store.js';

/** Rows and rejects of one parsed file (for unit tests). */
export async function parseAll<Row>(ds: Dataset<Row & object>, path: string): Promise<{ rows: Row[]; rejects: { line: number; issues: Issue[] }[] }> {
  const file = await toSourceFile(path);
  const rows: Row[] = [];
  const rejects: { line: number; issues: Issue[] }[] = [];
  for await (const item of ds.parse(file, { onBytes: () => {} })) {
    if (item.issues) rejects.push({ line: item.line, issues: item.issues });
    else rows.push(item.row);
  }
  return { rows, rejects };
}

/**
 * Test-only stand-in for the ingest pipeline, so queries can be tested against a real mounted
 * snapshot before `ingest/pipeline.ts` exists: each entry parses its files with the dataset's own
 * parser and version(), writes one `.duckdb` version file per entry (table named after the
 * dataset, plus `version`), writes a manifest and mounts it with `MountedSnapshot`.
 */
export async function buildTestSnapshot(
  entries: { dataset: Dataset<any>; files: string[] }[],
): Promise<{ snapshot: MountedSnapshot; close: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'rcm-ncci-mue-'));
  const wh = new Warehouse(dir);
  await wh.init();
  const datasets: Record<string, DatasetVersion[]> = {};
  let n = 0;
  for (const { dataset, files } of entries) {
    const sources = await Promise.all(files.map(toSourceFile));
    const samples = await Promise.all(sources.map((s) => sampleFile(s)));
    const info = dataset.version(samples);
    if (!info) throw new Error(`no version found in ${files.join(', ')}`);
    const rel = join('datasets', dataset.id, `${info.label}.${n++}.duckdb`);
    await mkdir(join(dir, 'datasets', dataset.id), { recursive: true });
    const inst = await DuckDBInstance.create(wh.path(rel));
    const conn = await inst.connect();
    const cols = [...dataset.columns, { name: 'version', type: 'VARCHAR' }];
    await conn.run(`CREATE TABLE ${quoteIdent(dataset.id)} (${cols.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ')})`);
    let rows = 0;
    let rejects = 0;
    const insert = `INSERT INTO ${quoteIdent(dataset.id)} VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`;
    for (const src of sources) {
      for await (const item of dataset.parse(src, { onBytes: () => {} })) {
        if (item.issues) {
          rejects++;
          continue;
        }
        const row = item.row as Record<string, unknown>;
        await conn.run(insert, [...dataset.columns.map((c) => (row[c.name] ?? null) as string | number | null), info.label]);
        rows++;
      }
    }
    conn.closeSync();
    inst.closeSync();
    (datasets[dataset.id] ??= []).push({
      dataset: dataset.id,
      version: info.label,
      effective_date: info.effective_date ?? null,
      file: rel,
      source_files: sources.map((s) => ({ name: s.name, sha256: '0'.repeat(64), bytes: s.size })),
      rows,
      rejects,
      loaded_at: '2026-11-21T00:00:00.000Z',
    });
  }
  for (const list of Object.values(datasets)) list.sort((a, b) => (a.effective_date ?? '').localeCompare(b.effective_date ?? ''));
  const manifest: Manifest = { id: 'test-snapshot', created_at: '2026-11-21T00:00:00.000Z', parent: null, datasets, changes: [] };
  const snapshot = await MountedSnapshot.open(wh, manifest, { connections: 1, threads: 1 });
  return {
    snapshot,
    close: async () => {
      snapshot.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Writes `text` to a fresh temp file named `name` (CP1252 when `cp1252`), for bad-input tests. */
export async function writeTempFile(name: string, text: string, cp1252 = false): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rcm-ncci-fixture-'));
  const path = join(dir, name);
  const bytes = cp1252 ? Buffer.from([...text].map((ch) => (ch === '\u00ae' ? 0xae : ch.charCodeAt(0)))) : Buffer.from(text, 'utf8');
  await writeFile(path, bytes);
  return path;
}

/** Repo root (tests read seeds from here and real files from `../shared/data`). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

