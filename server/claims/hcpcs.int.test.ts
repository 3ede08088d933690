import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hcpcsLevel2 } from '../../datasets/hcpcs_level2/dataset.js';
import { WHOLE_RELEASE_MIN_ROWS } from '../../datasets/hcpcs_level2/queries.js';
import { icd10cm } from '../../datasets/icd10cm/dataset.js';
import { openTestSnapshot, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { claim837, type Claim837Line } from '../../testing/x12.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { Trace } from '../trace.js';
import { checkClaims } from './service.js';

// HCPCS Level II validity by date, worked by hand from the seed (CMS's October 2026 file, an
// excerpt: JG ended 2024-12-31, AA in force since 1984) and from a whole release written in the
// same layout for the cases the excerpt cannot show (a code not yet effective, a code missing).

const seed = join(REPO_ROOT, 'seeds/hcpcs_level2/HCPC2026_OCT_ANWEB.excerpt.csv');
const icdSeed = join(REPO_ROOT, 'seeds/icd10cm');

type Finding = { kind: string; status: string; fix: string | null; message: string; if_sent: { group: string; carc: string } | null; citations: { title: string; url: string }[] };

async function check(snapshot: SnapshotReader, lines: Claim837Line[]) {
  const trace = new Trace(snapshot, () => new Date('2026-12-01T00:00:00Z'));
  const r = await checkClaims(snapshot, claim837([{ pcn: 'H1', lines }]), { asOf: '2026-12-01', today: '2026-12-01', where: {}, trace });
  const claim = r.claims[0]!;
  const hcpcs = (i: number) => (claim.lines[i]!.findings as Finding[]).filter((f) => f.message.includes('HCPCS Level II') || f.citations.some((c) => c.title.includes('HCPCS Level II')));
  return { claim, hcpcs, reliability: r.reliability };
}

describe('claim check: HCPCS Level II validity on the date of service (seed excerpt)', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: hcpcsLevel2, files: [seed], seed: true }]);
  });
  afterAll(() => snap?.close());

  it('a modifier terminated before the date is CO-182 with the fix to correct it, citing the release', async () => {
    const { hcpcs, reliability } = await check(snap, [{ code: '99213', mods: ['JG'], date: '2026-11-02' }]);
    const [f] = hcpcs(0);
    expect(f).toMatchObject({ kind: 'modifier', status: 'fail', fix: 'correct_code', if_sent: { group: 'CO', carc: '182' } });
    expect(f!.message).toMatch(/JG .* ended on 2024-12-31 .*release 2026-10.*not valid on 2026-11-02/);
    expect(f!.citations[0]!.title).toBe('CMS HCPCS Level II alpha-numeric file, release 2026-10 (effective 2026-10-01): JG TERM DT 2024-12-31');
    expect(reliability.dataset_versions.hcpcs_level2).toBe('2026-10');
  });

  it('a modifier in force passes silently, and CPT modifiers are not HCPCS Level II modifiers', async () => {
    const { hcpcs, claim } = await check(snap, [{ code: '99213', mods: ['25', 'AA'], date: '2026-11-02' }]);
    expect(hcpcs(0)).toEqual([]);
    expect(claim.unchecked.filter((u) => u.check === 'hcpcs_validity')).toEqual([]);
  });

  it('a code or modifier the excerpt lacks is not decided (no_data), never a finding', async () => {
    const { hcpcs } = await check(snap, [{ code: 'G0463', mods: ['GA'], date: '2026-11-02' }]);
    expect(hcpcs(0).map((f) => [f.kind, f.status])).toEqual([
      ['code', 'no_data'],
      ['modifier', 'no_data'],
    ]);
    expect(hcpcs(0).every((f) => f.if_sent === null && /not in the loaded excerpt of release 2026-10/.test(f.message))).toBe(true);
  });

  it('a date outside the loaded release\'s quarter: the check is unchecked, JG not judged', async () => {
    const { hcpcs, claim } = await check(snap, [{ code: '99213', mods: ['JG'], date: '2026-08-03' }]);
    expect(hcpcs(0)).toEqual([]);
    expect(claim.unchecked).toContainEqual({ check: 'hcpcs_validity', reason: expect.stringMatching(/^no HCPCS Level II release covering 2026-08-03 is loaded/) });
    expect(claim.status).not.toBe('clean');
  });
});

