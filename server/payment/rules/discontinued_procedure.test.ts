import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { Trace } from '../../trace.js';
import { discontinuedProcedure } from './discontinued_procedure.js';

/*
 * From Medicare Claims Processing Manual ch. 12 section 30.1.B (an incomplete colonoscopy is billed
 * with modifier 53 and paid from the RVU file's 53 rows) over the seeds, Manhattan, non-facility:
 *   45378-53 (PPRRVU2025_Oct.csv 1.63 / 3.22 / 0.22; GPCI 1.064 / 1.162 / 1.586):
 *   1.73432 + 3.74164 + 0.34892 = 5.82488 x 33.4009 = 194.556234392 -> $194.56.
 *   99213 has no 53 row: the MAC prices a discontinued 99213 by report, no amount.
 */
const snap = usePaymentSnapshot();

describe('discontinued_procedure: modifier 53', () => {
  it("prices 45378-53 from the RVU file's 53 row: $194.56, named in calculation", async () => {
    const { composition: c } = await composeOn(snap(), { code: '45378', locality: '1320201', modifier: ['53'] });
    expect(c.physician).toMatchObject({ rvu_row: '53', total_adjusted_rvu: 5.82488, allowed_phy_payment: 194.56 });
    expect(c.calculation).toEqual([expect.stringMatching(/^modifier 53: discontinued procedure priced from the 45378-53 row of the RVU file \(.*section 30\.1\.B/)]);
  });

  it('leaves a code without a 53 row unpriced, by report: 99213-53 has no amount', async () => {
    const { composition: c, warnings } = await composeOn(snap(), { code: '99213', locality: '1320201', modifier: ['53'] });
    expect(c.physician).toBeNull();
    expect(c.estimated_payment).toBe(0);
    expect(warnings.join(' ')).toMatch(/modifier 53 \(discontinued procedure\): 99213 has no 53 row; the MAC prices it by report, no amount/);
  });

  it('says nothing about a row chosen for another modifier', () => {
    const trace = new Trace(null, () => new Date('2026-03-02T00:00:00Z'));
    const calculation: string[] = [];
    discontinuedProcedure.rowChosen!({ code: '99213', modifier: '26', row: null, trace, calculation });
    expect([...trace.warnings, ...calculation]).toEqual([]);
  });
});
