import { copyFile, mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { IngestError } from '../datasets/_shared/issue.js';
import { sampleFile, sha256File, toSourceFile } from '../datasets/_shared/source.js';
import type { Dataset } from '../datasets/types.js';
import type { Warehouse } from '../warehouse/store.js';
import { withWriteLock } from './lock.js';
import { classifyFile, groupRelease, ingestRelease, readRelease, type ReleaseIngestOptions, type ReleaseSummary } from './release.js';
import { isZip } from './zip.js';

// A release put together file by file (an NCCI quarter part by part, for a trial), kept under
// `RCM_DATA_DIR/staging/LABEL/` until `rcm stage publish LABEL` publishes it as one release.
// The files are the record: nothing else is kept, so what is listed is what will be read.

const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,40}$/;

function dirOf(wh: Warehouse, label: string): string {
  if (!LABEL.test(label)) throw new IngestError(`staged release label '${label}' must be letters, digits, '.', '_' or '-'`);
  return wh.path('staging', label);
}

/** Runs `fn` with a scratch folder for a zip's members (judging what a file is), removed afterwards. */
async function withScratch<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'rcm-staging-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A file added to a staged release. */
export interface StagedFile {
  file: string;
  /** The dataset that reads it (for a zip: each dataset its members go to). */
  datasets: string[];
  /** False when the same file (same name and bytes) was already staged. */
  added: boolean;
}

/** The datasets a file would go to, or a refusal naming what it is. */
async function datasetsOf(path: string, zipMaxBytes: number): Promise<string[]> {
  const st = await stat(path).catch(() => null);
  if (!st?.isFile()) throw new IngestError('no such file (a staged release takes files: one or more, or a zip)', path);
  if (isZip(path)) {
    const ids = [...new Set((await withScratch((tmpDir) => readRelease(path, { zipMaxBytes, tmpDir }))).flatMap((f) => (f.dataset ? [f.dataset.id] : [])))];
    if (ids.length === 0) throw new IngestError('no member of the archive is a file a dataset reads', path);
    return ids;
  }
  const f = await classifyFile(path);
  if (!f.dataset) throw new IngestError(`no dataset reads this file: ${f.use!.what}${f.use!.command !== 'none' ? ` (use: ${f.use!.command.replace('FILE', path)})` : ''}`, path);
  return [f.dataset.id];
}

/**
 * Adds files to the staged release `label`: each must be one a dataset reads (else refused,
 * naming what it is), and a name already staged with other bytes is refused. Every file is checked
 * before one is copied; each is copied under a hidden name, then renamed, so a killed copy leaves
 * nothing the release would read. Nothing is published (no automatic completion).
 */
export async function stageFiles(wh: Warehouse, label: string, paths: string[], zipMaxBytes: number): Promise<StagedFile[]> {
  const dir = dirOf(wh, label);
  if (paths.length === 0) throw new IngestError('no files given');
  await wh.init();
  return withWriteLock(wh.path('ingest.lock'), async () => {
    const checked: { path: string; datasets: string[] }[] = [];
    for (const p of paths) checked.push({ path: p, datasets: await datasetsOf(p, zipMaxBytes) });
    const names = checked.map((c) => basename(c.path));
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice) throw new IngestError(`two files named ${twice} given: a staged release keeps one file per name`);
    await mkdir(dir, { recursive: true });
    const out: StagedFile[] = [];
    for (const c of checked) {
      const name = basename(c.path);
      const target = join(dir, name);
      if (await stat(target).catch(() => null)) {
        if ((await sha256File(target)) !== (await sha256File(c.path))) throw new IngestError(`a different file named ${name} is already staged in ${label} (\`rcm stage drop ${label}\` starts it again)`, c.path);
        out.push({ file: name, datasets: c.datasets, added: false });
        continue;
      }
      const tmp = join(dir, `.${name}.part`);
      await copyFile(c.path, tmp);
      await rename(tmp, target);
      out.push({ file: name, datasets: c.datasets, added: true });
    }
    return out;
  });
}

/** A staged release as `rcm stage list` shows it: its files, and per dataset version whether its set of files is complete. */
export interface StagedRelease {
  label: string;
  files: string[];
  versions: { dataset: string; version: string | null; files: string[]; complete: boolean; missing: string | null }[];
}

/** The staged releases, by label. */
export async function listStaged(wh: Warehouse, zipMaxBytes: number): Promise<StagedRelease[]> {
  const labels = (await readdir(wh.path('staging'), { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const out: StagedRelease[] = [];
  for (const label of labels) {
    const dir = wh.path('staging', label);
    const files = await withScratch((tmpDir) => readRelease(dir, { zipMaxBytes, tmpDir }));
    const versions = [];
    for (const g of groupRelease(files)) {
      const missing = await completeness(g.dataset, g.files.map((f) => f.path));
      versions.push({ dataset: g.dataset.id, version: g.version?.label ?? null, files: g.files.map((f) => f.name), complete: missing === null, missing });
    }
    out.push({ label, files: files.map((f) => f.name), versions });
  }
  return out;
}

/** Null when the files make a whole version of the dataset (its own set check, such as NCCI's four parts), else why not. */
async function completeness(dataset: Dataset<any>, paths: string[]): Promise<string | null> {
  if (!dataset.checkFiles) return null;
  const files = await Promise.all(paths.map((p) => toSourceFile(p)));
  const samples = await Promise.all(files.map((f) => sampleFile(f)));
  try {
    dataset.checkFiles(files, samples);
    return null;
  } catch (e) {
    if (e instanceof IngestError) return e.message;
    throw e;
  }
}

/** `rcm stage publish LABEL`: the staged files as one release (all or nothing unless skipFailed); the staging folder is removed once published. */
export async function publishStaged(wh: Warehouse, label: string, o: ReleaseIngestOptions): Promise<ReleaseSummary> {
  const dir = dirOf(wh, label);
  if (!(await stat(dir).catch(() => null))) throw new IngestError(`no staged release ${label} (\`rcm stage list\` lists them)`);
  const summary = await ingestRelease(wh, dir, { shownAs: wh.path('staging', label), ...o });
  if (summary.published) await rm(dir, { recursive: true, force: true });
  return summary;
}

/** `rcm stage drop LABEL`: removes a staged release (nothing published is touched). */
export async function dropStaged(wh: Warehouse, label: string): Promise<boolean> {
  const dir = dirOf(wh, label);
  const there = Boolean(await stat(dir).catch(() => null));
  await rm(dir, { recursive: true, force: true });
  return there;
}
