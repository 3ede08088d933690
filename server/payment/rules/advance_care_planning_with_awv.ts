import { citeOwnTerms, rowForYear, type PaymentRule, type YearRow } from './rule.js';

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

/** 99497 and 99498 with modifier 33 (ACP with the annual wellness visit): no deductible and the row's coinsurance (none). */
export const advanceCarePlanningWithAwv: PaymentRule = {
  id: 'advance_care_planning_with_awv',
  modifiers: ['33'],
  applies_to: 'advance care planning (99497, 99498) with modifier 33: furnished with the annual wellness visit',
  does: 'no Part B deductible and no coinsurance (ACP_WITH_AWV)',
  block: 'beneficiary_cost_sharing',
  citation: { title: ACP_WITH_AWV[0]!.citation, document: 'CMS-1631-FC (CY2016 physician fee schedule final rule); MLN MM9271 (CR 9271)' },
  line(line) {
    const row = rowForYear(ACP_WITH_AWV, line.year);
    if (!row || !row.codes.includes(line.code) || !line.modifiers.includes(row.modifier)) return null;
    const calculation = `modifier ${row.modifier}: ${line.code} (advance care planning) with the annual wellness visit: no Part B deductible and ${row.percent}% coinsurance (${row.citation})`;
    return { rule: 'advance_care_planning_with_awv', calculation, cost_sharing: { rule: 'advance_care_planning_with_awv', deductible_applies: false, coinsurance_percent: row.percent, citation: row.citation, calculation } };
  },
  costSharing: citeOwnTerms('advance_care_planning_with_awv'),
};
