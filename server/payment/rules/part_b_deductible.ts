import { Dec } from '../../../lib/decimal.js';
import { SOURCES, type PaymentRule } from './rule.js';

export const CITE_DEDUCTIBLE = 'section 1833(b) of the Social Security Act; 42 CFR 410.160';

/**
 * The Part B deductible, when the beneficiary has not met it (`deductible_met=false`), is taken
 * from the physician amount first, then DME, then OPPS; a line rule's terms may waive it (PT, ACP
 * with 33). The year's amount is the `part_b_deductible` figure of `medicare_yearly_figures`
 * (CMS's "Medicare Parts A & B Premiums and Deductibles" fact sheet of the year, cited by the
 * document); a year whose figure is not loaded counts none, with a warning.
 */
export const partBDeductible: PaymentRule = {
  id: 'part_b_deductible',
  modifiers: [],
  applies_to: 'every line whose deductible is not met (deductible_met=false), unless a rule waives it',
  does: "takes the year's Part B deductible (medicare_yearly_figures) from the physician amount, then DME, then OPPS",
  block: 'beneficiary_cost_sharing',
  citation: { title: CITE_DEDUCTIBLE, url: SOURCES.cfr(410, '160') },
  costSharing(s) {
    if (!s.deductible_applies || s.deductible_met) return;
    const y = s.figures?.figure('part_b_deductible');
    if (y) s.citations.push(`${CITE_DEDUCTIBLE}; CY${s.year} Part B deductible $${y.value.toString()} (${y.citation.title})`);
    else s.warnings.push(`beneficiary_cost_sharing: no CY${s.year} Part B deductible is loaded (medicare_yearly_figures); the deductible is not counted`);
    let remaining = y ? y.value : Dec.of(0);
    const take = (amount: number) => {
      const d = Dec.of(amount).compare(remaining) < 0 ? Dec.of(amount) : remaining;
      remaining = remaining.sub(d);
      s.deductible = s.deductible.add(d);
      return Dec.of(amount).sub(d);
    };
    s.rest.physician = take(s.amounts.physician);
    s.rest.dme = take(s.amounts.dme);
    if (s.amounts.opps) s.rest.opps = take(s.amounts.opps.allowed);
  },
};
