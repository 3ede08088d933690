import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { z } from 'zod';
import { main } from '../cli/main.js';
import { IngestError } from '../datasets/_shared/issue.js';
import { readRecords } from '../datasets/_shared/source.js';
import { fromStored, table } from '../datasets/_shared/table.js';
import { defineMultiTableDataset, type Dataset } from '../datasets/types.js';
import { ingestFiles, GateError } from './pipeline.js';
import { seedAll } from './seed.js';
import { MountedSnapshot } from '../warehouse/snapshot.js';
import { Warehouse } from '../warehouse/store.js';

const ROOT = resolve(import.meta.dirname, '..');
const RVU = join(ROOT, 'seeds/mpfs_rvu/PPRRVU2025_Oct.csv');
const CLFS_DIR = join(ROOT, 'seeds/clfs');
let dir: string;
let wh: Warehouse;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcm-gate-'));
  wh = new Warehouse(join(dir, 'var'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const write = async (name: string, text: string | Buffer) => {
  const p = join(dir, name);
  await writeFile(p, text);
  return p;
};

async function zip(name: string, members: [string, string | Buffer][], o: { compress?: boolean } = {}): Promise<string> {
  const z = new yazl.ZipFile();
  for (const [n, body] of members) {
    if (n.endsWith('/')) z.addEmptyDirectory(n);
    else z.addBuffer(Buffer.isBuffer(body) ? body : Buffer.from(body), n, { compress: o.compress ?? true });
  }
  z.end();
  const out = join(dir, name);
  await new Promise<void>((res, rej) => z.outputStream.pipe(createWriteStream(out)).on('close', res).on('error', rej));
  return out;
}

/** The description of 99213 in the served snapshot (what `/v1/codes/99213` answers from). */
async function served99213(): Promise<string | null> {
  const m = await wh.current();
  if (!m) return null;
  const snap = await MountedSnapshot.open(wh, m);
  try {
    const rows = await snap.all<{ description: string }>(`SELECT description FROM mpfs_rvu WHERE hcpcs = '99213' AND modifier = ''`);
    return rows[0]?.description ?? null;
  } finally {
    snap.close();
  }
}

async function rcm(...argv: string[]) {
  const o = { out: '', err: '', isTTY: false, env: { RCM_DATA_DIR: wh.dir } as Record<string, string>, stdout: (s: string) => void (o.out += s), stderr: (s: string) => void (o.err += s) };
  const code = await main(argv, o);
  return { code, out: o.out, err: o.err };
}

describe('a PPRRVU file cut at 40%', () => {
  it('is refused as truncated when the cut falls inside a row, and 99213 keeps answering', async () => {
    await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [RVU] });
    const text = await readFile(RVU, 'latin1');
    const cut = await write('PPRRVU2025_Oct.csv', text.slice(0, Math.floor(text.length * 0.4)));
    const err = await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [cut], replace: true }).catch((e) => e);
    expect(err).toBeInstanceOf(IngestError);
    expect(err.message).toMatch(/PPRRVU2025_Oct\.csv, line \d+: the file is truncated/);
    expect(await served99213()).toBe('Office o/p est low 20 min');
  });

  it('is refused by the removal guard when the cut falls on a line end, naming the counts; --allow-removals publishes it', async () => {
    const first = await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [RVU] });
    const text = await readFile(RVU, 'latin1');
    const lines = text.split('\r\n');
    const keep = lines.slice(0, Math.floor(lines.length * 0.4)).join('\r\n') + '\r\n';
    const short = await write('PPRRVU2025_Oct.csv', keep);
    const err = await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [short], replace: true, maxRemoved: 0.05 }).catch((e) => e);
    expect(err).toBeInstanceOf(GateError);
    expect(err.message).toMatch(/removes \d+ of 59 keys of 2025D \(\d+\.\d+% > RCM_MAX_REMOVED 5\.00%\); pass --allow-removals/);
    expect(await wh.currentId()).toBe(first.snapshot_id);
    expect(await served99213()).toBe('Office o/p est low 20 min');
    const allowed = await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [short], replace: true, allowRemovals: true });
    expect(allowed.snapshot_id).not.toBeNull();
    expect(allowed.change.counts.removed).toBeGreaterThan(20);
  });
});

