import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { oppsPackaged } from './opps_packaged.js';

/*
 * 42 CFR 419.2(b) (what the OPPS payment of a service packages) and Addendum D1's status indicator
 * N over the January 2026 Addendum B seed: C1713 (anchor/screw for opposing bone-to-bone) is N, no
 * payment rate. At UCSF (050454) it is paid 0 separately, within the APC of the primary service.
 */
const snap = usePaymentSnapshot();

describe('opps_packaged: status indicator N', () => {
  it('pays C1713 at UCSF nothing separately and says why in calculation and a warning', async () => {
    const { composition: c, warnings } = await composeOn(snap(), { code: 'C1713', ccn: '050454' });
    expect(c.outpatient_facility).toBeNull();
    expect(c.calculation).toContain("outpatient_facility: status indicator N, packaged: paid 0 separately, within the primary service's APC (42 CFR 419.2(b))");
    expect(warnings.join(' ')).toMatch(/C1713 has OPPS status indicator N \(packaged\): no separate payment, 0/);
  });

  it('explains N only: another indicator without a rate is not a packaged service', () => {
    expect(oppsPackaged.oppsUnpriced!({ code: '36415', status_indicator: 'Q4' })).toBeNull();
    expect(oppsPackaged.oppsUnpriced!({ code: 'C1713', status_indicator: 'N' })?.warning).toMatch(/42 CFR 419\.2\(b\)/);
  });
});
