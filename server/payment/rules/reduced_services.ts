import { CITE_INCOMPLETE_COLONOSCOPY } from './discontinued_procedure.js';
import { SOURCES, type PaymentRule } from './rule.js';

export const CITE_REDUCED = 'Medicare Claims Processing Manual ch. 12 section 20.4.6 (reduced services, modifier 52: the contractor prices the reduced service from the documentation)';

/**
 * Modifier 52 (reduced services): the contractor (the MAC) prices the reduced service from the
 * claim's documentation and reduced charge; the RVU file has no 52 rows, so no amount is answered
 * (`CITE_REDUCED`). The `53` rows of the RVU file are Medicare's discontinued procedure: an
 * incomplete colonoscopy is billed 45378-53 (44388, G0105, G0121 too; `CITE_INCOMPLETE_COLONOSCOPY`),
 * so a `-52` line never borrows the `-53` row's amount.
 */
export const reducedServices: PaymentRule = {
  id: 'reduced_services',
  modifiers: ['52'],
  applies_to: 'a line with modifier 52',
  does: 'no physician amount: the MAC prices the reduced service by report; never the 53 row',
  block: 'physician',
  citation: { title: CITE_REDUCED, url: SOURCES.claimsManualCh12 },
  line(line) {
    if (!line.modifiers.includes('52')) return null;
    const has53 = line.rvu_modifiers.includes('53');
    const why =
      `modifier 52 (reduced services): the MAC prices a reduced ${line.code} by report, from the documentation and the reduced charge on the claim; no amount (${CITE_REDUCED})` +
      (has53 ? `. The ${line.code}-53 row is Medicare's discontinued procedure, not a reduced service: an incomplete colonoscopy is billed with modifier 53 (${CITE_INCOMPLETE_COLONOSCOPY})` : '');
    return { rule: 'reduced_services', calculation: why, physician_not_priced: why };
  },
};
