import { sourceTables } from '../../datasets/_shared/table.js';
import { IngestError } from '../../datasets/_shared/issue.js';
import { compareVersions } from '../../datasets/_shared/versions.js';
import type { Dataset } from '../../datasets/types.js';
import type { ChangeRecord, DatasetVersion } from '../../warehouse/manifest.js';
import type { Warehouse, VersionFiles } from '../../warehouse/store.js';
import { diffVersionFiles, toReport, type DiffResult } from '../diff.js';
import type { IngestOptions, StagedVersion } from '../pipeline.js';
import type { Inputs } from './inputs.js';
import type { Loaded } from './load.js';

// The last stage: what the staged version changed, and the records a publish writes.

/**
 * The loaded version a new one with `label` replaces, if any; refused unless `replace`, since a
 * label names one release. A seed version (`rcm seed`) is replaced by real data without it.
 */
export function replacedVersion(dataset: Dataset<any>, versions: DatasetVersion[], label: string, replace: boolean | undefined): DatasetVersion | undefined {
  const same = versions.find((v) => v.version === label);
  if (same && !replace && !same.seed) {
    throw new IngestError(
      `version ${label} of ${dataset.id} is already loaded (from ${same.source_files.map((f) => f.name).join(', ')}, ${same.loaded_at}); pass --replace to replace it, or --version to load it under another label`,
    );
  }
  return same;
}

/**
 * The version a new one is compared with: the one it replaces (same label), else its
 * predecessor by effective date (so a backfill compares with the release before it, and the
 * change record runs forward in time), else none (first load).
 */
export function baselineOf(versions: DatasetVersion[], label: string, effective: string | null): DatasetVersion | undefined {
  const same = versions.find((v) => v.version === label);
  if (same) return same;
  const ordered = [...versions].sort(compareVersions);
  if (effective === null) return ordered.at(-1);
  return ordered.filter((v) => (v.effective_date ?? '') <= effective).at(-1);
}

/** What `recordVersion` needs from the earlier stages. */
export interface StagedLoad {
  dataset: Dataset<any>;
  inputs: Inputs;
  files: VersionFiles;
  loaded: Loaded;
  /** The sources' hashes, still being computed (`hashSources`). */
  hashing: Promise<DatasetVersion['source_files']>;
  base: DatasetVersion | undefined;
  same: DatasetVersion | undefined;
  /** A first load's diff, computed on the staging connection; otherwise the files are diffed here. */
  firstDiff: DiffResult | null;
  /** A delta release folded into `base` (the version it follows) and the base keys it explicitly removed. */
  delta?: { base: string; explicitRemovals: number };
  /** The seed versions of the dataset this real version takes out of service (empty for a seed). */
  replacedSeeds: string[];
}

/**
 * Diffs the staged version file against its baseline, applies the gate's thresholds, and writes
 * the change record, the manifest entry and the ingest summary.
 */
export async function recordVersion(
  wh: Warehouse,
  s: StagedLoad,
  opts: Pick<IngestOptions, 'failOnRemovedPct' | 'failOnChangedPct' | 'failOnChangedColumns' | 'allowRemovals' | 'maxRemoved' | 'seed' | 'illustrative' | 'memoryMb'>,
  now: () => Date,
): Promise<StagedVersion> {
  const { dataset, base, same, loaded } = s;
  const { label, effective, skipped } = s.inputs;
  const diff = s.firstDiff ?? (await diffVersionFiles(dataset, base ? wh.path(base.file) : null, s.files.staged, 5, opts.failOnChangedColumns, s.files.stagedKeys, opts.memoryMb));
  const report = toReport(dataset.id, base?.version ?? null, label, diff, {
    failOnRemovedPct: opts.failOnRemovedPct,
    failOnChangedPct: opts.failOnChangedPct,
    failOnChangedColumns: opts.failOnChangedColumns,
    // Replacing seed (sample) data with a release removes nothing real: no removal guard.
    maxRemovedShare: opts.allowRemovals || base?.seed ? undefined : (opts.maxRemoved ?? 0.05),
    explicitRemovals: s.delta?.explicitRemovals,
  });
  if (base?.seed) report.from_seed = true;
  const sources = await s.hashing;
  const loadedAt = now().toISOString();
  const c = diff.counts;
  const multi = sourceTables(dataset.tables).length > 1;
  const change: ChangeRecord = {
    id: `chg_${dataset.id}_${s.files.id.replace(/[^A-Za-z0-9]/g, '_')}`,
    dataset: dataset.id,
    from_version: base?.version ?? null,
    to_version: label,
    effective_date: effective,
    summary: `${dataset.id} ${base ? `${base.version}${base.seed ? ' (seed)' : ''} -> ${label}` : `${label} (first load)`}${s.delta ? ` (delta over ${s.delta.base}: ${s.delta.explicitRemovals} explicit removals)` : ''}${opts.seed ? ' (seed)' : ''}${same && !same.seed ? ' (replaces the earlier load of this label)' : ''}${s.replacedSeeds.length ? ` (replaces seed version${s.replacedSeeds.length > 1 ? 's' : ''} ${s.replacedSeeds.join(', ')}: seeds are no longer served)` : ''}: ${c.added} added, ${c.removed} removed, ${c.changed} changed, ${c.unchanged} unchanged`,
    counts: c,
    ...(multi ? { tables: Object.fromEntries(Object.entries(diff.tables).map(([n, t]) => [n, t.counts])) } : {}),
    samples: diff.samples,
    created_at: loadedAt,
    ...(same ? { supersedes: same.version } : {}),
    ...(s.replacedSeeds.length ? { replaces_seed: true as const, replaced_seeds: s.replacedSeeds } : {}),
    ...(opts.seed ? { seed: true as const } : {}),
    ...(base ? { keys_file: s.files.keysFile } : {}),
    ...(s.delta ? { delta_of: s.delta.base } : {}),
  };
  const { rows, rejects } = loaded;
  const entry: DatasetVersion = {
    dataset: dataset.id,
    version: label,
    effective_date: effective,
    file: s.files.file,
    source_files: sources,
    rows,
    tables: Object.fromEntries(loaded.tableRows),
    rejects,
    loaded_at: loadedAt,
    ...(opts.seed ? { seed: true as const } : {}),
    ...(opts.seed && opts.illustrative ? { illustrative: true as const } : {}),
    ...(s.delta ? { delta_of: s.delta.base } : {}),
  };
  const summary = {
    dataset: dataset.id,
    version: label,
    effective_date: effective,
    files: sources,
    skipped,
    rows,
    rejects,
    reject_rate: rows + rejects === 0 ? 0 : rejects / (rows + rejects),
    rejects_file: rejects > 0 ? s.files.rejects : null,
  };
  return { entry, change, report, stagedFile: s.files.staged, stagedKeys: base ? s.files.stagedKeys : null, summary };
}
