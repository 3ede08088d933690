import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { offCampusAdjustment } from './off_campus_department.js';

/*
 * Section 1833(t)(21) of the Act and 42 CFR 419.48 (off-campus provider-based departments), the
 * OPPS final rules' 40% PFS relativity adjuster, the CY2019 OPPS final rule (G0463 at 40% at
 * excepted departments), at UCSF (050454, wage index 1.9315) over the January 2026 seed:
 *   G0463-PO: 146.92 x 0.6 x 1.9315 + 146.92 x 0.4 = 229.033588 x 0.4 = 91.6134352 -> $91.61;
 *     copayment 29.38 x 0.6 x 1.9315 + 29.38 x 0.4 = 45.800482 x 0.4 = 18.3201928 -> $18.32.
 *   70450-PN: 145.53 x 0.6 x 1.9315 + 145.53 x 0.4 = 226.866717 x 0.4 = 90.7466868 -> $90.75;
 *     copayment 29.11 x 0.6 x 1.9315 + 29.11 x 0.4 = 45.379579 x 0.4 = 18.1518316 -> $18.15.
 */
const snap = usePaymentSnapshot();

describe('off_campus_department: modifiers PN and PO', () => {
  it('pays the clinic visit G0463 with PO 40% at UCSF: $91.61, and 40% of the copayment: $18.32', async () => {
    const { composition: c } = await composeOn(snap(), { code: 'G0463', ccn: '050454', modifier: ['PO'] });
    expect(c.outpatient_facility).toMatchObject({ allowed_fac_payment: 91.61, adjustments: [{ modifier: 'PO', rule: 'off_campus_department', percent: 40 }] });
    expect(c.beneficiary_cost_sharing.opps_copayment).toBe(18.32);
  });

  it('pays 70450 with PN 40% at UCSF: $90.75, copayment $18.15', async () => {
    const { composition: c } = await composeOn(snap(), { code: '70450', ccn: '050454', modifier: ['PN'] });
    expect(c.outpatient_facility?.allowed_fac_payment).toBe(90.75);
    expect(c.beneficiary_cost_sharing.opps_copayment).toBe(18.15);
    expect(c.calculation).toContain(`outpatient_facility: modifier PN: 40% of the OPPS amount (${offCampusAdjustment('70450', ['PN'])!.citation})`);
  });

  it('pays PO 100% on any code but G0463, and PN wins over PO', () => {
    expect(offCampusAdjustment('70450', ['PO'])?.percent).toBe(100);
    expect(offCampusAdjustment('70450', ['PO', 'PN'])).toMatchObject({ modifier: 'PN', percent: 40 });
    expect(offCampusAdjustment('70450', ['26'])).toBeNull();
  });

  it('says PN adjusts nothing in an answer without an OPPS block (no ccn)', async () => {
    const { composition: c, warnings } = await composeOn(snap(), { code: '70450', locality: '1320201', modifier: ['PN'] });
    expect(c.outpatient_facility).toBeNull();
    expect(warnings).toContain('modifier PN adjusts the OPPS amount of an off-campus department; this answer has no OPPS block');
  });
});
