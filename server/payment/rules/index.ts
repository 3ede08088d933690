import { advanceCarePlanningWithAwv } from './advance_care_planning_with_awv.js';
import { anesthesia } from './anesthesia.js';
import { ascPayment } from './asc_payment.js';
import { assistantAtSurgery } from './assistant_at_surgery.js';
import { bilateral } from './bilateral.js';
import { cahMethodII } from './cah_method_ii.js';
import { clinicalLabTests } from './clinical_lab_tests.js';
import { coSurgeon } from './co_surgeon.js';
import { colorectalScreeningPt } from './colorectal_screening_pt.js';
import { discontinuedProcedure } from './discontinued_procedure.js';
import { facilityPaymentSystem } from './facility_payment_system.js';
import { multipleProcedure } from './multiple_procedure.js';
import { offCampusDepartment } from './off_campus_department.js';
import { oppsCopaymentRule } from './opps_copayment.js';
import { oppsNationalRate } from './opps_national_rate.js';
import { oppsPackaged } from './opps_packaged.js';
import { partBCoinsurance } from './part_b_coinsurance.js';
import { partBDeductible } from './part_b_deductible.js';
import { preventiveServices } from './preventive_services.js';
import { professionalComponent } from './professional_component.js';
import { professionalOnlyLine } from './professional_only_line.js';
import { reducedServices } from './reduced_services.js';
import type { PaymentRule, RuleEffect, RuleLine } from './rule.js';
import { teamSurgery } from './team_surgery.js';

/**
 * Every payment rule beyond the five formulas, in the order it acts. Each stage of the composition
 * (`rule.ts`) folds over this list in this order, so the order is the manual's where it has one:
 * the physician row (52, 53, PC/TC in a hospital setting); the facility's payment system and the
 * line's blocks; the OPPS line rules (N, G and K, PN and PO); the ASC's payment at place of service
 * 24; the physician amount (bilateral,
 * multiple procedure, co-surgeon, team, assistant, as ch. 12 sections 40.7, 40.6, 40.8, 20.4.3
 * compose, then CAH Method II, whose election is looked up before anesthesia's units; anesthesia
 * prices by its own formula); then beneficiary cost sharing (a preventive
 * service waives it all; a line rule's terms; the deductible, the coinsurance, the lab, the OPPS
 * copayment). The first cost-sharing effect of a line wins (PT before ACP).
 */
export const PAYMENT_RULES: readonly PaymentRule[] = [
  reducedServices,
  discontinuedProcedure,
  professionalComponent,
  facilityPaymentSystem,
  professionalOnlyLine,
  oppsPackaged,
  oppsNationalRate,
  offCampusDepartment,
  ascPayment,
  bilateral,
  multipleProcedure,
  coSurgeon,
  teamSurgery,
  assistantAtSurgery,
  cahMethodII,
  anesthesia,
  preventiveServices,
  colorectalScreeningPt,
  advanceCarePlanningWithAwv,
  partBDeductible,
  partBCoinsurance,
  clinicalLabTests,
  oppsCopaymentRule,
];

/** The effects of the rules that apply to a line (stage `line`), in the rules' order. */
export function applyPaymentRules(line: RuleLine, rules: readonly PaymentRule[] = PAYMENT_RULES): RuleEffect[] {
  return rules.flatMap((r) => r.line?.(line) ?? []);
}

/** The modifiers the rules of `rules` read. */
function modifiersOf(rules: readonly PaymentRule[]): ReadonlySet<string> {
  return new Set(rules.flatMap((r) => r.modifiers));
}

/** Modifiers whose payment policy the RVU file's indicators decide (stage `physician`): 50, 51, 62, 66, 80, 81, 82, AS. */
export const POLICY_MODIFIERS = modifiersOf(PAYMENT_RULES.filter((r) => r.physician));

/** Modifiers of the OPPS amount (stage `outpatient`): PN, PO. */
export const OPPS_MODIFIERS = modifiersOf(PAYMENT_RULES.filter((r) => r.outpatient));

/** Modifiers a rule prices with (every rule but those of cost sharing alone): the others are read by the lab and DME lookups. */
export const PRICING_RULE_MODIFIERS = modifiersOf(PAYMENT_RULES.filter((r) => r.block !== 'beneficiary_cost_sharing'));

/** The `rule` values of `physician.adjustments` and `outpatient_facility.adjustments`, in the registry's order. */
export const ADJUSTMENT_RULES: readonly string[] = PAYMENT_RULES.flatMap((r) => r.adjustments ?? []);
