import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';

/*
 * From Medicare Claims Processing Manual ch. 12: section 20.4.6 (modifier 52, the contractor
 * prices the reduced service) and section 30.1.B (an incomplete colonoscopy is billed 45378-53).
 * 45378-53 in Manhattan, non-facility (PPRRVU2025_Oct.csv 1.63 / 3.22 / 0.22; GPCI 1.064 / 1.162 / 1.586):
 *   1.73432 + 3.74164 + 0.34892 = 5.82488 x 33.4009 = 194.556234392 -> $194.56, the -53 line's amount;
 *   45378-52 answered that same $194.56 before this rule, and now no amount.
 */
const snap = usePaymentSnapshot();

describe('reduced_services: modifier 52', () => {
  it('does not borrow the -53 row: 45378-52 has no amount and names the MAC and Medicare\'s -53 for an incomplete colonoscopy', async () => {
    const { composition: c, warnings } = await composeOn(snap(), { code: '45378', locality: '1320201', modifier: ['52'] });
    expect(c.physician).toBeNull();
    expect(c.estimated_payment).toBe(0);
    expect(warnings.join(' ')).toMatch(/modifier 52 \(reduced services\): the MAC prices a reduced 45378 by report.*no amount \(.*section 20.4.6.*\)\. The 45378-53 row is Medicare's discontinued procedure.*billed with modifier 53 \(.*section 30.1.B/);
  });

  it('still prices 45378-53 from its row: $194.56', async () => {
    const { composition: c } = await composeOn(snap(), { code: '45378', locality: '1320201', modifier: ['53'] });
    expect(c.physician).toMatchObject({ rvu_row: '53', allowed_phy_payment: 194.56 });
    expect(c.calculation.join(' ')).toMatch(/modifier 53: discontinued procedure priced from the 45378-53 row.*section 30.1.B/);
  });

  it('prices no reduced service of a code without a 53 row either, and says nothing about colonoscopy there', async () => {
    const { composition: c, warnings } = await composeOn(snap(), { code: '99213', locality: '1320201', modifier: ['52'] });
    expect(c.physician).toBeNull();
    expect(warnings.join(' ')).toMatch(/modifier 52 \(reduced services\): the MAC prices a reduced 99213 by report/);
    expect(warnings.join(' ')).not.toMatch(/colonoscopy/);
  });
});
