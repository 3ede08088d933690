import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestFiles } from '../../ingest/pipeline.js';
import { Warehouse } from '../../warehouse/store.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

// The publishers' fixed-width twins of the CSVs a dataset reads: the same release either way.
const present = requireShared('gpci/GPCI2025.txt', 'gpci/GPCI2025.csv', 'mpfs-rvu/PPRRVU2025_Oct.txt', 'mpfs-rvu/PPRRVU2025_Oct.csv');
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe.skipIf(!present)("the publishers' fixed-width twins", () => {
  it('GPCI2025.txt loads as GPCI2025.csv does: 109 localities, the CSV over it changes none', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcm-twins-'));
    dirs.push(dir);
    const wh = new Warehouse(dir);
    const txt = await ingestFiles(wh, { dataset: 'gpci', files: [join(sharedDataDir(), 'gpci/GPCI2025.txt')] });
    expect(txt).toMatchObject({ version: '2025', rows: 109, rejects: 0 });
    const csv = await ingestFiles(wh, { dataset: 'gpci', files: [join(sharedDataDir(), 'gpci/GPCI2025.csv')], replace: true });
    expect(csv.change).toMatchObject({ counts: { added: 0, removed: 0, changed: 0, unchanged: 109 } });
  });

  it('PPRRVU2025_Oct.txt loads as PPRRVU2025_Oct.csv does: 19,090 rows, every value the same', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcm-twins-'));
    dirs.push(dir);
    const wh = new Warehouse(dir);
    const txt = await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [join(sharedDataDir(), 'mpfs-rvu/PPRRVU2025_Oct.txt')] });
    expect(txt).toMatchObject({ version: '2025D', effective_date: '2025-10-01', rows: 19_090, rejects: 0 });
    const csv = await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [join(sharedDataDir(), 'mpfs-rvu/PPRRVU2025_Oct.csv')], replace: true });
    expect(csv.change).toMatchObject({ counts: { added: 0, removed: 0, changed: 0, unchanged: 19_090 } });
  });
});
