import { ownValue } from '../../../lib/own.js';
import { modifierAdjustment, SOURCES, type PaymentRule } from './rule.js';

export const CITE_MULTIPLE = 'Medicare Claims Processing Manual ch. 12 section 40.6 (multiple surgeries); RVU file MULT PROC indicator';

/** The MULT PROC indicators of the family reductions, which depend on the other services of the day. */
const FAMILY_REDUCTIONS: Readonly<Record<string, string>> = { '3': 'endoscopy', '4': 'diagnostic imaging', '5': 'therapy', '6': 'diagnostic cardiovascular', '7': 'diagnostic ophthalmology' };

/**
 * Modifier 51 by the RVU file's MULT PROC indicator: 2 pays 50% (a second procedure); the family
 * reductions (3-7) depend on the other services of the day, so on one code they are not applied
 * (warning); 0 and 9 have no reduction.
 */
export const multipleProcedure: PaymentRule = {
  id: 'multiple_procedure',
  modifiers: ['51'],
  applies_to: 'a line with modifier 51, by the MULT PROC indicator of the priced RVU row',
  does: 'indicator 2: 50% of the physician amount; 3-7 (family reductions) not applied to one code; 0, 9: none',
  block: 'physician',
  citation: { title: CITE_MULTIPLE, url: SOURCES.claimsManualCh12 },
  adjustments: ['multiple_procedure'],
  physician({ code, modifiers, indicators }) {
    if (!modifiers.includes('51')) return null;
    const i = indicators.mult_proc;
    if (i === '2') return { adjustment: modifierAdjustment('51', 'multiple_procedure', i, 50, CITE_MULTIPLE) };
    const family = ownValue(FAMILY_REDUCTIONS, i);
    if (family) return { warnings: [`modifier 51: ${code} has multiple procedure indicator ${i}, the ${family} reduction, which depends on the other services of the day; not applied to a single code (${CITE_MULTIPLE})`] };
    return { warnings: [`modifier 51: ${code} has multiple procedure indicator ${i || '(blank)'}: no multiple procedure reduction applies; not adjusted`] };
  },
};
