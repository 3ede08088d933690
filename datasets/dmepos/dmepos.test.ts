import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseItems, writeTempFile } from '../../testing/datasets.js';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { dmepos, dmeposVersionOf, type DmeposRow } from './dataset.js';
import { chooseDmeRow, toModifierPair } from './queries.js';

const SEED = resolve(import.meta.dirname, '../../seeds/dmepos/DMEPOS25_APR.csv');

const STATES = ['AL', 'AK'];
const HEADER = `HCPCS,Mod,Mod2,JURIS,CATG,Ceiling,Floor,${STATES.map((s) => `${s} (NR),${s} (R)`).join(',')},Description`;
const PREAMBLE = '"Durable Medical Equipment,",,,\n(DMEPOS),,,\nApril 2025 Fee Schedule,,,\n,,,\n';

describe('dmepos seed', () => {
  it('detects the file, reads the April 2025 version and stores one row per state', async () => {
    const f = await toSourceFile(SEED);
    const s = await sampleFile(f);
    expect(dmepos.detect(s)).toBe(true);
    expect(dmepos.version([s])).toEqual({ label: '2025-04', effective_date: '2025-04-01' });
    const items = await parseItems(dmepos, SEED);
    expect(items.filter((i) => i.issues)).toEqual([]);
    expect(items).toHaveLength(15 * 53);
    const rows = items.map((i) => i.row!) as DmeposRow[];
    const e0110 = rows.find((r) => r.hcpcs_code === 'E0110' && r.modifier === 'NU' && r.state === 'AK');
    expect(e0110).toEqual({
      hcpcs_code: 'E0110', modifier: 'NU', modifier2: '', state: 'AK', non_rural_rate: 113.78, rural_rate: null,
      ceiling: 108.41, floor: 92.15, jurisdiction: 'D', category: 'IN', short_descriptor: 'Crutch forearm pair', year: 2025,
    });
    // Quoted description with doubled inch marks survives.
    expect(rows.find((r) => r.hcpcs_code === 'A4407')?.short_descriptor).toBe('Ext wear ost skn barr <=4sq"');
    // `0.00` ceiling/floor and a rural-only fee are nulls, not $0.
    const ke = rows.find((r) => r.hcpcs_code === 'A4636' && r.modifier === 'NU' && r.modifier2 === 'KE' && r.state === 'AL');
    expect([ke?.non_rural_rate, ke?.rural_rate, ke?.ceiling]).toEqual([null, 4.52, null]);
  });
});

describe('dmepos bad input', () => {
  it('throws on an empty file', async () => {
    await expect(parseItems(dmepos, await writeTempFile('DMEPOS25_APR.csv', ''))).rejects.toThrow(/empty/);
  });

  it('yields nothing for a header-only file', async () => {
    expect(await parseItems(dmepos, await writeTempFile('DMEPOS25_APR.csv', `${PREAMBLE}${HEADER}\n`))).toEqual([]);
  });

  it('detects a header whose cells are quoted', async () => {
    const p = await writeTempFile('DMEPOS25_APR.csv', `${PREAMBLE}${HEADER.split(',').map((c) => `"${c}"`).join(',')}\n`);
    expect(dmepos.detect(await sampleFile(await toSourceFile(p)))).toBe(true);
  });

  it('refuses another dataset file (CLFS) by content', async () => {
    const p = await writeTempFile('x.csv', 'YEAR,HCPCS,MOD,EFF_DATE,INDICATOR,RATE,SHORTDESC\n2026,80053,,20260101,N,10.56,Panel\n');
    expect(dmepos.detect(await sampleFile(await toSourceFile(p)))).toBe(false);
    await expect(parseItems(dmepos, p)).rejects.toThrow(/no header row/);
  });

  it('rejects a corrupted row with every bad cell located, and keeps the good rows', async () => {
    const p = await writeTempFile(
      'DMEPOS25_APR.csv',
      `${PREAMBLE}${HEADER}\nE0110,NU,,D,IN,108.41,92.15,92.15,0.00,113.78,0.00,Crutch forearm pair\nE011,NU,,D,IN,1.0,1.0,abc,0.00,1.00,0.00,Broken\n`,
    );
    const items = await parseItems(dmepos, p);
    expect(items.filter((i) => i.row)).toHaveLength(2);
    const bad = items.find((i) => i.issues)!;
    expect(bad.line).toBe(7);
    expect(bad.issues!.map((i) => i.loc)).toEqual([
      ['row', 7, 'HCPCS'],
      ['row', 7, 'AL (NR)'],
    ]);
    expect(bad.issues![1]).toMatchObject({ type: 'float_parsing', input: 'abc' });
  });

  it('throws when a state lacks its rural column', async () => {
    const p = await writeTempFile('DMEPOS25_APR.csv', `${PREAMBLE}HCPCS,Mod,Mod2,JURIS,CATG,Ceiling,Floor,AL (NR),AL (R),AK (NR),Description\n`);
    await expect(parseItems(dmepos, p)).rejects.toThrow(/AK lacks its \(R\) column/);
  });

  it('throws when neither the title nor the name gives the month', async () => {
    const p = await writeTempFile('fees.csv', `${HEADER}\nE0110,NU,,D,IN,1,1,1,0,1,0,X\n`);
    await expect(parseItems(dmepos, p)).rejects.toThrow(/no fee schedule month/);
  });
});

