import { describe, expect, it } from 'vitest';
import { Dec } from '../../../datasets/_shared/decimal.js';
import { costSharing } from '../calculate.js';
import { YEARLY_DEDUCTIBLES } from './part_b_deductible.js';

/*
 * Section 1833(b) of the Act, 42 CFR 410.160; the year's figures from CMS's "Medicare Parts A & B
 * Premiums and Deductibles" fact sheets: CY2025 $257, CY2026 $283 (inpatient $1,676 / $1,736).
 * CY2026, not met, physician $200, DME $100, OPPS $500: the $283 is taken from the physician amount
 * first (200), then DME (83): 17 of DME and all $500 of OPPS remain; coinsurance 20% of 17 = $3.40.
 */
describe('part_b_deductible: the Part B deductible, physician first, then DME, then OPPS', () => {
  it('takes CY2026\'s $283 from $200 of physician and $83 of DME, leaving the OPPS amount whole', () => {
    const { block } = costSharing({ code: 'X', year: 2026, deductible_met: false, physician: 200, dme: 100, lab: 0, opps: { allowed: 500, copayment: Dec.of(100) } });
    expect(block).toMatchObject({ part_b_deductible: 283, deductible: 283, coinsurance: 3.4, opps_copayment: 100, beneficiary_total: 386.4 });
    expect(block.citations[0]).toBe('section 1833(b) of the Social Security Act; 42 CFR 410.160; CY2026 Part B deductible $283 (CMS 2026 Medicare Parts A & B Premiums and Deductibles fact sheet; CY2026 OPPS Addendum B (copayment cap))');
  });

  it('takes none when met, and none (with a warning) in a year the table lacks', () => {
    expect(costSharing({ code: 'X', year: 2026, deductible_met: true, physician: 200, dme: 0, lab: 0, opps: null }).block.deductible).toBe(0);
    const old = costSharing({ code: 'X', year: 2024, deductible_met: false, physician: 200, dme: 0, lab: 0, opps: null });
    expect(old.block).toMatchObject({ part_b_deductible: null, deductible: 0, coinsurance: 40 });
    expect(old.warnings).toEqual(['beneficiary_cost_sharing: no CY2024 Part B deductible in the table; the deductible is not counted']);
  });

  it('holds one cited row a year', () => {
    expect(YEARLY_DEDUCTIBLES.map((r) => [r.from_year, r.to_year, r.part_b_deductible, r.inpatient_deductible])).toEqual([[2025, 2025, '257', '1676'], [2026, 2026, '283', '1736']]);
    for (const r of YEARLY_DEDUCTIBLES) expect(r.citation).toMatch(/Premiums and Deductibles fact sheet/);
  });
});
