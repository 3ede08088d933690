import { isOwnKey } from '../../../lib/own.js';
import { type Modifier, MODIFIERS, modifiersWhere } from '../../../lib/vocabulary/modifiers.js';
import { CITE_ASSISTANT } from './assistant_at_surgery.js';
import { CITE_CO_TEAM } from './co_surgeon.js';
import { CITE_PCTC } from './professional_component.js';
import { SOURCES, type PaymentRule } from './rule.js';

/** Why an OPPS amount is not a physician's: OPPS pays the hospital's own services (42 CFR 419.22(a)). */
const CITE_NOT_OPPS = '42 CFR 419.22(a): physician services paid under the physician fee schedule are not paid under the OPPS; the hospital bills its outpatient service on its own claim';

/**
 * Modifiers of a claim line that bills only a professional service: the professional component
 * (26), an assistant at surgery (80, 81, 82; AS a non-physician assistant), co-surgeons (62) and
 * team surgery (66). The hospital bills the facility service once, on its own claim, whoever
 * assisted, so an OPPS amount is never part of such a line. With each, where it is defined (the
 * codes are `professional_only` in lib/vocabulary/modifiers.ts).
 */
const CITATIONS: Readonly<Record<NonNullable<Modifier['professional_only']>, string>> = { component: CITE_PCTC, assistant: CITE_ASSISTANT, co_surgery: CITE_CO_TEAM };
export const PROFESSIONAL_ONLY_MODIFIERS: Readonly<Record<string, { what: string; citation: string }>> = Object.fromEntries(
  [...modifiersWhere('professional_only')].map((code) => [code, { what: MODIFIERS[code]!.meaning, citation: CITATIONS[MODIFIERS[code]!.professional_only!] }]),
);

/**
 * A professional-only line at a facility (`ccn`): its answer is the physician block; the hospital's
 * OPPS amount for the code stays in the answer for reference (`informational`) and out of
 * `estimated_payment`, as knowledge resolve's `total_blocks` reads it: 27447-80 at a hospital is
 * the assistant's 16% alone, never the assistant's amount plus the hospital's OPPS payment.
 */
export const professionalOnlyLine: PaymentRule = {
  id: 'professional_only_line',
  modifiers: Object.keys(PROFESSIONAL_ONLY_MODIFIERS),
  applies_to: 'a line at a facility (ccn) with modifier 26, 80, 81, 82, AS, 62 or 66',
  does: 'the OPPS amount for reference only, not in estimated_payment: the hospital bills its service on its own claim',
  block: 'outpatient_facility',
  citation: { title: CITE_NOT_OPPS, url: SOURCES.cfr(419, '22') },
  line(line) {
    if (!line.facility) return null;
    const m = line.modifiers.find((x) => isOwnKey(PROFESSIONAL_ONLY_MODIFIERS, x));
    if (!m) return null;
    const d = PROFESSIONAL_ONLY_MODIFIERS[m]!;
    const why = `modifier ${m} (${d.what}): the claim line bills the professional service only; the hospital is paid its OPPS amount for ${line.code} on its own claim, so that amount is not part of this line (${CITE_NOT_OPPS}; ${d.citation})`;
    return { rule: 'professional_only_line', calculation: why, opps_informational: why };
  },
};
