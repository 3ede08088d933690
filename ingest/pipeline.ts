import { DuckDBInstance } from '@duckdb/node-api';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { compareVersions } from '../datasets/_shared/versions.js';
import { storageOf } from '../datasets/storage.js';
import type { Dataset } from '../datasets/types.js';
import { DomainError } from '../warehouse/errors.js';
import { quoteString } from '../warehouse/sql_quote.js';
import { RecordFile, RECORDS_SUFFIX } from '../lib/sidecar/record.js';
import { rangesPath } from '../lib/sidecar/range.js';
import { columnsPath, writeColumnFile } from '../lib/sidecar/column.js';
import { SidecarVersionError } from '../lib/sidecar/block.js';
import type { ChangeRecord, DatasetVersion, Manifest } from '../warehouse/manifest.js';
import type { StorageSpec } from '../warehouse/storage.js';
import { newSnapshotId, sidecarsOf, type Warehouse } from '../warehouse/store.js';
import { checkGateColumns, firstLoadDiff, type DiffReport, type DiffResult } from './diff.js';
import { withWriteLock } from './lock.js';
import { ingestDuckDbConfig } from './duckdb_config.js';
import { checkKeys, checkRejects, finalizeRows, indexTables } from './stage/check.js';
import { passSql } from './stage/passes.js';
import { noteDeltaKeys, writeRanges, writeRecords } from './stage/records.js';
import { foldDelta, planDelta } from './stage/delta.js';
import { hashSources, readInputs, resolveDataset } from './stage/inputs.js';
import { loadRows, runSqlOn, type Loaded } from './stage/load.js';
import { baselineOf, recordVersion, replacedVersion } from './stage/record.js';
import type { Skipped } from './zip.js';

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
  /** A registered dataset id (or, for tests and embedding, the declaration itself). */
  dataset: string | Dataset<any>;
  /** How the version is stored (tests: smaller passes); default the dataset's entry in `datasets/storage.ts`. */
  storage?: StorageSpec;
  /** Source files, or the publisher's zip (its members the dataset recognises are read). */
  files: string[];
  /** Overrides the version label found in the file. */
  version?: string;
  /** Overrides the effective date found in the file (`YYYY-MM-DD`). */
  effectiveDate?: string;
  /** Stage, validate and diff, but publish nothing. */
  dryRun?: boolean;
  /** Share of rejected rows above which the ingest fails (default 0.01 = 1%). */
  rejectThreshold?: number;
  /** Replace a version with the same label (otherwise refused, unless the loaded one is a seed). */
  replace?: boolean;
  /** A seed file of the repository (`rcm seed`): the version is marked `seed` in the manifest. */
  seed?: boolean;
  /** A seed of invented figures in the publisher's layout (`seeds/origins.json`): answers that read it are degraded. */
  illustrative?: boolean;
  /** Publish even when the removal guard (`maxRemoved`) is crossed. */
  allowRemovals?: boolean;
  /** `RCM_MAX_REMOVED`: refuse a publish that removes more than this share of the baseline's keys (default 0.05). */
  maxRemoved?: number;
  /** `--fail-on-removed`, percent: refuse (exit 3) above it, dry run or not. */
  failOnRemovedPct?: number;
  /** `--fail-on-changed`, percent. */
  failOnChangedPct?: number;
  /** `--fail-on-changed N%:col,...`: only changes of these value columns count. */
  failOnChangedColumns?: string[];
  /** Cap on the bytes a zip unpacks to (`RCM_ZIP_MAX_MB`). */
  zipMaxBytes?: number;
  /** DuckDB's memory bound while staging and diffing, MB (`RCM_INGEST_MEMORY_MB`; default 512). */
  memoryMb?: number;
  onProgress?: (p: IngestProgress) => void;
  now?: () => Date;
}

