import { mkdtemp } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { IngestError } from '../../datasets/_shared/issue.js';
import { sampleFile, sha256File, toSourceFile, type FileSample, type SourceFile } from '../../datasets/_shared/source.js';
import { toIsoDate } from '../../datasets/_shared/values.js';
import { todayOf } from '../../datasets/_shared/dates.js';
import { DATASETS, lookupDataset, unknownDataset } from '../../datasets/registry.js';
import type { Dataset, VersionInfo } from '../../datasets/types.js';
import type { DatasetVersion } from '../../warehouse/manifest.js';
import type { IngestOptions } from '../pipeline.js';
import { extractZip, isZip, type Skipped } from '../zip.js';

// The first stage of an ingest: which files, of which dataset, under which label and date.

/** A file to load: a plain source file, or a zip member (`archive` names the zip). */
export type InputFile = SourceFile & { archive?: string };

/** The checked inputs of one ingest. */
export interface Inputs {
  files: InputFile[];
  /** The first bytes of each file, in `files` order (detection, layout, version). */
  samples: FileSample[];
  skipped: Skipped[];
  label: string;
  effective: string | null;
}

/** The declaration of a registered dataset id (or the declaration itself). */
export function resolveDataset(id: string | Dataset<any>): Dataset<any> {
  if (typeof id !== 'string') return id;
  const d = lookupDataset(id);
  if (!d) throw new IngestError(unknownDataset(id));
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

/** Format preference when a publisher ships one table several ways (CLFS: `.csv` and `~`-delimited `.txt`). */
const FORMAT_RANK: Record<string, number> = { '.csv': 0, '.txt': 1, '.xlsx': 2 };

/**
 * Which table a file is, and its preference among the files of that table: the dataset's own
 * `twin` (ICD-10-CM's order and codes files), else its name without the extension, CSV before TXT
 * before XLSX.
 */
export function twinOf(dataset: Dataset<any>, sample: FileSample): { key: string; rank: number } {
  const ext = extname(sample.name);
  return dataset.twin?.(sample) ?? { key: basename(sample.name, ext).toLowerCase(), rank: FORMAT_RANK[ext.toLowerCase()] ?? 9 };
}

/** One file per table: of the items sharing a twin key, the preferred one is kept and the others are named beside it. */
export function oneFilePerTable<T>(items: readonly T[], twin: (t: T) => { key: string; rank: number } | undefined, name: (t: T) => string): { kept: T[]; twins: { item: T; of: T }[] } {
  const byKey = new Map<string, T[]>();
  for (const t of items) {
    const key = twin(t)?.key ?? name(t);
    byKey.set(key, [...(byKey.get(key) ?? []), t]);
  }
  const kept: T[] = [];
  const twins: { item: T; of: T }[] = [];
  for (const same of byKey.values()) {
    same.sort((a, b) => (twin(a)?.rank ?? 9) - (twin(b)?.rank ?? 9) || name(a).localeCompare(name(b)));
    kept.push(same[0]!);
    for (const t of same.slice(1)) twins.push({ item: t, of: same[0]! });
  }
  return { kept, twins };
}

/**
 * The version the files state, else the one their release's name states (`RVU25D.zip` holds
 * `OPPSCAP_Oct.csv`, which names no year: the zip's name says release D of 2025).
 */
export function statedVersion(dataset: Dataset<any>, samples: FileSample[], release?: string): { version?: VersionInfo; fromRelease?: true } {
  const own = dataset.version(samples);
  if (own) return { version: own };
  const named = release ? dataset.version(samples.map((s) => ({ ...s, name: `${release}_${s.name}` }))) : undefined;
  return named ? { version: named, fromRelease: true } : {};
}

/**
 * The files of an ingest: plain files as given, and the members of each zip that the dataset
 * recognises, one format per logical file (CSV, then TXT, then XLSX); every other member is
 * listed as skipped with its reason.
 */
async function expandInputs(dataset: Dataset<any>, paths: string[], tmpDir: string, zipMaxBytes: number): Promise<{ files: InputFile[]; skipped: Skipped[] }> {
  const files: InputFile[] = [];
  const skipped: Skipped[] = [];
  for (const p of paths) {
    const f = await toSourceFile(p);
    if (!isZip(f.name)) {
      files.push(f);
      continue;
    }
    // A member is judged by its first bytes before it is written: one of another dataset (or none) never reaches the disk.
    const refuse = (s: FileSample) => (dataset.detect(s) ? null : `not a ${dataset.id} file: ${notThisDataset(dataset, s)}`);
    const { members, skipped: sk } = await extractZip(p, await mkdtemp(`${tmpDir}/zip-`), { maxBytes: zipMaxBytes, refuse });
    skipped.push(...sk);
    const accepted: { file: SourceFile & { archive: string }; twin: { key: string; rank: number } }[] = [];
    for (const m of members) {
      const file = { ...(await toSourceFile(m.path)), archive: m.archive };
      accepted.push({ file, twin: twinOf(dataset, await sampleFile(file)) });
    }
    const { kept, twins } = oneFilePerTable(accepted, (a) => a.twin, (a) => a.file.name);
    files.push(...kept.map((a) => a.file));
    for (const t of twins) skipped.push({ member: `${t.item.file.archive}/${t.item.file.name}`, reason: `the same table is read from ${t.of.file.name}` });
    if (accepted.length === 0) throw new IngestError(`no member of the archive is a ${dataset.id} file (skipped: ${skipped.map((s) => `${s.member}: ${s.reason}`).join('; ')})`, f.name);
  }
  return { files, skipped };
}

/**
 * Expands, samples and checks the inputs of one ingest (every file of this dataset, the set
 * complete), then finds the version label and effective date: the options over what the files say.
 */
export async function readInputs(
  dataset: Dataset<any>,
  opts: Pick<IngestOptions, 'files' | 'version' | 'effectiveDate' | 'zipMaxBytes'>,
  tmpDir: string,
): Promise<Inputs> {
  if (opts.files.length === 0) throw new IngestError('no files given');
  const { files, skipped } = await expandInputs(dataset, opts.files, tmpDir, opts.zipMaxBytes ?? 4096 * 1024 * 1024);
  const samples = await Promise.all(files.map((f) => sampleFile(f)));
  checkDetected(dataset, files, samples);
  dataset.checkFiles?.(files, samples);

  const archive = files.find((f) => f.archive)?.archive;
  const found = statedVersion(dataset, samples, archive ? basename(archive, extname(archive)) : undefined).version;
  const label = opts.version ?? found?.label;
  const latest = latestDate(samples);
  if (!label) {
    const hint = latest
      ? `the latest date in its first rows is ${latest}: if the release is of that day, pass --version ${latest} --effective-date ${latest}`
      : 'it carries no date: pass --version <label> and --effective-date YYYY-MM-DD with the date of the release you downloaded (the publisher\'s page says it)';
    throw new IngestError(`cannot find the version label in the file; ${hint} (the day the release takes effect: a label is never read as a date)`, files[0]!.name);
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,40}$/.test(label)) throw new IngestError(`version label '${label}' must be letters, digits, '.', '_' or '-'`);
  const effective = opts.effectiveDate ?? found?.effective_date ?? null;
  // Date-of-service lookups choose a version by the day it takes effect: a version without one could never be chosen right.
  if (effective === null) {
    const hint = latest ? `the latest date in its first rows is ${latest}; if the release takes effect that day, pass --effective-date ${latest}` : "it carries no date: pass the date of the release you downloaded (the publisher's page says it)";
    throw new IngestError(`the file states no effective date for version ${label}: --effective-date YYYY-MM-DD is required; ${hint}`, files[0]!.name);
  }
  if (toIsoDate(effective) === null) throw new IngestError(`effective date '${effective}' is not a valid YYYY-MM-DD date`);
  return { files, samples, skipped, label, effective: toIsoDate(effective) };
}

/**
 * The sources as the version entry records them (name, SHA-256, bytes, zip), hashed while DuckDB
 * loads them (hashing runs on the otherwise idle main thread). A failure surfaces when awaited.
 */
export function hashSources(files: InputFile[]): Promise<DatasetVersion['source_files']> {
  const hashing = Promise.all(files.map(async (f) => ({ name: f.name, sha256: await sha256File(f.path), bytes: f.size, ...(f.archive ? { archive: f.archive } : {}) })));
  hashing.catch(() => undefined);
  return hashing;
}

/**
 * The latest calendar date the files' first rows carry (`2026-08-17`, `20260817`), not after today:
 * what an error suggests as a release's label and effective date when the file names neither.
 */
export function latestDate(samples: readonly FileSample[], today = todayOf(new Date())): string | null {
  let best: string | null = null;
  for (const s of samples) {
    for (const m of s.text.matchAll(/(?<![\d-])(\d{4})-?(\d{2})-?(\d{2})(?![\d-])/g)) {
      const iso = toIsoDate(`${m[1]}-${m[2]}-${m[3]}`);
      if (iso && iso >= '1990-01-01' && iso <= today && (!best || iso > best)) best = iso;
    }
  }
  return best;
}
