import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseItems, writeTempFile } from '../../testing/datasets.js';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { aspPricing, aspVersionOf, type AspPricingRow } from './dataset.js';

const SEED = resolve(import.meta.dirname, '../../seeds/asp_pricing/section 508 version of Jan 2025 ASP Pricing File updated 030725.csv');

const PRE = 'Payment Allowance Limits for Medicare Part B Drugs,,,,,,,,,,,\r\n"Effective April 1, 2025 through June 30, 2025",,,,,,,,,,,\r\n';
const HEADER = 'HCPCS Code,Short Description,HCPCS Code Dosage,Payment Limit,Co-insurance Percentage,Vaccine AWP%,Vaccine Limit,Blood AWP%,Blood limit,Clotting Factor,Notes,\r\n';

describe('asp_pricing seed (CP1252, 8 preamble lines, trailing empty column)', () => {
  it('detects the file, reads 2025Q1 from the effective window and parses every row', async () => {
    const s = await sampleFile(await toSourceFile(SEED));
    expect(aspPricing.detect(s)).toBe(true);
    expect(aspPricing.version([s])).toEqual({ label: '2025Q1', effective_date: '2025-01-01' });
    const items = await parseItems(aspPricing, SEED);
    expect(items.filter((i) => i.issues)).toEqual([]);
    const rows = items.map((i) => i.row!) as AspPricingRow[];
    expect(rows).toHaveLength(11);
    const by = new Map(rows.map((r) => [r.hcpcs_code, r]));
    expect(by.get('J9035')).toMatchObject({ hcpcs_dosage: '10 MG', payment_limit: 73.19, coinsurance_pct: 20, notes: null, clotting_factor: false });
    expect(by.get('J0129')?.notes).toBe('"lesser of" methodology applied');
    // 0xA0 (CP1252 NBSP) inside the dosage is read as a space.
    expect(by.get('J9325')?.hcpcs_dosage).toBe('1 million PFU');
    expect(by.get('90653')).toMatchObject({ coinsurance_pct: 0, vaccine_awp_pct: 95, vaccine_limit: 83.49 });
    expect(by.get('P9041')).toMatchObject({ blood_awp_pct: 95, blood_limit: 10.615 });
    expect(by.get('J7170')?.clotting_factor).toBe(true);
  });
});

describe('asp_pricing bad input', () => {
  it('throws on an empty file and yields nothing for a header-only file', async () => {
    await expect(parseItems(aspPricing, await writeTempFile('asp.csv', ''))).rejects.toThrow(/empty/);
    expect(await parseItems(aspPricing, await writeTempFile('asp.csv', PRE + HEADER))).toEqual([]);
  });

  it('refuses the NDC-HCPCS crosswalk of the same zip', async () => {
    const p = await writeTempFile('xw.csv', PRE + '_2025_CODE,Short Description,LABELER NAME,NDC2,Drug Name,HCPCS dosage,PKG SIZE,PKG QTY,BILLUNITS,BILLUNITSPKG\r\n');
    expect(aspPricing.detect(await sampleFile(await toSourceFile(p)))).toBe(false);
    await expect(parseItems(aspPricing, p)).rejects.toThrow(/no header row/);
  });

  it('reads N/A as no limit and rejects a corrupted row with its fields', async () => {
    const items = await parseItems(
      aspPricing,
      await writeTempFile('asp.csv', PRE + HEADER + 'A9606,Radium ra223,1 microCurie,N/A,20.000,,,,,,"microCurie 100% AWP = $196.92\r\nmicroCurie 100% WAC = $164.10",\r\nJ90351,Bad,10 MG,7x.1,120,,,,,2,,\r\n'),
    );
    expect(items[0]!.row).toMatchObject({ hcpcs_code: 'A9606', payment_limit: null, notes: 'microCurie 100% AWP = $196.92\nmicroCurie 100% WAC = $164.10' });
    expect(items[1]!.issues!.map((i) => i.loc)).toEqual([
      ['row', 6, 'HCPCS Code'],
      ['row', 6, 'Payment Limit'],
      ['row', 6, 'Co-insurance Percentage'],
      ['row', 6, 'Clotting Factor'],
    ]);
  });

  it('finds the quarter from the effective window or the file name', () => {
    expect(aspVersionOf({ name: 'x.csv', text: '', lines: ['"Effective October 1, 2025 through December 31, 2025"'] })?.label).toBe('2025Q4');
    expect(aspVersionOf({ name: 'July 2025 ASP Pricing File.csv', text: '', lines: [] })?.label).toBe('2025Q3');
  });
});
