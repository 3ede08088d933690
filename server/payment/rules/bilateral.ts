import { modifierAdjustment, SOURCES, type PaymentRule } from './rule.js';

export const CITE_BILATERAL = 'Medicare Claims Processing Manual ch. 12 section 40.7 (bilateral surgeries); RVU file BILAT SURG indicator';

/**
 * Modifier 50 by the RVU file's BILAT SURG indicator: 1 pays 150%; 3 pays 200% (100% per side);
 * 0 (the adjustment does not apply) and 2 (the code is already bilateral) one payment at 100%, said
 * in a warning; 9 (the concept does not apply) is not adjusted.
 */
export const bilateral: PaymentRule = {
  id: 'bilateral',
  modifiers: ['50'],
  applies_to: 'a line with modifier 50, by the BILAT SURG indicator of the priced RVU row',
  does: 'indicator 1: 150% of the physician amount; 3: 200%; 0 and 2: 100%, one payment; 9: not adjusted',
  block: 'physician',
  citation: { title: CITE_BILATERAL, url: SOURCES.claimsManualCh12 },
  adjustments: ['bilateral'],
  physician({ code, modifiers, indicators }) {
    if (!modifiers.includes('50')) return null;
    const i = indicators.bilat_surg;
    if (i === '1') return { adjustment: modifierAdjustment('50', 'bilateral', i, 150, CITE_BILATERAL) };
    if (i === '3') return { adjustment: modifierAdjustment('50', 'bilateral', i, 200, CITE_BILATERAL) };
    if (i === '0' || i === '2') {
      const why = i === '0' ? 'the 150% bilateral adjustment does not apply' : 'the code is already bilateral';
      return { adjustment: modifierAdjustment('50', 'bilateral', i, 100, CITE_BILATERAL), warnings: [`modifier 50: ${code} has bilateral indicator ${i} (${why}): one payment at 100%`] };
    }
    return { warnings: [`modifier 50: ${code} has bilateral indicator ${i || '(blank)'} (the bilateral concept does not apply); not adjusted`] };
  },
};
