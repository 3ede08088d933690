import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ingestFiles } from '../../ingest/pipeline.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';
import { Warehouse } from '../../warehouse/store.js';
import { lookupPtpEdit } from './queries.js';
import type { PtpRow } from './row.js';

const SEEDS = resolve(import.meta.dirname, '../../seeds/ncci_ptp_prac');
const part = (v: string, p: number) => join(SEEDS, v, `ccipra-v${v.replace('.', '')}r0-f${p}.txt`);

let dir: string;
let wh: Warehouse;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptp-ingest-'));
  wh = new Warehouse(join(dir, 'data'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Copies the four 32.2 seed parts into the temp dir, so a test can corrupt one of them. */
function copyParts(): Promise<string[]> {
  return Promise.all(
    [1, 2, 3, 4].map(async (p) => {
      const to = join(dir, `ccipra-v322r0-f${p}.txt`);
      await copyFile(part('32.2', p), to);
      return to;
    }),
  );
}

describe('rcm ingest ncci_ptp_prac (pipeline)', () => {
  it('publishes all four parts as version 32.2 effective 2026-07-01 through the native loader', async () => {
    const s = await ingestFiles(wh, { dataset: 'ncci_ptp_prac', files: [1, 2, 3, 4].map((p) => part('32.2', p)) });
    expect(s).toMatchObject({ version: '32.2', effective_date: '2026-07-01', rows: 20, rejects: 0 });
    const m = await wh.current();
    expect(m?.datasets.ncci_ptp_prac?.map((v) => [v.version, v.effective_date, v.rows])).toEqual([['32.2', '2026-07-01', 20]]);
  });

  it('keeps two quarters queryable and diffs the second against the first', async () => {
    await ingestFiles(wh, { dataset: 'ncci_ptp_prac', files: [1, 2, 3, 4].map((p) => part('32.1', p)) });
    const s = await ingestFiles(wh, { dataset: 'ncci_ptp_prac', files: [1, 2, 3, 4].map((p) => part('32.2', p)) });
    // 93000/93005 is new; 99213/99212 gone; 0001U/0029U got its deletion date.
    expect(s.change).toMatchObject({ from_version: '32.1', to_version: '32.2', counts: { added: 1, removed: 1, changed: 1 } });
    const snap = await MountedSnapshot.open(wh, (await wh.current())!);
    try {
      expect((await lookupPtpEdit(snap, 'ncci_ptp_prac', '0029U', '0001U', '2026-05-15')).status).toBe('active');
      expect((await lookupPtpEdit(snap, 'ncci_ptp_prac', '0029U', '0001U', '2026-07-15')).status).toBe('deleted');
      const all = await snap.all<PtpRow>(`SELECT column1, column2 FROM ncci_ptp_prac WHERE version = '32.2' AND (column1 = '36415' OR column2 = '36415') ORDER BY column1, column2`);
      expect(all.map((r) => `${r.column1}/${r.column2}`)).toEqual(['36556/36415', '96372/36415']);
    } finally {
      snap.close();
    }
  });

  it('takes --effective-date over the quarter derived from the version', async () => {
    const s = await ingestFiles(wh, { dataset: 'ncci_ptp_prac', files: [1, 2, 3, 4].map((p) => part('32.2', p)), effectiveDate: '2026-07-15' });
    expect(s.effective_date).toBe('2026-07-15');
  });

  it.each([
    ['a missing part', () => [1, 2, 4].map((p) => part('32.2', p)), /missing part f3/],
    ['parts of two versions', () => [part('32.2', 1), part('32.2', 2), part('32.1', 3), part('32.2', 4)], /different versions in one set: 32\.1, 32\.2/],
    ['the same part twice', () => [1, 2, 3, 3, 4].map((p) => part('32.2', p)), /part f3 given twice/],
  ])('refuses %s and publishes nothing', async (_name, files, msg) => {
    await expect(ingestFiles(wh, { dataset: 'ncci_ptp_prac', files: files() })).rejects.toThrow(msg);
    expect(await wh.currentId()).toBeNull();
  });

  it('refuses a part whose wrapped header is broken and publishes nothing', async () => {
    const files = await copyParts();
    const text = await readFile(files[2]!, 'latin1');
    await writeFile(files[2]!, text.replace('Deletion', 'Remark').replace('*=no data', ''), 'latin1');
    await expect(ingestFiles(wh, { dataset: 'ncci_ptp_prac', files })).rejects.toThrow(/ccipra-v322r0-f3\.txt, line 3: broken PTP header: no deletion column/);
    expect(await wh.currentId()).toBeNull();
  });

  it('refuses a release whose rows fail validation beyond the reject threshold, naming file and line', async () => {
    const files = await copyParts();
    const text = await readFile(files[0]!, 'latin1');
    await writeFile(files[0]!, text.replace('0001A\t36591\t\t20220101', '0001A\t36591\t\t20221301'), 'latin1');
    await expect(ingestFiles(wh, { dataset: 'ncci_ptp_prac', files })).rejects.toThrow(/1 of 20 rows rejected .*row\.8\.effective_date/);
    expect(await wh.currentId()).toBeNull();
  });

  it('names the part a rejected row came from in the rejects file', async () => {
    const files = await copyParts();
    const text = await readFile(files[2]!, 'latin1');
    const bad = text.replace(/^(\w{5}\t\w{5}\t[^\t]*\t)(\d{8})/m, '$12026-13-99');
    expect(bad).not.toBe(text);
    await writeFile(files[2]!, bad, 'latin1');
    const s = await ingestFiles(wh, { dataset: 'ncci_ptp_prac', files, rejectThreshold: 0.5 });
    expect(s.rejects).toBe(1);
    const [rej] = (await readFile(s.rejects_file!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(rej.file).toBe('ccipra-v322r0-f3.txt');
  });
});
