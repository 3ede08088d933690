import { DuckDBInstance, type DuckDBAppender } from '@duckdb/node-api';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { IngestError } from '../datasets/_shared/issue.js';
import { appendValue } from '../datasets/_shared/appender.js';
import { sampleFile, sha256File, toSourceFile, type FileSample, type SourceFile } from '../datasets/_shared/source.js';
import { createTableSql, type TableSpec } from '../datasets/_shared/table.js';
import { toIsoDate } from '../datasets/_shared/values.js';
import { compareVersions } from '../datasets/_shared/versions.js';
import { DATASETS, getDataset } from '../datasets/registry.js';
import type { Dataset } from '../datasets/types.js';
import { DomainError, type Issue } from '../warehouse/errors.js';
import type { ChangeRecord, DatasetVersion, Manifest } from '../warehouse/manifest.js';
import { quoteIdent } from '../warehouse/snapshot.js';
import { newSnapshotId, type Warehouse } from '../warehouse/store.js';
import { diffVersionFiles, firstLoadDiff, toReport, type DiffReport, type DiffResult } from './diff.js';
import { withWriteLock } from './lock.js';
import { extractZip, isZip, type Skipped } from './zip.js';

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
  /** Replace a version with the same label (otherwise refused). */
  replace?: boolean;
  /** Publish even when the removal guard (`maxRemoved`) is crossed. */
  allowRemovals?: boolean;
  /** `RCM_MAX_REMOVED`: refuse a publish that removes more than this share of the baseline's keys (default 0.05). */
  maxRemoved?: number;
  /** `--fail-on-removed`, percent: refuse (exit 3) above it, dry run or not. */
  failOnRemovedPct?: number;
  /** `--fail-on-changed`, percent. */
  failOnChangedPct?: number;
  /** Cap on the bytes a zip unpacks to (`RCM_ZIP_MAX_MB`). */
  zipMaxBytes?: number;
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

const nonce = () => randomBytes(3).toString('hex');

function resolveDataset(id: string | Dataset<any>): Dataset<any> {
  if (typeof id !== 'string') return id;
  const d = getDataset(id);
  if (!d) throw new IngestError(`unknown dataset '${id}' (known: ${DATASETS.map((x) => x.id).join(', ')})`);
  return d;
}

/** Why a file is not this dataset's: the dataset it looks like, or that no known header was found. */
function notThisDataset(dataset: Dataset<any>, s: FileSample): string {
  const other = DATASETS.find((d) => d.id !== dataset.id && d.detect(s));
  return other ? `it looks like a '${other.id}' file` : 'no known header was found';
}

/** Checks every file is of this dataset, naming the dataset it looks like when it is not. */
function checkDetected(dataset: Dataset<any>, files: SourceFile[], samples: FileSample[]): void {
  files.forEach((f, i) => {
    const s = samples[i]!;
    if (f.size === 0 || s.text.trim() === '') throw new IngestError('file is empty', f.name, 1);
    if (dataset.detect(s)) return;
    throw new IngestError(`not a ${dataset.id} file (expected ${dataset.formats.join(' or ')}); ${notThisDataset(dataset, s)}`, f.name, 1);
  });
}

/** Format preference when a zip ships one table several ways (CLFS: `.csv` and `~`-delimited `.txt`). */
const FORMAT_RANK: Record<string, number> = { '.csv': 0, '.txt': 1, '.xlsx': 2 };

/**
 * The files of an ingest: plain files as given, and the members of each zip that the dataset
 * recognises, one format per logical file (CSV, then TXT, then XLSX); every other member is
 * listed as skipped with its reason.
 */
