import type { PaymentRule, YearRow } from './index.js';
import { rowForYear } from './index.js';

/**
 * Advance care planning furnished as an optional element of the annual wellness visit (G0438 or
 * G0439), on the same day, by the same provider, on the same claim, marked with modifier 33: the
 * Part B deductible and the coinsurance are waived for the ACP codes, as for the visit itself
 * (CY2016 physician fee schedule final rule; MLN MM9271, CR 9271). The codes and the first year
 * are the row below; the same codes without modifier 33 keep the deductible and coinsurance.
 */
export const ACP_WITH_AWV: readonly (YearRow & { codes: readonly string[]; modifier: string; percent: number })[] = [
  {
    from_year: 2016,
    to_year: null,
    codes: ['99497', '99498'],
    modifier: '33',
    percent: 0,
    citation:
      'CY2016 physician fee schedule final rule (CMS-1631-FC): advance care planning (99497, 99498) furnished with the annual wellness visit (G0438, G0439) on the same day by the same provider, billed with modifier 33, has no deductible or coinsurance; MLN MM9271 (CR 9271)',
  },
];

export const advanceCarePlanningWithAwv: PaymentRule = {
  id: 'advance_care_planning_with_awv',
  apply(line) {
    const row = rowForYear(ACP_WITH_AWV, line.year);
    if (!row || !row.codes.includes(line.code) || !line.modifiers.includes(row.modifier)) return null;
    const calculation = `modifier ${row.modifier}: ${line.code} (advance care planning) with the annual wellness visit: no Part B deductible and ${row.percent}% coinsurance (${row.citation})`;
    return { rule: 'advance_care_planning_with_awv', calculation, cost_sharing: { rule: 'advance_care_planning_with_awv', deductible_applies: false, coinsurance_percent: row.percent, citation: row.citation, calculation } };
  },
};
