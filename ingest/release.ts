import { mkdtemp, readdir, stat } from 'node:fs/promises';
import { basename, extname, join, relative } from 'node:path';
import { IngestError } from '../datasets/_shared/issue.js';
import { sampleFile, toSourceFile, type FileSample } from '../datasets/_shared/source.js';
import { DATASETS } from '../datasets/registry.js';
import type { Dataset, VersionInfo } from '../datasets/types.js';
import { looksLikeX12, transactionSets } from '../lib/x12/sniff.js';
import { DomainError } from '../warehouse/errors.js';
import type { Manifest } from '../warehouse/manifest.js';
import type { Warehouse } from '../warehouse/store.js';
import type { DiffReport } from './diff.js';
import { withWriteLock } from './lock.js';
import { publish, stageBatch, sweepTmp, type IngestOptions, type StagedVersion } from './pipeline.js';
import { oneFilePerTable, statedVersion, twinOf } from './stage/inputs.js';
import { extractZip, isZip } from './zip.js';

// A publisher's release as one input: each file of a folder or zip sent to the dataset that reads
// it (by content), or named as what it is with the command that uses it.

/** What a file of a release is, when no dataset reads it: documentation, a sample another command reads, or nothing known. */
export interface FileUse {
  /** `documentation`, `layout`, `remittance`, `acknowledgment`, `claim`, `payment amounts`, `api response`, `unknown`... */
  what: string;
  /** The command that uses the file (`rcm remit explain FILE`), or `none`. */
  command: string;
}

/** A file of a release and where it goes. */
export interface ReleaseFile {
  /** As the report names it: the path under the release's folder, or `archive.zip/member`. */
  name: string;
  /** On disk (empty for a zip member no dataset reads: it is never written). */
  path: string;
  /** The dataset that reads it (by content), with the version the file (or its archive's name) states. */
  dataset?: Dataset<any>;
  version?: VersionInfo;
  /** Which table the file is and its preference among the files of that table (`Dataset.twin`). */
  twin?: { key: string; rank: number };
  /** True when the version was read from the release's name, not the file's (a command for the file alone must state it). */
  versionFromRelease?: boolean;
  /** Otherwise what it is and what uses it. */
  use?: FileUse;
}

/** The files of one dataset version in a release (all parts of an NCCI quarter, the QPP and non-QPP RVU files). */
export interface ReleaseGroup {
  dataset: Dataset<any>;
  /** The label the files or the release's name state; undefined when neither does (the ingest then says what to pass). */
  version?: VersionInfo;
  files: ReleaseFile[];
  /** The same table in another format (`GPCI2025.txt` beside `GPCI2025.csv`): listed, not read twice. */
  twins: { file: ReleaseFile; of: string }[];
}

/** The ST01 codes a remittance or claim sample carries, and the command that reads it. */
const X12_USES: Record<string, FileUse> = {
  '835': { what: 'remittance (X12 835)', command: 'rcm remit explain FILE' },
  '999': { what: 'acknowledgment (X12 999)', command: 'rcm remit explain FILE' },
  '277': { what: 'claim acknowledgment (X12 277CA)', command: 'rcm remit explain FILE' },
  '837': { what: 'claim (X12 837)', command: 'rcm claim check FILE' },
};

/** A PFS payment-amount file's row: `"2025","01112","05","76145","  ","0001339.81",...` (PFREV). */
const PFREV_ROW = /^"\d{4}","\d{5}","\d{2}","[A-Z0-9]{5}","[^"]*","\d+\.\d{2}","\d+\.\d{2}"/;

/**
 * What a file no dataset reads is, from its name and first bytes: the publisher's documentation
 * and layouts (`none`), X12 samples and the PFS payment-amount file with the command that uses
 * them, an API response (`none`: the service reaches that API itself), or unknown.
 */