export interface IngestSummary {
  dataset: string;
  version: string;
  effective_date: string | null;
  files: DatasetVersion['source_files'];
  /** Zip members not read, with the reason (another dataset's file, the same table in another format...). */
  skipped: Skipped[];
  rows: number;
  rejects: number;
  reject_rate: number;
  /** JSONL of `{line, file, issues:[{loc,msg,type,input}]}` per rejected row, when any. */
  rejects_file: string | null;
  change: ChangeRecord;
  /** The diff against the baseline with the gate applied: exactly what `rcm diff --format json` prints. */
  report: DiffReport;
  snapshot_id: string | null;
  dry_run: boolean;
  elapsed_ms: number;
}

/** A loaded version file, in place (or staged) but not yet published. */
export interface StagedVersion {
  entry: DatasetVersion;
  change: ChangeRecord;
  report: DiffReport;
  /** Where the staged file sits until it is published or dropped. */
  stagedFile: string;
  /** The per-key changes written by the diff (null on a first load), moved to `change.keys_file` on publish. */
  stagedKeys: string | null;
  summary: Omit<IngestSummary, 'snapshot_id' | 'dry_run' | 'elapsed_ms' | 'change' | 'report'>;
}

/** A publish refused by a `--fail-on-*` threshold or the removal guard (CLI exit 3); nothing is published. */
export class GateError extends DomainError {
  constructor(
    message: string,
    readonly report: DiffReport,
  ) {
    super('gate_refused', message);
  }
}

/**
 * The versions a new one is compared with and may replace: a real version is compared with the
 * real versions when there are any (seeds leave service when it is published), else with the
 * seeds it replaces.
 */
function comparableVersions(versions: DatasetVersion[], seed: boolean): DatasetVersion[] {
  if (seed) return versions;
  const real = versions.filter((v) => !v.seed);
  return real.length ? real : versions;
}

/** True when a dataset has a version loaded from a publisher's release (not a seed). */
export function hasRealVersion(manifest: Manifest | null, dataset: string): boolean {
  return (manifest?.datasets[dataset] ?? []).some((v) => !v.seed);
}

/**
 * Parses, validates and loads files into a new version file, then diffs it against its
 * baseline and applies the gate. The file is written under `tmp/` and moved into
 * `datasets/<id>/` only by `publish`, so a failed, refused or killed ingest leaves nothing a
 * snapshot could point at.
 */
