import { copyFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../testing/shared.js';
import { tempDir } from '../testing/temp_dirs.js';
import { MountedSnapshot } from '../warehouse/snapshot.js';
import { Warehouse } from '../warehouse/store.js';
import { ingestFiles } from './pipeline.js';
import { pruneSnapshots, REPLICA_GRACE_MS } from './prune.js';

const GPCI = join(REPO_ROOT, 'seeds/gpci/GPCI2026.csv');
let dir: string;
let wh: Warehouse;
let ids: string[];
/** The version file each snapshot serves. */
let files: string[];
const NOW = new Date('2026-12-06T12:00:00Z');

/** Every file under the data dir's `datasets/`, relative to it. */
async function versionFiles(): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(wh.path('datasets'))) for (const f of await readdir(wh.path('datasets', d))) out.push(`datasets/${d}/${f}`);
  return out.sort();
}

beforeEach(async () => {
  dir = await tempDir('rcm-prune-');
  wh = new Warehouse(join(dir, 'var'));
  ids = [];
  files = [];
  // Five snapshots, each replacing the one GPCI version: each references a file of its own.
  for (let i = 1; i <= 5; i++) {
    const f = join(dir, `GPCI2026_${i}.csv`);
    await copyFile(GPCI, f);
    const s = await ingestFiles(wh, { dataset: 'gpci', files: [f], replace: true, now: () => new Date(NOW.getTime() - (6 - i) * 60_000) });
    ids.push(s.snapshot_id!);
    files.push((await wh.readManifest(s.snapshot_id!)).datasets.gpci![0]!.file);
  }
});

describe('rcm snapshots prune', () => {
  it('keeps the newest, the served one and those a replica reported lately; removes the rest and only files no kept manifest references', async () => {
    // A rollback serves the second snapshot; one replica still serves the third, one the first but silent for 11 minutes.
    await wh.setCurrent(ids[1]!);
    const heartbeats = [
      { replica: 'a/1/aa', snapshot_id: ids[2]!, seen_at: new Date(NOW.getTime() - 60_000).toISOString() },
      { replica: 'b/2/bb', snapshot_id: ids[0]!, seen_at: new Date(NOW.getTime() - REPLICA_GRACE_MS - 60_000).toISOString() },
    ];
    const before = await versionFiles();
    const dry = await pruneSnapshots(wh, { keep: 1, heartbeats, dryRun: true, now: () => NOW });
    expect(dry.removed_snapshots).toEqual([ids[0], ids[3]]);
    expect(await versionFiles()).toEqual(before);

    const r = await pruneSnapshots(wh, { keep: 1, heartbeats, now: () => NOW });
    expect(r.kept).toEqual([
      { id: ids[1], why: ['current'] },
      { id: ids[2], why: ['replica a/1/aa'] },
      { id: ids[4], why: ['newest'] },
    ]);
    expect(r.removed_snapshots).toEqual([ids[0], ids[3]]);
    expect((await wh.listSnapshots()).map((m) => m.id)).toEqual([ids[1], ids[2], ids[4]]);
    // The files of the first and fourth snapshots go; the kept ones' stay.
    expect((await versionFiles()).filter((f) => f.endsWith('.duckdb'))).toEqual([files[1], files[2], files[4]].sort());
    expect(r.removed_files.filter((f) => f.endsWith('.duckdb')).sort()).toEqual([files[0], files[3]].sort());
    expect(r.freed_bytes).toBeGreaterThan(0);
    // Every kept snapshot still mounts and answers.
    for (const id of [ids[1]!, ids[2]!, ids[4]!]) {
      const m = await MountedSnapshot.open(wh, await wh.readManifest(id), { connections: 1, threads: 1 });
      try {
        expect(m.unmounted).toEqual([]);
      } finally {
        m.close();
      }
    }
    // Change keys files referenced by a kept manifest stay.
    for (const c of (await wh.readManifest(ids[4]!)).changes) if (c.keys_file) expect(await stat(wh.path(c.keys_file))).toBeTruthy();
  });

  it('refuses --keep below 1', async () => {
    await expect(pruneSnapshots(wh, { keep: 0, heartbeats: [] })).rejects.toThrow(/--keep must be a whole number of at least 1/);
  });
});
