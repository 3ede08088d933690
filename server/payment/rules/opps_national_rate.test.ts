import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { oppsNationalRate } from './opps_national_rate.js';

/*
 * 42 CFR 419.43 wage-adjusts the labor-related share of APC payments; separately payable drugs and
 * biologicals (K) and pass-through ones (G) are paid the national Addendum B rate (section
 * 1833(t)(14) of the Act). J9035 (bevacizumab, 10 mg) is K at $74.201 in the January 2026 seed:
 * at UCSF (wage index 1.9315) it is $74.20, not 74.201 x 0.6 x 1.9315 + 74.201 x 0.4 = $115.67.
 * Its copayment is Addendum B's minimum unadjusted $14.84, not wage-adjusted either.
 */
const snap = usePaymentSnapshot();

describe('opps_national_rate: status indicators G and K', () => {
  it('pays J9035 (K) at UCSF the national $74.20 with no wage adjustment, and the $14.84 copayment', async () => {
    const { composition: c } = await composeOn(snap(), { code: 'J9035', ccn: '050454' });
    expect(c.outpatient_facility).toMatchObject({ allowed_fac_payment: 74.2, wage_adjusted: false, labor_share: 0, non_labor_share: 1, status_indicator: 'K' });
    expect(c.beneficiary_cost_sharing.opps_copayment).toBe(14.84);
    expect(c.calculation).toEqual([expect.stringMatching(/^outpatient_facility: status indicator K \(separately payable drug or biological\) is paid the national rate, no wage adjustment \(42 CFR 419\.43/)]);
  });

  it('acts on G and K only', () => {
    const at = (si: string | null) => oppsNationalRate.outpatient!({ code: 'X', opps: true, status_indicator: si, modifiers: [] })?.national_rate ?? false;
    expect([at('G'), at('K'), at('Q3'), at('N'), at(null)]).toEqual([true, true, false, false, false]);
  });
});