describe('claim check: HCPCS Level II validity against a whole release', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    // A release of the January 2027 quarter in the CMS layout, long enough to count as whole.
    const header = (await readFile(seed, 'utf8')).split('\n')[0]!;
    const names = header.split(',');
    const line = (c: Record<string, string>) => names.map((n) => c[n] ?? '').join(',');
    const rows = [header, line({ HCPC: '   AA', SEQNUM: '0010', RECID: '7', 'LONG DESCRIPTION': 'Anesthesia services performed personally by anesthesiologist', 'SHORT DESCRIPTION': 'Anesthesia perf by anesgst', 'ADD DT': '19840101', 'ACT EFF DT': '20010101', 'ACTION CD': 'N' })];
    rows.push(line({ HCPC: 'A0021', SEQNUM: '0010', RECID: '3', 'LONG DESCRIPTION': 'A code added in March', 'SHORT DESCRIPTION': 'Added in March', 'ADD DT': '20270301', 'ACT EFF DT': '20270301', 'ACTION CD': 'A' }));
    for (let n = 1000; rows.length <= WHOLE_RELEASE_MIN_ROWS + 1; n++) rows.push(line({ HCPC: `B${n}`, SEQNUM: '0010', RECID: '3', 'LONG DESCRIPTION': 'filler', 'SHORT DESCRIPTION': 'filler', 'ADD DT': '20000101', 'ACT EFF DT': '20000101', 'ACTION CD': 'N' }));
    const file = await writeTempFile('HCPC2027_JAN_ANWEB.csv', rows.join('\n'));
    snap = await openTestSnapshot([{ dataset: hcpcsLevel2, files: [file] }]);
  });
  afterAll(() => snap?.close());

  it('a code not yet effective on the date is CO-181, correct the code', async () => {
    const { hcpcs } = await check(snap, [{ code: 'A0021', date: '2027-01-15' }]);
    expect(hcpcs(0)).toEqual([expect.objectContaining({ kind: 'code', status: 'fail', fix: 'correct_code', if_sent: expect.objectContaining({ group: 'CO', carc: '181' }) })]);
    expect(hcpcs(0)[0]!.message).toMatch(/A0021 .* takes effect on 2027-03-01 .*not valid on 2027-01-15/);
    const later = await check(snap, [{ code: 'A0021', date: '2027-03-01' }]);
    expect(later.hcpcs(0)).toEqual([]);
  });

  it('a code or modifier missing from a whole release is a finding; a dental code is not', async () => {
    const { hcpcs } = await check(snap, [{ code: 'A0999', mods: ['ZQ'], date: '2027-01-15' }]);
    expect(hcpcs(0).map((f) => [f.kind, f.status, f.if_sent?.carc])).toEqual([
      ['code', 'fail', '181'],
      ['modifier', 'fail', '182'],
    ]);
    expect((await check(snap, [{ code: 'D0120', date: '2027-01-15' }])).hcpcs(0)).toEqual([]);
  });
});

describe('claim check: HCPCS Level II not loaded', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    const { readdir } = await import('node:fs/promises');
    snap = await openTestSnapshot([{ dataset: icd10cm, files: (await readdir(icdSeed)).filter((n) => !n.endsWith('.md')).map((n) => join(icdSeed, n)), seed: true }]);
  });
  afterAll(() => snap?.close());

  it('names the check as not run for a line with a Level II code, and not for a CPT-only line', async () => {
    expect((await check(snap, [{ code: 'J1100', date: '2026-11-02' }])).claim.unchecked).toContainEqual({ check: 'hcpcs_validity', reason: 'hcpcs_level2 is not loaded' });
    expect((await check(snap, [{ code: '99213', date: '2026-11-02' }])).claim.unchecked.map((u) => u.check)).not.toContain('hcpcs_validity');
  });
});
