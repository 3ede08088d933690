import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { openTestSnapshot, parseAll, writeTempFile } from '../../testing/datasets.js';
import { localityCounty } from '../locality_county/dataset.js';
import { zipLocality } from './dataset.js';
import { findLocalityForZip } from './queries.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const seed = join(repoRoot, 'seeds/zip_locality/ZIP5_OCT2025.txt');
const rec = (head: string, yq = '20254') => `${head.padEnd(75, ' ')}${yq}`;

describe('zip_locality parser (seed ZIP5_OCT2025.txt excerpt)', () => {
  it('detects the file and takes 2025Q4 from the YYYYQ field', async () => {
    const s = await sampleFile(await toSourceFile(seed));
    expect(zipLocality.detect(s)).toBe(true);
    expect(zipLocality.version([s])).toEqual({ label: '2025Q4', effective_date: '2025-10-01' });
  });

  it('reads carrier, locality and the rural flags by column', async () => {
    const { rows, rejects } = await parseAll(zipLocality, [seed]);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(22);
    expect(rows.find((r) => r.zip5 === '94143')).toEqual({
      zip5: '94143',
      state: 'CA',
      usps_state: 'CA',
      carrier: '01112',
      pricing_locality: '05',
      locality: '0111205',
      rural_indicator: null,
      is_rural: false,
      lab_cb_locality: 'Z9',
      rural_indicator2: null,
      plus_four: false,
      part_b_payment_indicator: 'A',
      year_quarter: '20254',
    });
    expect(rows.find((r) => r.zip5 === '36518')).toMatchObject({ locality: '1011200', rural_indicator: 'B', is_rural: true, rural_indicator2: 'B' });
    expect(rows.find((r) => r.zip5 === '95948')).toMatchObject({ rural_indicator: 'R', plus_four: true });
  });

  it('maps the split Kansas/Missouri pseudo-states to USPS codes', async () => {
    const { rows } = await parseAll(zipLocality, [seed]);
    expect(rows.find((r) => r.zip5 === '66012')).toMatchObject({ state: 'EK', usps_state: 'KS', locality: '0520200' });
    expect(rows.find((r) => r.zip5 === '63101')).toMatchObject({ state: 'EM', usps_state: 'MO', locality: '0530201' });
  });

  it('falls back to the file name for the version', () => {
    expect(zipLocality.version([{ name: 'ZIP5_JAN2026.txt', text: '', lines: [''] }])).toEqual({ label: '2026Q1', effective_date: '2026-01-01' });
  });
});

describe('zip_locality bad input', () => {
  it('throws "file is empty" for an empty file', async () => {
    await expect(parseAll(zipLocality, [await writeTempFile('ZIP5_empty.txt', '')])).rejects.toThrow(/file is empty/);
  });

  it('refuses a file that is not ZIP5 records (e.g. the layout file or a CSV)', async () => {
    const layout = await writeTempFile('ZIP5lyout.txt', '                       Zip5 Record Layout\r\n\r\nField Name             Beg. Position\r\n');
    expect(zipLocality.detect(await sampleFile(await toSourceFile(layout)))).toBe(false);
    await expect(parseAll(zipLocality, [layout])).rejects.toThrow(/ZIP5lyout.txt, line 1: not a ZIP5 record/);
    const csv = await writeTempFile('25LOCCO.csv', 'COUNTIES INCLUDED IN 2025 LOCALITIES.,,,,\r\n');
    expect(zipLocality.detect(await sampleFile(await toSourceFile(csv)))).toBe(false);
  });

  it('rejects a corrupted record with every bad field located', async () => {
    const p = await writeTempFile('ZIP5_OCT2025.txt', [rec('AK995010210201 Z9   0 A'), rec('AK99X020210201XZ9   7 A'), rec('AK995030210201 Z9   0 A', '2025 ')].join('\r\n') + '\r\n');
    const { rows, rejects } = await parseAll(zipLocality, [p]);
    expect(rows.map((r) => r.zip5)).toEqual(['99501']);
    expect(rejects.map((r) => r.line)).toEqual([2, 3]);
    expect(rejects[0]!.issues.map((i) => i.loc)).toEqual([
      ['row', 2, 'zip5'],
      ['row', 2, 'rural_indicator'],
      ['row', 2, 'plus_four'],
    ]);
    expect(rejects[0]!.issues[0]).toMatchObject({ type: 'string_pattern_mismatch', input: '99X02' });
    expect(rejects[1]!.issues[0]).toMatchObject({ loc: ['row', 3, 'year_quarter'] });
  });
});

describe('findLocalityForZip', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: zipLocality, files: [seed] }]);
  });
  afterAll(() => snap.close());

  it('returns the ZIP row with the version, accepting ZIP+4', async () => {
    const [m] = await findLocalityForZip(snap, '10065-1234');
    expect(m).toMatchObject({ zip5: '10065', locality: '1320201', is_rural: false, version: '2025Q4' });
  });

  it('returns an empty list for an unknown ZIP or non-ZIP text', async () => {
    expect(await findLocalityForZip(snap, '00000')).toEqual([]);
    expect(await findLocalityForZip(snap, 'ABCDE')).toEqual([]);
  });

  it('returns an empty list when zip_locality is not loaded', async () => {
    const other = await openTestSnapshot([{ dataset: localityCounty, files: [join(repoRoot, 'seeds/locality_county/25LOCCO.csv')] }]);
    try {
      expect(await findLocalityForZip(other, '94143')).toEqual([]);
    } finally {
      other.close();
    }
  });
});
