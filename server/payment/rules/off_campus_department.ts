import type { Adjustment } from '../inputs.js';
import { SOURCES, type PaymentRule } from './rule.js';

export const CITE_OFF_CAMPUS = 'section 1833(t)(21) of the Social Security Act and 42 CFR 419.48 (off-campus provider-based departments); PFS relativity adjuster 40% of the OPPS rate (OPPS final rules); the clinic visit G0463 at 40% at excepted departments too (CY2019 OPPS final rule)';

/** The modifiers of an off-campus provider-based department's line. */
const DEPARTMENT_MODIFIERS: readonly string[] = ['PN', 'PO'];

/**
 * Off-campus provider-based departments: PN (non-excepted) is paid 40% of the OPPS amount; PO
 * (excepted) 100%, except the clinic visit G0463, paid 40% with PO too. Null when neither applies.
 */
export function offCampusAdjustment(code: string, modifiers: readonly string[]): Adjustment | null {
  if (modifiers.includes('PN')) return { modifier: 'PN', rule: 'off_campus_department', indicator: 'PN', percent: 40, citation: CITE_OFF_CAMPUS };
  if (modifiers.includes('PO')) return { modifier: 'PO', rule: 'off_campus_department', indicator: 'PO', percent: code === 'G0463' ? 40 : 100, citation: CITE_OFF_CAMPUS };
  return null;
}

/** PN and PO on the OPPS amount and its copayment; without an OPPS block, a warning that they adjust nothing here. */
export const offCampusDepartment: PaymentRule = {
  id: 'off_campus_department',
  modifiers: DEPARTMENT_MODIFIERS,
  applies_to: 'a line of an off-campus provider-based department: modifier PN (non-excepted) or PO (excepted)',
  does: 'PN: 40% of the OPPS amount and its copayment (the PFS relativity adjuster); PO: 100%, the clinic visit G0463 40%',
  block: 'outpatient_facility',
  citation: { title: CITE_OFF_CAMPUS, url: SOURCES.cfr(419, '48') },
  adjustments: ['off_campus_department'],
  outpatient({ code, opps, modifiers }) {
    const mine = modifiers.filter((m) => DEPARTMENT_MODIFIERS.includes(m));
    if (!mine.length) return null;
    if (!opps) return { warning: `modifier ${mine.join(', ')} adjusts the OPPS amount of an off-campus department; this answer has no OPPS block` };
    const a = offCampusAdjustment(code, mine)!;
    return { adjustment: a, calculation: `outpatient_facility: modifier ${a.modifier}: ${a.percent}% of the OPPS amount (${a.citation})` };
  },
};
