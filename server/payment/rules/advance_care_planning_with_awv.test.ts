import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { ACP_WITH_AWV, advanceCarePlanningWithAwv } from './advance_care_planning_with_awv.js';

/*
 * Worked by hand from the CY2016 PFS final rule / MLN MM9271 (ACP with the AWV, modifier 33: no
 * deductible, no coinsurance) and the seeds (PPRRVU2025_Oct.csv real rows; Manhattan GPCIs
 * 1.064 / 1.162 / 1.586; CY2026 non-QPP CF 33.4009), non-facility:
 *   99497: 1.50 x 1.064 + 0.86 x 1.162 + 0.10 x 1.586 = 1.596 + 0.99932 + 0.1586 = 2.75392
 *     x 33.4009 = 91.983406528 -> $91.98. Without 33 and the deductible not met, all $91.98 go to it.
 *   99498: 1.40 x 1.064 + 0.63 x 1.162 + 0.10 x 1.586 = 1.4896 + 0.73206 + 0.1586 = 2.38026
 *     x 33.4009 = 79.502826234 -> $79.50; deductible met, without 33: 20% = $15.90.
 */
const snap = usePaymentSnapshot();

describe('advance_care_planning_with_awv: advance care planning with the annual wellness visit (modifier 33)', () => {
  it('waives the deductible and the coinsurance of 99497-33: the program pays all $91.98', async () => {
    const { composition: c } = await composeOn(snap(), { code: '99497', locality: '1320201', modifier: ['33'], deductible_met: false });
    expect(c.physician?.allowed_phy_payment).toBe(91.98);
    expect(c.beneficiary_cost_sharing).toMatchObject({ deductible_applies: false, deductible: 0, coinsurance: 0, beneficiary_total: 0, program_payment: 91.98 });
    expect(c.calculation.join(' ')).toMatch(/modifier 33: 99497 \(advance care planning\) with the annual wellness visit: no Part B deductible and 0% coinsurance \(CY2016 physician fee schedule final rule.*MM9271/);
    const without = await composeOn(snap(), { code: '99497', locality: '1320201', deductible_met: false });
    expect(without.composition.beneficiary_cost_sharing).toMatchObject({ deductible_applies: true, deductible: 91.98, program_payment: 0 });
  });

  it('waives the coinsurance of 99498-33 ($15.90 without 33), and not that of another code with 33', async () => {
    const acp = await composeOn(snap(), { code: '99498', locality: '1320201', modifier: ['33'] });
    expect(acp.composition.beneficiary_cost_sharing).toMatchObject({ coinsurance: 0, program_payment: 79.5 });
    expect((await composeOn(snap(), { code: '99498', locality: '1320201' })).composition.beneficiary_cost_sharing.coinsurance).toBe(15.9);
    // 99213-33 in Manhattan: 103.89 x 20% = 20.778 -> 20.78, as without 33.
    expect((await composeOn(snap(), { code: '99213', locality: '1320201', modifier: ['33'] })).composition.beneficiary_cost_sharing.coinsurance).toBe(20.78);
  });

  it('is one cited row from CY2016, the year ACP became an optional element of the AWV', () => {
    expect(ACP_WITH_AWV).toEqual([expect.objectContaining({ from_year: 2016, to_year: null, codes: ['99497', '99498'], modifier: '33', percent: 0, citation: expect.stringMatching(/MM9271/) })]);
    const line = { code: '99497', modifiers: ['33'], facility: null, figures: null, rvu_modifiers: [''] };
    expect(advanceCarePlanningWithAwv.line!({ ...line, year: 2015 })).toBeNull();
    expect(advanceCarePlanningWithAwv.line!({ ...line, year: 2016 })?.cost_sharing).toMatchObject({ deductible_applies: false, coinsurance_percent: 0 });
  });
});
