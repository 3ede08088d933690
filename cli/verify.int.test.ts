import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type CliIO } from './main.js';
import { useSeededDir } from '../testing/harness.js';
import { tempDir } from '../testing/temp_dirs.js';
import { REPO_ROOT } from '../testing/datasets.js';

const dataDir = useSeededDir('rcm-verify-cli-');

async function rcm(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const o = { out: '', err: '' };
  const io: CliIO = { isTTY: false, env: { RCM_DATA_DIR: dataDir() }, stdout: (s) => void (o.out += s), stderr: (s) => void (o.err += s) };
  return { code: await main(args, io), ...o };
}

// Worked by hand from the seeds (PPRRVU2025_Oct.csv 99213: work 1.30, PE 1.35 non-facility and 0.57
// facility, MP 0.10, CONV FACTOR 32.3465; GPCI Manhattan 1.064 / 1.162 / 1.586):
// non-facility 3.1105 x 32.3465 = 100.61, facility 2.20414 x 32.3465 = 71.30.
const row = (nonFac: string, fac: string) => `"2025","13202","01","99213","  ","${nonFac}","${fac}"," ","1","A","0","0000000.00","0000000.00","9","0000000.00","0000000.00"`;

describe('rcm verify pfrev', () => {
  it('reads a PFREV file back through the payment composition: 0 when every amount matches, 3 naming each that differs', async () => {
    const dir = await tempDir('rcm-pfrev-');
    const good = join(dir, 'PFREV_good.txt');
    await writeFile(good, `${row('0000100.61', '0000071.30')}\n"TRL- CPT CODES AND DESCRIPTIONS ONLY ARE COPYRIGHT 2025 AMERICAN MEDICAL ASSOCIATION. "\n`);
    const ok = await rcm('verify', 'pfrev', good);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(': 2 amounts (1 rows x 2 settings) on 2025-10-01, mpfs_rvu 2025D: 0 differ');
    const bad = join(dir, 'PFREV_bad.txt');
    await writeFile(bad, `${row('0000100.61', '0000071.31')}\n`);
    const r = await rcm('verify', 'pfrev', bad);
    expect(r.code).toBe(3);
    expect(r.out).toContain('  line 1: 99213 1320201 facility: PFREV 71.31, answered 71.30');
    const json = JSON.parse((await rcm('verify', 'pfrev', bad, '--json')).out);
    expect(json).toMatchObject({ checked: 2, differences: [{ line: 1, setting: 'facility', expected: 71.31, answered: 71.3 }] });
  });

  it('names the line of a row that is not a PFREV row, and the file that is missing', async () => {
    const dir = await tempDir('rcm-pfrev-');
    const f = join(dir, 'PFREV_broken.txt');
    await writeFile(f, `${row('0000100.61', '0000071.30')}\nnot,a,row\n`);
    const r = await rcm('verify', 'pfrev', f);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${f}.line.2: not a PFREV row`);
    const missing = await rcm('verify', 'pfrev', join(dir, 'nope.txt'));
    expect([missing.code, /nope\.txt: file not found/.test(missing.err)]).toEqual([1, true]);
  });

  it('reads the loaded OPPS cap release back: every priced row the lesser of the PFS amount and the cap', async () => {
    const none = await rcm('verify', 'opps-cap');
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/opps_cap is not loaded/);
    const { ingestFiles } = await import('../ingest/pipeline.js');
    const { Warehouse } = await import('../warehouse/store.js');
    await ingestFiles(new Warehouse(dataDir()), { dataset: 'opps_cap', files: [join(REPO_ROOT, 'test/fixtures/opps_cap/RVU25D_OPPSCAP_Oct.csv')], rejectThreshold: 1 });
    const r = await rcm('verify', 'opps-cap');
    expect(r.code, r.out + r.err).toBe(0);
    // The fixture's two priced rows (70496 and 70496-26 in 0111205), both settings, each under its PFS amount.
    expect(r.out).toContain('opps_cap 2025D: 4 amounts on 2025-10-01 (4 capped), 0 rows skipped, 0 differ');
  });

  it('reads a CLFS file back through the lab route: the seed as loaded, a rate edited named by line', async () => {
    const seed = join(REPO_ROOT, 'seeds/clfs/PUF_CLFS_CY2026_Q3V1.csv');
    const ok = await rcm('verify', 'clfs', seed);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(': 20 rows against clfs 2026Q3V1: 0 differ');
    const text = await readFile(seed, 'latin1');
    const dir = await tempDir('rcm-clfs-');
    const edited = join(dir, 'PUF_CLFS_CY2026_Q3V1.csv');
    const line = text.split(/\r?\n/).findIndex((l) => /^"?2026"?,"?80053"?,/.test(l)) + 1;
    await writeFile(edited, text.replace(/^("?2026"?,"?80053"?,"?"?,[^,]*,[^,]*,)"?([\d.]+)"?/m, '$1"99.99"'), 'latin1');
    const r = await rcm('verify', 'clfs', edited);
    expect(r.code).toBe(3);
    expect(r.out).toMatch(new RegExp(`^  line ${line} 80053 rate: file 99\\.99, answered [\\d.]+$`, 'm'));
  });

  it('reads a DMEPOS file back through the DME route: the seed as loaded, a fee edited named by line, state and field', async () => {
    const seed = join(REPO_ROOT, 'seeds/dmepos/DMEPOS25_APR.csv');
    const ok = await rcm('verify', 'dmepos', seed);
    expect(ok.code, ok.out + ok.err).toBe(0);
    expect(ok.out).toMatch(/: \d+ rows against dmepos 2025-04: 0 differ\n$/);
    const lines = (await readFile(seed, 'latin1')).split('\n');
    const at = lines.findIndex((l) => l.startsWith('E0110,NU,'));
    // Alabama's non-rural fee (the first state column), 92.15 in the file.
    lines[at] = lines[at]!.replace(/^(E0110,NU,,D,IN,108\.41,92\.15,)92\.15,/, '$192.16,');
    const edited = join(await tempDir('rcm-dme-'), 'DMEPOS25_APR.csv');
    await writeFile(edited, lines.join('\n'), 'latin1');
    const r = await rcm('verify', 'dmepos', edited);
    expect(r.code).toBe(3);
    expect(r.out).toMatch(new RegExp(`^  line ${at + 1} E0110-NU AL non_rural_rate: file 92\\.16, answered 92\\.15$`, 'm'));
  });
});