export function useOf(sample: FileSample): FileUse {
  const ext = extname(sample.name).toLowerCase();
  const text = sample.text;
  if (ext === '.pdf' || text.startsWith('%PDF-')) return { what: "documentation (the publisher's PDF: a layout or release notes)", command: 'none' };
  if (ext === '.md' || /^readme/i.test(sample.name)) return { what: 'documentation', command: 'none' };
  if (/lyout|layout/i.test(sample.name)) return { what: "layout (the publisher's column positions)", command: 'none' };
  if (looksLikeX12(text)) {
    // A 277 is an acknowledgment (277CA, guide 005010X214) or a claim status response (X212), which nothing here reads.
    const sets = transactionSets(text);
    const known = sets.filter((s) => s !== '277' || /X214/.test(text)).map((s) => X12_USES[s]).find((u) => u !== undefined);
    if (known) return known;
    return { what: `X12 ${sets.join('/') || 'interchange'} (eligibility or claim status: not read by the service)`, command: 'none' };
  }
  if (PFREV_ROW.test(text.trimStart())) return { what: 'PFS payment amounts (PFREV)', command: 'rcm verify pfrev FILE' };
  if (ext === '.json') {
    if (/"openapi"\s*:/.test(text)) return { what: 'documentation (an OpenAPI description)', command: 'none' };
    if (/"result_count"|"Errors"\s*:/.test(text)) return { what: 'NPPES registry API response (the live lookup reads the registry itself; the nppes dataset loads the bulk file)', command: 'none' };
    return { what: 'JSON no dataset reads', command: 'none' };
  }
  return { what: 'no dataset reads this file (`rcm datasets` lists the formats each reads)', command: 'none' };
}

/** The one dataset that reads a sample (several: the first registered, the others named by the caller's detection tests). */
function datasetOf(sample: FileSample): Dataset<any> | undefined {
  return DATASETS.find((d) => d.detect(sample));
}

/** The regular files under a folder, recursively, hidden ones left out, in name order. */
async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** Options of reading a release. */
export interface ReleaseOptions {
  /** `RCM_ZIP_MAX_MB` in bytes. */
  zipMaxBytes: number;
  /** Where a zip's members are extracted (the warehouse's `tmp/`). */
  tmpDir: string;
}

/**
 * The files of a release (a folder, recursively, or a zip with nested zips one level deep), each
 * with its dataset or its use. A zip member no dataset reads is judged on its first bytes and not
 * written to disk; a zip inside a folder is read as part of the release.
 */
export async function readRelease(path: string, o: ReleaseOptions): Promise<ReleaseFile[]> {
  const st = await stat(path).catch(() => null);
  if (!st) throw new IngestError('no such file or folder', path);
  const release = basename(path, extname(path));
  const out: ReleaseFile[] = [];
  const fromZip = async (zip: string, shown: string) => {
    const uses = new Map<string, FileUse>();
    const refuse = (s: FileSample) => {
      if (datasetOf(s)) return null;
      const use = useOf(s);
      uses.set(s.name, use);
      return use.what;
    };
    const { members, skipped } = await extractZip(zip, await mkdtemp(join(o.tmpDir, 'release-')), { maxBytes: o.zipMaxBytes, label: shown, refuse });
    for (const m of members) {
      const sample = await sampleFile(await toSourceFile(m.path));
      out.push(classify(`${m.archive}/${m.name}`, m.path, sample, release));
    }
    for (const s of skipped) {
      const name = basename(s.member);
      const use = uses.get(name) ?? { what: s.reason, command: 'none' };
      out.push({ name: s.member, path: '', use });
    }
  };
  if (st.isDirectory()) {
    for (const p of await walk(path)) {
      const shown = relative(path, p);
      if (isZip(p)) await fromZip(p, shown);
      else out.push(classify(shown, p, await sampleFile(await toSourceFile(p)), release));
    }
  } else if (isZip(path)) await fromZip(path, basename(path));
  else throw new IngestError('a release is a folder or a .zip; to load one file, name its dataset: rcm ingest <dataset> FILE', path);
  return out;
}

/** One plain file as a release would take it: its dataset and version, or what it is. */
export async function classifyFile(path: string, name = basename(path), release = ''): Promise<ReleaseFile> {
  return classify(name, path, await sampleFile(await toSourceFile(path)), release);
}

function classify(name: string, path: string, sample: FileSample, release: string): ReleaseFile {
  const dataset = datasetOf(sample);
  if (!dataset) return { name, path, use: useOf(sample) };
  const { version, fromRelease } = statedVersion(dataset, [sample], release);
  return { name, path, dataset, twin: twinOf(dataset, sample), version, ...(fromRelease ? { versionFromRelease: true } : {}) };
}

/**
 * The dataset versions a release holds: its dataset files grouped by dataset and stated version
 * (two years of GPCI in one folder are two versions), one format per table (CSV, then TXT, then
 * XLSX; the others listed as twins), in registry order then by effective date.
 */
