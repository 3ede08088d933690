import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { multipleProcedure } from './multiple_procedure.js';

/*
 * Medicare Claims Processing Manual ch. 12 section 40.6 and the RVU file's MULT PROC indicator.
 * 27447 (19.60 / 15.30 facility / 3.98, MULT PROC 2) in Manhattan, inpatient (place of service 21):
 *   20.8544 + 17.7786 + 6.31228 = 44.94528 x 33.4009 = 1501.212802752 (-> $1,501.21);
 *   x 0.5 = 750.606401376 -> $750.61.
 */
const snap = usePaymentSnapshot();
const line = (mult_proc: string) => ({ code: 'X', modifiers: ['51'], indicators: { mult_proc, bilat_surg: '0', asst_surg: '0', co_surg: '0', team_surg: '0' }, cah_method_ii: false });

describe('multiple_procedure: modifier 51', () => {
  it('pays 27447-51 in Manhattan half of $1,501.21: $750.61', async () => {
    const { composition: c } = await composeOn(snap(), { code: '27447', locality: '1320201', place_of_service: '21', modifier: ['51'] });
    expect(c.physician).toMatchObject({ fee_schedule_amount: 1501.21, allowed_phy_payment: 750.61, adjustments: [{ rule: 'multiple_procedure', indicator: '2', percent: 50 }] });
  });

  it('leaves the family reductions (3-7) unapplied on one code, and 0 without a reduction, each with a warning', () => {
    expect(multipleProcedure.physician!(line('3'))).toEqual({ warnings: [expect.stringMatching(/indicator 3, the endoscopy reduction, which depends on the other services of the day; not applied to a single code \(.*section 40\.6/)] });
    expect(multipleProcedure.physician!(line('7'))?.warnings?.[0]).toMatch(/diagnostic ophthalmology/);
    expect(multipleProcedure.physician!(line('0'))).toEqual({ warnings: ['modifier 51: X has multiple procedure indicator 0: no multiple procedure reduction applies; not adjusted'] });
  });
});
