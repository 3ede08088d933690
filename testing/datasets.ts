import { readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sampleFile, toSourceFile } from '../datasets/_shared/source.js';
import type { Dataset, ParsedItem, VersionInfo } from '../datasets/types.js';
import { lookupDataset } from '../datasets/registry.js';
import { ingestFiles } from '../ingest/pipeline.js';
import { seedPlan } from '../ingest/seed.js';
import type { Issue } from '../warehouse/errors.js';
import { MountedSnapshot, type SnapshotReader } from '../warehouse/snapshot.js';
import { Warehouse } from '../warehouse/store.js';

import { REPO_ROOT } from './shared.js';
import { tempDir } from './temp_dirs.js';

export { REPO_ROOT };

/** What a dataset makes of a file's sample: whether it claims the file, and the version it reads (null: none). */
export async function detectFile(dataset: Dataset<any>, path: string): Promise<{ detected: boolean; version: VersionInfo | null }> {
  const sample = await sampleFile(await toSourceFile(path));
  return { detected: dataset.detect(sample), version: dataset.version([sample]) ?? null };
}

/** Everything a dataset's parser yields for one file, rows and rejects in file order. */
export async function parseItems<Row extends object>(dataset: Dataset<Row>, path: string): Promise<ParsedItem<Row>[]> {
  const out: ParsedItem<Row>[] = [];
  for await (const item of dataset.parse(await toSourceFile(path), { onBytes: () => {} })) out.push(item);
  return out;
}

/**
 * The inputs of a dataset's golden file under `root`: its seed files (folder or per-version
 * sub-folders) then its `test/fixtures/<id>/` ugly excerpts, in name order; notes (`.md`) skipped.
 */
async function goldenInputs(id: string, root = REPO_ROOT): Promise<string[]> {
  const out: string[] = [];
  for (const base of [join(root, 'seeds', id), join(root, 'test/fixtures', id)]) {
    const walk = async (d: string): Promise<void> => {
      const names = await readdir(d).catch(() => [] as string[]);
      for (const n of names.sort()) {
        if (n.endsWith('.md')) continue;
        const p = join(d, n);
        if ((await stat(p)).isDirectory()) await walk(p);
        else out.push(p);
      }
    };
    await walk(base);
  }
  return out;
}

/**
 * What a dataset's golden file (`test/golden/<id>.jsonl`) records, one item per line: per input
 * file its path (relative to `root`) with what detection makes of it, then every row and reject
 * the parser yields. test/golden.test.ts compares it; `npm run new:dataset` writes it.
 */
export async function goldenItems(dataset: Dataset<any>, root = REPO_ROOT): Promise<unknown[]> {
  const items: unknown[] = [];
  for (const path of await goldenInputs(dataset.id, root)) {
    items.push({ file: path.slice(root.length + 1), ...(await detectFile(dataset, path)) });
    for (const item of await parseItems(dataset, path)) items.push(item.issues ? { line: item.line, issues: item.issues } : { line: item.line, row: item.row });
  }
  return items;
}

/** Items as the text of a golden file: one JSON value per line, a final newline. */
export const toJsonl = (items: unknown[]): string => items.map((i) => JSON.stringify(i)).join('\n') + '\n';

/** Rows by table and rejects (whole items, with their table) of one file of a multi-table dataset. */
export async function parseTables(dataset: Dataset<Record<string, unknown>>, path: string) {
  const items = await parseItems(dataset, path);
  const rows: Record<string, Record<string, unknown>[]> = {};
  for (const i of items) if (i.row) (rows[i.table!] ??= []).push(i.row);
  return { rows, rejects: items.filter((i) => i.issues) };
}

/** Rows and rejects of parsed files, with the dataset's own parser (for parser tests). */
export async function parseAll<Row extends object>(dataset: Dataset<Row>, paths: string | string[]): Promise<{ rows: Row[]; rejects: { line: number; issues: Issue[] }[] }> {
  const rows: Row[] = [];
  const rejects: { line: number; issues: Issue[] }[] = [];
  for (const p of Array.isArray(paths) ? paths : [paths]) {
    for (const item of await parseItems(dataset, p)) {
      if (item.issues) rejects.push({ line: item.line, issues: item.issues });
      else rows.push(item.row);
    }
  }
  return { rows, rejects };
}

