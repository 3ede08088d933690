import { DuckDBInstance } from '@duckdb/node-api';
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile, readdir } from 'node:fs/promises';

import { IngestError } from '../datasets/_shared/issue.js';
import { type Issue } from '../warehouse/errors.js';
import { sampleFile, sha256File, toSourceFile, type FileSample, type SourceFile } from '../datasets/_shared/source.js';
import { toIsoDate } from '../datasets/_shared/values.js';
import { DATASETS, getDataset } from '../datasets/registry.js';
import type { Column, Dataset } from '../datasets/types.js';
import type { ChangeRecord, DatasetVersion, Manifest } from '../warehouse/manifest.js';
import { quoteIdent } from '../warehouse/snapshot.js';
import { newSnapshotId, type Warehouse } from '../warehouse/store.js';
import { diffVersionFiles } from './diff.js';
import { withWriteLock } from './lock.js';
import { appendValue } from '../datasets/_shared/appender.js';

export interface IngestProgress {
  dataset: string;
  file: string;
  rows: number;
  rejects: number;
  bytes: number;
  total_bytes: number;
  elapsed_ms: number;
}

export interface IngestOptions {
  dataset: string;
  files: string[];
  /** Overrides the version label found in the file. */
  version?: string;
  /** Overrides the effective date found in the file (`YYYY-MM-DD`). */
  effectiveDate?: string;
  /** Parse, validate and diff, but publish nothing. */
  dryRun?: boolean;
  /** Share of rejected rows above which the ingest fails (default 0.01 = 1%). */
  rejectThreshold?: number;
  onProgress?: (p: IngestProgress) => void;
  now?: () => Date;
}

export interface IngestSummary {
  dataset: string;
  version: string;
  effective_date: string | null;
  files: { name: string; sha256: string; bytes: number }[];
  rows: number;
  rejects: number;
  reject_rate: number;
  /** JSONL of `{line, file, issues:[{loc,msg,type,input}]}` per rejected row, when any. */
  rejects_file: string | null;
  change: ChangeRecord;
  snapshot_id: string | null;
  dry_run: boolean;
  elapsed_ms: number;
}

/** A loaded version file, in place but not yet published. */
export interface StagedVersion {
  entry: DatasetVersion;
  change: ChangeRecord;
  summary: Omit<IngestSummary, 'snapshot_id' | 'dry_run' | 'elapsed_ms' | 'change'>;
}

const nonce = () => randomBytes(3).toString('hex');

function resolveDataset(id: string): Dataset<any> {
  const d = getDataset(id);
  if (!d) throw new IngestError(`unknown dataset '${id}' (known: ${DATASETS.map((x) => x.id).join(', ')})`);
  return d;
}

/** Checks every file is of this dataset, naming the dataset it looks like when it is not. */
function checkDetected(dataset: Dataset<any>, files: SourceFile[], samples: FileSample[]): void {
  files.forEach((f, i) => {
    const s = samples[i]!;
    if (f.size === 0 || s.text.trim() === '') throw new IngestError('file is empty', f.name, 1);
    if (dataset.detect(s)) return;
    const other = DATASETS.find((d) => d.id !== dataset.id && d.detect(s));
    const hint = other ? ` it looks like a '${other.id}' file` : ' no known header was found';
    throw new IngestError(`not a ${dataset.id} file (expected ${dataset.formats.join(' or ')});${hint}`, f.name, 1);
  });
}

export function createTableSql(dataset: Dataset<any>): string {
  const cols = [...dataset.columns, { name: 'version', type: 'VARCHAR' } as Column];
  return `CREATE TABLE ${quoteIdent(dataset.id)} (${cols.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ')})`;
}

/**
 * Parses, validates and loads files into a new version file, then diffs it against the version it
 * follows. The file is written under `tmp/` and renamed into `datasets/<id>/` only when complete,
 * so a failed or killed ingest leaves nothing a snapshot could point at.
 */
