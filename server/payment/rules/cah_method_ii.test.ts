import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { cahMethodII } from './cah_method_ii.js';

/*
 * 42 CFR 413.70(b)(3): a critical access hospital that elected the optional method is paid 115% of
 * the fee schedule amount for its practitioners' professional services. 99213 at 011300
 * (Washington County Hospital, a CAH in rural Alabama: GPCIs 1.000 / 0.875 / 0.566), facility PE:
 *   1.30 + 0.57 x 0.875 + 0.10 x 0.566 = 1.3 + 0.49875 + 0.0566 = 1.85535 x 33.4009
 *   = 61.970359815 (-> $61.97); x 1.15 = 71.265913787 -> $71.27.
 */
const snap = usePaymentSnapshot();

describe('cah_method_ii: Method II at a critical access hospital', () => {
  it('pays 99213 at 011300 115% of the facility fee schedule amount: $71.27', async () => {
    const { composition: c } = await composeOn(snap(), { code: '99213', ccn: '011300', cah_method_ii: true });
    expect(c.physician).toMatchObject({ fee_schedule_amount: 61.97, allowed_phy_payment: 71.27, adjustments: [{ modifier: null, rule: 'cah_method_ii', indicator: 'method_ii', percent: 115 }] });
    expect(c.calculation).toEqual([expect.stringMatching(/^CAH Method II: 115% of the facility fee schedule amount \(42 CFR 413\.70\(b\)\(3\)/)]);
  });

  it('is ignored, with a warning, at a hospital that is not a CAH and outside its facility setting', async () => {
    const ucsf = await composeOn(snap(), { code: '99213', ccn: '050454', cah_method_ii: true });
    expect(ucsf.composition.physician?.adjustments).toEqual([]);
    expect(ucsf.warnings).toContain('cah_method_ii ignored: 050454 is not a critical access hospital');
    const office = await composeOn(snap(), { code: '99213', ccn: '011300', cah_method_ii: true, place_of_service: '11' });
    expect(office.composition.physician?.adjustments).toEqual([]);
    expect(office.warnings).toContain("cah_method_ii ignored: place of service 11 is not the hospital's facility setting");
  });

  it('adjusts only the line its election was found for', () => {
    const line = { code: 'X', modifiers: [], indicators: { mult_proc: '0', bilat_surg: '0', asst_surg: '0', co_surg: '0', team_surg: '0' } };
    expect(cahMethodII.physician!({ ...line, cah_method_ii: false })).toBeNull();
    expect(cahMethodII.physician!({ ...line, cah_method_ii: true })?.adjustment?.applied.percent).toBe(115);
  });
});
