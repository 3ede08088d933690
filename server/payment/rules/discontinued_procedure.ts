import { SOURCES, type PaymentRule } from './rule.js';

/** The RVU file's 53 rows: Medicare's incomplete colonoscopy is billed with modifier 53 (44388, 45378, G0105, G0121 carry 53 rows). */
export const CITE_INCOMPLETE_COLONOSCOPY = 'Medicare Claims Processing Manual ch. 12 section 30.1.B (incomplete colonoscopies are billed with modifier 53 and paid from the RVU file\'s 53 rows; MLN MM9317)';

/**
 * Modifier 53 (discontinued procedure) selects the code's `53` row of the RVU file, which CMS
 * publishes for the incomplete colonoscopy (44388, 45378, G0105, G0121); a code without one is
 * priced by report by the MAC, so the physician block has no amount.
 */
export const discontinuedProcedure: PaymentRule = {
  id: 'discontinued_procedure',
  modifiers: ['53'],
  applies_to: 'a line with modifier 53',
  does: "prices the RVU file's 53 row (Medicare's incomplete colonoscopy); a code without one has no amount (by report)",
  block: 'physician',
  citation: { title: CITE_INCOMPLETE_COLONOSCOPY, url: SOURCES.claimsManualCh12 },
  rowChosen({ code, modifier, row, trace, calculation }) {
    if (modifier !== '53') return;
    if (!row) trace.warn(`physician: modifier 53 (discontinued procedure): ${code} has no 53 row; the MAC prices it by report, no amount (${CITE_INCOMPLETE_COLONOSCOPY})`);
    else calculation.push(`modifier 53: discontinued procedure priced from the ${code}-53 row of the RVU file (${CITE_INCOMPLETE_COLONOSCOPY})`);
  },
};