export async function stageVersion(wh: Warehouse, opts: IngestOptions, parent: Manifest | null): Promise<StagedVersion> {
  const now = opts.now ?? (() => new Date());
  const dataset = resolveDataset(opts.dataset);
  if (opts.files.length === 0) throw new IngestError('no files given');
  const files = await Promise.all(opts.files.map(toSourceFile));
  const samples = await Promise.all(files.map((f) => sampleFile(f)));
  checkDetected(dataset, files, samples);
  dataset.checkFiles?.(files, samples);

  const found = dataset.version(samples);
  const label = opts.version ?? found?.label;
  if (!label) throw new IngestError(`cannot find the version label in the file; pass --version`, files[0]!.name);
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,40}$/.test(label)) throw new IngestError(`version label '${label}' must be letters, digits, '.', '_' or '-'`);
  let effective = opts.effectiveDate ?? found?.effective_date ?? null;
  if (effective !== null && toIsoDate(effective) === null) throw new IngestError(`effective date '${effective}' is not a valid YYYY-MM-DD date`);
  effective = effective === null ? null : toIsoDate(effective);

  const id = `${label}.${nonce()}`;
  const tmpFile = wh.path('tmp', `${dataset.id}-${id}.duckdb`);
  const finalRel = `datasets/${dataset.id}/${id}.duckdb`;
  const rejectsRel = `rejects/${dataset.id}/${id}.jsonl`;
  const started = Date.now();
  const totalBytes = files.reduce((a, f) => a + f.size, 0);
  let rows = 0;
  let rejectCount = 0;
  const rejectLines: string[] = [];

  // Hash the sources while DuckDB loads them (hashing runs on the otherwise idle main thread).
  const hashing = Promise.all(files.map(async (f) => ({ name: f.name, sha256: await sha256File(f.path), bytes: f.size })));
  hashing.catch(() => undefined);
  const inst = await DuckDBInstance.create(tmpFile);
  const conn = await inst.connect();
  try {
    await conn.run(createTableSql(dataset));
    if (dataset.loadNative) {
      const res = await dataset.loadNative(files, samples, async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS(), quoteIdent(dataset.id), label);
      rows = res.rows;
      rejectCount = res.rejects.length;
      // A native loader names the part a reject came from in its issues' ctx.file.
      for (const r of res.rejects) rejectLines.push(JSON.stringify({ file: String(r.issues[0]?.ctx?.file ?? files[0]!.name), line: r.line, issues: r.issues }));
      opts.onProgress?.({ dataset: dataset.id, file: files.map((f) => f.name).join(','), rows, rejects: rejectCount, bytes: totalBytes, total_bytes: totalBytes, elapsed_ms: Date.now() - started });
    } else {
      const app = await conn.createAppender(dataset.id);
      let doneBytes = 0;
      let lastReport = 0;
      for (const file of files) {
        let fileBytes = 0;
        const report = (force = false) => {
          const t = Date.now();
          if (!opts.onProgress || (!force && t - lastReport < 200)) return;
          lastReport = t;
          opts.onProgress({ dataset: dataset.id, file: file.name, rows, rejects: rejectCount, bytes: doneBytes + fileBytes, total_bytes: totalBytes, elapsed_ms: t - started });
        };
        let fileRows = 0;
        for await (const item of dataset.parse(file, { onBytes: (b) => (fileBytes = b) })) {
          if (item.issues) {
            rejectCount++;
            rejectLines.push(JSON.stringify({ file: file.name, line: item.line, issues: item.issues }));
          } else {
            const row = item.row as Record<string, unknown>;
            for (const c of dataset.columns) appendValue(app, c, row[c.name]);
            app.appendVarchar(label);
            app.endRow();
            rows++;
            fileRows++;
          }
          if ((rows + rejectCount) % 5000 === 0) report();
        }
        if (fileRows === 0) {
          const why = rejectCount > 0 ? `every data row was rejected (${rejectCount}); first: ${rejectLines[0]}` : 'header found but no data rows';
          throw new IngestError(why, file.name);
        }
        doneBytes += file.size;
        fileBytes = 0;
        report(true);
      }
      app.closeSync();
    }
    const total = rows + rejectCount;
    const rate = total === 0 ? 0 : rejectCount / total;
    if (rows === 0) throw new IngestError('no data rows', files[0]!.name);
    const threshold = opts.rejectThreshold ?? 0.01;
    if (rejectCount > 0) {
      await mkdir(wh.path('rejects', dataset.id), { recursive: true });
      await writeFile(wh.path(rejectsRel), rejectLines.join('\n') + '\n');
    }
    if (rate > threshold) {
      const first = JSON.parse(rejectLines[0]!) as { file: string; line: number; issues: Issue[] };
      const iss = first.issues[0];
      throw new IngestError(
        `${rejectCount} of ${total} rows rejected (${(rate * 100).toFixed(2)}% > ${(threshold * 100).toFixed(2)}%); first: ${iss?.loc.join('.')} ${iss?.msg} (see ${wh.path(rejectsRel)})`,
        first.file,
        first.line,
        typeof iss?.loc[2] === 'string' ? iss.loc[2] : undefined,
      );
    }
    if (dataset.finalize) {
      await dataset.finalize(async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS(), quoteIdent(dataset.id));
      rows = Number((await conn.runAndReadAll(`SELECT count(*) AS n FROM ${quoteIdent(dataset.id)}`)).getRowObjectsJS()[0]!.n);
    }
    const keyList = dataset.key.map(quoteIdent).join(', ');
    const dup = (await conn.runAndReadAll(`SELECT ${keyList}, count(*)::INTEGER AS n FROM ${quoteIdent(dataset.id)} GROUP BY ALL HAVING count(*) > 1 LIMIT 1`)).getRowObjectsJS();
    if (dup.length > 0) {
      const { n, ...key } = dup[0]!;
      throw new IngestError(`duplicate key ${JSON.stringify(key)} appears ${n} times (key columns: ${dataset.key.join(', ')})`, files[0]!.name);
    }
    await conn.run('CHECKPOINT');
  } catch (e) {
    conn.closeSync();
    inst.closeSync();
    await wh.removeTmp(tmpFile);
    throw e;
  }
  conn.closeSync();
  inst.closeSync();

  const prevVersions = parent?.datasets[dataset.id] ?? [];
  const same = prevVersions.find((v) => v.version === label);
  const prev = same ?? latest(prevVersions);
  const diff = await diffVersionFiles(dataset, prev ? wh.path(prev.file) : null, tmpFile);
  const sources = await hashing;
  const loadedAt = now().toISOString();
  const c = diff.counts;
  const change: ChangeRecord = {
    id: `chg_${dataset.id}_${id.replace(/[^A-Za-z0-9]/g, '_')}`,
    dataset: dataset.id,
    from_version: prev?.version ?? null,
    to_version: label,
    effective_date: effective,
    summary: `${dataset.id} ${prev ? `${prev.version} -> ${label}` : `${label} (first load)`}: ${c.added} added, ${c.removed} removed, ${c.changed} changed, ${c.unchanged} unchanged`,
    counts: c,
    samples: diff.samples,
    created_at: loadedAt,
    ...(same ? { supersedes: same.version } : {}),
  };
  const entry: DatasetVersion = {
    dataset: dataset.id,
    version: label,
    effective_date: effective,
    file: finalRel,
    source_files: sources,
    rows,
    rejects: rejectCount,
    loaded_at: loadedAt,
  };
  const summary = {
    dataset: dataset.id,
    version: label,
    effective_date: effective,
    files: sources,
    rows,
    rejects: rejectCount,
    reject_rate: rows + rejectCount === 0 ? 0 : rejectCount / (rows + rejectCount),
    rejects_file: rejectCount > 0 ? wh.path(rejectsRel) : null,
  };
  if (opts.dryRun) {
    await wh.removeTmp(tmpFile);
  } else {
    await mkdir(wh.path('datasets', dataset.id), { recursive: true });
    await rename(tmpFile, wh.path(finalRel));
  }
  return { entry, change, summary };
}