export async function stageVersion(wh: Warehouse, opts: IngestOptions, parent: Manifest | null): Promise<StagedVersion> {
  const dataset = resolveDataset(opts.dataset);
  const storage = opts.storage ?? storageOf(dataset.id);
  checkGateColumns(dataset, opts.failOnChangedColumns);
  const inputs = await readInputs(dataset, opts, wh.path('tmp'));
  const { files, samples, label, effective } = inputs;
  const prevVersions = comparableVersions(parent?.datasets[dataset.id] ?? [], Boolean(opts.seed));
  const delta = planDelta(dataset, samples, prevVersions, label, files[0]!.name);
  const same = replacedVersion(dataset, prevVersions, label, opts.replace);
  const out = wh.newVersionFiles(dataset.id, label);
  const hashing = hashSources(files);
  const base = baselineOf(prevVersions, label, effective);

  let loaded: Loaded;
  let firstDiff: DiffResult | null = null;
  let explicitRemovals = 0;
  const inst = await DuckDBInstance.create(':memory:', ingestDuckDbConfig(opts.memoryMb, `${out.staged}.spill`));
  const conn = await inst.connect();
  // The version file is attached (not opened as the instance's database) so its row group size
  // can be the dataset's storage's; every table, appender and checkpoint below uses it.
  await conn.run(`ATTACH ${quoteString(out.staged)} AS staged${storage.rowGroupSize ? ` (ROW_GROUP_SIZE ${storage.rowGroupSize})` : ''}`);
  await conn.run('USE staged');
  const run = runSqlOn(conn);
  try {
    loaded = await loadRows(dataset, conn, run, files, samples, label, opts.onProgress);
    await checkRejects(loaded, out.rejects, opts.rejectThreshold ?? 0.01, files[0]!.name);
    await finalizeRows(dataset, run, loaded);
    if (delta) {
      if (storage.records) await noteDeltaKeys(run, storage.records);
      explicitRemovals = await foldDelta(dataset, run, wh.path(delta.base.file), label, loaded);
    }
    await checkKeys(dataset, run, files[0]!.name);
    await indexTables(storage.indexes, run);
    const onStaged = async () => {
      const c = await inst.connect();
      await c.run('USE staged');
      return c;
    };
    if (storage.records) {
      // A fold rewrites only the keys its delta carried when the base version has its records (of
      // a format version this build reads: else every record is built again).
      const baseRecords = delta ? await RecordFile.open(`${wh.path(delta.base.file)}${RECORDS_SUFFIX}`).catch(unlessRefused) : null;
      await writeRecords(onStaged, storage.records, `${out.staged}${RECORDS_SUFFIX}`, baseRecords);
    }
    for (const r of storage.ranges ?? []) await writeRanges(onStaged, r, rangesPath(out.staged, r.name));
    for (const c of storage.columnFiles ?? []) await writeColumnFile(conn, await passSql(run, c.sql, c.passes), columnsPath(out.staged, c.name));
    // A first load's diff reads the staged tables on this connection (no second instance).
    if (!base) firstDiff = await firstLoadDiff(dataset, run);
    await conn.run('CHECKPOINT');
  } catch (e) {
    conn.closeSync();
    inst.closeSync();
    await wh.removeTmp(out.staged);
    throw e;
  }
  conn.closeSync();
  inst.closeSync();
  const deltaOf = delta ? { base: delta.base.version, explicitRemovals } : undefined;
  const seeds = opts.seed ? [] : (parent?.datasets[dataset.id] ?? []).filter((v) => v.seed).map((v) => v.version);
  return recordVersion(wh, { dataset, inputs, files: out, loaded, hashing, base, same, firstDiff, delta: deltaOf, replacedSeeds: seeds }, opts, opts.now ?? (() => new Date()));
}

/** Null for a sidecar of a format version this build does not read; any other error as thrown. */
function unlessRefused(e: unknown): null {
  if (e instanceof SidecarVersionError) return null;
  throw e;
}

/**
 * Moves staged version files into place and writes a new manifest from `parent` plus them,
 * then makes it CURRENT. Unchanged datasets keep pointing at their existing files; a replaced
 * label's entry is swapped for the new one. The newest version by effective date stays the
 * default, so a backfill does not displace it. A real (non-seed) version takes every seed version
 * of its dataset out of service, whatever the dates: a seed is served only while its dataset has
 * no real version.
 */
