import { modifiersWhere } from '../../../lib/vocabulary/modifiers.js';
import { modifierAdjustment, SOURCES, type PaymentRule } from './rule.js';

export const CITE_ASSISTANT = 'Medicare Claims Processing Manual ch. 12 section 20.4.3 (assistant-at-surgery services); RVU file ASST SURG indicator';
export const CITE_ASSISTANT_NPP = `${CITE_ASSISTANT}; non-physician practitioners at 85% of the physician amount (42 CFR 414.52, 414.56)`;

/** The assistant-at-surgery modifiers, the first on the line applied: 80, 81, 82 (physicians) and AS (a non-physician practitioner). */
const ASSISTANT_MODIFIERS: readonly string[] = [...modifiersWhere('payment', 'assistant_at_surgery')];

/**
 * An assistant at surgery by the RVU file's ASST SURG indicator: 2 pays 16% (AS, a non-physician
 * practitioner, 85% of that: 13.6%); 0 is paid only with documentation of medical necessity and 1
 * never (a statutory restriction), so neither has an amount here; 9 is not payable.
 */
export const assistantAtSurgery: PaymentRule = {
  id: 'assistant_at_surgery',
  modifiers: ASSISTANT_MODIFIERS,
  applies_to: 'a line with modifier 80, 81, 82 or AS, by the ASST SURG indicator of the priced RVU row',
  does: 'indicator 2: 16% of the physician amount (AS 13.6%); 0: documentation required, 1: never paid, 9: not payable (no amount)',
  block: 'physician',
  citation: { title: CITE_ASSISTANT_NPP, url: SOURCES.claimsManualCh12 },
  adjustments: ['assistant_at_surgery'],
  physician({ code, modifiers, indicators }) {
    const asst = ASSISTANT_MODIFIERS.filter((m) => modifiers.includes(m));
    const a = asst[0];
    if (!a) return null;
    const warnings = asst.length > 1 ? [`modifiers ${asst.join(', ')} all mark an assistant at surgery; ${a} was applied`] : [];
    const i = indicators.asst_surg;
    if (i === '2') return { adjustment: a === 'AS' ? modifierAdjustment(a, 'assistant_at_surgery', i, 13.6, CITE_ASSISTANT_NPP) : modifierAdjustment(a, 'assistant_at_surgery', i, 16, CITE_ASSISTANT), warnings };
    const why =
      i === '0'
        ? `modifier ${a}: ${code} has assistant-at-surgery indicator 0: an assistant is paid only with documentation of medical necessity; no amount (${CITE_ASSISTANT})`
        : i === '1'
          ? `modifier ${a}: ${code} has assistant-at-surgery indicator 1: statutory payment restriction, an assistant at surgery cannot be paid (${CITE_ASSISTANT})`
          : `modifier ${a}: ${code} has assistant-at-surgery indicator ${i || '(blank)'} (the concept does not apply): not payable as an assistant at surgery (${CITE_ASSISTANT})`;
    return { not_priced: why, warnings };
  },
};
