import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IngestError } from '../datasets/_shared/issue.js';
import { ingestFiles } from './pipeline.js';
import { Warehouse } from '../warehouse/store.js';

const ROOT = resolve(import.meta.dirname, '..');
const RVU_SEED = join(ROOT, 'seeds/mpfs_rvu/PPRRVU2025_Oct.csv');

let dir: string;
let wh: Warehouse;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcm-ingest-'));
  wh = new Warehouse(join(dir, 'var'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const GPCI_HEAD = 'ADDENDUM E. FINAL CY 2026 GEOGRAPHIC PRACTICE COST INDICES (GPCIs) BY STATE AND MEDICARE LOCALITY,,,,,,\r\n,,,,,,\r\nMedicare Administrative Contractor (MAC),State,Locality Number,Locality Name,2026 PW GPCI (with 1.0 Floor)***,2026 PE GPCI,2026 MP GPCI\r\n';

async function write(name: string, content: string | Buffer): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, content);
  return p;
}

async function rvuLines(): Promise<{ head: string[]; rows: string[] }> {
  const lines = (await readFile(RVU_SEED, 'latin1')).split('\r\n').filter((l) => l !== '');
  return { head: lines.slice(0, 10), rows: lines.slice(10) };
}

async function datasetFiles(id: string): Promise<string[]> {
  return readdir(wh.path('datasets', id)).catch(() => []);
}

describe('ingest of real-format quirks', () => {
  it('reads CP1252 bytes, mixed CRLF/LF line ends, a preamble and footnote lines', async () => {
    const body = Buffer.concat([
      Buffer.from(GPCI_HEAD.replace(/\r\n$/, '\n'), 'latin1'),
      Buffer.from('10112,AL,00,ALABAMA,1.000,0.875,0.566\r\n', 'latin1'),
      Buffer.from('09202,PR,20,PUERTO RICO (MAYAG\xdcEZ)*,1.000,0.738,0.269\n', 'latin1'), // 0xDC = Ü in CP1252
      Buffer.from('"HAWAII, GUAM",,,,,,\r\n,,,,,,\r\n"***Note: floor extended, see H.R.7148.",,,,,,\r\n', 'latin1'),
    ]);
    const s = await ingestFiles(wh, { dataset: 'gpci', files: [await write('GPCI2026.csv', body)] });
    expect(s).toMatchObject({ version: '2026', effective_date: '2026-01-01', rows: 2, rejects: 0 });
    const m = await wh.current();
    expect(m!.datasets.gpci![0]!.rows).toBe(2);
  });

  it('parses both RVU layouts by stacked captions (2025: 31 columns; 2026: 32 with PRIC IND)', async () => {
    const { head, rows } = await rvuLines();
    const y26Head = head.map((l, i) => {
      const f = l.split(',');
      // Insert the 2026 PRIC IND column after TEAM SURG (index 22), as CMS did.
      f.splice(23, 0, i === 8 ? 'PRIC' : i === 9 ? 'IND' : '');
      return f.join(',').replace('2025 National', '2026 National').replace('October Release', 'July Release');
    });
    const y26Rows = rows.map((l) => {
      const f = l.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/);
      f.splice(23, 0, '9');
      f[25] = '33.4009';
      return f.join(',');
    });
    const file = await write('PPRRVU2026_Jul_nonQPP.csv', [...y26Head, ...y26Rows].join('\r\n') + '\r\n');
    const s = await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [file] });
    expect(s).toMatchObject({ version: '2026C', effective_date: '2026-07-01', rejects: 0, rows: rows.length });
  });

  it('merges the QPP and non-QPP files of one release into one row per code with both factors', async () => {
    const { head, rows } = await rvuLines();
    const mk = (cf: string) => [...head, ...rows.map((l) => l.replace(',32.3465,', `,${cf},`))].join('\r\n') + '\r\n';
    const a = await write('PPRRVU2025_Oct_nonQPP.csv', mk('33.4009'));
    const b = await write('PPRRVU2025_Oct_QPP.csv', mk('33.5675'));
    const s = await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [a, b] });
    expect(s.rows).toBe(rows.length);
  });
});