export async function publish(wh: Warehouse, parent: Manifest | null, staged: StagedVersion[], now: () => Date): Promise<Manifest> {
  const datasets: Record<string, DatasetVersion[]> = structuredClone(parent?.datasets ?? {});
  for (const s of staged) {
    await mkdir(dirname(wh.path(s.entry.file)), { recursive: true });
    // The sidecars first: a version file in place always has the sidecars it was written with.
    for (const suffix of await sidecarsOf(s.stagedFile)) await rename(`${s.stagedFile}${suffix}`, `${wh.path(s.entry.file)}${suffix}`);
    await rename(s.stagedFile, wh.path(s.entry.file));
    if (s.stagedKeys && s.change.keys_file) {
      await mkdir(dirname(wh.path(s.change.keys_file)), { recursive: true });
      await rename(s.stagedKeys, wh.path(s.change.keys_file));
    }
    const list = (datasets[s.entry.dataset] ?? []).filter((v) => v.version !== s.entry.version && (s.entry.seed || !v.seed));
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
export async function sweepTmp(wh: Warehouse): Promise<void> {
  const names = await readdir(wh.path('tmp')).catch(() => [] as string[]);
  await Promise.all(names.map((n) => rm(wh.path('tmp', n), { force: true, recursive: true })));
}

/** Refuses the publish when the gate failed: a threshold or the removal guard (exit 3, nothing published). */
export function gate(s: StagedVersion): void {
  if (s.report.failed.length) throw new GateError(`refused: ${s.entry.dataset} ${s.report.from_version} -> ${s.entry.version} ${s.report.failed.join('; ')}`, s.report);
}

/**
 * `rcm ingest`: stage one version and, unless dry run, publish a snapshot with it. A dry run
 * applies every gate the real run applies (the `--fail-on-*` thresholds and the removal guard,
 * `--allow-removals` included) and exits as the real run would, so a data team's CI learns
 * from the dry run what the publish will do.
 */
export async function ingestFiles(wh: Warehouse, opts: IngestOptions): Promise<IngestSummary> {
  const now = opts.now ?? (() => new Date());
  const started = Date.now();
  await wh.init();
  return withWriteLock(wh.path('ingest.lock'), async () => {
    await sweepTmp(wh);
    const parent = await wh.current();
    const staged = await stageVersion(wh, opts, parent);
    try {
      gate(staged);
      const manifest = opts.dryRun ? null : await publish(wh, parent, [staged], now);
      return { ...staged.summary, change: staged.change, report: staged.report, snapshot_id: manifest?.id ?? null, dry_run: Boolean(opts.dryRun), elapsed_ms: Date.now() - started };
    } finally {
      await wh.removeTmp(staged.stagedFile);
      await sweepTmp(wh);
    }
  });
}

/**
 * Stages a batch in order against `parent`: a later item of a dataset is diffed against the
 * earlier ones of the batch. Each staged version passed its gate. An item that fails (refused by
 * its gate, or a file that cannot be read) is handed to `onFailure` and left out when it returns;
 * without it, the failure ends the batch (the caller's `sweepTmp` removes what was staged).
 */
export async function stageBatch(
  wh: Warehouse,
  batch: IngestOptions[],
  parent: Manifest | null,
  now: () => Date,
  onFailure?: (opts: IngestOptions, e: unknown) => void,
): Promise<StagedVersion[]> {
  const staged: StagedVersion[] = [];
  let working = parent;
  for (const opts of batch) {
    let s: StagedVersion;
    try {
      s = await stageVersion(wh, { ...opts, now }, working);
      try {
        gate(s);
      } catch (e) {
        await wh.removeTmp(s.stagedFile);
        throw e;
      }
    } catch (e) {
      if (!onFailure) throw e;
      onFailure(opts, e);
      continue;
    }
    staged.push(s);
    // later items of the same dataset diff against the earlier ones of this batch
    const own = { ...s.entry, file: s.stagedFile.slice(wh.dir.length + 1) };
    working = {
      ...(working ?? { id: 'staging', created_at: now().toISOString(), parent: null, changes: [] }),
      datasets: { ...(working?.datasets ?? {}), [s.entry.dataset]: [...(working?.datasets[s.entry.dataset] ?? []).filter((v) => v.version !== s.entry.version), own] },
    } as Manifest;
  }
  return staged;
}

/**
 * Several ingests published as one snapshot (used by `rcm seed`). A seed of a dataset that has a
 * real version is not loaded (`kept` names it): a seed never goes back in front of real data.
 */
export async function ingestBatch(wh: Warehouse, batch: IngestOptions[], now: () => Date = () => new Date()): Promise<{ manifest: Manifest | null; staged: StagedVersion[]; kept: string[] }> {
  await wh.init();
  return withWriteLock(wh.path('ingest.lock'), async () => {
    await sweepTmp(wh);
    const parent = await wh.current();
    const kept = [...new Set(batch.filter((o) => o.seed && hasRealVersion(parent, resolveDataset(o.dataset).id)).map((o) => resolveDataset(o.dataset).id))];
    try {
      const staged = await stageBatch(wh, batch.filter((o) => !kept.includes(resolveDataset(o.dataset).id)), parent, now);
      const manifest = staged.length ? await publish(wh, parent, staged, now) : null;
      return { manifest, staged, kept };
    } finally {
      await sweepTmp(wh);
    }
  });
}
