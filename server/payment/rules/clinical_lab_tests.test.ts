import { yearFigures } from '../../../datasets/medicare_yearly_figures/queries.js';
import { describe, expect, it } from 'vitest';
import { composeOn, usePaymentSnapshot } from '../../../testing/payment.js';
import { costSharing } from '../calculate.js';
import { CITE_LAB_NO_COST_SHARING } from './clinical_lab_tests.js';

/*
 * Section 1833(a)(1)(D) and (b)(3) of the Act: clinical laboratory tests are paid at 100%, with no
 * deductible or coinsurance. 80048 at UCSF (CLFS 2026 national limit $8.46), deductible not met:
 * the beneficiary pays nothing, the program $8.46.
 */
const snap = usePaymentSnapshot();

describe('clinical_lab_tests: no cost sharing on the lab block', () => {
  it('leaves the $8.46 of 80048 at UCSF to the program even with the deductible not met', async () => {
    const { composition: c } = await composeOn(snap(), { code: '80048', ccn: '050454', deductible_met: false });
    expect(c.lab).toMatchObject({ allowed_lab_payment: 8.46 });
    expect(c.beneficiary_cost_sharing).toMatchObject({ deductible: 0, coinsurance: 0, beneficiary_total: 0, program_payment: 8.46 });
    expect(c.beneficiary_cost_sharing.citations).toContain(CITE_LAB_NO_COST_SHARING);
  });

  it('takes the deductible and coinsurance from the other blocks only', async () => {
    // Physician $100, lab $50, CY2026 not met: the deductible takes $100 (of $283), the lab is untouched.
    const { block } = costSharing({ code: 'X', year: 2026, figures: await yearFigures(snap(), 2026), deductible_met: false, physician: 100, dme: 0, lab: 50, opps: null });
    expect(block).toMatchObject({ deductible: 100, coinsurance: 0, beneficiary_total: 100, program_payment: 50 });
    expect(block.citations).toContain(CITE_LAB_NO_COST_SHARING);
  });
});
