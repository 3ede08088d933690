import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { assistantAtSurgery } from './assistant_at_surgery.js';

/*
 * Medicare Claims Processing Manual ch. 12 section 20.4.3 and the RVU file's ASST SURG indicator;
 * non-physician practitioners at 85% (42 CFR 414.52, 414.56). 27447 (ASST SURG 2) in Manhattan,
 * facility, 1501.212802752: x 0.16 = 240.194048440 -> $240.19; AS x 0.136 = 204.164941174 ->
 * $204.16; -80 with -51 x 0.08 = 120.097024220 -> $120.10. 20610 (ASST SURG 1): never paid.
 */
const snap = usePaymentSnapshot();
const at = (modifier: string[]) => composeOn(snap(), { code: '27447', locality: '1320201', place_of_service: '21', modifier });

describe('assistant_at_surgery: modifiers 80, 81, 82 and AS', () => {
  it('pays an assistant on 27447 16% ($240.19), AS 13.6% ($204.16), and 16% of 50% with 51 ($120.10)', async () => {
    expect((await at(['80'])).composition.physician).toMatchObject({ allowed_phy_payment: 240.19, adjustments: [{ modifier: '80', rule: 'assistant_at_surgery', indicator: '2', percent: 16 }] });
    expect((await at(['AS'])).composition.physician).toMatchObject({ allowed_phy_payment: 204.16, adjustments: [{ modifier: 'AS', percent: 13.6, citation: expect.stringMatching(/42 CFR 414\.52/) }] });
    expect((await at(['80', '51'])).composition.physician?.allowed_phy_payment).toBe(120.1);
  });

  it('applies the first of several assistant modifiers, with a warning', async () => {
    const { composition: c, warnings } = await at(['80', '82']);
    expect(c.physician?.adjustments.map((a) => a.modifier)).toEqual(['80']);
    expect(warnings).toContain('modifiers 80, 82 all mark an assistant at surgery; 80 was applied');
  });

  it('leaves no amount where the indicator does not pay an assistant: 20610-80 (statutory restriction), 0 needs documentation', async () => {
    const { composition: c, warnings } = await composeOn(snap(), { code: '20610', locality: '1320201', modifier: ['80'] });
    expect(c.physician).toBeNull();
    expect(warnings.join(' ')).toMatch(/modifier 80: 20610 has assistant-at-surgery indicator 1: statutory payment restriction/);
    const zero = assistantAtSurgery.physician!({ code: 'X', modifiers: ['81'], indicators: { mult_proc: '0', bilat_surg: '0', asst_surg: '0', co_surg: '0', team_surg: '0' }, cah_method_ii: false });
    expect(zero).toEqual({ not_priced: expect.stringMatching(/^modifier 81: X has assistant-at-surgery indicator 0: an assistant is paid only with documentation of medical necessity/), warnings: [] });
  });
});