describe('rejects and thresholds', () => {
  it('writes rejected rows with {loc,msg,type,input} and fails above the threshold without publishing', async () => {
    await ingestFiles(wh, { dataset: 'gpci', files: [join(ROOT, 'seeds/gpci/GPCI2026.csv')] });
    const before = await wh.currentId();
    const { head, rows } = await rvuLines();
    const bad = rows.map((l, i) => (i === 3 ? l.replace(/^(\w+,[^,]*,"?[^,]*"?,A,,)[\d.]+/, '$1x.yz') : l));
    const file = await write('PPRRVU2025_Oct.csv', [...head, ...bad].join('\r\n') + '\r\n');
    await expect(ingestFiles(wh, { dataset: 'mpfs_rvu', files: [file] })).rejects.toThrow(/1 of 59 rows rejected \(1\.69% > 1\.00%\)/);
    expect(await wh.currentId()).toBe(before);
    expect(await datasetFiles('mpfs_rvu')).toEqual([]);
    expect(await readdir(wh.path('tmp'))).toEqual([]);

    const ok = await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [file], rejectThreshold: 0.05 });
    expect(ok.rejects).toBe(1);
    const rejects = (await readFile(ok.rejects_file!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(rejects).toHaveLength(1);
    expect(rejects[0].file).toBe('PPRRVU2025_Oct.csv');
    expect(rejects[0].line).toBe(14);
    expect(rejects[0].issues).toEqual([{ loc: ['row', 14, 'work_rvu'], msg: 'Input should be a valid number', type: 'float_parsing', input: 'x.yz' }]);
  });
});

describe('bad files: one clear error naming file and line, nothing published', () => {
  const cases: [string, () => Promise<string>, RegExp][] = [
    ['an empty file', () => write('GPCI2026.csv', ''), /GPCI2026\.csv, line 1: file is empty/],
    ['a file with the header but no rows', () => write('GPCI2026.csv', GPCI_HEAD), /GPCI2026\.csv: header found but no data rows/],
    ['a file of another dataset', async () => RVU_SEED, /PPRRVU2025_Oct\.csv, line 1: not a gpci file .* looks like a 'mpfs_rvu' file/],
    ['a truncated file (row cut short)', () => write('GPCI2026.csv', `${GPCI_HEAD}10112,AL,00,ALABAMA,1.000,0.875,0.566\r\n02102,AK,01,ALAS`), /GPCI2026\.csv, line 5: the file is truncated: it ends inside a record/],
    ['a truncated file (quote left open)', () => write('GPCI2026.csv', `${GPCI_HEAD}10112,AL,00,ALABAMA,1.000,0.875,0.566\r\n02102,AK,01,"ALAS`), /GPCI2026\.csv, line \d+: the file is truncated or malformed: a quoted field/],
  ];
  for (const [name, make, msg] of cases) {
    it(`rejects ${name}`, async () => {
      const file = await make();
      const err = await ingestFiles(wh, { dataset: 'gpci', files: [file] }).catch((e) => e);
      expect(err).toBeInstanceOf(IngestError);
      expect(err.message).toMatch(msg);
      expect(await wh.currentId()).toBeNull();
      expect(await datasetFiles('gpci')).toEqual([]);
    });
  }

  it('rejects an unknown dataset and a missing file', async () => {
    await expect(ingestFiles(wh, { dataset: 'nope', files: [RVU_SEED] })).rejects.toThrow(/unknown dataset 'nope'/);
    await expect(ingestFiles(wh, { dataset: 'gpci', files: [join(dir, 'missing.csv')] })).rejects.toThrow(/missing\.csv: file not found/);
  });
});