async function expandInputs(dataset: Dataset<any>, paths: string[], tmpDir: string, zipMaxBytes: number): Promise<{ files: (SourceFile & { archive?: string })[]; skipped: Skipped[] }> {
  const files: (SourceFile & { archive?: string })[] = [];
  const skipped: Skipped[] = [];
  for (const p of paths) {
    const f = await toSourceFile(p);
    if (!isZip(f.name)) {
      files.push(f);
      continue;
    }
    const { members, skipped: sk } = await extractZip(p, await mkdtemp(`${tmpDir}/zip-`), { maxBytes: zipMaxBytes });
    skipped.push(...sk);
    const accepted: (SourceFile & { archive: string })[] = [];
    for (const m of members) {
      const src = await toSourceFile(m.path);
      const where = `${m.archive}/${m.name}`;
      if (src.size === 0) {
        skipped.push({ member: where, reason: 'empty file' });
        continue;
      }
      const s = await sampleFile(src);
      if (dataset.detect(s)) accepted.push({ ...src, archive: m.archive });
      else skipped.push({ member: where, reason: `not a ${dataset.id} file: ${notThisDataset(dataset, s)}` });
    }
    const byStem = new Map<string, (SourceFile & { archive: string })[]>();
    for (const a of accepted) {
      const stem = a.name.slice(0, a.name.length - extname(a.name).length).toLowerCase();
      byStem.set(stem, [...(byStem.get(stem) ?? []), a]);
    }
    for (const group of byStem.values()) {
      group.sort((x, y) => (FORMAT_RANK[extname(x.name).toLowerCase()] ?? 9) - (FORMAT_RANK[extname(y.name).toLowerCase()] ?? 9));
      files.push(group[0]!);
      for (const other of group.slice(1)) skipped.push({ member: `${other.archive}/${other.name}`, reason: `the same table is read from ${group[0]!.name}` });
    }
    if (accepted.length === 0) throw new IngestError(`no member of the archive is a ${dataset.id} file (skipped: ${skipped.map((s) => `${s.member}: ${s.reason}`).join('; ')})`, f.name);
  }
  return { files, skipped };
}

