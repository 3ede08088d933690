import { Dec } from '../../../datasets/_shared/decimal.js';
import { SOURCES, type PaymentRule, type YearlyFigures, type YearRow } from './rule.js';

export const CITE_DEDUCTIBLE = 'section 1833(b) of the Social Security Act; 42 CFR 410.160';

/**
 * Yearly Part B figures, each from CMS's "Medicare Parts A & B Premiums and Deductibles" fact sheet
 * of the year; the 2026 inpatient deductible is also printed in the CY2026 Addendum B header
 * (the cap on OPPS copayments).
 */
export const YEARLY_DEDUCTIBLES: readonly (YearRow & YearlyFigures)[] = [
  { from_year: 2025, to_year: 2025, part_b_deductible: '257', inpatient_deductible: '1676', citation: 'CMS 2025 Medicare Parts A & B Premiums and Deductibles fact sheet' },
  { from_year: 2026, to_year: 2026, part_b_deductible: '283', inpatient_deductible: '1736', citation: 'CMS 2026 Medicare Parts A & B Premiums and Deductibles fact sheet; CY2026 OPPS Addendum B (copayment cap)' },
];

/**
 * The Part B deductible, when the beneficiary has not met it (`deductible_met=false`), is taken
 * from the physician amount first, then DME, then OPPS; a line rule's terms may waive it (PT, ACP
 * with 33). A year not in the table counts none, with a warning.
 */
export const partBDeductible: PaymentRule = {
  id: 'part_b_deductible',
  modifiers: [],
  applies_to: 'every line whose deductible is not met (deductible_met=false), unless a rule waives it',
  does: "takes the year's Part B deductible from the physician amount, then DME, then OPPS",
  block: 'beneficiary_cost_sharing',
  citation: { title: CITE_DEDUCTIBLE, url: SOURCES.cfr(410, '160') },
  costSharing(s) {
    if (!s.deductible_applies || s.deductible_met) return;
    const y = s.figures;
    if (y) s.citations.push(`${CITE_DEDUCTIBLE}; CY${s.year} Part B deductible $${y.part_b_deductible} (${y.citation})`);
    else s.warnings.push(`beneficiary_cost_sharing: no CY${s.year} Part B deductible in the table; the deductible is not counted`);
    let remaining = y ? Dec.of(y.part_b_deductible) : Dec.of(0);
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
