import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { IngestError } from '../../datasets/_shared/issue.js';
import { GateError, ingestFiles } from '../../ingest/pipeline.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';
import { Warehouse } from '../../warehouse/store.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

const present = requireShared(
  'mpfs-rvu/PPRRVU2025_Oct.csv',
  'mpfs-rvu/PPRRVU2025_Oct.txt',
  'mpfs-rvu/RVU25D.pdf',
  'gpci/GPCI2025.csv',
  'clfs/PUF_CLFS_CY2026_Q3V1.csv',
  'clfs/PUF_CLFS_CY2026_Q3V1.txt',
);
const SHARED = sharedDataDir();
const RVU = join(SHARED, 'mpfs-rvu/PPRRVU2025_Oct.csv');

describe.skipIf(!present)('publish gate and replace rules on the real files', () => {
  let dir: string;
  let wh: Warehouse;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rcm-conf-gate-'));
    wh = new Warehouse(join(dir, 'var'));
    await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [RVU] });
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function served(code: string): Promise<number> {
    const snap = await MountedSnapshot.open(wh, (await wh.current())!);
    try {
      return (await snap.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM mpfs_rvu WHERE hcpcs = $1`, [code]))[0]!.n;
    } finally {
      snap.close();
    }
  }

  describe('the publish gate on the real PPRRVU2025_Oct.csv', () => {
    it('refuses the file cut at 40% (inside a row) as truncated; 99213 keeps answering', async () => {
      const text = await readFile(RVU);
      const cut = join(dir, 'PPRRVU2025_Oct.csv');
      await writeFile(cut, text.subarray(0, Math.floor(text.length * 0.4)));
      const before = await wh.currentId();
      const err = await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [cut], replace: true }).catch((e) => e);
      expect(err).toBeInstanceOf(IngestError);
      expect(err.message).toMatch(/PPRRVU2025_Oct\.csv, line \d+: the file is truncated/);
      expect(await wh.currentId()).toBe(before);
      expect(await served('99213')).toBe(1);
    });

    it('refuses the first 40% of its lines (a clean cut) by the removal guard, with the counts', async () => {
      const lines = (await readFile(RVU, 'latin1')).split('\r\n');
      const cut = join(dir, 'PPRRVU2025_Oct.csv');
      await writeFile(cut, lines.slice(0, Math.floor(lines.length * 0.4)).join('\r\n') + '\r\n', 'latin1');
      const err = await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [cut], replace: true }).catch((e) => e);
      expect(err).toBeInstanceOf(GateError);
      expect(err.message).toMatch(/removes 1\d{4} of 19090 keys of 2025D/);
      expect(await served('99213')).toBe(1);
    });

    it("reads the release from a zip shaped like CMS's RVU25D.zip and names what it skipped", async () => {
      const z = new yazl.ZipFile();
      z.addFile(RVU, 'PPRRVU2025_Oct.csv');
      z.addFile(join(SHARED, 'mpfs-rvu/PPRRVU2025_Oct.txt'), 'PPRRVU2025_Oct.txt');
      z.addFile(join(SHARED, 'gpci/GPCI2025.csv'), 'GPCI2025.csv');
      z.addFile(join(SHARED, 'mpfs-rvu/RVU25D.pdf'), 'RVU25D.pdf');
      z.end();
      const zipPath = join(dir, 'RVU25D.zip');
      await new Promise<void>((res, rej) => z.outputStream.pipe(createWriteStream(zipPath)).on('close', res).on('error', rej));
      const s = await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [zipPath], replace: true, dryRun: true });
      expect(s.files.map((f) => f.name)).toEqual(['PPRRVU2025_Oct.csv']);
      expect(s.rows).toBe(19090);
      expect(s.report.counts).toMatchObject({ added: 0, removed: 0, changed: 0, unchanged: 19090 });
      const skipped = Object.fromEntries(s.skipped.map((k) => [k.member.split('/').pop(), k.reason]));
      expect(skipped['GPCI2025.csv']).toBe("not a mpfs_rvu file: it looks like a 'gpci' file");
      expect(skipped['RVU25D.pdf']).toMatch(/not a mpfs_rvu file/);
      expect(skipped['PPRRVU2025_Oct.txt']).toMatch(/not a mpfs_rvu file|the same table is read from PPRRVU2025_Oct\.csv/);
      const g = await ingestFiles(wh, { dataset: 'gpci', files: [zipPath] });
      expect(g).toMatchObject({ version: '2025', rows: 109 });
    });
  });

  describe('CLFS: the .txt of a quarter after its .csv', () => {
    it('is refused without --replace, so the long descriptors of the .csv stay', async () => {
      await ingestFiles(wh, { dataset: 'clfs', files: [join(SHARED, 'clfs/PUF_CLFS_CY2026_Q3V1.csv')] });
      const err = await ingestFiles(wh, { dataset: 'clfs', files: [join(SHARED, 'clfs/PUF_CLFS_CY2026_Q3V1.txt')] }).catch((e) => e);
      expect(err).toBeInstanceOf(IngestError);
      expect(err.message).toMatch(/version 2026Q3V1 of clfs is already loaded \(from PUF_CLFS_CY2026_Q3V1\.csv/);
      const snap = await MountedSnapshot.open(wh, (await wh.current())!);
      try {
        expect((await snap.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM clfs WHERE long_descriptor IS NOT NULL`))[0]!.n).toBeGreaterThan(2000);
      } finally {
        snap.close();
      }
    });
  });
});
