import { SOURCES, type PaymentRule } from './rule.js';

/** OPPS status indicators paid the national rate without wage adjustment: separately payable drugs and biologicals. */
export const OPPS_NATIONAL_RATE_SI: ReadonlySet<string> = new Set(['G', 'K']);
export const CITE_OPPS_DRUGS = '42 CFR 419.43 wage-adjusts the labor-related share of APC payments; drugs and biologicals with status indicator G (pass-through) or K (separately payable) are paid the national Addendum B rate (section 1833(t)(14) of the Social Security Act; OPPS Addendum D1 status indicators)';

/** Status indicators G and K: the national Addendum B rate, no wage adjustment (labor share 0). */
export const oppsNationalRate: PaymentRule = {
  id: 'opps_national_rate',
  modifiers: [],
  applies_to: 'a code with OPPS status indicator G (pass-through drug or biological) or K (separately payable drug or biological)',
  does: 'pays the national Addendum B rate, without the wage adjustment of rule 2 (labor share 0)',
  block: 'outpatient_facility',
  citation: { title: CITE_OPPS_DRUGS, url: SOURCES.ssa1833 },
  outpatient({ status_indicator }) {
    if (status_indicator === null || !OPPS_NATIONAL_RATE_SI.has(status_indicator)) return null;
    return { national_rate: true, calculation: `outpatient_facility: status indicator ${status_indicator} (separately payable drug or biological) is paid the national rate, no wage adjustment (${CITE_OPPS_DRUGS})` };
  },
};
