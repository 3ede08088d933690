import { describe, expect, it } from 'vitest';
import { Dec } from '../../../lib/decimal.js';
import { yearFigures } from '../../../datasets/medicare_yearly_figures/queries.js';
import { figuresOf, usePaymentSnapshot } from '../../../testing/payment.js';
import { costSharing } from '../calculate.js';

/*
 * Section 1833(b) of the Act, 42 CFR 410.160; the year's figures are the part_b_deductible and
 * inpatient_deductible of medicare_yearly_figures (seeds/medicare_yearly_figures/<year>.yaml, from
 * CMS's "Medicare Parts A & B Premiums and Deductibles" fact sheets): CY2025 $257, CY2026 $283
 * (inpatient $1,676 / $1,736). CY2026, not met, physician $200, DME $100, OPPS $500: the $283 is
 * taken from the physician amount first (200), then DME (83): 17 of DME and all $500 of OPPS
 * remain; coinsurance 20% of 17 = $3.40.
 */
const snap = usePaymentSnapshot();

describe('part_b_deductible: the Part B deductible, physician first, then DME, then OPPS', () => {
  it('takes CY2026\'s $283 from $200 of physician and $83 of DME, leaving the OPPS amount whole', async () => {
    const { block } = costSharing({ code: 'X', year: 2026, figures: await yearFigures(snap(), 2026), deductible_met: false, physician: 200, dme: 100, lab: 0, opps: { allowed: 500, copayment: Dec.of(100) } });
    expect(block).toMatchObject({ part_b_deductible: 283, deductible: 283, coinsurance: 3.4, opps_copayment: 100, beneficiary_total: 386.4 });
    expect(block.citations[0]).toBe('section 1833(b) of the Social Security Act; 42 CFR 410.160; CY2026 Part B deductible $283 (CMS 2026 Medicare Parts A & B Premiums and Deductibles fact sheet; CY2026 OPPS Addendum B (copayment cap))');
  });

  it('takes CY2025\'s $257 for a CY2025 service, from the CY2025 document', async () => {
    const { block } = costSharing({ code: 'X', year: 2025, figures: await yearFigures(snap(), 2025), deductible_met: false, physician: 300, dme: 0, lab: 0, opps: null });
    expect(block).toMatchObject({ part_b_deductible: 257, inpatient_deductible: 1676, deductible: 257, coinsurance: 8.6 });
  });

  it('takes none when met, and none (with a warning) in a year whose deductible is not loaded', async () => {
    expect(costSharing({ code: 'X', year: 2026, figures: await yearFigures(snap(), 2026), deductible_met: true, physician: 200, dme: 0, lab: 0, opps: null }).block.deductible).toBe(0);
    const old = costSharing({ code: 'X', year: 2024, figures: figuresOf(2024, { part_b_coinsurance_percent: '20' }), deductible_met: false, physician: 200, dme: 0, lab: 0, opps: null });
    expect(old.block).toMatchObject({ part_b_deductible: null, deductible: 0, coinsurance: 40 });
    expect(old.warnings).toEqual(['beneficiary_cost_sharing: no CY2024 Part B deductible is loaded (medicare_yearly_figures); the deductible is not counted']);
  });
});
