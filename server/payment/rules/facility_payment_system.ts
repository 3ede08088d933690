import { isFederalCcn, type PaymentSystem } from '../../facilities/service.js';
import { SOURCES, type PaymentRule, type RuleEffect, type RuleLine } from './rule.js';

/** A rural emergency hospital's payment (section 1834(x) of the Act, added by the Consolidated Appropriations Act, 2021, section 125). */
export const CITE_REH =
  '42 CFR 419.92(a): a rural emergency hospital is paid the OPPS amount of the equivalent covered OPD service increased by 5 percent, and the beneficiary copayment is the OPPS copayment without the 5 percent; 42 CFR 419.92(b): a monthly facility payment (section 1834(x) of the Social Security Act)';

/**
 * What each payment system that is not plain OPPS does to a facility's OPPS amount (42 CFR
 * 419.20(b) lists the hospitals outside the OPPS; `paymentSystemOf` decides the system):
 * `reference` shows it for reference only, outside `estimated_payment`, with the reason;
 * `percent` pays that percent of it. `opps` and `non_hospital` have no row (the first is the
 * formula, the second has no OPPS block at all).
 */
const FACILITY_SYSTEMS: Readonly<Record<Exclude<PaymentSystem, 'opps' | 'non_hospital'>, { reference: (f: NonNullable<RuleLine['facility']>) => string } | { percent: number; citation: string }>> = {
  cah_cost: { reference: (f) => `${f.ccn} is a critical access hospital, paid at 101% of reasonable cost (42 CFR 413.70) rather than under the OPPS` },
  maryland: {
    reference: (f) =>
      `${f.ccn} is a Maryland hospital, paid under the state's all-payer model (the cost containment waiver of section 1814(b)(3) of the Act, now the Maryland Total Cost of Care Model; 42 CFR 419.20(b)(1)) rather than the OPPS`,
  },
  federal: {
    reference: (f) =>
      `${f.ccn} is a federal hospital (${isFederalCcn(f.ccn) ? 'F in the sixth position of its CCN; ' : ''}facility type ${f.facility_type}): Medicare does not pay for services furnished by a Federal provider of services (42 CFR 411.6(a); sections 1814(c) and 1835(d) of the Act; services paid for by a government entity: 42 CFR 411.8), so the OPPS amount is not payable; the exceptions of 42 CFR 411.6(b) (emergency services under 42 CFR 424.103, a federal provider serving the public as a community institution) are not decided here`,
  },
  reh: { percent: 105, citation: CITE_REH },
};

/** The facility's payment system applied to its OPPS amount (see `FACILITY_SYSTEMS`). */
export const facilityPaymentSystem: PaymentRule = {
  id: 'facility_payment_system',
  modifiers: [],
  applies_to: 'a ccn whose payment system is not the plain OPPS: a critical access hospital, a Maryland hospital, a federal hospital (VA, DoD, F in the sixth position of the CCN), a rural emergency hospital',
  does: 'the OPPS amount for reference only (CAH, Maryland, federal); 105% of it at a rural emergency hospital, the copayment without the 5%',
  block: 'outpatient_facility',
  citation: { title: `42 CFR 419.20(b) (hospitals excluded from the OPPS); 42 CFR 413.70; 42 CFR 411.6; ${CITE_REH}`, url: SOURCES.cfr(419, '20') },
  adjustments: ['rural_emergency_hospital'],
  line(line): RuleEffect | null {
    const f = line.facility;
    if (!f || f.payment_system === 'opps' || f.payment_system === 'non_hospital') return null;
    const row = FACILITY_SYSTEMS[f.payment_system];
    if ('reference' in row) {
      const why = row.reference(f);
      return { rule: 'facility_payment_system', calculation: why, opps_informational: why };
    }
    return {
      rule: 'facility_payment_system',
      calculation: `${f.ccn} is a rural emergency hospital: ${row.percent}% of the OPPS amount; the copayment is the OPPS one, without the increase; the monthly facility payment is not per service and is not in estimated_payment (${row.citation})`,
      opps_adjustment: { modifier: null, rule: 'rural_emergency_hospital', indicator: 'reh', percent: row.percent, citation: row.citation },
    };
  },
};
