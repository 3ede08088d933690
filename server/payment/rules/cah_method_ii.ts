import { SOURCES, type PaymentRule } from './rule.js';

export const CITE_CAH_METHOD_II = '42 CFR 413.70(b)(3): a CAH electing the optional method is paid 115% of the fee schedule amount for its practitioners\' professional outpatient services';

/**
 * A critical access hospital that elected the optional method (Method II) bills its practitioners'
 * professional services and is paid 115% of the fee schedule amount for them. The election is the
 * query's `cah_method_ii`, else the tenant's registration of the ccn; it applies only at a
 * critical access hospital, in its facility setting, and is otherwise ignored with a warning.
 */
export const cahMethodII: PaymentRule = {
  id: 'cah_method_ii',
  modifiers: [],
  applies_to: 'a critical access hospital (ccn) that elected Method II (cah_method_ii, or its registration), in its facility setting',
  does: '115% of the facility fee schedule amount of the professional service',
  block: 'physician',
  citation: { title: CITE_CAH_METHOD_II, url: SOURCES.cfr(413, '70') },
  adjustments: ['cah_method_ii'],
  async gather({ trace, facility: f, query: q, pe }) {
    const methodII = q.cah_method_ii ?? f?.effective.cah_method_ii;
    if (methodII && q.cah_method_ii === undefined) trace.warn(`cah_method_ii from your registration of ${f!.ccn}`);
    if (!methodII) return { cah_method_ii: false };
    if (f?.effective.payment_system !== 'cah_cost') trace.warn(`cah_method_ii ignored: ${f ? `${f.ccn} is not a critical access hospital` : 'no ccn names a critical access hospital'}`);
    else if (!pe.facility) trace.warn(`cah_method_ii ignored: place of service ${q.place_of_service} is not the hospital's facility setting`);
    else return { cah_method_ii: true };
    return { cah_method_ii: false };
  },
  physician({ cah_method_ii }) {
    if (!cah_method_ii) return null;
    return {
      adjustment: {
        applied: { modifier: null, rule: 'cah_method_ii', indicator: 'method_ii', percent: 115, citation: CITE_CAH_METHOD_II },
        calculation: `CAH Method II: 115% of the facility fee schedule amount (${CITE_CAH_METHOD_II})`,
      },
    };
  },
};