describe('dmepos versions and modifiers', () => {
  it('reads the month from the title line first, then from the file name', () => {
    expect(dmeposVersionOf({ name: 'x.csv', text: '', lines: ['October 2025 Fee Schedule,,'] })?.label).toBe('2025-10');
    expect(dmeposVersionOf({ name: 'DMEPOS26_JAN.csv', text: '', lines: [] })?.label).toBe('2026-01');
    expect(dmeposVersionOf({ name: 'fees.csv', text: '', lines: [] })).toBeUndefined();
  });

  it('splits modifier pairs written several ways', () => {
    expect(toModifierPair('NU-KE')).toEqual(['NU', 'KE']);
    expect(toModifierPair('nu ke')).toEqual(['NU', 'KE']);
    expect(toModifierPair('RR')).toEqual(['RR', '']);
    expect(toModifierPair('')).toBeUndefined();
    expect(toModifierPair('NUK')).toBeUndefined();
  });

  it('picks the row keyed by the most of a line\'s modifiers: A4636 NU, KE is the NU-KE row (CA rural 4.84), not NU (4.47)', () => {
    // The six A4636 rows of DMEPOS25_APR.csv (../shared/data/dmepos, lines 188-193), CA (NR) / CA (R).
    const rows = [
      { modifier: 'NU', modifier2: '', ca: [3.86, 4.47] },
      { modifier: 'NU', modifier2: 'KE', ca: [0, 4.84] },
      { modifier: 'RR', modifier2: '', ca: [0.39, 0.43] },
      { modifier: 'RR', modifier2: 'KE', ca: [0, 0.47] },
      { modifier: 'UE', modifier2: '', ca: [2.9, 3.3] },
      { modifier: 'UE', modifier2: 'KE', ca: [0, 3.57] },
    ];
    expect(chooseDmeRow(rows, ['NU', 'KE'])?.ca).toEqual([0, 4.84]);
    expect(chooseDmeRow(rows, ['KE', 'NU', 'KX'])?.ca).toEqual([0, 4.84]);
    expect(chooseDmeRow(rows, ['NU'])?.ca).toEqual([3.86, 4.47]);
    expect(chooseDmeRow(rows, ['RR', 'KE'])?.ca).toEqual([0, 0.47]);
    // Without modifiers: the NU row (no unmodified row). KE alone fits no row; NU with RR fits two equally.
    expect(chooseDmeRow(rows, [])?.ca).toEqual([3.86, 4.47]);
    expect(chooseDmeRow(rows, ['KE'])).toBeUndefined();
    expect(chooseDmeRow(rows, ['NU', 'RR'])).toBeUndefined();
  });
});
