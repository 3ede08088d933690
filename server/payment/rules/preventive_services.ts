import { Dec } from '../../../datasets/_shared/decimal.js';
import { SOURCES, type PaymentRule } from './rule.js';

/**
 * Preventive services with neither deductible nor coinsurance (USPSTF A/B and the statutory
 * preventive benefits): 42 CFR 410.152(l) and 410.160(b); Claims Processing Manual ch. 18.
 */
export const PREVENTIVE_NO_COST_SHARING: ReadonlySet<string> = new Set([
  '77063', // screening digital breast tomosynthesis
  '77067', // screening mammography
  'G0402', // initial preventive physical examination
  'G0438', // annual wellness visit, initial
  'G0439', // annual wellness visit, subsequent
  'G0105', // screening colonoscopy, high risk
  'G0121', // screening colonoscopy, not high risk
  'G0008', // influenza vaccine administration
  'G0009', // pneumococcal vaccine administration
]);

export const CITE_PREVENTIVE = '42 CFR 410.152(l) and 410.160(b): no deductible or coinsurance for the listed preventive services';

/** A listed preventive service: no deductible, no coinsurance, no OPPS copayment, whatever else applies to the line. */
export const preventiveServices: PaymentRule = {
  id: 'preventive_services',
  modifiers: [],
  applies_to: `the listed preventive services (${[...PREVENTIVE_NO_COST_SHARING].join(', ')})`,
  does: 'no Part B deductible, no coinsurance and no OPPS copayment: the program pays all',
  block: 'beneficiary_cost_sharing',
  citation: { title: CITE_PREVENTIVE, url: SOURCES.cfr(410, '152') },
  costSharing(s) {
    if (!PREVENTIVE_NO_COST_SHARING.has(s.code)) return;
    s.waived = true;
    s.deductible_applies = false;
    s.citations.push(CITE_PREVENTIVE);
    s.copayment = s.amounts.opps ? Dec.of(0) : null;
  },
};