export function groupRelease(files: readonly ReleaseFile[]): ReleaseGroup[] {
  const groups = new Map<string, ReleaseGroup>();
  for (const f of files) {
    if (!f.dataset) continue;
    const key = `${f.dataset.id}\u0000${f.version?.label ?? ''}`;
    const g = groups.get(key) ?? { dataset: f.dataset, version: f.version, files: [], twins: [] };
    g.files.push(f);
    groups.set(key, g);
  }
  for (const g of groups.values()) {
    const { kept, twins } = oneFilePerTable(g.files, (f) => f.twin, (f) => f.name);
    g.files = kept;
    g.twins = twins.map((t) => ({ file: t.item, of: t.of.name }));
  }
  const order = new Map<string, number>(DATASETS.map((d, i) => [d.id, i]));
  return [...groups.values()].sort(
    (a, b) => order.get(a.dataset.id)! - order.get(b.dataset.id)! || (a.version?.effective_date ?? '').localeCompare(b.version?.effective_date ?? '') || (a.version?.label ?? '').localeCompare(b.version?.label ?? ''),
  );
}

/** A path as a shell argument: quoted when it holds anything but letters, digits and `._/-`. */
export const shellArg = (s: string): string => (/^[A-Za-z0-9._/=:-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** One file of a release in the report: where it went, or what it is and what uses it. */
export interface ReleaseEntry {
  file: string;
  dataset: string | null;
  version: string | null;
  /**
   * `loaded` (published, or staged by a dry run), `twin` (the same table read from another
   * format), `failed` (its version was refused: `reason`), `skipped` (failed, left out by
   * `--skip-failed`), `not_a_source` (documentation, a sample another command reads, or unknown).
   */
  status: 'loaded' | 'twin' | 'failed' | 'skipped' | 'not_a_source';
  /** Rows of the version the file went into (all its files). */
  rows: number | null;
  /** The command that loads the file alone, or uses it (`rcm remit explain FILE`), or `none`. */
  command: string;
  /** What it is (`not_a_source`), the twin it yields to, or why its version failed. */
  note: string | null;
}

/** A version of a release, staged (and published unless a dry run or a failure stopped it). */
export interface ReleaseVersion {
  dataset: string;
  version: string;
  effective_date: string | null;
  files: string[];
  rows: number;
  rejects: number;
  rejects_file: string | null;
  /** The diff against the version in force, with the gate applied (as `rcm ingest --dry-run` prints it). */
  report: DiffReport;
  replaced_seeds: string[] | null;
}

export interface ReleaseSummary {
  release: string;
  dry_run: boolean;
  /** False when a version failed and `--skip-failed` was not given: nothing published. */
  published: boolean;
  snapshot_id: string | null;
  versions: ReleaseVersion[];
  failed: { dataset: string; version: string | null; files: string[]; reason: string; command: string }[];
  files: ReleaseEntry[];
  elapsed_ms: number;
}

/** What a release ingest takes beyond the single ingest's options (those apply to every version). */
export type ReleaseIngestOptions = Omit<IngestOptions, 'dataset' | 'files'> & {
  /** Publish the versions that passed and list the failed ones (default: all or nothing). */
  skipFailed?: boolean;
  /** How commands in the report name the release (default: the path). */
  shownAs?: string;
};

/**
 * `rcm ingest RELEASE`: every file of a folder or zip sent to its dataset, each dataset version
 * staged and gated, then published as one snapshot: all or nothing, unless `skipFailed` (the
 * versions that passed are published and the failed ones listed). `version`/`effectiveDate` apply
 * only to a version whose files (and the release's name) state none. A dry run stages, gates and
 * reports every version and publishes nothing.
 */
export async function ingestRelease(wh: Warehouse, path: string, o: ReleaseIngestOptions): Promise<ReleaseSummary> {
  const now = o.now ?? (() => new Date());
  const started = Date.now();
  const shown = o.shownAs ?? path;
  await wh.init();
  return withWriteLock(wh.path('ingest.lock'), async () => {
    await sweepTmp(wh);
    try {
      const files = await readRelease(path, { zipMaxBytes: o.zipMaxBytes ?? 4096 * 1024 * 1024, tmpDir: wh.path('tmp') });
      const groups = groupRelease(files);
      if (groups.length === 0) throw new IngestError(`no file of the release is one a dataset reads (${files.map((f) => `${f.name}: ${f.use?.what}`).join('; ') || 'it is empty'})`, shown);
      const parent = await wh.current();
      const { skipFailed, shownAs, ...common } = o;
      const batch = groups.map((g) => ({ ...common, dataset: g.dataset.id, files: g.files.map((f) => f.path), version: g.version?.label ?? o.version, effectiveDate: g.version?.effective_date ?? o.effectiveDate }));
      const failures = new Map<IngestOptions, string>();
      const staged = await stageBatch(wh, batch, parent, now, (opts, e) => {
        if (!(e instanceof DomainError)) throw e;
        failures.set(opts, e.message);
      });
      const publishable = staged.length > 0 && (failures.size === 0 || Boolean(skipFailed));
      const manifest = publishable && !o.dryRun ? await publish(wh, parent, staged, now) : null;
      return report({ shown, path, files, groups, batch, staged, failures, manifest, dryRun: Boolean(o.dryRun), skipFailed: Boolean(skipFailed), elapsed: Date.now() - started });
    } finally {
      await sweepTmp(wh);
    }
  });
}

/** The report of a release ingest: its versions, its failures, and every file. */
function report(r: {
  shown: string;
  path: string;
  files: ReleaseFile[];
  groups: ReleaseGroup[];
  batch: IngestOptions[];
  staged: StagedVersion[];
  failures: Map<IngestOptions, string>;
  manifest: Manifest | null;
  dryRun: boolean;
  skipFailed: boolean;
  elapsed: number;
}): ReleaseSummary {
  const zip = isZip(r.path);
  // A zip member is loaded alone by naming its dataset and the zip (the dataset picks its members).
  const fileArg = (f: ReleaseFile) => shellArg(zip ? r.shown : join(r.shown, f.name));
  const commandOf = (g: ReleaseGroup, fs: ReleaseFile[], failed: boolean, reason = '') => {
    const args = [...new Set(fs.map(fileArg))].join(' ');
    // A set the dataset needs whole (an NCCI quarter's four parts): staged part by part, published when complete.
    if (/missing part/.test(reason)) return `rcm ingest --stage ${g.dataset.id}-${g.version?.label ?? 'release'} ${args} (then the missing parts; rcm stage publish ${g.dataset.id}-${g.version?.label ?? 'release'})`;
    // The removal guard: the same command with the removals allowed, once they are meant.
    if (/RCM_MAX_REMOVED/.test(reason)) return `rcm ingest ${g.dataset.id} ${args} --allow-removals`;
    const v = g.version;
    const stated = !zip && v && fs.some((f) => f.versionFromRelease) ? ` --version ${v.label}${v.effective_date ? ` --effective-date ${v.effective_date}` : ''}` : '';
    return `rcm ingest ${g.dataset.id} ${args}${failed && !v ? ' --version <label> --effective-date <YYYY-MM-DD>' : stated}`;
  };
  const versions: ReleaseVersion[] = r.staged.map((s) => ({
    dataset: s.entry.dataset,
    version: s.entry.version,
    effective_date: s.entry.effective_date ?? null,
    files: s.summary.files.map((f) => f.name),
    rows: s.summary.rows,
    rejects: s.summary.rejects,
    rejects_file: s.summary.rejects_file,
    report: s.report,
    replaced_seeds: s.change.replaced_seeds ?? null,
  }));
  const entries: ReleaseEntry[] = [];
  const failed: ReleaseSummary['failed'] = [];
  r.groups.forEach((g, i) => {
    const opts = r.batch[i]!;
    const reason = r.failures.get(opts);
    const s = reason === undefined ? r.staged.find((x) => x.entry.dataset === g.dataset.id && x.entry.version === opts.version) : undefined;
    const rows = s?.summary.rows ?? null;
    const version = s?.entry.version ?? g.version?.label ?? null;
    if (reason !== undefined) failed.push({ dataset: g.dataset.id, version, files: g.files.map((f) => f.name), reason, command: commandOf(g, g.files, true, reason) });
    const status: ReleaseEntry['status'] = reason === undefined ? 'loaded' : r.skipFailed ? 'skipped' : 'failed';
    for (const f of g.files) entries.push({ file: f.name, dataset: g.dataset.id, version, status, rows, command: commandOf(g, [f, ...g.files.filter((x) => x !== f)], reason !== undefined, reason), note: reason ?? null });
    for (const t of g.twins) entries.push({ file: t.file.name, dataset: g.dataset.id, version, status: 'twin', rows, command: commandOf(g, [t.file], reason !== undefined, reason), note: `the same table is read from ${t.of}; this file loads alone with its command` });
  });
  for (const f of r.files) {
    if (f.dataset) continue;
    const command = f.use!.command === 'none' ? 'none' : f.use!.command.replace('FILE', shellArg(join(r.shown, f.name)));
    entries.push({ file: f.name, dataset: null, version: null, status: 'not_a_source', rows: null, command, note: f.use!.what });
  }
  entries.sort((a, b) => a.file.localeCompare(b.file));
  return { release: r.shown, dry_run: r.dryRun, published: r.manifest !== null, snapshot_id: r.manifest?.id ?? null, versions, failed, files: entries, elapsed_ms: r.elapsed };
}