/** The last byte of a file is a line terminator (a file cut short usually is not). */
async function endsWithNewline(f: SourceFile): Promise<boolean> {
  if (f.size === 0) return true;
  const fh = await open(f.path, 'r');
  try {
    const b = Buffer.alloc(1);
    await fh.read(b, 0, 1, f.size - 1);
    return b[0] === 0x0a || b[0] === 0x0d;
  } finally {
    await fh.close();
  }
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

/**
 * Parses, validates and loads files into a new version file, then diffs it against its
 * baseline and applies the gate. The file is written under `tmp/` and moved into
 * `datasets/<id>/` only by `publish`, so a failed, refused or killed ingest leaves nothing a
 * snapshot could point at.
 */
export async function stageVersion(wh: Warehouse, opts: IngestOptions, parent: Manifest | null): Promise<StagedVersion> {
  const now = opts.now ?? (() => new Date());
  const dataset = resolveDataset(opts.dataset);
  if (opts.files.length === 0) throw new IngestError('no files given');
  const { files, skipped } = await expandInputs(dataset, opts.files, wh.path('tmp'), opts.zipMaxBytes ?? 4096 * 1024 * 1024);
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

  const prevVersions = parent?.datasets[dataset.id] ?? [];
  const same = prevVersions.find((v) => v.version === label);
  if (same && !opts.replace) {
    throw new IngestError(
      `version ${label} of ${dataset.id} is already loaded (from ${same.source_files.map((f) => f.name).join(', ')}, ${same.loaded_at}); pass --replace to replace it, or --version to load it under another label`,
    );
  }

  const id = `${label}.${nonce()}`;
  const tmpFile = wh.path('tmp', `${dataset.id}-${id}.duckdb`);
  const finalRel = `datasets/${dataset.id}/${id}.duckdb`;
  const rejectsRel = `rejects/${dataset.id}/${id}.jsonl`;
  const started = Date.now();
  const totalBytes = files.reduce((a, f) => a + f.size, 0);
  const tableRows = new Map<string, number>(dataset.tables.map((t) => [t.name, 0]));
  let rows = 0;
  let rejectCount = 0;
  const rejectLines: string[] = [];

  // Hash the sources while DuckDB loads them (hashing runs on the otherwise idle main thread).
  const hashing = Promise.all(files.map(async (f) => ({ name: f.name, sha256: await sha256File(f.path), bytes: f.size, ...(f.archive ? { archive: f.archive } : {}) })));
  hashing.catch(() => undefined);
  const base = baselineOf(prevVersions, label, effective);
  let firstDiff: DiffResult | null = null;
  const inst = await DuckDBInstance.create(tmpFile);
  const conn = await inst.connect();
  const run = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS();
  const byName = new Map<string, TableSpec>(dataset.tables.map((t) => [t.name, t]));
  const main = dataset.tables[0]!;
  try {
    for (const t of dataset.tables) await conn.run(createTableSql(t.name, t.columns));
    const res = dataset.loadNative ? await dataset.loadNative(files, samples, run, quoteIdent(main.name), label) : null;
    if (res) {
      rows = res.rows;
      tableRows.set(main.name, rows);
      rejectCount = res.rejects.length;
      // A native loader names the part a reject came from in its issues' ctx.file.
      for (const r of res.rejects) rejectLines.push(JSON.stringify({ file: String(r.issues[0]?.ctx?.file ?? files[0]!.name), line: r.line, issues: r.issues }));
      opts.onProgress?.({ dataset: dataset.id, file: files.map((f) => f.name).join(','), rows, rejects: rejectCount, bytes: totalBytes, total_bytes: totalBytes, elapsed_ms: Date.now() - started });
    } else {
      const appenders = new Map<string, DuckDBAppender>();
      const appenderOf = async (t: TableSpec) => {
        let a = appenders.get(t.name);
        if (!a) appenders.set(t.name, (a = await conn.createAppender(t.name)));
        return a;
      };
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
        let last: { line: number; rejected: boolean } | null = null;
        for await (const item of dataset.parse(file, { onBytes: (b) => (fileBytes = b) })) {
          if (item.issues) {
            rejectCount++;
            rejectLines.push(JSON.stringify({ file: file.name, line: item.line, issues: item.issues }));
            last = { line: item.line, rejected: true };
          } else {
            const t = item.table === undefined ? main : byName.get(item.table);
            if (!t) throw new IngestError(`the parser yielded a row for table '${item.table}', which ${dataset.id} does not declare`, file.name, item.line);
            const app = await appenderOf(t);
            const row = item.row as Record<string, unknown>;
            for (const c of t.columns) appendValue(app, c, row[c.name]);
            app.appendVarchar(label);
            app.endRow();
            tableRows.set(t.name, tableRows.get(t.name)! + 1);
            rows++;
            fileRows++;
            last = { line: item.line, rejected: false };
          }
          if ((rows + rejectCount) % 5000 === 0) report();
        }
        // A file cut short ends inside a record: no final line terminator, and that last record fails.
        if (last?.rejected && !(await endsWithNewline(file))) {
          throw new IngestError('the file is truncated: it ends inside a record (no final line break, and the last line does not parse)', file.name, last.line);
        }
        if (fileRows === 0) {
          const why = rejectCount > 0 ? `every data row was rejected (${rejectCount}); first: ${rejectLines[0]}` : 'header found but no data rows';
          throw new IngestError(why, file.name);
        }
        doneBytes += file.size;
        fileBytes = 0;
        report(true);
      }
      for (const a of appenders.values()) a.closeSync();
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
      await dataset.finalize(run, quoteIdent(main.name));
      const n = Number((await run(`SELECT count(*) AS n FROM ${quoteIdent(main.name)}`))[0]!.n);
      rows += n - tableRows.get(main.name)!;
      tableRows.set(main.name, n);
    }
    for (const t of dataset.tables) {
      const keyList = t.key.map(quoteIdent).join(', ');
      const dup = await run(`SELECT ${keyList}, count(*)::INTEGER AS n FROM ${quoteIdent(t.name)} GROUP BY ALL HAVING count(*) > 1 LIMIT 1`);
      if (dup.length > 0) {
        const { n, ...key } = dup[0]!;
        throw new IngestError(`duplicate key ${JSON.stringify(key)} in table ${t.name} appears ${n} times (key columns: ${t.key.join(', ')})`, files[0]!.name);
      }
    }
    // A first load's diff reads the staged tables on this connection (no second instance).
    if (!base) firstDiff = await firstLoadDiff(dataset, run);
    await conn.run('CHECKPOINT');
  } catch (e) {
    conn.closeSync();
    inst.closeSync();
    await wh.removeTmp(tmpFile);
    throw e;
  }
  conn.closeSync();
  inst.closeSync();

  const diff = firstDiff ?? (await diffVersionFiles(dataset, base ? wh.path(base.file) : null, tmpFile));
  const report = toReport(dataset.id, base?.version ?? null, label, diff, {
    failOnRemovedPct: opts.failOnRemovedPct,
    failOnChangedPct: opts.failOnChangedPct,
    maxRemovedShare: opts.allowRemovals ? undefined : (opts.maxRemoved ?? 0.05),
  });
  const sources = await hashing;
  const loadedAt = now().toISOString();
  const c = diff.counts;
  const multi = dataset.tables.length > 1;
  const change: ChangeRecord = {
    id: `chg_${dataset.id}_${id.replace(/[^A-Za-z0-9]/g, '_')}`,
    dataset: dataset.id,
    from_version: base?.version ?? null,
    to_version: label,
    effective_date: effective,
    summary: `${dataset.id} ${base ? `${base.version} -> ${label}` : `${label} (first load)`}${same ? ' (replaces the earlier load of this label)' : ''}: ${c.added} added, ${c.removed} removed, ${c.changed} changed, ${c.unchanged} unchanged`,
    counts: c,
    ...(multi ? { tables: Object.fromEntries(Object.entries(diff.tables).map(([n, t]) => [n, t.counts])) } : {}),
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
    tables: Object.fromEntries(tableRows),
    rejects: rejectCount,
    loaded_at: loadedAt,
  };
  const summary = {
    dataset: dataset.id,
    version: label,
    effective_date: effective,
    files: sources,
    skipped,
    rows,
    rejects: rejectCount,
    reject_rate: rows + rejectCount === 0 ? 0 : rejectCount / (rows + rejectCount),
    rejects_file: rejectCount > 0 ? wh.path(rejectsRel) : null,
  };
  return { entry, change, report, stagedFile: tmpFile, summary };
}

