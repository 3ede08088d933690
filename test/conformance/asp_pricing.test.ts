import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../../datasets/_shared/source.js';
import { parseAll } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';
import { aspPricing } from '../../datasets/asp_pricing/dataset.js';
import { aspCrosswalk } from '../../datasets/asp_crosswalk/dataset.js';

const REL = 'asp-drug-pricing/section 508 version of Jan 2025 ASP Pricing File updated 030725.csv';
const present = requireShared(REL);
const FILE = join(sharedDataDir(), REL);

describe.skipIf(!present)('asp_pricing on the real CMS January 2025 file', () => {
  it('detects it as ASP pricing (not the crosswalk) and labels it 2025Q1', async () => {
    const s = await sampleFile(await toSourceFile(FILE));
    expect(aspPricing.detect(s)).toBe(true);
    expect(aspCrosswalk.detect(s)).toBe(false);
    expect(aspPricing.version([s])).toEqual({ label: '2025Q1', effective_date: '2025-01-01' });
  });

  it('reads all 877 HCPCS rows with the published limits', async () => {
    const { rows, rejects } = await parseAll(aspPricing, [FILE]);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(877);
    expect(new Set(rows.map((r) => r.hcpcs_code)).size).toBe(877);
    const by = new Map(rows.map((r) => [r.hcpcs_code, r]));
    expect(by.get('90371')).toMatchObject({ payment_limit: 146.312, coinsurance_pct: 20, hcpcs_dosage: '1 ML' });
    expect(by.get('J9035')?.payment_limit).toBe(73.19);
    expect(by.get('J0897')).toMatchObject({ payment_limit: 27.656, coinsurance_pct: 18.237, notes: 'Inflation-adjusted coinsurance' });
    expect(by.get('Q9992')?.hcpcs_dosage).toBe('Greater than 100 MG');
    // CP1252 0xA0 inside a dosage; N/A limit with a two-line quoted note.
    expect(by.get('J9325')?.hcpcs_dosage).toBe('1 million PFU');
    expect(by.get('A9606')).toMatchObject({ payment_limit: null, notes: 'microCurie 100% AWP = $196.92\nmicroCurie 100% WAC = $164.10' });
    expect(rows.filter((r) => r.clotting_factor)).toHaveLength(34);
    expect(rows.filter((r) => r.vaccine_awp_pct === 95)).toHaveLength(28);
    expect(rows.filter((r) => r.blood_limit !== null)).toHaveLength(4);
  });
});
