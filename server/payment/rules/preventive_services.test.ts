import { describe, expect, it } from 'vitest';
import { Dec } from '../../../lib/decimal.js';
import { yearFigures } from '../../../datasets/medicare_yearly_figures/queries.js';
import { composeOn, figuresOf, usePaymentSnapshot } from '../../../testing/payment.js';
import { costSharing } from '../calculate.js';

/*
 * 42 CFR 410.152(l) and 410.160(b): no deductible or coinsurance for the year's preventive services
 * (the preventive_no_cost_sharing list of medicare_yearly_figures).
 * 77067 (screening mammography) in Manhattan, CY2026, deductible not met:
 *   0.76 x 1.064 + 3.04 x 1.162 + 0.05 x 1.586 = 0.80864 + 3.53248 + 0.0793 = 4.42042
 *   x 33.4009 = 147.646006378 -> $147.65, all the program's (no $283 deductible, no 20%).
 */
const snap = usePaymentSnapshot();

describe('preventive_services: no cost sharing for the year\'s preventive services', () => {
  it('leaves the beneficiary nothing to pay for 77067 in Manhattan with the deductible not met: $147.65 is the program\'s', async () => {
    const { composition: c } = await composeOn(snap(), { code: '77067', locality: '1320201', deductible_met: false });
    expect(c.physician?.allowed_phy_payment).toBe(147.65);
    expect(c.beneficiary_cost_sharing).toMatchObject({ deductible_applies: false, deductible: 0, coinsurance: 0, beneficiary_total: 0, program_payment: 147.65, citations: [expect.stringMatching(/^42 CFR 410\.152\(l\) and 410\.160\(b\)/)] });
  });

  it('waives the OPPS copayment too, and a line rule\'s terms', async () => {
    const figures = await yearFigures(snap(), 2026);
    expect(figures!.codes('preventive_no_cost_sharing').has('G0438')).toBe(true);
    const terms = { rule: 'colorectal_screening_pt', deductible_applies: false, coinsurance_percent: 15, citation: 'c', calculation: 'pt' };
    const { block, calculation } = costSharing({ code: 'G0121', year: 2026, figures, deductible_met: false, physician: 100, dme: 0, lab: 0, opps: { allowed: 200, copayment: Dec.of(40) }, terms });
    expect(block).toMatchObject({ deductible: 0, coinsurance: 0, opps_copayment: 0, beneficiary_total: 0, program_payment: 300 });
    expect(calculation).toEqual([]);
  });

  it('reads the list of the service\'s year: a code off it (or a year without a list) shares the cost', () => {
    const share = (preventive: string[]) => costSharing({ code: 'G0438', year: 2027, figures: figuresOf(2027, { part_b_deductible: '300', part_b_coinsurance_percent: '20' }, preventive), deductible_met: false, physician: 400, dme: 0, lab: 0, opps: null }).block;
    expect(share(['G0438'])).toMatchObject({ deductible_applies: false, beneficiary_total: 0 });
    expect(share(['G0439'])).toMatchObject({ deductible_applies: true, deductible: 300, coinsurance: 20 });
  });
});