export interface TestLoad {
  dataset: Dataset<any>;
  files: string[];
  /** Overrides the label found in the file names. */
  version?: string;
  /** The day it takes effect, for a file that states none (`YYYY-MM-DD`). */
  effectiveDate?: string;
  /** Load it as `rcm seed` does (the version is marked `seed` in the manifest). */
  seed?: boolean;
  /** A seed of invented figures (`seeds/origins.json`): answers that read it are degraded. */
  illustrative?: boolean;
}

/**
 * A snapshot mounted from files through the real ingest pipeline (the same staging, key checks
 * and views as production), in a temp warehouse that `close()` removes. Rejected rows are
 * tolerated, as query tests load files that carry deliberate bad rows.
 */
export async function openTestSnapshot(loads: TestLoad[]): Promise<MountedSnapshot & { close(): void }> {
  const dir = await tempDir('rcm-test-snap-');
  const wh = new Warehouse(dir);
  await wh.init();
  for (const l of loads) {
    await ingestFiles(wh, { dataset: l.dataset, files: l.files, version: l.version, effectiveDate: l.effectiveDate, seed: l.seed, illustrative: l.illustrative, rejectThreshold: 1, allowRemovals: true, replace: true });
  }
  const manifest = await wh.current();
  if (!manifest) throw new Error('openTestSnapshot: nothing was loaded');
  const snap = await MountedSnapshot.open(wh, manifest, { connections: 1, threads: 1 });
  const close = snap.close.bind(snap);
  return Object.assign(snap, {
    close() {
      close();
      void rm(dir, { recursive: true, force: true });
    },
  });
}

/**
 * A snapshot of the seeds of the datasets `ids`, each as `rcm seed` plans it (its files, and its
 * `seeds/origins.json` marks), through `openTestSnapshot`; `extra` adds files to a dataset's seed
 * files in the same version (real rows a test needs beside the seed's, e.g. more facilities).
 */
export async function openSeedSnapshot(ids: readonly string[], extra: Readonly<Record<string, readonly string[]>> = {}): Promise<MountedSnapshot & { close(): void }> {
  const plan = (await seedPlan(join(REPO_ROOT, 'seeds'))).filter((o) => typeof o.dataset === 'string' && ids.includes(o.dataset));
  return openTestSnapshot(
    plan.map((o) => {
      const id = o.dataset as string;
      return { dataset: lookupDataset(id)!, files: [...o.files, ...(extra[id] ?? [])], seed: o.seed, illustrative: o.illustrative };
    }),
  );
}

/**
 * Writes `content` to a fresh temp file named `name`, for bad-input tests: text as UTF-8, or as
 * CP1252 when `cp1252`; bytes as given.
 */
export async function writeTempFile(name: string, content: string | Buffer, cp1252 = false): Promise<string> {
  const dir = await tempDir('rcm-fixture-');
  const path = join(dir, name);
  const bytes = typeof content !== 'string' ? content : cp1252 ? Buffer.from([...content].map((ch) => (ch === '\u00ae' ? 0xae : ch.charCodeAt(0)))) : Buffer.from(content, 'utf8');
  await writeFile(path, bytes);
  return path;
}

/**
 * The same snapshot without raw column access, so whole-table indexes are not built and lookups
 * take their DuckDB path: tests compare both paths.
 */
export function withoutIndex(s: SnapshotReader): SnapshotReader {
  const memo = new Map<string, Promise<unknown>>();
  return {
    id: `${s.id}-plain`,
    manifest: s.manifest,
    all: (sql, params) => s.all(sql, params),
    memo: <T>(k: string, f: () => Promise<T>) => {
      if (!memo.has(k)) memo.set(k, f());
      return memo.get(k) as Promise<T>;
    },
    versions: (d) => s.versions(d),
    has: (d) => s.has(d),
  };
}
