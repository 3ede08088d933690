import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { PCTC4_FAMILIES } from './professional_component.js';

/*
 * From Medicare Claims Processing Manual ch. 13 section 20 and the RVU file's PC/TC indicator
 * (RVU25D.pdf) over the seeds. San Francisco GPCIs 1.095 / 1.410 / 0.425 (locality 0111205, and
 * UCSF 050454's), CY2026 non-QPP CF 33.4009, facility PE:
 *   70450 (indicator 1) at place of service 22 is priced from 70450-26 (0.85 / 0.31 / 0.04):
 *     0.93075 + 0.4371 + 0.017 = 1.38485 x 33.4009 = 46.255236365 -> $46.26.
 *   93000 (indicator 4) at UCSF is priced from its professional-only code 93010 (0.17 / 0.06 / 0.01):
 *     0.18615 + 0.0846 + 0.00425 = 0.275 x 33.4009 = 9.1852475 -> $9.19; the hospital bills 93005.
 *   70450-TC at place of service 22 is the facility's: no physician amount.
 */
const snap = usePaymentSnapshot();

describe('professional_component: PC/TC in a hospital setting', () => {
  it('prices the -26 row of an indicator 1 code at place of service 22: 70450 is $46.26', async () => {
    const { composition: c, warnings } = await composeOn(snap(), { code: '70450', locality: '0111205', place_of_service: '22' });
    expect(c.physician).toMatchObject({ rvu_row: '26', total_adjusted_rvu: 1.38485, allowed_phy_payment: 46.26 });
    expect(c.calculation[0]).toMatch(/^PC\/TC indicator 1 at place of service 22: 70450-26 priced, the technical component is the facility's \(.*ch\. 13 section 20/);
    expect(warnings.join(' ')).toMatch(/70450 has professional and technical components \(PC\/TC indicator 1\)/);
  });

  it("prices an indicator 4 code from its family's professional code: 93000 at UCSF is 93010, $9.19", async () => {
    expect(PCTC4_FAMILIES['93000']).toEqual({ professional: '93010', technical: ['93005'] });
    const { composition: c } = await composeOn(snap(), { code: '93000', ccn: '050454' });
    expect(c.physician).toMatchObject({ priced_code: '93010', total_adjusted_rvu: 0.275, allowed_phy_payment: 9.19 });
    expect(c.calculation[0]).toMatch(/^PC\/TC indicator 4 at a facility: 93010 \(professional only\) priced for 93000; the technical code 93005 is the hospital's/);
  });

  it("leaves the technical component to the facility: 70450-TC at place of service 22 has no physician amount", async () => {
    const { composition: c, warnings } = await composeOn(snap(), { code: '70450', locality: '0111205', place_of_service: '22', modifier: ['TC'] });
    expect(c.physician).toBeNull();
    expect(warnings.join(' ')).toMatch(/70450-TC is a technical component \(PC\/TC indicator 1\): at place of service 22 it is paid to the facility/);
  });

  it('does not act outside a hospital setting: 70450 in an office (place of service 11) is the global row', async () => {
    const { composition: c } = await composeOn(snap(), { code: '70450', locality: '0111205', place_of_service: '11' });
    expect(c.physician).toMatchObject({ rvu_row: 'global' });
    expect(c.calculation).toEqual([]);
  });
});
