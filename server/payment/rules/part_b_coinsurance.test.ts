import { describe, expect, it } from 'vitest';
import { composeOn, figuresOf, usePaymentSnapshot } from '../../../testing/payment.js';
import { costSharing } from '../calculate.js';

/*
 * Section 1833(a)(1) of the Act and 42 CFR 410.152: Part B pays 80%, the beneficiary 20%.
 * 99213 in Manhattan, non-facility: 3.1105 x 33.4009 = 103.893499450 -> $103.89; 20% = 20.778 ->
 * $20.78, the program $83.11. A line rule's percent replaces the 20% (15% of $100 = $15).
 */
const snap = usePaymentSnapshot();

describe('part_b_coinsurance: 20% of the physician and DME amounts', () => {
  it('charges 20% of 99213 in Manhattan: $20.78 of $103.89', async () => {
    const { composition: c } = await composeOn(snap(), { code: '99213', locality: '1320201' });
    expect(c.beneficiary_cost_sharing).toMatchObject({ deductible: 0, coinsurance: 20.78, beneficiary_total: 20.78, program_payment: 83.11 });
    expect(c.beneficiary_cost_sharing.citations).toEqual(['section 1833(a)(1) of the Social Security Act: Part B pays 80%, the beneficiary 20% coinsurance; 42 CFR 410.152']);
  });

  it('takes a line rule\'s percent in place of 20%, and then cites the rule, not the 20%', () => {
    const terms = { rule: 'colorectal_screening_pt', deductible_applies: false, coinsurance_percent: 15, citation: 'the rule', calculation: 'line' };
    const { block } = costSharing({ code: 'X', year: 2026, figures: figuresOf(2026, { part_b_coinsurance_percent: '20' }), deductible_met: true, physician: 60, dme: 40, lab: 0, opps: null, terms });
    expect(block).toMatchObject({ coinsurance: 15, citations: ['the rule'] });
  });
});
