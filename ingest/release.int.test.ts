import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../testing/shared.js';
import { tempDir } from '../testing/temp_dirs.js';
import { zipBytes } from '../testing/zips.js';
import { IngestError } from '../datasets/_shared/issue.js';
import { Warehouse } from '../warehouse/store.js';
import { ingestFiles } from './pipeline.js';
import { ingestRelease, useOf } from './release.js';
import { dropStaged, listStaged, publishStaged, stageFiles } from './staging.js';

const seed = (p: string) => join(REPO_ROOT, 'seeds', p);
const GPCI = seed('gpci/GPCI2026.csv');
const LOCCO = seed('locality_county/25LOCCO.csv');
const CAP = join(REPO_ROOT, 'test/fixtures/opps_cap/RVU25D_OPPSCAP_Oct.csv');
const PTP = (p: number) => seed(`ncci_ptp_prac/32.2/ccipra-v322r0-f${p}.txt`);
const ZIP_MAX = 64 * 1024 * 1024;
const ISA = 'ISA*00*          *00*          *ZZ*PAYER          *ZZ*PROVIDER       *260803*1200*^*00501*000000001*0*T*:~';

let dir: string;
let wh: Warehouse;
beforeEach(async () => {
  dir = await tempDir('rcm-release-');
  wh = new Warehouse(join(dir, 'var'));
});

/** A release folder: each entry copied from a path, or written from text. */
async function folder(name: string, files: Record<string, string | { from: string }>): Promise<string> {
  const root = join(dir, name);
  for (const [rel, body] of Object.entries(files)) {
    const p = join(root, rel);
    await mkdir(join(p, '..'), { recursive: true });
    if (typeof body === 'string') await writeFile(p, body);
    else await copyFile(body.from, p);
  }
  return root;
}

