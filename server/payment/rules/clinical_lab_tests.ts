import { SOURCES, type PaymentRule } from './rule.js';

export const CITE_LAB_NO_COST_SHARING = 'section 1833(a)(1)(D) and (b)(3) of the Social Security Act: clinical laboratory tests are paid at 100%, no deductible or coinsurance';

/** Clinical laboratory tests (the CLFS block) carry no deductible and no coinsurance: the deductible and coinsurance rules never read the lab amount; this one cites why. */
export const clinicalLabTests: PaymentRule = {
  id: 'clinical_lab_tests',
  modifiers: [],
  applies_to: 'the lab (CLFS) block',
  does: 'no deductible and no coinsurance on the lab amount: the program pays all of it',
  block: 'beneficiary_cost_sharing',
  citation: { title: CITE_LAB_NO_COST_SHARING, url: SOURCES.ssa1833 },
  costSharing(s) {
    if (s.amounts.lab > 0) s.citations.push(CITE_LAB_NO_COST_SHARING);
  },
};
