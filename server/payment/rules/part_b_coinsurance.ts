import { Dec } from '../../../datasets/_shared/decimal.js';
import { SOURCES, type PaymentRule } from './rule.js';

export const CITE_COINSURANCE = 'section 1833(a)(1) of the Social Security Act: Part B pays 80%, the beneficiary 20% coinsurance; 42 CFR 410.152';

/** The standard Part B coinsurance: 20% of the physician and DME amounts left after the deductible, or the percent of a line rule's terms. */
export const partBCoinsurance: PaymentRule = {
  id: 'part_b_coinsurance',
  modifiers: [],
  applies_to: 'the physician and DME amounts of every line',
  does: "20% of what remains after the deductible (a line rule's percent in its place)",
  block: 'beneficiary_cost_sharing',
  citation: { title: CITE_COINSURANCE, url: SOURCES.cfr(410, '152') },
  costSharing(s) {
    s.coinsurance = s.rest.physician.add(s.rest.dme).mul(Dec.of(s.terms?.coinsurance_percent ?? 20).mul('0.01'));
    if ((s.amounts.physician > 0 || s.amounts.dme > 0) && !s.terms) s.citations.push(CITE_COINSURANCE);
  },
};