describe('re-ingesting a version label', () => {
  it('refuses the CLFS .txt after the .csv of the same quarter: the long descriptors stay', async () => {
    const csv = join(CLFS_DIR, (await readdir(CLFS_DIR)).find((n) => n.endsWith('.csv'))!);
    await ingestFiles(wh, { dataset: 'clfs', files: [csv] });
    // The same quarter as the `~`-delimited text layout, which carries no long descriptors.
    const txt = await write('PUF_CLFS_CY2026_Q3V1.txt', await clfsAsTxt(csv));
    const err = await ingestFiles(wh, { dataset: 'clfs', files: [txt] }).catch((e) => e);
    expect(err).toBeInstanceOf(IngestError);
    expect(err.message).toMatch(/version 2026Q3V1 of clfs is already loaded \(from .*\.csv/);
    const m = await wh.current();
    const snap = await MountedSnapshot.open(wh, m!);
    try {
      const long = await snap.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM clfs WHERE long_descriptor IS NOT NULL`);
      expect(long[0]!.n).toBeGreaterThan(0);
    } finally {
      snap.close();
    }
  });
});

/** The seed CLFS csv rewritten in CMS's `~` text layout (header and rows, no long descriptors). */
async function clfsAsTxt(csv: string): Promise<string> {
  const out: string[] = ['2026 Clinical Diagnostic Laboratory Fee Schedule', '', 'YEAR~HCPCS~MOD~EFF_DATE~INDICATOR~RATE~SHORTDESC'];
  let header = false;
  for await (const r of readRecords({ path: csv, name: 'x.csv', size: 0 })) {
    if (!header) {
      if (r.fields[0]?.trim().toUpperCase() === 'YEAR') header = true;
      continue;
    }
    if (r.fields.length < 6) continue;
    const [year, hcpcs, mod, eff, ind, rate, short] = r.fields;
    out.push([year, hcpcs, mod || '  ', eff, ind, rate, short].join('~'));
  }
  return out.join('\r\n') + '\r\n';
}

describe('what changed, column by column', () => {
  const CLFS = join(ROOT, 'seeds/clfs/PUF_CLFS_CY2026_Q3V1.csv');
  /** The seed CLFS quarter as the next release would print it: another year and effective date on every row, and `edit` applied. */
  const nextQuarter = async (edit: (text: string) => string = (x) => x) =>
    write('PUF_CLFS_CY2026_Q4V1.csv', edit(await readFile(CLFS, 'latin1')).replace(/^2026,([^,]+),([^,]*),20260101,/gm, '2027,$1,$2,20270101,'));

  it("counts a row changed only when a value moved, not the release's year or effective date, with per-column counts and before/after samples", async () => {
    await ingestFiles(wh, { dataset: 'clfs', files: [CLFS] });
    const s = await ingestFiles(wh, { dataset: 'clfs', files: [await nextQuarter((x) => x.replace('2026,80053,,20260101,N,00010.56', '2026,80053,,20260101,N,00011.01'))] });
    // Only 80053's rate moved (every row's YEAR and EFF_DATE moved too: release metadata).
    expect(s.report.counts.changed).toBe(1);
    expect(s.report.columns).toEqual({ rate: { changed: 1, samples: [{ key: '80053|', before: '10.56', after: '11.01' }] } });
    // The per-key changes are kept with the change record.
    const keys = (await readFile(wh.path(s.change.keys_file!), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(keys).toEqual([{ table: 'clfs', kind: 'changed', key: '80053|', columns: ['rate'] }]);
  });

  it('--fail-on-changed N%:column gates on the named value columns only; an unknown column is a usage error naming the columns', async () => {
    await ingestFiles(wh, { dataset: 'clfs', files: [CLFS] });
    const descriptors = await nextQuarter((x) => x.replace('Comprehen metabolic panel', 'Comp metabolic panel'));
    const ok = await rcm('ingest', 'clfs', descriptors, '--dry-run', '--fail-on-changed', '0%:rate', '--json');
    expect(ok.code, ok.err).toBe(0);
    const any = await rcm('ingest', 'clfs', descriptors, '--dry-run', '--fail-on-changed', '0%', '--json');
    expect(any.code).toBe(3);
    const rate = await nextQuarter((x) => x.replace('2026,0001U,,20260101,N,00720.00', '2026,0001U,,20260101,N,00730.00'));
    const refused = await rcm('ingest', 'clfs', rate, '--dry-run', '--fail-on-changed', '0%:rate,indicator', '--json');
    expect(refused.code).toBe(3);
    expect(JSON.parse(refused.out).report.failed[0]).toMatch(/changed \d+\.\d+% in rate, indicator > 0% \(--fail-on-changed\)/);
    const unknown = await rcm('ingest', 'clfs', rate, '--dry-run', '--fail-on-changed', '1%:price', '--json');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/--fail-on-changed names price, not a value column of clfs \(value columns: .*rate/);
    // --json: the error is JSON on stdout as well.
    expect(JSON.parse(unknown.out)).toMatchObject({ error: { code: 'usage', message: expect.stringMatching(/names price/) } });
    // rcm diff applies the same check: a typo never switches the gate off.
    await ingestFiles(wh, { dataset: 'clfs', files: [rate], version: 'next', effectiveDate: '2026-10-01' });
    const diffTypo = await rcm('diff', 'clfs', '--fail-on-changed', '5%:bogus_col');
    expect(diffTypo.code).toBe(2);
    expect(diffTypo.err).toMatch(/--fail-on-changed names bogus_col, not a value column of clfs/);
  });

  it('a refused markdown dry run says it published nothing; an exit-1 error under --json is JSON on stdout naming the file', async () => {
    await ingestFiles(wh, { dataset: 'clfs', files: [CLFS] });
    const rate = await nextQuarter((x) => x.replace('2026,0001U,,20260101,N,00720.00', '2026,0001U,,20260101,N,00730.00'));
    const md = await rcm('ingest', 'clfs', rate, '--dry-run', '--fail-on-changed', '0%', '--format', 'markdown');
    expect(md.code).toBe(3);
    expect(md.out.trim().split('\n').at(-1)).toBe('**dry run, nothing published**');
    const broken = await write('PUF_CLFS_CY2026_Q4V1.csv', 'not,a,clfs,file\n1,2,3,4\n');
    const err = await rcm('ingest', 'clfs', broken, '--json');
    expect(err.code).toBe(1);
    expect(JSON.parse(err.out).error).toMatchObject({ code: 'ingest_error', file: expect.stringContaining('PUF_CLFS_CY2026_Q4V1.csv') });
  });

  it('does not compare a column a source format leaves empty in every row (the same release as .txt has no descriptors)', async () => {
    await ingestFiles(wh, { dataset: 'clfs', files: [CLFS] });
    const noDescriptors = await write('PUF_CLFS_CY2026_Q3V1.csv', (await readFile(CLFS, 'latin1')).replace(/^(2026,[^,]+,[^,]*,\d{8},[A-Z],[\d.]+,[^,]*),.*$/gm, '$1,,'));
    const s = await ingestFiles(wh, { dataset: 'clfs', files: [noDescriptors], replace: true });
    expect(s.report.counts.changed).toBe(0);
    expect(s.report.tables.clfs!.not_compared).toEqual(['long_descriptor', 'extended_long_descriptor']);
  });
});

describe('seed versions', () => {
  it('are marked in the manifest, and real data under the same label replaces them without --replace or the removal guard', async () => {
    await seedAll(wh, join(ROOT, 'seeds'));
    const seeded = (await wh.current())!.datasets.gpci!.at(-1)!;
    expect(seeded).toMatchObject({ version: '2026', seed: true });
    // A "release" under the seed's label with a fifth of its rows: more than 5% of keys removed.
    const lines = (await readFile(join(ROOT, 'seeds/gpci/GPCI2026.csv'), 'latin1')).split(/\r?\n/);
    const dataStart = lines.findIndex((l) => /^\d{5},/.test(l));
    const release = await write('GPCI2026.csv', [...lines.slice(0, dataStart), ...lines.slice(dataStart, dataStart + Math.ceil((lines.length - dataStart) / 5)), ''].join('\r\n'));
    const s = await ingestFiles(wh, { dataset: 'gpci', files: [release] });
    expect(s.change).toMatchObject({ supersedes: '2026', replaces_seed: true });
    expect(s.change.summary).toMatch(/replaces seed version 2026/);
    expect(s.report.counts.removed).toBeGreaterThan(0);
    const real = (await wh.current())!.datasets.gpci!.at(-1)!;
    expect(real.seed).toBeUndefined();
    // The real version is not a seed: loading the label again needs --replace as always.
    await expect(ingestFiles(wh, { dataset: 'gpci', files: [release] })).rejects.toThrow(/already loaded .* pass --replace/);
  });
});

describe('a real release and the seeds', () => {
  it('takes every seed version of its dataset out of service, whatever its label or dates, and the change record says so', async () => {
    await seedAll(wh, join(ROOT, 'seeds'));
    const seeds = (await wh.current())!.datasets.ncci_ptp_prac!.map((v) => v.version);
    expect(seeds).toEqual(['32.1', '32.2']);
    // An older release under a label that is no date, no effective date: it still replaces both seeds.
    const dir = join(ROOT, 'seeds/ncci_ptp_prac/32.1');
    const parts = (await readdir(dir)).map((n) => join(dir, n));
    const s = await ingestFiles(wh, { dataset: 'ncci_ptp_prac', files: parts, version: 'release-a', effectiveDate: '2026-07-01' });
    expect(s.change).toMatchObject({ replaces_seed: true, replaced_seeds: ['32.1', '32.2'] });
    expect(s.change.summary).toMatch(/replaces seed versions 32\.1, 32\.2: seeds are no longer served/);
    const served = (await wh.current())!.datasets.ncci_ptp_prac!;
    expect(served.map((v) => v.version)).toEqual(['release-a']);
    // Other datasets keep their seeds.
    expect((await wh.current())!.datasets.gpci!.every((v) => v.seed)).toBe(true);
  });

  it('rcm seed never puts a seed back in front of real data', async () => {
    await ingestFiles(wh, { dataset: 'gpci', files: [join(ROOT, 'seeds/gpci/GPCI2026.csv')], version: 'gpci-real', effectiveDate: '2026-01-01' });
    const res = await seedAll(wh, join(ROOT, 'seeds'));
    expect(res.kept).toEqual(['gpci']);
    expect(res.staged.some((x) => x.entry.dataset === 'gpci')).toBe(false);
    expect((await wh.current())!.datasets.gpci!.map((v) => v.version)).toEqual(['gpci-real']);
    // A second seed run with every seed in place still leaves the real version alone.
    expect((await seedAll(wh, join(ROOT, 'seeds'))).kept).toEqual(['gpci']);
  });

  it('marks illustrative seed versions (seeds/origins.json) and only those', async () => {
    await seedAll(wh, join(ROOT, 'seeds'));
    const m = (await wh.current())!;
    expect(m.datasets.wage_index!.at(-1)).toMatchObject({ seed: true, illustrative: true });
    expect(m.datasets.gpci!.at(-1)!.illustrative).toBeUndefined();
    expect(m.datasets.payers!.at(-1)!.illustrative).toBeUndefined();
  });
});

describe('rcm ingest as a CI gate', () => {
  it('--dry-run --fail-on-removed exits 3, prints the diff report and publishes nothing', async () => {
    await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [RVU] });
    const before = await wh.currentId();
    const text = await readFile(RVU, 'latin1');
    const lines = text.split('\r\n');
    const fewer = await write('PPRRVU2025_Oct.csv', [...lines.slice(0, -6), ''].join('\r\n'));
    const r = await rcm('ingest', 'mpfs_rvu', fewer, '--dry-run', '--fail-on-removed', '2%', '--replace', '--format', 'json');
    expect(r.code).toBe(3);
    const body = JSON.parse(r.out);
    expect(body).toMatchObject({ refused: true, report: { dataset: 'mpfs_rvu', from_version: '2025D', to_version: '2025D' } });
    expect(body.report.failed[0]).toMatch(/removed \d+\.\d+% > 2% \(--fail-on-removed\)/);
    expect(r.err).toMatch(/refused/);
    expect(await wh.currentId()).toBe(before);
    // 6 of 59 seed keys is past the 5% removal guard, which a dry run now applies too: allowed here.
    const md = await rcm('ingest', 'mpfs_rvu', fewer, '--dry-run', '--fail-on-removed', '50%', '--replace', '--allow-removals', '--format', 'markdown');
    expect(md.code).toBe(0);
    expect(md.out).toMatch(/\*\*dry run:\*\* mpfs_rvu 2025D/);
    expect(md.out).toMatch(/\| removed \| \d+ \| \d+\.\d+% \|/);
    expect(await wh.currentId()).toBe(before);
  });

  it('--dry-run applies the removal guard as the real run does: same refusal, same exit, --allow-removals passes both', async () => {
    await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [RVU], replace: true });
    const before = await wh.currentId();
    const lines = (await readFile(RVU, 'latin1')).split('\r\n');
    // Keep the header block and a quarter of the rows: most keys are removed.
    const head = lines.findIndex((l) => l.startsWith('HCPCS'));
    const partial = await write('PPRRVU2025_Oct.csv', [...lines.slice(0, head + 1), ...lines.slice(head + 1, head + 1 + Math.floor((lines.length - head) / 4)), ''].join('\r\n'));
    const dry = await rcm('ingest', 'mpfs_rvu', partial, '--dry-run', '--replace', '--json');
    const real = await rcm('ingest', 'mpfs_rvu', partial, '--replace', '--json');
    expect(dry.code, dry.err).toBe(3);
    expect(real.code, real.err).toBe(3);
    expect(JSON.parse(dry.out).report.failed).toEqual(JSON.parse(real.out).report.failed);
    expect(JSON.parse(dry.out).report.failed[0]).toMatch(/removes \d+ of \d+ keys/);
    expect(await wh.currentId()).toBe(before);
    const allowed = await rcm('ingest', 'mpfs_rvu', partial, '--dry-run', '--replace', '--allow-removals', '--json');
    expect(allowed.code, allowed.err).toBe(0);
    expect(await wh.currentId()).toBe(before);
  });

  it('applies the same thresholds to a real ingest (exit 3, nothing published)', async () => {
    await ingestFiles(wh, { dataset: 'gpci', files: [join(ROOT, 'seeds/gpci/GPCI2026.csv')] });
    const seed = await readFile(join(ROOT, 'seeds/gpci/GPCI2026.csv'), 'latin1');
    const edited = await write('GPCI2026.csv', seed.replace(/^(13202,NY,01,MANHATTAN),([\d.]+),/m, '$1,1.999,'));
    const r = await rcm('ingest', 'gpci', edited, '--replace', '--fail-on-changed', '0%', '--json');
    expect(r.code, r.err).toBe(3);
    expect(JSON.parse(r.out).report.failed[0]).toMatch(/changed 1\.59% > 0% \(--fail-on-changed\)/);
    const ok = await rcm('ingest', 'gpci', edited, '--replace', '--fail-on-changed', '5%', '--json');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out).change).toMatchObject({ supersedes: '2026', counts: { changed: 1 } });
  });

  it('fails at start for a bad RCM_MAX_REMOVED, naming the setting', async () => {
    const o = { out: '', err: '', isTTY: false, env: { RCM_DATA_DIR: wh.dir, RCM_MAX_REMOVED: '150%' }, stdout: (s: string) => void (o.out += s), stderr: (s: string) => void (o.err += s) };
    expect(await main(['ingest', 'gpci', RVU], o)).toBe(1);
    expect(o.err).toMatch(/env\.RCM_MAX_REMOVED: RCM_MAX_REMOVED is a share/);
  });
});

describe("the publisher's zip", () => {
  it('reads the members the dataset recognises, one format per table, and names every skipped member', async () => {
    const csvName = (await readdir(CLFS_DIR)).find((n) => n.endsWith('.csv'))!;
    const csv = await readFile(join(CLFS_DIR, csvName));
    const z = await zip('CLFS26Q3.zip', [
      [`docs/`, ''],
      [`${csvName}`, csv],
      [`${csvName.replace(/\.csv$/, '.txt')}`, await clfsAsTxt(join(CLFS_DIR, csvName))],
      ['README.pdf', Buffer.from('%PDF-1.4 not a fee schedule')],
      ['GPCI2026.csv', await readFile(join(ROOT, 'seeds/gpci/GPCI2026.csv'))],
    ]);
    const s = await ingestFiles(wh, { dataset: 'clfs', files: [z] });
    expect(s.files).toEqual([expect.objectContaining({ name: csvName, archive: 'CLFS26Q3.zip' })]);
    const reasons = Object.fromEntries(s.skipped.map((k) => [k.member, k.reason]));
    expect(reasons[`CLFS26Q3.zip/${csvName.replace(/\.csv$/, '.txt')}`]).toBe(`the same table is read from ${csvName}`);
    expect(reasons['CLFS26Q3.zip/GPCI2026.csv']).toBe("not a clfs file: it looks like a 'gpci' file");
    expect(reasons['CLFS26Q3.zip/README.pdf']).toMatch(/not a clfs file/);
    expect(s.skipped.some((k) => k.reason === 'directory')).toBe(true);
    const m = await wh.current();
    expect(m!.datasets.clfs![0]!.source_files[0]).toMatchObject({ name: csvName, archive: 'CLFS26Q3.zip' });
  });

  it('reads a zip nested in a zip, and refuses an archive with no member of the dataset', async () => {
    const inner = await readFile(await zip('inner.zip', [['GPCI2026.csv', await readFile(join(ROOT, 'seeds/gpci/GPCI2026.csv'))]]));
    const outer = await zip('RVU26A.zip', [['inner.zip', inner], ['notes.txt', 'hello']]);
    const s = await ingestFiles(wh, { dataset: 'gpci', files: [outer] });
    expect(s.files[0]).toMatchObject({ name: 'GPCI2026.csv', archive: 'RVU26A.zip/inner.zip' });
    const none = await ingestFiles(wh, { dataset: 'clfs', files: [outer] }).catch((e) => e);
    expect(none).toBeInstanceOf(IngestError);
    expect(none.message).toMatch(/RVU26A\.zip: no member of the archive is a clfs file/);
    const broken = await write('broken.zip', 'PK\u0003\u0004 not really');
    await expect(ingestFiles(wh, { dataset: 'clfs', files: [broken] })).rejects.toThrow(/broken\.zip: not a readable zip archive/);
  });

  it('refuses an archive whose member names climb out of the folder, publishing nothing', async () => {
    const z = await zip('evil.zip', [['AA/escape.csv', 'x'], ['GPCI2026.csv', await readFile(join(ROOT, 'seeds/gpci/GPCI2026.csv'))]]);
    // yazl will not write a `../` member name; patch one in (same length, both headers) as a hostile zip would carry.
    await writeFile(z, Buffer.from((await readFile(z)).toString('latin1').replaceAll('AA/escape.csv', '../escape.csv'), 'latin1'));
    await expect(ingestFiles(wh, { dataset: 'gpci', files: [z] })).rejects.toThrow(/evil\.zip: broken zip archive: invalid relative path: \.\.\/escape\.csv/);
    expect(await wh.currentId()).toBeNull();
  });

  it('refuses a damaged member (its CRC-32 does not match), naming archive and member, publishing nothing', async () => {
    const z = await zip('gpci.zip', [['GPCI2026.csv', await readFile(join(ROOT, 'seeds/gpci/GPCI2026.csv'))]], { compress: false });
    const bytes = await readFile(z);
    const at = bytes.indexOf(Buffer.from('ALABAMA'));
    expect(at).toBeGreaterThan(0);
    bytes[at] = 'X'.charCodeAt(0);
    await writeFile(z, bytes);
    await expect(ingestFiles(wh, { dataset: 'gpci', files: [z] })).rejects.toThrow(/^gpci\.zip\/GPCI2026\.csv: CRC-32 mismatch \(archive records [0-9a-f]+, data is [0-9a-f]+\): the archive is damaged$/);
    expect(await wh.currentId()).toBeNull();
  });

  it('refuses an archive that unpacks past the size cap', async () => {
    const big = await zip('big.zip', [['GPCI2026.csv', Buffer.alloc(200_000, 0x41)]]);
    await expect(ingestFiles(wh, { dataset: 'gpci', files: [big], zipMaxBytes: 100_000 })).rejects.toThrow(/big\.zip\/GPCI2026\.csv: the archive declares more than 100000 bytes unpacked/);
  });
});

describe('rcm snapshots list', () => {
  it('shows per snapshot the datasets it changed, with row deltas and change counts', async () => {
    await ingestFiles(wh, { dataset: 'gpci', files: [join(ROOT, 'seeds/gpci/GPCI2026.csv')] });
    await ingestFiles(wh, { dataset: 'mpfs_rvu', files: [RVU] });
    const r = await rcm('snapshots', 'list', '--json');
    const rows = JSON.parse(r.out);
    expect(rows).toHaveLength(2);
    expect(rows[1].changed).toEqual([{ dataset: 'mpfs_rvu', versions: ['2025D'], rows_before: 0, rows_after: 59, row_delta: 59, counts: { added: 59, removed: 0, changed: 0, unchanged: 0 } }]);
    expect(rows[0].changed[0]).toMatchObject({ dataset: 'gpci', row_delta: 63 });
    const text = await rcm('snapshots', 'list');
    expect(text.out).toMatch(/mpfs_rvu 2025D: \+59 rows \(0 -> 59\)  \+59 -0 ~0/);
  });
});

describe('datasets of several tables', () => {
  const Payer = z.object({ slug: z.string(), name: z.string(), aliases: z.array(z.string()) });
  const Rule = z.object({ slug: z.string(), claim_type: z.string(), standard_days: z.int(), citation: z.object({ title: z.string(), url: z.string() }) });
  const twoTables: Dataset<any> = defineMultiTableDataset({
    id: 'test_payers',
    title: 'test payers',
    publisher: 'test',
    formats: ['payers.jsonl'],
    tables: [table('test_payers', Payer, ['slug']), table('filing_rules', Rule, ['slug', 'claim_type'])],
    detect: (s) => s.name.endsWith('.jsonl'),
    version: (samples) => ({ label: /v(\d+)/.exec(samples[0]!.name)?.[1] ?? '1', effective_date: '2026-01-01' }),
    async *parse(file) {
      const text = await readFile(file.path, 'utf8');
      let line = 0;
      for (const l of text.split('\n')) {
        line++;
        if (!l.trim()) continue;
        const o = JSON.parse(l);
        yield { line, table: o.table, row: o.row };
      }
    },
  });
  const doc = (rules: number) =>
    [
      { table: 'test_payers', row: { slug: 'uhc', name: 'UnitedHealthcare', aliases: ['united', 'uhc'] } },
      ...Array.from({ length: rules }, (_, i) => ({ table: 'filing_rules', row: { slug: 'uhc', claim_type: `t${i}`, standard_days: 90 + i, citation: { title: 'Admin guide', url: 'https://example.org/guide' } } })),
    ]
      .map((x) => JSON.stringify(x))
      .join('\n');

  it('loads each table, reads it through <dataset>__<table> views with JSON columns, and diffs per table', async () => {
    const a = await ingestFiles(wh, { dataset: twoTables, files: [await write('payers-v1.jsonl', doc(3))] });
    expect(a.rows).toBe(4);
    const b = await ingestFiles(wh, { dataset: twoTables, files: [await write('payers-v2.jsonl', doc(4))], effectiveDate: '2026-04-01' });
    expect(b.change.tables).toEqual({ test_payers: { added: 0, removed: 0, changed: 0, unchanged: 1 }, filing_rules: { added: 1, removed: 0, changed: 0, unchanged: 3 } });
    expect(b.change.counts).toEqual({ added: 1, removed: 0, changed: 0, unchanged: 4 });
    const m = (await wh.current())!;
    expect(m.datasets.test_payers!.at(-1)!.tables).toEqual({ test_payers: 1, filing_rules: 4 });
    const snap = await MountedSnapshot.open(wh, m);
    try {
      const rules = await snap.all<Record<string, unknown>>(`SELECT * FROM test_payers__filing_rules WHERE version = '2' ORDER BY claim_type`);
      expect(rules).toHaveLength(4);
      const rule = fromStored(twoTables.tables[1]!, rules[0]!);
      expect(rule.citation).toEqual({ title: 'Admin guide', url: 'https://example.org/guide' });
      const payer = fromStored(twoTables.tables[0]!, (await snap.all<Record<string, unknown>>(`SELECT * FROM test_payers WHERE version = '2'`))[0]!);
      expect(payer.aliases).toEqual(['united', 'uhc']);
    } finally {
      snap.close();
    }
  });

  it('refuses a row for a table the dataset does not declare', async () => {
    const bad = JSON.stringify({ table: 'nope', row: {} });
    await expect(ingestFiles(wh, { dataset: twoTables, files: [await write('payers-v9.jsonl', bad)] })).rejects.toThrow(/table 'nope', which test_payers does not declare/);
  });
});