describe('a whole release in one command', () => {
  it('sends each file to its dataset, reads one format of a table, names what the other files are, and publishes one snapshot', async () => {
    const gpciText = await readFile(GPCI, 'latin1');
    const root = await folder('RVU26A', {
      'GPCI2026.csv': { from: GPCI },
      // The same table in another name's format: listed as a twin, not read twice.
      'GPCI2026.xlsx': 'PK\u0003\u0004 not read',
      '25LOCCO.csv': { from: LOCCO },
      'RVU26A.pdf': '%PDF-1.7\n',
      'notes/README.md': '# notes\n',
      'remits/a.835': `${ISA}GS*HP*A*B*20260803*1200*1*X*005010X221A1~ST*835*0001~BPR*I*1*C*CHK~SE*3*0001~`,
      'claims/b.837': `${ISA}GS*HC*A*B*20260803*1200*1*X*005010X222A1~ST*837*0001*005010X222A1~SE*2*0001~`,
    });
    expect(gpciText.length).toBeGreaterThan(0);
    const s = await ingestRelease(wh, root, { shownAs: 'RVU26A' });
    expect(s.published).toBe(true);
    expect(s.versions.map((v) => `${v.dataset} ${v.version}`)).toEqual(['gpci 2026', 'locality_county 2025']);
    const manifest = (await wh.current())!;
    expect(manifest.id).toBe(s.snapshot_id);
    expect(Object.keys(manifest.datasets).sort()).toEqual(['gpci', 'locality_county']);
    const by = Object.fromEntries(s.files.map((f) => [f.file, f]));
    expect(by['GPCI2026.csv']).toMatchObject({ dataset: 'gpci', status: 'loaded', rows: 63, command: 'rcm ingest gpci RVU26A/GPCI2026.csv' });
    expect(by['remits/a.835']).toMatchObject({ status: 'not_a_source', command: 'rcm remit explain RVU26A/remits/a.835' });
    expect(by['claims/b.837']).toMatchObject({ status: 'not_a_source', command: 'rcm claim check RVU26A/claims/b.837' });
    expect(by['RVU26A.pdf']).toMatchObject({ status: 'not_a_source', command: 'none' });
    expect(by['notes/README.md']!.note).toBe('documentation');
    expect(Object.keys(by)).toHaveLength(7);
  });

  it('publishes nothing when one version fails, and names the command that loads it; --skip-failed publishes the rest', async () => {
    const root = await folder('q3', { 'GPCI2026.csv': { from: GPCI }, 'ccipra-v322r0-f1.txt': { from: PTP(1) } });
    const before = await wh.currentId();
    const s = await ingestRelease(wh, root, { shownAs: 'q3' });
    expect(s.published).toBe(false);
    expect(await wh.currentId()).toBe(before);
    expect(s.failed).toEqual([expect.objectContaining({ dataset: 'ncci_ptp_prac', version: '32.2', reason: expect.stringMatching(/missing part f2, f3, f4/), command: 'rcm ingest --stage ncci_ptp_prac-32.2 q3/ccipra-v322r0-f1.txt (then the missing parts; rcm stage publish ncci_ptp_prac-32.2)' })]);
    expect(s.files.find((f) => f.file === 'GPCI2026.csv')).toMatchObject({ status: 'loaded', rows: 63 });
    // Nothing staged is left behind.
    expect((await readdir(wh.path('tmp')).catch(() => [])).length).toBe(0);

    const skipped = await ingestRelease(wh, root, { shownAs: 'q3', skipFailed: true });
    expect(skipped.published).toBe(true);
    expect(Object.keys((await wh.current())!.datasets)).toEqual(['gpci']);
    expect(skipped.files.find((f) => f.file.startsWith('ccipra'))).toMatchObject({ status: 'skipped', dataset: 'ncci_ptp_prac' });
  });

  it('reads a zip, the release in its name stating the version of a member that states none', async () => {
    const zip = join(dir, 'RVU25D.zip');
    await writeFile(zip, await zipBytes([['OPPSCAP_Oct.csv', await readFile(CAP)], ['GPCI2026.csv', await readFile(GPCI)], ['RVU25D.pdf', '%PDF-1.7\n']]));
    const s = await ingestRelease(wh, zip, { shownAs: 'RVU25D.zip', dryRun: true, rejectThreshold: 1 });
    expect(s.dry_run).toBe(true);
    expect(s.published).toBe(false);
    expect(s.failed).toEqual([]);
    expect(s.versions.find((v) => v.dataset === 'opps_cap')).toMatchObject({ version: '2025D', effective_date: '2025-10-01' });
    expect(s.files.find((f) => f.file === 'RVU25D.zip/OPPSCAP_Oct.csv')).toMatchObject({ command: 'rcm ingest opps_cap RVU25D.zip' });
    expect(s.files.find((f) => f.file === 'RVU25D.zip/RVU25D.pdf')).toMatchObject({ status: 'not_a_source' });
    expect(await wh.currentId()).toBeNull();
    // The single-dataset form reads the same label from the zip's name.
    const one = await ingestFiles(wh, { dataset: 'opps_cap', files: [zip], rejectThreshold: 1 });
    expect(one).toMatchObject({ version: '2025D', effective_date: '2025-10-01' });
  });

  it('refuses a release in which no file is one a dataset reads, naming what each is', async () => {
    const root = await folder('docs', { 'a.pdf': '%PDF-1.4\n', 'b.835': `${ISA}ST*835*1~` });
    await expect(ingestRelease(wh, root, { shownAs: 'docs' })).rejects.toThrow(/no file of the release is one a dataset reads \(a\.pdf: documentation.*b\.835: remittance/);
  });
});

describe('what a file no dataset reads is', () => {
  const sample = (name: string, text: string) => ({ name, text, lines: text.split('\n'), encoding: 'utf-8' as const, cut: false });
  it('names X12 by its transaction set, a 277CA apart from a status response, and the PFREV file', () => {
    expect(useOf(sample('x.txt', `${ISA}ST*277*1*005010X214~`)).command).toBe('rcm remit explain FILE');
    expect(useOf(sample('x.277', `${ISA}ST*277*1*005010X212~`)).command).toBe('none');
    expect(useOf(sample('x.270', `${ISA}ST*270*1~`))).toMatchObject({ what: expect.stringContaining('270'), command: 'none' });
    expect(useOf(sample('PFREV25C.txt', '"2025","01112","05","76145","  ","0001339.81","0001339.81"," "\n')).command).toBe('rcm verify pfrev FILE');
    expect(useOf(sample('ZIP5lyout.txt', 'ZIP CODE 1-5')).what).toMatch(/layout/);
    expect(useOf(sample('x.csv', 'a,b\n1,2\n')).command).toBe('none');
  });
});

describe('an effective date is never left unknown', () => {
  it('refuses a file that states none, saying it carries no date to suggest', async () => {
    await expect(ingestFiles(wh, { dataset: 'opps_cap', files: [await copyTo('OPPSCAP_Jan.csv', CAP)], version: '2026A' })).rejects.toThrow(
      /states no effective date for version 2026A: --effective-date YYYY-MM-DD is required; it carries no date/,
    );
    const ok = await ingestFiles(wh, { dataset: 'opps_cap', files: [await copyTo('OPPSCAP_Jan.csv', CAP)], version: '2026A', effectiveDate: '2026-01-01', rejectThreshold: 1 });
    expect(ok.effective_date).toBe('2026-01-01');
  });
});

async function copyTo(name: string, from: string): Promise<string> {
  const p = join(dir, name);
  await copyFile(from, p);
  return p;
}

describe('a release staged file by file', () => {
  it('lists an NCCI quarter as incomplete until its four parts are staged, publishes it only when asked, then removes it', async () => {
    const added = await stageFiles(wh, 'q3', [PTP(1), PTP(2)], ZIP_MAX);
    expect(added.map((a) => [a.file, a.datasets, a.added])).toEqual([
      ['ccipra-v322r0-f1.txt', ['ncci_ptp_prac'], true],
      ['ccipra-v322r0-f2.txt', ['ncci_ptp_prac'], true],
    ]);
    let [q3] = await listStaged(wh, ZIP_MAX);
    expect(q3!.versions).toEqual([expect.objectContaining({ dataset: 'ncci_ptp_prac', version: '32.2', complete: false, missing: expect.stringMatching(/missing part f3, f4/) })]);
    // Staging publishes nothing, and a file staged again with the same bytes is a no-op.
    expect(await wh.currentId()).toBeNull();
    expect((await stageFiles(wh, 'q3', [PTP(2), PTP(3), PTP(4)], ZIP_MAX)).map((a) => a.added)).toEqual([false, true, true]);
    [q3] = await listStaged(wh, ZIP_MAX);
    expect(q3!.versions[0]).toMatchObject({ complete: true, missing: null, files: expect.arrayContaining(['ccipra-v322r0-f4.txt']) });

    const dry = await publishStaged(wh, 'q3', { dryRun: true });
    expect(dry.published).toBe(false);
    expect(await listStaged(wh, ZIP_MAX)).toHaveLength(1);
    const s = await publishStaged(wh, 'q3', {});
    expect(s.published).toBe(true);
    expect((await wh.current())!.datasets.ncci_ptp_prac!.map((v) => v.version)).toEqual(['32.2']);
    expect(await listStaged(wh, ZIP_MAX)).toEqual([]);
  });

  it('refuses a file no dataset reads and a different file under a staged name, and drops a staged release', async () => {
    const pdf = join(dir, 'notes.pdf');
    await writeFile(pdf, '%PDF-1.7\n');
    await expect(stageFiles(wh, 'x', [GPCI, pdf], ZIP_MAX)).rejects.toThrow(IngestError);
    // Nothing of a refused call is staged.
    expect(await listStaged(wh, ZIP_MAX)).toEqual([]);
    await stageFiles(wh, 'x', [GPCI], ZIP_MAX);
    const other = join(dir, 'other');
    await mkdir(other);
    await writeFile(join(other, 'GPCI2026.csv'), (await readFile(GPCI, 'latin1')).replace('ALABAMA', 'ALABAMA '), 'latin1');
    await expect(stageFiles(wh, 'x', [join(other, 'GPCI2026.csv')], ZIP_MAX)).rejects.toThrow(/a different file named GPCI2026\.csv is already staged in x/);
    await expect(stageFiles(wh, '../up', [GPCI], ZIP_MAX)).rejects.toThrow(/label/);
    expect(await dropStaged(wh, 'x')).toBe(true);
    expect(await dropStaged(wh, 'x')).toBe(false);
  });
});
