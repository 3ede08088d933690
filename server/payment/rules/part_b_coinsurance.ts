import { Dec } from '../../../lib/decimal.js';
import { SOURCES, type PaymentRule } from './rule.js';

export const CITE_COINSURANCE = "section 1833(a)(1) of the Social Security Act; 42 CFR 410.152: the beneficiary's Part B coinsurance, a percent of the approved amount";

/**
 * The Part B coinsurance: the year's `part_b_coinsurance_percent` (`medicare_yearly_figures`, 20
 * percent) of the physician and DME amounts left after the deductible, or the percent of a line
 * rule's terms. A year whose figure is not loaded counts none, with a warning.
 */
export const partBCoinsurance: PaymentRule = {
  id: 'part_b_coinsurance',
  modifiers: [],
  applies_to: 'the physician and DME amounts of every line',
  does: "the year's Part B coinsurance percent (medicare_yearly_figures) of what remains after the deductible (a line rule's percent in its place)",
  block: 'beneficiary_cost_sharing',
  citation: { title: CITE_COINSURANCE, url: SOURCES.cfr(410, '152') },
  costSharing(s) {
    const priced = s.amounts.physician > 0 || s.amounts.dme > 0;
    const figure = s.terms ? undefined : s.figures?.figure('part_b_coinsurance_percent');
    const percent = s.terms ? (s.terms.coinsurance_percent === null ? undefined : Dec.of(s.terms.coinsurance_percent)) : figure?.value;
    if (!percent) {
      // A line rule whose percent is not loaded says so itself.
      if (priced && !s.terms) s.warnings.push(`beneficiary_cost_sharing: no CY${s.year} Part B coinsurance is loaded (medicare_yearly_figures); the coinsurance is not counted`);
      return;
    }
    s.coinsurance = s.rest.physician.add(s.rest.dme).mul(percent.mul('0.01'));
    if (priced && figure) s.citations.push(figure.citation.title);
  },
};
