import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../../datasets/_shared/source.js';
import { parseAll } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';
import { zipLocality } from '../../datasets/zip_locality/dataset.js';

const present = requireShared('gpci/ZIP5_OCT2025.txt');
const file = join(sharedDataDir(), 'gpci/ZIP5_OCT2025.txt');

describe.skipIf(!present)('zip_locality on the real CMS ZIP5_OCT2025.txt', () => {
  it('reads all 42,956 ZIPs with the counts of the published file', async () => {
    const s = await sampleFile(await toSourceFile(file));
    expect(zipLocality.detect(s)).toBe(true);
    expect(zipLocality.version([s])?.label).toBe('2025Q4');
    const { rows, rejects } = await parseAll(zipLocality, [file]);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(42_956);
    expect(new Set(rows.map((r) => r.zip5)).size).toBe(42_956);
    expect(new Set(rows.map((r) => r.locality)).size).toBe(109);
    const count = (f: (r: (typeof rows)[number]) => boolean) => rows.filter(f).length;
    expect(count((r) => r.rural_indicator === null)).toBe(23_493);
    expect(count((r) => r.rural_indicator === 'R')).toBe(11_633);
    expect(count((r) => r.rural_indicator === 'B')).toBe(7_830);
    expect(count((r) => r.plus_four)).toBe(580);
    expect(count((r) => r.lab_cb_locality === 'Z1')).toBe(190);
    expect(count((r) => r.state === 'EK' || r.state === 'WK' || r.state === 'EM' || r.state === 'WM')).toBe(1_975);
    expect(rows.find((r) => r.zip5 === '94143')?.locality).toBe('0111205');
    expect(rows.find((r) => r.zip5 === '10065')?.locality).toBe('1320201');
    expect(rows.find((r) => r.zip5 === '36518')).toMatchObject({ locality: '1011200', rural_indicator: 'B' });
    expect(rows[rows.length - 1]).toMatchObject({ zip5: '83414', state: 'WY', locality: '0360221', rural_indicator: 'B' });
  });
});
