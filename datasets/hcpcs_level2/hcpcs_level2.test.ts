import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, textRecords, toSourceFile } from '../_shared/source.js';
import { openTestSnapshot, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { buildXlsx } from '../../testing/xlsx.js';
import type { DatasetVersion } from '../../warehouse/manifest.js';
import { hcpcsLevel2 } from './dataset.js';
import { findHcpcsLevel2Rows, hcpcsInvalidOn, hcpcsRelease, isWholeRelease } from './queries.js';

// The seed is 13 rows of CMS's October 2026 alpha-numeric file (modifiers A1 … AS and five terminated
// modifiers), lines as shared/data/hcpcs-level2 holds them.
const seed = join(REPO_ROOT, 'seeds', hcpcsLevel2.id, 'HCPC2026_OCT_ANWEB.excerpt.csv');
const header = async (): Promise<string> => (await readFile(seed, 'utf8')).split('\n')[0]!;
/** A data line in the 48-column layout: the named cells set, every other cell empty. */
const lineOf = async (cells: Record<string, string>): Promise<string> =>
  (await header())
    .split(',')
    .map((name) => {
      const v = cells[name] ?? '';
      return v.includes(',') ? `"${v}"` : v;
    })
    .join(',');

describe('hcpcs_level2 parser (seed)', () => {
  it('detects the seed by its header and reads the release from the file name', async () => {
    const s = await sampleFile(await toSourceFile(seed));
    expect(hcpcsLevel2.detect(s)).toBe(true);
    expect(hcpcsLevel2.version([s])).toEqual({ label: '2026-10', effective_date: '2026-10-01' });
  });

  it('reads every seed row, trimming the right-justified modifiers, with ISO dates and null for empty cells', async () => {
    const { rows, rejects } = await parseAll(hcpcsLevel2, seed);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(13);
    expect(rows.every((r) => r.record_kind === 'modifier' && /^[A-Z0-9]{2}$/.test(r.code))).toBe(true);
    // `   AA,0010,7,Anesthesia services performed personally by anesthesiologist,…,D,…,19840101,20010101,,N`
    expect(rows.find((r) => r.code === 'AA')).toEqual({
      code: 'AA',
      record_kind: 'modifier',
      long_description: 'Anesthesia services performed personally by anesthesiologist',
      short_description: 'Anesthesia perf by anesgst',
      pricing_indicators: [],
      multiple_pricing_indicator: null,
      coverage_code: 'D',
      betos: null,
      type_of_service: [],
      asc_group: null,
      asc_date: null,
      opps_status_indicator: null,
      anesthesia_base_units: null,
      added_date: '1984-01-01',
      action_effective_date: '2001-01-01',
      termination_date: null,
      action_code: 'N',
    });
    // `   JG,…,20180101,20250101,20241231,N`: terminated at the end of 2024.
    expect(rows.find((r) => r.code === 'JG')).toMatchObject({ added_date: '2018-01-01', action_effective_date: '2025-01-01', termination_date: '2024-12-31' });
    // A quoted short description with a comma: `"Md supervision, >4 anes proc"`.
    expect(rows.find((r) => r.code === 'AD')!.short_description).toBe('Md supervision, >4 anes proc');
  });

  it('joins a RECID 4 continuation to its code and reads pricing indicators and types of service as lists', async () => {
    // Written for this test in the file's layout (the real excerpt holds modifiers only).
    const text = [
      await header(),
      await lineOf({ HCPC: 'A9999', SEQNUM: '0010', RECID: '3', 'LONG DESCRIPTION': 'First part of a description,', 'SHORT DESCRIPTION': 'Test code', PRICE1: '11', PRICE2: '46', COV: 'D', BETOS: 'O1A', TOS1: '1', TOS2: 'F', 'ADD DT': '20270101', 'ACT EFF DT': '20270101', 'ACTION CD': 'A' }),
      await lineOf({ HCPC: 'A9999', SEQNUM: '0020', RECID: '4', 'LONG DESCRIPTION': 'second part' }),
    ].join('\n');
    const { rows, rejects } = await parseAll(hcpcsLevel2, await writeTempFile('HCPC2027_JAN_ANWEB.csv', text));
    expect(rejects).toEqual([]);
    expect(rows).toEqual([expect.objectContaining({ code: 'A9999', record_kind: 'procedure', long_description: 'First part of a description, second part', pricing_indicators: ['11', '46'], type_of_service: ['1', 'F'], betos: 'O1A', added_date: '2027-01-01' })]);
  });

  it('rejects a bad date, a continuation without its code and a repeated code, naming line and column', async () => {
    const text = [
      await header(),
      await lineOf({ HCPC: '   A1', SEQNUM: '0010', RECID: '7', 'LONG DESCRIPTION': 'Dressing for one wound', 'ADD DT': '20021301' }),
      await lineOf({ HCPC: 'B4000', SEQNUM: '0020', RECID: '4', 'LONG DESCRIPTION': 'orphan' }),
      await lineOf({ HCPC: '   A2', SEQNUM: '0010', RECID: '7', 'LONG DESCRIPTION': 'Dressing for two wounds' }),
      await lineOf({ HCPC: '   A2', SEQNUM: '0010', RECID: '7', 'LONG DESCRIPTION': 'Dressing for two wounds' }),
    ].join('\n');
    const { rows, rejects } = await parseAll(hcpcsLevel2, await writeTempFile('HCPC2026_OCT_ANWEB.csv', text));
    expect(rows.map((r) => r.code)).toEqual(['A2']);
    expect(rejects.map((r) => [r.line, r.issues[0]!.loc[2], r.issues[0]!.type])).toEqual([
      [2, 'ADD DT', 'date_parsing'],
      [3, 'RECID', 'value_error'],
      [5, 'HCPC', 'duplicate_key'],
    ]);
  });

  it('reads the CMS workbook (HCPC2026_OCT_ANWEB.xlsx) into the same rows as its CSV export', async () => {
    // The seed's cells as a workbook holds them: codes padded, SEQNUM and dates as numbers.
    const csv = (await readFile(seed, 'utf8')).split('\n');
    const cells = [...textRecords(csv.join('\n'), { name: 'x.csv', size: 0 })].map((r) => r.fields.map((v, i) => (i > 0 && /^\d+$/.test(v) && !/^0/.test(v) ? Number(v) : v === '' ? null : v)));
    const xlsx = await writeTempFile('HCPC2026_OCT_ANWEB.xlsx', await buildXlsx([{ name: 'HCPC2026_OCT_ANWEB', rows: cells }]));
    const s = await sampleFile(await toSourceFile(xlsx));
    expect(hcpcsLevel2.detect(s)).toBe(true);
    expect(hcpcsLevel2.version([s])).toEqual({ label: '2026-10', effective_date: '2026-10-01' });
    const fromXlsx = await parseAll(hcpcsLevel2, xlsx);
    expect(fromXlsx.rejects).toEqual([]);
    expect(fromXlsx.rows).toEqual((await parseAll(hcpcsLevel2, seed)).rows);
  });

  it('names the release of other months and refuses a name without one', () => {
    expect(hcpcsLevel2.version([{ name: 'HCPC2025_JAN_ANWEB_v3.xlsx', text: '', lines: [] } as never])).toEqual({ label: '2025-01', effective_date: '2025-01-01' });
    expect(hcpcsLevel2.version([{ name: 'hcpcs.csv', text: '', lines: [] } as never])).toBeUndefined();
  });
});

describe('hcpcs_level2 queries', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: hcpcsLevel2, files: [seed], seed: true }]);
  });
  afterAll(() => snap?.close());

  it('finds a modifier in the loaded release, and nothing for an absent code', async () => {
    expect(await findHcpcsLevel2Rows(snap, 'jf')).toEqual([expect.objectContaining({ code: 'JF', termination_date: '2015-06-30', version: '2026-10' })]);
    expect(await findHcpcsLevel2Rows(snap, 'Z9')).toEqual([]);
  });

  it('answers a date of the release\'s quarter, and says a date outside it is not covered; a seed is never a whole release', async () => {
    const inQ4 = await hcpcsRelease(snap, '2026-11-02');
    expect(inQ4).toMatchObject({ version: '2026-10', covered: true, whole: false });
    const before = await hcpcsRelease(snap, '2026-08-01');
    expect(before).toMatchObject({ version: '2026-10', covered: false });
    expect(before!.warning).toMatch(/no hcpcs_level2 version loaded covers date of service 2026-08-01/);
  });

  it('judges a row on a date: terminated after TERM DT, not yet effective before ADD DT', async () => {
    const codes = (await hcpcsRelease(snap, '2026-11-02'))!.codes;
    expect(hcpcsInvalidOn(codes.get('JG')!, '2026-11-02')).toEqual({ reason: 'terminated', since: '2024-12-31' });
    expect(hcpcsInvalidOn(codes.get('JG')!, '2024-12-31')).toBeNull();
    // AC: ADD DT 20260701.
    expect(hcpcsInvalidOn(codes.get('AC')!, '2026-06-30')).toEqual({ reason: 'not_yet_effective', since: '2026-07-01' });
    expect(hcpcsInvalidOn(codes.get('AC')!, '2026-07-01')).toBeNull();
  });
});

describe('isWholeRelease', () => {
  const v = (o: Partial<DatasetVersion>): DatasetVersion => ({ dataset: 'hcpcs_level2', version: '2026-10', effective_date: '2026-10-01', file: 'x', source_files: [{ name: 'HCPC2026_OCT_ANWEB.xlsx', sha256: '', bytes: 1 }], rows: 8000, rejects: 0, loaded_at: '', ...o });
  it('reads a real release of thousands of rows as whole, and a seed, an excerpt or a short file as not', () => {
    expect(isWholeRelease(v({}))).toBe(true);
    expect(isWholeRelease(v({ seed: true }))).toBe(false);
    expect(isWholeRelease(v({ source_files: [{ name: 'HCPC2026_OCT_ANWEB.excerpt.csv', sha256: '', bytes: 1 }] }))).toBe(false);
    expect(isWholeRelease(v({ rows: 35 }))).toBe(false);
  });
});
