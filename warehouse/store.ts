import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, open } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { NotFoundError } from './errors.js';
import type { Manifest } from './manifest.js';
import { COLUMNS_SUFFIX } from '../lib/sidecar/column.js';
import { RANGES_SUFFIX } from '../lib/sidecar/range.js';
import { RECORDS_SUFFIX } from '../lib/sidecar/record.js';

/** The suffixes of the sidecars beside a version file (`<file>.records`, `<file>.<name>.ranges`), moved and removed with it. */
export async function sidecarsOf(file: string): Promise<string[]> {
  const base = `${basename(file)}.`;
  const names = await readdir(dirname(file)).catch(() => [] as string[]);
  return names.filter((n) => n.startsWith(base) && [RECORDS_SUFFIX, RANGES_SUFFIX, COLUMNS_SUFFIX].some((x) => n.endsWith(x))).map((n) => n.slice(base.length - 1));
}

/** Every regular file under `dir` of the data dir `root`, recursively, as paths relative to `root`. */
export async function filesUnder(root: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(join(root, dir), { withFileTypes: true }).catch(() => [])) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(root, p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/**
 * The on-disk layout under `RCM_DATA_DIR`:
 *   datasets/<id>/<version>.<nonce>.duckdb   immutable version files
 *   snapshots/<snapshot_id>.json            manifests
 *   rejects/<id>/<version>.<nonce>.jsonl     rejected rows of an ingest
 *   tmp/<id>-<version>.<nonce>.duckdb        a version being staged (moved to datasets/ on publish)
 *   CURRENT                                 id of the served snapshot (atomic replace)
 *   state.sqlite                            tenant state
 */
export class Warehouse {
  constructor(readonly dir: string) {}

  path(...parts: string[]): string {
    return join(this.dir, ...parts);
  }

  /**
   * The files of a new version of `dataset` labelled `label`, under a fresh id `<label>.<nonce>`
   * (a replaced label gets a new file, so version files stay immutable).
   */
  newVersionFiles(dataset: string, label: string): VersionFiles {
    const id = `${label}.${randomBytes(3).toString('hex')}`;
    return {
      id,
      staged: this.path('tmp', `${dataset}-${id}.duckdb`),
      file: `datasets/${dataset}/${id}.duckdb`,
      rejects: this.path('rejects', dataset, `${id}.jsonl`),
      stagedKeys: this.path('tmp', `${dataset}-${id}.changes.jsonl`),
      keysFile: `changes/${dataset}/${id}.jsonl`,
    };
  }

  async init(): Promise<void> {
    await mkdir(this.path('datasets'), { recursive: true });
    await mkdir(this.path('snapshots'), { recursive: true });
    await mkdir(this.path('rejects'), { recursive: true });
    await mkdir(this.path('tmp'), { recursive: true });
  }

  /** Writes `data` to `file` atomically: a temp file in the same directory, fsync, rename. */
  async writeAtomic(file: string, data: string): Promise<void> {
    await mkdir(dirname(file), { recursive: true });
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
  }

  currentId(): Promise<string | null> {
    return readFile(this.path('CURRENT'), 'utf8').then(
      (s) => s.trim() || null,
      () => null,
    );
  }

  async readManifest(id: string): Promise<Manifest> {
    if (!/^[A-Za-z0-9_.-]+$/.test(id)) throw new NotFoundError(`snapshot ${id} not found`);
    try {
      return JSON.parse(await readFile(this.path('snapshots', `${id}.json`), 'utf8')) as Manifest;
    } catch {
      throw new NotFoundError(`snapshot ${id} not found`);
    }
  }

  async current(): Promise<Manifest | null> {
    const id = await this.currentId();
    return id ? this.readManifest(id) : null;
  }

  async listSnapshots(): Promise<Manifest[]> {
    if (!existsSync(this.path('snapshots'))) return [];
    const names = (await readdir(this.path('snapshots'))).filter((n) => n.endsWith('.json'));
    const all = await Promise.all(names.map((n) => this.readManifest(n.slice(0, -5))));
    return all.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  /** Writes a manifest (never overwritten: snapshots are immutable). */
  async writeManifest(m: Manifest): Promise<void> {
    await this.writeAtomic(this.path('snapshots', `${m.id}.json`), JSON.stringify(m, null, 2));
  }

  /** Makes `id` the served snapshot; the server notices within its poll interval. */
  async setCurrent(id: string): Promise<void> {
    await this.readManifest(id); // must exist
    await this.writeAtomic(this.path('CURRENT'), `${id}\n`);
  }

  async removeTmp(file: string): Promise<void> {
    await rm(file, { force: true });
    // Its WAL, its sidecars and what writing them leaves (`<file>.<name>.ranges.lines`, the spill directory).
    const base = `${basename(file)}.`;
    for (const n of await readdir(dirname(file)).catch(() => [] as string[])) if (n.startsWith(base)) await rm(join(dirname(file), n), { force: true, recursive: true });
  }
}

/** Where one new version's files go (see `Warehouse.newVersionFiles`). */
export interface VersionFiles {
  /** `<label>.<nonce>`: names the files and the change record. */
  id: string;
  /** Absolute path the version is loaded into, under `tmp/`, until `publish` moves it. */
  staged: string;
  /** Path relative to the warehouse, as manifests record it: `datasets/<id>/<label>.<nonce>.duckdb`. */
  file: string;
  /** Absolute path of the rejected rows (JSONL), written only when there are any. */
  rejects: string;
  /** Where the diff writes the keys that changed (JSONL) until `publish` moves them to `keysFile`. */
  stagedKeys: string;
  /** Path relative to the warehouse of the published per-key changes: `changes/<dataset>/<label>.<nonce>.jsonl`. */
  keysFile: string;
}

/** Sortable snapshot id: UTC timestamp plus a nonce, e.g. `20261121T060631Z-3fa2`. */
export function newSnapshotId(now: Date): string {
  const ts = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${ts}-${randomBytes(2).toString('hex')}`;
}
