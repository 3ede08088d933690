import { Dec } from '../../../lib/decimal.js';
import { SOURCES, type PaymentRule } from './rule.js';

export const CITE_PREVENTIVE = '42 CFR 410.152(l) and 410.160(b): no deductible or coinsurance for the listed preventive services';

/**
 * Preventive services with neither deductible nor coinsurance (USPSTF A/B and the statutory
 * preventive benefits): 42 CFR 410.152(l) and 410.160(b); Claims Processing Manual ch. 18. The
 * codes are the year's `preventive_no_cost_sharing` list of `medicare_yearly_figures`; a year
 * without a loaded document waives nothing (the composition says its figures are not loaded).
 */
export const preventiveServices: PaymentRule = {
  id: 'preventive_services',
  modifiers: [],
  applies_to: "the year's preventive services (the preventive_no_cost_sharing list of medicare_yearly_figures)",
  does: 'no Part B deductible, no coinsurance and no OPPS copayment: the program pays all',
  block: 'beneficiary_cost_sharing',
  citation: { title: CITE_PREVENTIVE, url: SOURCES.cfr(410, '152') },
  costSharing(s) {
    if (!s.figures?.codes('preventive_no_cost_sharing').has(s.code)) return;
    s.waived = true;
    s.deductible_applies = false;
    s.citations.push(CITE_PREVENTIVE);
    s.copayment = s.amounts.opps ? Dec.of(0) : null;
  },
};