/**
 * Moves staged version files into place and writes a new manifest from `parent` plus them,
 * then makes it CURRENT. Unchanged datasets keep pointing at their existing files; a replaced
 * label's entry is swapped for the new one. The newest version by effective date stays the
 * default, so a backfill does not displace it.
 */
export async function publish(wh: Warehouse, parent: Manifest | null, staged: StagedVersion[], now: () => Date): Promise<Manifest> {
  const datasets: Record<string, DatasetVersion[]> = structuredClone(parent?.datasets ?? {});
  for (const s of staged) {
    await mkdir(wh.path('datasets', s.entry.dataset), { recursive: true });
    await rename(s.stagedFile, wh.path(s.entry.file));
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
  await Promise.all(names.map((n) => rm(wh.path('tmp', n), { force: true, recursive: true })));
}

/** Refuses the publish when the gate failed: a threshold or the removal guard (exit 3, nothing published). */
function gate(s: StagedVersion): void {
  if (s.report.failed.length) throw new GateError(`refused: ${s.entry.dataset} ${s.report.from_version} -> ${s.entry.version} ${s.report.failed.join('; ')}`, s.report);
}

/**
 * `rcm ingest`: stage one version and, unless dry run, publish a snapshot with it. A dry run
 * still applies the `--fail-on-*` thresholds (so a data team's CI gates on one command), but
 * not the removal guard, which only protects a publish.
 */
export async function ingestFiles(wh: Warehouse, opts: IngestOptions): Promise<IngestSummary> {
  const now = opts.now ?? (() => new Date());
  const started = Date.now();
  await wh.init();
  return withWriteLock(wh.path('ingest.lock'), async () => {
    await sweepTmp(wh);
    const parent = await wh.current();
    const staged = await stageVersion(wh, opts.dryRun ? { ...opts, allowRemovals: true } : opts, parent);
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

/** Several ingests published as one snapshot (used by `rcm seed`). */
export async function ingestBatch(wh: Warehouse, batch: IngestOptions[], now: () => Date = () => new Date()): Promise<{ manifest: Manifest; staged: StagedVersion[] }> {
  await wh.init();
  return withWriteLock(wh.path('ingest.lock'), async () => {
    await sweepTmp(wh);
    const parent = await wh.current();
    const staged: StagedVersion[] = [];
    let working = parent;
    try {
      for (const opts of batch) {
        const s = await stageVersion(wh, { ...opts, now }, working);
        gate(s);
        staged.push(s);
        // later items of the same dataset diff against the earlier ones of this batch
        const own = { ...s.entry, file: s.stagedFile.slice(wh.dir.length + 1) };
        working = {
          ...(working ?? { id: 'staging', created_at: now().toISOString(), parent: null, changes: [] }),
          datasets: { ...(working?.datasets ?? {}), [s.entry.dataset]: [...(working?.datasets[s.entry.dataset] ?? []).filter((v) => v.version !== s.entry.version), own] },
        } as Manifest;
      }
      const manifest = await publish(wh, parent, staged, now);
      return { manifest, staged };
    } finally {
      await sweepTmp(wh);
    }
  });
}
