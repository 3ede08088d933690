import type { PaymentSystem } from '../../facilities/service.js';
import type { Adjustment } from '../calculate.js';
import { advanceCarePlanningWithAwv } from './advance_care_planning.js';
import { colorectalScreeningPt } from './colorectal_pt.js';
import { facilityPaymentSystem } from './facility_payment_system.js';
import { professionalOnlyLine } from './professional_only.js';
import { reducedServices } from './reduced_services.js';

/**
 * Payment rules beyond the five formulas of the composition, one unit each: a file in this folder
 * (what the rule reads, what it does to the answer, its citation) with its test beside it, worked
 * by hand from that citation. `composePaymentFor` applies `PAYMENT_RULES` in their order and reads
 * the effects where they act (the physician row, the OPPS block, the beneficiary's cost sharing);
 * a yearly figure is a row of its unit (`YearRow`), never a bare constant.
 */

/** The claim line a rule reads. */
export interface RuleLine {
  code: string;
  /** Each modifier once, in the order given. */
  modifiers: readonly string[];
  /** The service's year: the row of a rule's yearly figures that applies. */
  year: number;
  /** The facility of `ccn` (null without one): how Medicare pays it, and its type for the explanations. */
  facility: { ccn: string; facility_type: string; payment_system: PaymentSystem } | null;
  /** The modifiers of the code's rows in the RVU file (`''` for the global row). */
  rvu_modifiers: readonly string[];
}

/** Beneficiary cost sharing a rule sets for the line in place of the Part B deductible and the 20% coinsurance. */
export interface CostSharingTerms {
  rule: string;
  /** False: no Part B deductible is taken for the line. */
  deductible_applies: boolean;
  /** Percent the beneficiary pays of the physician and DME amounts, and of the OPPS amount in place of the Addendum B copayment. */
  coinsurance_percent: number;
  citation: string;
  /** The answer's `calculation` line when the terms apply (a listed preventive service has none to apply). */
  calculation: string;
}

/** What one rule does to a line; each field is read where it acts. */
export interface RuleEffect {
  rule: string;
  /** What the rule did, with its citation: a line of the answer's `calculation` (or its warning). */
  calculation: string;
  /** The physician block has no amount: why, naming who prices the service. */
  physician_not_priced?: string;
  /** The OPPS amount is not paid on this line (shown for reference, `informational`, outside `estimated_payment`): why. */
  opps_informational?: string;
  /** A percent of the OPPS amount paid (not of its copayment), listed in `outpatient_facility.adjustments`. */
  opps_adjustment?: Adjustment;
  cost_sharing?: CostSharingTerms;
}

/** One payment rule: its id and what it does to a line (null: it does not apply). */
export interface PaymentRule {
  id: string;
  apply(line: RuleLine): RuleEffect | null;
}

/** A yearly figure as data: the years a row applies to (`to_year` null: open-ended) and where it is published. */
export interface YearRow {
  from_year: number;
  to_year: number | null;
  citation: string;
}

/** The row of `rows` whose years hold `year`, if any. */
export function rowForYear<R extends YearRow>(rows: readonly R[], year: number): R | undefined {
  return rows.find((r) => year >= r.from_year && (r.to_year === null || year <= r.to_year));
}

/**
 * The rules, in the order they apply: the physician row (52), the facility's payment system (CAH,
 * Maryland, REH, federal), the line's blocks (professional-only modifiers), then cost sharing
 * (PT; ACP with modifier 33): the first cost-sharing effect wins.
 */
export const PAYMENT_RULES: readonly PaymentRule[] = [reducedServices, facilityPaymentSystem, professionalOnlyLine, colorectalScreeningPt, advanceCarePlanningWithAwv];

/** The effects of the rules that apply to a line, in the rules' order. */
export function applyPaymentRules(line: RuleLine, rules: readonly PaymentRule[] = PAYMENT_RULES): RuleEffect[] {
  return rules.flatMap((r) => r.apply(line) ?? []);
}