describe('versions, diffs and publishing', () => {
  it('dry run validates and diffs but publishes nothing', async () => {
    const s = await ingestFiles(wh, { dataset: 'gpci', files: [join(ROOT, 'seeds/gpci/GPCI2026.csv')], dryRun: true });
    expect(s.dry_run).toBe(true);
    expect(s.snapshot_id).toBeNull();
    expect(s.change.counts.added).toBe(63);
    expect(await wh.currentId()).toBeNull();
    expect(await datasetFiles('gpci')).toEqual([]);
  });

  it('refuses to load a label again without --replace; with it, records the change by key and what it supersedes', async () => {
    const seed = await readFile(join(ROOT, 'seeds/gpci/GPCI2026.csv'), 'latin1');
    const first = await ingestFiles(wh, { dataset: 'gpci', files: [await write('GPCI2026.csv', seed)] });
    // Manhattan PE GPCI changes, Alabama disappears, a copy of it appears under a new locality.
    const edited = seed
      .replace(/^13202,NY,01,MANHATTAN,([\d.]+),([\d.]+),/m, '13202,NY,01,MANHATTAN,$1,1.999,')
      .replace(/^10112,AL,00,ALABAMA(.*)$/m, '10112,AL,07,ALABAMA NEW$1');
    const refused = await ingestFiles(wh, { dataset: 'gpci', files: [await write('GPCI2026.csv', edited)] }).catch((e) => e);
    expect(refused).toBeInstanceOf(IngestError);
    expect(refused.message).toMatch(/version 2026 of gpci is already loaded \(from GPCI2026\.csv, .*\); pass --replace/);
    expect(await wh.currentId()).toBe(first.snapshot_id);
    const again = await ingestFiles(wh, { dataset: 'gpci', files: [await write('GPCI2026.csv', edited)], replace: true });
    expect(again.change).toMatchObject({ from_version: '2026', to_version: '2026', supersedes: '2026', counts: { added: 1, removed: 1, changed: 1, unchanged: 61 } });
    expect(again.change.samples).toEqual({ added: ['1011207'], removed: ['1011200'], changed: ['1320201'] });
    const m = await wh.current();
    expect(m!.datasets.gpci).toHaveLength(1);
    expect(m!.parent).toBe(first.snapshot_id);
    expect(m!.changes.map((c) => c.to_version)).toEqual(['2026', '2026']);
  });

  it('keeps several versions ordered by effective date; a backfill is recorded forward in time', async () => {
    await ingestFiles(wh, { dataset: 'gpci', files: [join(ROOT, 'seeds/gpci/GPCI2026.csv')] });
    const seed = await readFile(join(ROOT, 'seeds/gpci/GPCI2026.csv'), 'latin1');
    await ingestFiles(wh, { dataset: 'gpci', files: [await write('g.csv', seed.replace(/2026/g, '2025'))] });
    const m = await wh.current();
    expect(m!.datasets.gpci!.map((v) => v.version)).toEqual(['2025', '2026']);
    // 2025 precedes every loaded release: it is a first load of its own, never `2026 -> 2025`.
    expect(m!.changes.at(-1)).toMatchObject({ from_version: null, to_version: '2025' });
  });

  it('a killed ingest changes nothing that is served', async () => {
    await ingestFiles(wh, { dataset: 'gpci', files: [join(ROOT, 'seeds/gpci/GPCI2026.csv')] });
    const before = await wh.currentId();
    const { head, rows } = await rvuLines();
    const big: string[] = [];
    for (let i = 0; big.length < 400_000; i++) for (const r of rows) big.push(r.replace(/^[^,]+/, `Z${String(i).padStart(4, '0')}`.slice(0, 5)));
    const file = await write('PPRRVU2025_Oct.csv', [...head, ...big].join('\r\n') + '\r\n');
    const child = spawn(process.execPath, [join(ROOT, 'bin/rcm.js'), 'ingest', 'mpfs_rvu', file, '--json'], { env: { ...process.env, RCM_DATA_DIR: wh.dir }, stdio: 'ignore' });
    // Wait until it is loading (a temp file exists), then kill it without warning.
    for (let i = 0; i < 200 && (await readdir(wh.path('tmp')).catch(() => [])).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(await wh.currentId()).toBe(before);
    expect(await datasetFiles('mpfs_rvu')).toEqual([]);
    expect((await wh.listSnapshots()).length).toBe(1);
    // The next ingest sweeps the leftovers and takes over the stale lock.
    await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [RVU_SEED] });
    expect(await readdir(wh.path('tmp'))).toEqual([]);
    expect(existsSync(wh.path('ingest.lock'))).toBe(false);
  });
});
