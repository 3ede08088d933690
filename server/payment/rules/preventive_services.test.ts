import { describe, expect, it } from 'vitest';
import { Dec } from '../../../datasets/_shared/decimal.js';
import { composeOn, usePaymentSnapshot } from '../../../test/helpers/payment.js';
import { costSharing } from '../calculate.js';
import { PREVENTIVE_NO_COST_SHARING } from './preventive_services.js';

/*
 * 42 CFR 410.152(l) and 410.160(b): no deductible or coinsurance for the listed preventive services.
 * 77067 (screening mammography) in Manhattan, CY2026, deductible not met:
 *   0.76 x 1.064 + 3.04 x 1.162 + 0.05 x 1.586 = 0.80864 + 3.53248 + 0.0793 = 4.42042
 *   x 33.4009 = 147.646006378 -> $147.65, all the program's (no $283 deductible, no 20%).
 */
const snap = usePaymentSnapshot();

describe('preventive_services: no cost sharing for the listed preventive services', () => {
  it('leaves the beneficiary nothing to pay for 77067 in Manhattan with the deductible not met: $147.65 is the program\'s', async () => {
    const { composition: c } = await composeOn(snap(), { code: '77067', locality: '1320201', deductible_met: false });
    expect(c.physician?.allowed_phy_payment).toBe(147.65);
    expect(c.beneficiary_cost_sharing).toMatchObject({ deductible_applies: false, deductible: 0, coinsurance: 0, beneficiary_total: 0, program_payment: 147.65, citations: [expect.stringMatching(/^42 CFR 410\.152\(l\) and 410\.160\(b\)/)] });
  });

  it('waives the OPPS copayment too, and a line rule\'s terms', () => {
    expect(PREVENTIVE_NO_COST_SHARING.has('G0438')).toBe(true);
    const terms = { rule: 'colorectal_screening_pt', deductible_applies: false, coinsurance_percent: 15, citation: 'c', calculation: 'pt' };
    const { block, calculation } = costSharing({ code: 'G0121', year: 2026, deductible_met: false, physician: 100, dme: 0, lab: 0, opps: { allowed: 200, copayment: Dec.of(40) }, terms });
    expect(block).toMatchObject({ deductible: 0, coinsurance: 0, opps_copayment: 0, beneficiary_total: 0, program_payment: 300 });
    expect(calculation).toEqual([]);
  });
});
