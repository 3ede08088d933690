import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseItems, writeTempFile } from '../../testing/datasets.js';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { dmeposRuralZip, toRuralVersion } from './dataset.js';

const SEED = resolve(import.meta.dirname, '../../seeds/dmepos_rural_zip/DME Rural ZIP Code Quarter 1, 2025.csv');

const HEADER = 'STATE,DMEPOS RURAL ZIP CODE,YEAR/QTR\n';

describe('dmepos_rural_zip seed', () => {
  it('detects the file, reads 2025Q1 and keeps leading zeros', async () => {
    const s = await sampleFile(await toSourceFile(SEED));
    expect(dmeposRuralZip.detect(s)).toBe(true);
    expect(dmeposRuralZip.version([s])).toEqual({ label: '2025Q1', effective_date: '2025-01-01' });
    const items = await parseItems(dmeposRuralZip, SEED);
    expect(items.every((i) => i.row)).toBe(true);
    expect(items).toHaveLength(24);
    expect(items[0]!.row).toEqual({ zip: '01223', state: 'MA', year_quarter: '202501', year: 2025, quarter: 1 });
  });
});

describe('dmepos_rural_zip bad input', () => {
  it('throws on an empty file and yields nothing for a header-only file', async () => {
    await expect(parseItems(dmeposRuralZip, await writeTempFile('z.csv', ''))).rejects.toThrow(/empty/);
    expect(await parseItems(dmeposRuralZip, await writeTempFile('z.csv', HEADER))).toEqual([]);
  });

  it('refuses the DMEPOS fee file', async () => {
    const p = await writeTempFile('DMEPOS25_APR.csv', 'HCPCS,Mod,Mod2,JURIS,CATG,Ceiling,Floor,AL (NR),AL (R),Description\nE0110,NU,,D,IN,1,1,1,0,X\n');
    expect(dmeposRuralZip.detect(await sampleFile(await toSourceFile(p)))).toBe(false);
    await expect(parseItems(dmeposRuralZip, p)).rejects.toThrow(/no header row/);
  });

  it('rejects a ZIP that lost its leading zero (Excel re-save) with the field located', async () => {
    const items = await parseItems(dmeposRuralZip, await writeTempFile('z.csv', `${HEADER}MA,1223,202501\nMA,01224,202501\n`));
    expect(items[0]).toEqual({
      line: 2,
      issues: [{ loc: ['row', 2, 'DMEPOS RURAL ZIP CODE'], msg: "String should match pattern '^\\d{5}$'", type: 'string_pattern_mismatch', input: '1223', ctx: { pattern: '^\\d{5}$' } }],
    });
    expect(items[1]!.row?.zip).toBe('01224');
  });

  it('throws when one file mixes two quarters', async () => {
    await expect(parseItems(dmeposRuralZip, await writeTempFile('z.csv', `${HEADER}MA,01223,202501\nMA,01224,202502\n`))).rejects.toThrow(/202502 differs/);
  });

  it('maps YEAR/QTR to a quarter label', () => {
    expect(toRuralVersion('202504')).toEqual({ label: '2025Q4', effective_date: '2025-10-01' });
    expect(toRuralVersion('202505')).toBeUndefined();
  });
});
