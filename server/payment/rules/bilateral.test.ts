import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { bilateral } from './bilateral.js';

/*
 * Medicare Claims Processing Manual ch. 12 section 40.7 and the RVU file's BILAT SURG indicator.
 * 20610 (PPRRVU2025_Oct.csv: 0.79 / 1.04 non-facility / 0.13, BILAT SURG 1) in Manhattan:
 *   0.84056 + 1.20848 + 0.20618 = 2.25522 x 33.4009 = 75.326377698 (-> $75.33 unadjusted);
 *   x 1.5 = 112.989566547 -> $112.99.
 */
const snap = usePaymentSnapshot();
const line = (bilat_surg: string, modifiers = ['50']) => ({ code: 'X', modifiers, indicators: { mult_proc: '0', bilat_surg, asst_surg: '0', co_surg: '0', team_surg: '0' }, cah_method_ii: false });

describe('bilateral: modifier 50', () => {
  it('pays 20610-50 in Manhattan 150% of the exact amount: $112.99 ($75.33 unadjusted)', async () => {
    const { composition: c } = await composeOn(snap(), { code: '20610', locality: '1320201', modifier: ['50'] });
    expect(c.physician).toMatchObject({ fee_schedule_amount: 75.33, allowed_phy_payment: 112.99, adjustments: [{ modifier: '50', rule: 'bilateral', indicator: '1', percent: 150 }] });
  });

  it('pays indicator 3 200%, 0 and 2 one payment at 100% with a warning, and leaves 9 unadjusted', () => {
    expect(bilateral.physician!(line('3'))?.adjustment?.applied.percent).toBe(200);
    expect(bilateral.physician!(line('0'))).toMatchObject({ adjustment: { applied: { percent: 100 } }, warnings: ['modifier 50: X has bilateral indicator 0 (the 150% bilateral adjustment does not apply): one payment at 100%'] });
    expect(bilateral.physician!(line('2'))?.warnings?.[0]).toMatch(/the code is already bilateral/);
    expect(bilateral.physician!(line('9'))).toEqual({ warnings: ['modifier 50: X has bilateral indicator 9 (the bilateral concept does not apply); not adjusted'] });
    expect(bilateral.physician!(line('1', ['51']))).toBeNull();
  });
});
