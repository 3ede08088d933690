import { yearFigures } from '../../../datasets/medicare_yearly_figures/queries.js';
import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { paymentSystemOf } from '../../facilities/service.js';
import { composePayment } from '../calculate.js';
import type { PaymentInputs } from '../inputs.js';
import { CITE_REH, facilityPaymentSystem } from './facility_payment_system.js';

/*
 * Worked by hand from the seeds and test/fixtures/payment_rules (real Care Compare rows):
 *   01014F Birmingham VA Medical Center: Alabama locality 1011200 (GPCI2026 1.000 / 0.875 / 0.566),
 *     CBSA 13820 (Jefferson county), wage index 0.8283.
 *     Physician 70450-26 facility PE: 0.85 + 0.31 x 0.875 + 0.04 x 0.566 = 0.85 + 0.27125 + 0.02264
 *       = 1.14389 x 33.4009 = 38.207... -> $38.21.
 *     OPPS reference: 145.53 x 0.6 x 0.8283 + 145.53 x 0.4 = 72.3248994 + 58.212 = 130.5374994 -> $130.54,
 *       not payable (42 CFR 411.6): estimated_payment $38.21, not 38.21 + 130.54 = 168.75.
 *   A rural emergency hospital in rural Alabama (CBSA 01, wage index 0.7555, seed Table 3), 42 CFR 419.92(a):
 *     OPPS 145.53 x 0.6 x 0.7555 + 58.212 = 124.180749; x 1.05 = 130.38978645 -> $130.39;
 *     copayment without the 5%: 29.11 x 0.6 x 0.7555 + 29.11 x 0.4 = 13.195563 + 11.644 = 24.839563 -> $24.84.
 */
const snap = usePaymentSnapshot();

describe('facility_payment_system: the payment systems outside the plain OPPS', () => {
  it('types a CCN with F in the sixth position, and the VA and DoD hospital types, as federal; an REH as reh', () => {
    expect(paymentSystemOf('01014F', 'va_acute_care_hospital')).toBe('federal');
    expect(paymentSystemOf('02013F', 'dod_acute_care_hospital')).toBe('federal');
    expect(paymentSystemOf('01014F', 'acute_care_hospital')).toBe('federal');
    expect(paymentSystemOf('010779', 'rural_emergency_hospital')).toBe('reh');
    expect(paymentSystemOf('010001', 'acute_care_hospital')).toBe('opps');
  });

  it('shows a VA hospital\'s OPPS amount for reference only: 01014F pays $38.21, not $168.75', async () => {
    const { composition: c, warnings } = await composeOn(snap(), { code: '70450', ccn: '01014F' });
    expect(c.facility).toMatchObject({ ccn: '01014F', facility_type: 'va_acute_care_hospital', wage_index: 0.8283 });
    expect(c.outpatient_facility).toMatchObject({ allowed_fac_payment: 130.54, informational: true });
    expect(c).toMatchObject({ estimated_payment: 38.21, applicable_blocks: ['physician'] });
    expect(warnings.join(' ')).toMatch(/01014F is a federal hospital \(F in the sixth position of its CCN.*42 CFR 411.6\(a\).*not payable.*informational and not in estimated_payment/);
  });

  it('explains a Maryland hospital without a wage index by its all-payer model, not as missing data', async () => {
    const { composition: c, warnings } = await composeOn(snap(), { code: '70450', ccn: '210002' });
    expect(c.outpatient_facility).toBeNull();
    const w = warnings.join(' | ');
    expect(w).toMatch(/210002 is a Maryland hospital, paid under the state's all-payer model \(.*section 1814\(b\)\(3\).*Total Cost of Care/);
    expect(w).not.toMatch(/OPPS amount not computed/);
  });

  it('explains a rural emergency hospital without a wage index: OPPS plus 5% (42 CFR 419.92) needs it, no amount, degraded', async () => {
    const { composition: c, warnings, degraded } = await composeOn(snap(), { code: '70450', ccn: '010779' });
    expect(c.outpatient_facility).toBeNull();
    expect(degraded).toBe(true);
    expect(warnings.join(' ')).toMatch(/010779 is a rural emergency hospital: 105% of the OPPS amount.*42 CFR 419.92\(a\).*no wage index for CBSA \(unknown\) of 010779, so no amount is computed/);
  });

  it('pays a rural emergency hospital 105% of the OPPS amount and the copayment without the 5%: $130.39 and $24.84', async () => {
    const reh = facilityPaymentSystem.line!({ code: '70450', modifiers: [], year: 2026, figures: null, facility: { ccn: '010779', facility_type: 'rural_emergency_hospital', payment_system: 'reh' }, rvu_modifiers: [''] })!;
    expect(reh.opps_adjustment).toEqual({ modifier: null, rule: 'rural_emergency_hospital', indicator: 'reh', percent: 105, citation: CITE_REH });
    const inputs: PaymentInputs = {
      code: '70450',
      ccn: '010779',
      date_of_service: '2026-03-02',
      qpp: false,
      pe: { facility: true, decided_by: 'facility_type' },
      rvu: null,
      gpci: { locality: '1011200', pw_gpci: 1, pe_gpci: 0.875, mp_gpci: 0.566 },
      facility: null,
      opps: { payment_rate: 145.53, apc_code: '5522', status_indicator: 'Q3', relative_weight: 1.592, wage_index: 0.7555, informational: false, minimum_unadjusted_copayment: 29.11, adjustments: [reh.opps_adjustment!] },
      lab: null,
      dme: null,
      cf: { value: '33.4009', source: 'test' },
      figures: await yearFigures(snap(), 2026),
      opps_cap: null,
      policy_rules: [],
      cost_sharing: { year: 2026, deductible_met: true },
    };
    const { composition: c } = composePayment(inputs);
    expect(c.outpatient_facility).toMatchObject({ allowed_fac_payment: 130.39, adjustments: [{ rule: 'rural_emergency_hospital', percent: 105 }] });
    expect(c.beneficiary_cost_sharing.opps_copayment).toBe(24.84);
    expect(c.estimated_payment).toBe(130.39);
  });

  it('keeps the critical access hospital and plain OPPS answers as they were', () => {
    const line = (payment_system: 'cah_cost' | 'opps') => ({ code: '70450', modifiers: [], year: 2026, figures: null, facility: { ccn: '011300', facility_type: 'critical_access_hospital', payment_system }, rvu_modifiers: [''] });
    expect(facilityPaymentSystem.line!(line('cah_cost'))?.opps_informational).toBe('011300 is a critical access hospital, paid at 101% of reasonable cost (42 CFR 413.70) rather than under the OPPS');
    expect(facilityPaymentSystem.line!(line('opps'))).toBeNull();
  });
});
