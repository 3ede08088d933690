import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { coSurgeon } from './co_surgeon.js';

/*
 * Medicare Claims Processing Manual ch. 12 section 40.8 and the RVU file's CO-SURG indicator.
 * 27447 (CO-SURG 1) in Manhattan, facility: 1501.212802752 x 0.625 = 938.258001720 -> $938.26.
 * 20610 (CO-SURG 0): co-surgeons not permitted, no amount.
 */
const snap = usePaymentSnapshot();

describe('co_surgeon: modifier 62', () => {
  it('pays each co-surgeon of 27447 62.5%: $938.26', async () => {
    const { composition: c } = await composeOn(snap(), { code: '27447', locality: '1320201', place_of_service: '21', modifier: ['62'] });
    expect(c.physician).toMatchObject({ allowed_phy_payment: 938.26, adjustments: [{ modifier: '62', rule: 'co_surgeon', indicator: '1', percent: 62.5 }] });
  });

  it('leaves no amount where co-surgeons are not permitted: 20610-62', async () => {
    const { composition: c, warnings } = await composeOn(snap(), { code: '20610', locality: '1320201', modifier: ['62'] });
    expect(c.physician).toBeNull();
    expect(warnings.join(' ')).toMatch(/physician: modifier 62: 20610 has co-surgeon indicator 0 \(co-surgeons not permitted\): not payable as co-surgery/);
    const nine = coSurgeon.physician!({ code: 'X', modifiers: ['62'], indicators: { mult_proc: '0', bilat_surg: '0', asst_surg: '0', co_surg: '9', team_surg: '0' }, cah_method_ii: false });
    expect(nine?.not_priced).toMatch(/the co-surgeon concept does not apply/);
  });
});
