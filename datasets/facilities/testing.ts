import { resolve } from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { toSourceFile, sampleFile } from '../_shared/source.js';
import type { Column, Dataset, ParsedItem } from '../types.js';
import type { DatasetVersion, Manifest } from '../../warehouse/manifest.js';
import { quoteIdent, type SnapshotReader } from '../../warehouse/snapshot.js';
import { appendValue } from '../_shared/appender.js';

/** Parses every file of a dataset and returns the rows and rejects (for parser tests). */
export async function parseAll<Row extends object>(dataset: Dataset<Row>, paths: string[]): Promise<{ rows: Row[]; rejects: { line: number; issues: NonNullable<ParsedItem<Row>['issues']> }[] }> {
  const rows: Row[] = [];
  const rejects: { line: number; issues: NonNullable<ParsedItem<Row>['issues']> }[] = [];
  for (const p of paths) {
    const file = await toSourceFile(p);
    for await (const item of dataset.parse(file, { onBytes: () => {} })) {
      if (item.issues) rejects.push({ line: item.line, issues: item.issues });
      else rows.push(item.row);
    }
  }
  return { rows, rejects };
}

/**
 * An in-memory SnapshotReader over parsed files, so query tests run without the ingest pipeline:
 * one table per dataset with its columns plus `version`, and a manifest listing the versions.
 * Call `close()` when done.
 */
export async function memorySnapshot(
  loads: { dataset: Dataset<any>; files: string[]; version?: string }[],
): Promise<SnapshotReader & { close(): void }> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn: DuckDBConnection = await instance.connect();
  const datasets: Record<string, DatasetVersion[]> = {};
  for (const { dataset, files, version } of loads) {
    const samples = await Promise.all(files.map(async (f) => sampleFile(await toSourceFile(f))));
    const label = version ?? dataset.version(samples)?.label;
    if (!label) throw new Error(`no version label for ${dataset.id}; pass one`);
    const cols = [...dataset.columns, { name: 'version', type: 'VARCHAR' } as Column];
    if (!datasets[dataset.id]) {
      await conn.run(`CREATE TABLE ${quoteIdent(dataset.id)} (${cols.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ')})`);
      datasets[dataset.id] = [];
    }
    const { rows } = await parseAll(dataset, files);
    const app = await conn.createAppender(dataset.id);
    for (const row of rows) {
      for (const c of dataset.columns) appendValue(app, c, (row as Record<string, unknown>)[c.name]);
      app.appendVarchar(label);
      app.endRow();
    }
    app.closeSync();
    datasets[dataset.id]!.push({
      dataset: dataset.id,
      version: label,
      effective_date: dataset.version(samples)?.effective_date ?? null,
      file: `memory/${dataset.id}/${label}`,
      source_files: files.map((f) => ({ name: f.split('/').pop()!, sha256: '', bytes: 0 })),
      rows: rows.length,
      rejects: 0,
      loaded_at: '2026-01-01T00:00:00.000Z',
    });
  }
  const manifest: Manifest = { id: 'memory', created_at: '2026-01-01T00:00:00.000Z', parent: null, datasets, changes: [] };
  const memos = new Map<string, Promise<unknown>>();
  return {
    id: manifest.id,
    manifest,
    async all<T>(sql: string, params?: DuckDBValue[]): Promise<T[]> {
      const reader = await conn.runAndReadAll(sql, params);
      return reader.getRowObjectsJS().map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])) as T);
    },
    memo<T>(key: string, compute: () => Promise<T>): Promise<T> {
      let p = memos.get(key) as Promise<T> | undefined;
      if (!p) memos.set(key, (p = compute()));
      return p;
    },
    versions: (d) => datasets[d] ?? [],
    has: (d) => (datasets[d]?.length ?? 0) > 0,
    close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

/** Where the real publisher files live: `RCM_SHARED_DATA` or `../shared/data` beside the repo. */
export function sharedDataDir(repoRoot: string): string {
  return process.env.RCM_SHARED_DATA ? resolve(process.env.RCM_SHARED_DATA) : resolve(repoRoot, '../shared/data');
}
