import { yearFigures } from '../../../datasets/medicare_yearly_figures/queries.js';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../../lib/decimal.js';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { costSharing } from '../calculate.js';

/*
 * 42 CFR 419.41 (the OPPS copayment), wage-adjusted as the payment (42 CFR 419.43), capped at the
 * year's inpatient deductible (section 1833(t)(8)(C)(i) of the Act). 71046 at UCSF (wage index
 * 1.9315), CY2026: Addendum B's minimum copayment 18.97 x 0.6 x 1.9315 + 18.97 x 0.4 = 21.984333 +
 * 7.588 = 29.572333 -> $29.57 of the OPPS $147.86; a $2,000.50 copayment is capped at $1,736.
 */
const snap = usePaymentSnapshot();

describe('opps_copayment: the OPPS copayment, capped', () => {
  it('charges the wage-adjusted Addendum B copayment of 71046 at UCSF: $29.57', async () => {
    const { composition: c } = await composeOn(snap(), { code: '71046', ccn: '050454' });
    expect(c.outpatient_facility?.allowed_fac_payment).toBe(147.86);
    expect(c.beneficiary_cost_sharing).toMatchObject({ opps_copayment: 29.57, coinsurance: 2.39, beneficiary_total: 31.96, program_payment: 127.86 });
    expect(c.beneficiary_cost_sharing.citations.at(-1)).toMatch(/^42 CFR 419\.41 .*; CY2026 inpatient deductible \$1736 \(/);
  });

  it('caps the copayment at the inpatient deductible and at what the deductible left of the block', async () => {
    const figures = await yearFigures(snap(), 2026);
    expect(costSharing({ code: 'X', year: 2026, figures, deductible_met: true, physician: 0, dme: 0, lab: 0, opps: { allowed: 9000, copayment: Dec.of('2000.50') } }).block.opps_copayment).toBe(1736);
    // Not met: $283 of a $300 block goes to the deductible, so at most $17 is left for the copayment.
    expect(costSharing({ code: 'X', year: 2026, figures, deductible_met: false, physician: 0, dme: 0, lab: 0, opps: { allowed: 300, copayment: Dec.of(60) } }).block).toMatchObject({ deductible: 283, opps_copayment: 17 });
  });

  it('counts none, with a warning, where Addendum B prints no copayment', async () => {
    const r = costSharing({ code: 'X', year: 2026, figures: await yearFigures(snap(), 2026), deductible_met: true, physician: 0, dme: 0, lab: 0, opps: { allowed: 100, copayment: null } });
    expect(r.block.opps_copayment).toBeNull();
    expect(r.warnings).toEqual(['beneficiary_cost_sharing: Addendum B prints no copayment for X; the OPPS copayment is not counted']);
  });
});
