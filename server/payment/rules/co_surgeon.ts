import { modifierAdjustment, SOURCES, type PaymentRule } from './rule.js';

export const CITE_CO_TEAM = 'Medicare Claims Processing Manual ch. 12 section 40.8 (co-surgeons and team surgeons); RVU file CO-SURG / TEAM SURG indicators';

/** Modifier 62 by the RVU file's CO-SURG indicator: 1 and 2 pay 62.5% to each surgeon; 0 and 9 are not payable as co-surgery. */
export const coSurgeon: PaymentRule = {
  id: 'co_surgeon',
  modifiers: ['62'],
  applies_to: 'a line with modifier 62, by the CO-SURG indicator of the priced RVU row',
  does: 'indicators 1 and 2: 62.5% of the physician amount to each surgeon; 0, 9: not payable (no amount)',
  block: 'physician',
  citation: { title: CITE_CO_TEAM, url: SOURCES.claimsManualCh12 },
  adjustments: ['co_surgeon'],
  physician({ code, modifiers, indicators }) {
    if (!modifiers.includes('62')) return null;
    const i = indicators.co_surg;
    if (i === '1' || i === '2') return { adjustment: modifierAdjustment('62', 'co_surgeon', i, 62.5, CITE_CO_TEAM) };
    return { not_priced: `modifier 62: ${code} has co-surgeon indicator ${i || '(blank)'} (${i === '0' ? 'co-surgeons not permitted' : 'the co-surgeon concept does not apply'}): not payable as co-surgery (${CITE_CO_TEAM})` };
  },
};