/** The version with the latest effective date (ties: latest loaded). */
export function latest(versions: DatasetVersion[]): DatasetVersion | undefined {
  return [...versions].sort(compareVersions).at(-1);
}

export function compareVersions(a: DatasetVersion, b: DatasetVersion): number {
  return (a.effective_date ?? '').localeCompare(b.effective_date ?? '') || a.loaded_at.localeCompare(b.loaded_at);
}

/**
 * Writes a new manifest from `parent` plus staged versions and makes it CURRENT. Unchanged
 * datasets keep pointing at their existing files; a re-loaded label replaces the old entry.
 */
export async function publish(wh: Warehouse, parent: Manifest | null, staged: StagedVersion[], now: () => Date): Promise<Manifest> {
  const datasets: Record<string, DatasetVersion[]> = structuredClone(parent?.datasets ?? {});
  for (const s of staged) {
    const list = (datasets[s.entry.dataset] ?? []).filter((v) => v.version !== s.entry.version);
    list.push(s.entry);
    datasets[s.entry.dataset] = list.sort(compareVersions);
  }
  const manifest: Manifest = {
    id: newSnapshotId(now()),
    created_at: now().toISOString(),
    parent: parent?.id ?? null,
    datasets,
    changes: [...(parent?.changes ?? []), ...staged.map((s) => s.change)],
  };
  await wh.writeManifest(manifest);
  await wh.setCurrent(manifest.id);
  return manifest;
}

