import { SOURCES, type PaymentRule } from './rule.js';

export const CITE_OPPS_COPAY = '42 CFR 419.41 (beneficiary copayment under the OPPS), wage-adjusted as the payment (42 CFR 419.43), never above the year\'s inpatient deductible (section 1833(t)(8)(C)(i) of the Act)';

/**
 * The OPPS copayment of a payable OPPS block: the Addendum B copayment (or a line rule's percent of
 * the OPPS amount, computed by the composition), capped at the year's inpatient deductible (the
 * `inpatient_deductible` figure of `medicare_yearly_figures`) and at what remains of the block
 * after the deductible.
 */
export const oppsCopaymentRule: PaymentRule = {
  id: 'opps_copayment',
  modifiers: [],
  applies_to: 'a payable outpatient_facility block',
  does: "the Addendum B copayment, wage-adjusted, never above the year's inpatient deductible nor the block",
  block: 'beneficiary_cost_sharing',
  citation: { title: CITE_OPPS_COPAY, url: SOURCES.cfr(419, '41') },
  costSharing(s) {
    const opps = s.amounts.opps;
    if (!opps) return;
    if (opps.copayment === null) {
      // A line rule whose percent is not loaded (null) says so itself.
      if (s.terms?.coinsurance_percent !== null) s.warnings.push(`beneficiary_cost_sharing: Addendum B prints no copayment for ${s.code}; the OPPS copayment is not counted`);
      return;
    }
    const y = s.figures?.figure('inpatient_deductible');
    let copay = opps.copayment;
    if (y && copay.compare(y.value) > 0) copay = y.value;
    if (!y) s.warnings.push(`beneficiary_cost_sharing: no CY${s.year} inpatient deductible is loaded (medicare_yearly_figures); the OPPS copayment is not capped`);
    if (copay.compare(s.rest.opps) > 0) copay = s.rest.opps;
    s.copayment = copay;
    if (!s.terms) s.citations.push(CITE_OPPS_COPAY + (y ? `; CY${s.year} inpatient deductible $${y.value.toString()} (${y.citation.title})` : ''));
  },
};
