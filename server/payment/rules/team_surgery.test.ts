import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { teamSurgery } from './team_surgery.js';

/*
 * Medicare Claims Processing Manual ch. 12 section 40.8 and the RVU file's TEAM SURG indicator:
 * indicators 1 and 2 are priced by report by the MAC, 0 (team surgeons not permitted) and 9 not
 * payable; no amount either way. 27447 has TEAM SURG 0.
 */
const snap = usePaymentSnapshot();
const line = (team_surg: string) => ({ code: 'X', modifiers: ['66'], indicators: { mult_proc: '0', bilat_surg: '0', asst_surg: '0', co_surg: '0', team_surg }, cah_method_ii: false });

describe('team_surgery: modifier 66', () => {
  it('leaves 27447-66 without an amount: team surgeons not permitted', async () => {
    const { composition: c, warnings } = await composeOn(snap(), { code: '27447', locality: '1320201', place_of_service: '21', modifier: ['66'] });
    expect(c.physician).toBeNull();
    expect(c.estimated_payment).toBe(0);
    expect(warnings.join(' ')).toMatch(/physician: modifier 66: 27447 has team surgery indicator 0 \(team surgeons not permitted\): not payable as team surgery/);
  });

  it('names the MAC for indicators 1 and 2 (by report) and never adjusts the amount', () => {
    for (const i of ['1', '2']) expect(teamSurgery.physician!(line(i))).toEqual({ not_priced: expect.stringMatching(/team surgery on X \(team surgery indicator \d\) is priced by report by the MAC; no amount/) });
    expect(teamSurgery.physician!(line('9'))?.not_priced).toMatch(/the team concept does not apply/);
  });
});