/** Removes temp files left by killed ingests (only called while holding the write lock). */
async function sweepTmp(wh: Warehouse): Promise<void> {
  const names = await readdir(wh.path('tmp')).catch(() => [] as string[]);
  await Promise.all(names.map((n) => rm(wh.path('tmp', n), { force: true })));
}

/** `rcm ingest`: stage one version and publish a snapshot with it (unless dry run). */
export async function ingestFiles(wh: Warehouse, opts: IngestOptions): Promise<IngestSummary> {
  const now = opts.now ?? (() => new Date());
  const started = Date.now();
  await wh.init();
  return withWriteLock(wh.path('ingest.lock'), async () => {
    await sweepTmp(wh);
    const parent = await wh.current();
    const staged = await stageVersion(wh, opts, parent);
    const manifest = opts.dryRun ? null : await publish(wh, parent, [staged], now);
    return { ...staged.summary, change: staged.change, snapshot_id: manifest?.id ?? null, dry_run: Boolean(opts.dryRun), elapsed_ms: Date.now() - started };
  });
}

/** Several ingests published as one snapshot (used by `rcm seed`). */
export async function ingestBatch(wh: Warehouse, batch: IngestOptions[], now: () => Date = () => new Date()): Promise<{ manifest: Manifest; staged: StagedVersion[] }> {
  await wh.init();
  return withWriteLock(wh.path('ingest.lock'), async () => {
    await sweepTmp(wh);
    const parent = await wh.current();
    const staged: StagedVersion[] = [];
    let working = parent;
    for (const opts of batch) {
      const s = await stageVersion(wh, { ...opts, now }, working);
      staged.push(s);
      // later items of the same dataset diff against the earlier ones of this batch
      working = {
        ...(working ?? { id: 'staging', created_at: now().toISOString(), parent: null, changes: [] }),
        datasets: { ...(working?.datasets ?? {}), [s.entry.dataset]: [...(working?.datasets[s.entry.dataset] ?? []).filter((v) => v.version !== s.entry.version), s.entry] },
      } as Manifest;
    }
    const manifest = await publish(wh, parent, staged, now);
    return { manifest, staged };
  });
}

