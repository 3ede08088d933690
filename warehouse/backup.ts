import Database from 'better-sqlite3';
import { copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DomainError } from './errors.js';
import type { Manifest } from './manifest.js';
import { filesUnder, type Warehouse } from './store.js';

/** What a backup holds. */
export interface BackupResult {
  dir: string;
  /** The snapshot CURRENT named when the copy began: the one the restored data dir serves. */
  current: string | null;
  snapshots: number;
  files: number;
  bytes: number;
  /** `sqlite` (copied with SQLite's online backup), or `postgres` (not copied: back it up with pg_dump). */
  state: 'sqlite' | 'postgres' | 'none';
}

/**
 * `rcm backup DIR`: a copy of the data dir a server can serve, taken while servers and ingests
 * run. CURRENT is read first: every manifest and version file it can name was written before it
 * (a publish writes files, then the manifest, then CURRENT), and they are immutable, so copying
 * them after it gives a consistent set; a snapshot published during the copy is copied or not,
 * never half. The SQLite state file is copied with SQLite's online backup (a plain file copy of a
 * database in WAL mode can lose the last commits). Staged work (`tmp/`, `staging/`) and the
 * ingest lock are not copied. The copy is checked: every file its CURRENT manifest names exists.
 */
export async function backupDataDir(wh: Warehouse, dest: string, o: { stateUrl?: string } = {}): Promise<BackupResult> {
  const there = await readdir(dest).catch(() => null);
  if (there && there.length > 0) throw new DomainError('conflict', `${dest} is not empty: a backup goes to a new or empty folder`);
  const current = await wh.currentId();
  await mkdir(dest, { recursive: true });
  let files = 0;
  let bytes = 0;
  const copy = async (rel: string) => {
    await mkdir(dirname(join(dest, rel)), { recursive: true });
    try {
      await copyFile(wh.path(rel), join(dest, rel));
    } catch (e) {
      // Removed since it was listed (a prune of an old snapshot): the check below names any CURRENT needs.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    files++;
    bytes += (await stat(join(dest, rel))).size;
  };
  const manifests = (await filesUnder(wh.dir, 'snapshots')).filter((f) => f.endsWith('.json'));
  for (const area of ['datasets', 'changes', 'rejects']) for (const f of await filesUnder(wh.dir, area)) await copy(f);
  for (const f of manifests) await copy(f);
  if (current) await writeFile(join(dest, 'CURRENT'), `${current}\n`);
  let state: BackupResult['state'] = 'none';
  if (o.stateUrl) state = 'postgres';
  else if (await stat(wh.path('state.sqlite')).catch(() => null)) {
    const db = new Database(wh.path('state.sqlite'), { readonly: true, fileMustExist: true });
    try {
      await db.backup(join(dest, 'state.sqlite'));
    } finally {
      db.close();
    }
    files++;
    bytes += (await stat(join(dest, 'state.sqlite'))).size;
    state = 'sqlite';
  }
  if (current) {
    const m = JSON.parse(await readFile(join(dest, 'snapshots', `${current}.json`), 'utf8')) as Manifest;
    const missing: string[] = [];
    for (const v of Object.values(m.datasets).flat()) if (!(await stat(join(dest, v.file)).catch(() => null))) missing.push(v.file);
    if (missing.length) throw new DomainError('conflict', `the backup lacks ${missing.length} file(s) of snapshot ${current} (${missing.slice(0, 3).join(', ')}): was a prune running?`);
  }
  return { dir: dest, current, snapshots: manifests.length, files, bytes, state };
}
