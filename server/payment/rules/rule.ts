import type { Dec } from '../../../lib/decimal.js';
import type { YearFigures } from '../../../datasets/medicare_yearly_figures/queries.js';
import type { RvuRow } from '../../../datasets/mpfs_rvu/queries.js';
import type { SnapshotReader } from '../../../warehouse/snapshot.js';
import type { Facility, PaymentSystem } from '../../facilities/service.js';
import type { Trace } from '../../trace.js';
import type { Adjustment, AscBlock, PaymentInputs, PeSetting, PhysicianBlock, PolicyIndicators, RvuInput } from '../inputs.js';

/**
 * What a payment rule is: one unit (a file in this folder with its test `<id>.test.ts` beside it)
 * naming what it applies to, what it does to the answer and where that is published, and acting at
 * the stages of a composition it has a hook for. The composition runs the stages in the order
 * below and, at each, folds over `PAYMENT_RULES` (`index.ts`) in the registry's order, so a new
 * rule is its file plus its line in the registry; where it sits in the registry is where it acts.
 */

/** Where a rule is published: its title, and a URL or a document reference (a file's layout, a notice by its number). */
export interface PaymentRuleCitation {
  title: string;
  url?: string;
  document?: string;
}

/** The claim line a rule reads before anything is looked up (stage `line`). */
export interface RuleLine {
  code: string;
  /** Each modifier once, in the order given. */
  modifiers: readonly string[];
  /** The service's year: the row of a rule's table that applies (ACP's codes). */
  year: number;
  /** The year's Medicare figures (`medicare_yearly_figures`); null when no document of the year is loaded. */
  figures: YearFigures | null;
  /** The facility of `ccn` (null without one): how Medicare pays it, and its type for the explanations. */
  facility: { ccn: string; facility_type: string; payment_system: PaymentSystem } | null;
  /** The modifiers of the code's rows in the RVU file (`''` for the global row). */
  rvu_modifiers: readonly string[];
}

/** Beneficiary cost sharing a rule sets for the line in place of the Part B deductible and the year's coinsurance. */
export interface CostSharingTerms {
  rule: string;
  /** False: no Part B deductible is taken for the line. */
  deductible_applies: boolean;
  /** Percent the beneficiary pays of the physician and DME amounts, and of the OPPS amount in place of the Addendum B copayment; null: the year's percent is not loaded (none is counted). */
  coinsurance_percent: number | null;
  citation: string;
  /** The answer's `calculation` line when the terms apply (a listed preventive service has none to apply). */
  calculation: string;
}

/** What one rule does to a line at stage `line`; each field is read where it acts. */
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

/** The RVU row the line's pricing modifier chose (stage `rowChosen`); null: none (the physician block is absent). */
export interface RowChosen {
  code: string;
  /** The pricing modifier (26, TC, 53) the row was chosen for, `''` for none. */
  modifier: string;
  row: RvuRow | null;
  trace: Trace;
  calculation: string[];
}

/** The physician's row in a hospital setting, where the hospital is paid the technical component (stage `hospitalSetting`). */
export interface HospitalSetting {
  snapshot: SnapshotReader;
  row: RvuRow;
  date: string | undefined;
  /** The setting in words, for the warnings: `at a facility`, `at place of service 22`. */
  where: string;
  trace: Trace;
  calculation: string[];
}

/** An Addendum B row with no payment rate (stage `oppsUnpriced`). */
export interface OppsUnpriced {
  code: string;
  status_indicator: string;
}

/** What a rule looks up once the line's rows and setting are known (stage `gather`). */
export interface GatherContext {
  snapshot: SnapshotReader;
  trace: Trace;
  code: string;
  modifiers: readonly string[];
  /** The facility of `ccn` as the tenant sees it, null without one. */
  facility: Facility | null;
  /** The query's values a rule reads (the rest of the request is read by the composition). */
  query: { cah_method_ii?: boolean; place_of_service?: string; anesthesia_minutes?: number; zip?: string; cbsa?: string; date_of_service?: string };
  pe: PeSetting;
  row: RvuRow | null;
  /** The locality priced (`national` without one). */
  locality: string;
  /** The year whose factors apply. */
  year: number;
}

/** The physician line a rule adjusts (stage `physician`): the code, its payment-policy modifiers and the RVU file's indicators of the priced row. */
export interface PhysicianLine {
  code: string;
  modifiers: readonly string[];
  indicators: PolicyIndicators;
  /** The critical access hospital bills the professional service under Method II (decided at stage `gather`). */
  cah_method_ii: boolean;
}

/** What a rule does to the physician amount. */
export interface PhysicianEffect {
  /** A percent of the fee schedule amount, and the answer's `calculation` line for it. */
  adjustment?: { applied: Adjustment; calculation: string };
  /** The service has no amount here (by report, not payable): why. */
  not_priced?: string;
  warnings?: readonly string[];
}

/** The notes a block's rule writes: the answer's `calculation` lines and its warnings. */
export interface Notes {
  calculation: string[];
  warnings: string[];
}

/** The OPPS line a rule acts on (stage `outpatient`): its status indicator and OPPS modifiers; `opps` false when the answer has no OPPS block. */
export interface OutpatientLine {
  code: string;
  opps: boolean;
  status_indicator: string | null;
  modifiers: readonly string[];
}

/** What a rule does to the OPPS amount. */
export interface OutpatientEffect {
  /** Paid the national rate: no wage adjustment (labor share 0). */
  national_rate?: true;
  /** A percent of the OPPS amount and of its copayment. */
  adjustment?: Adjustment;
  calculation?: string;
  warning?: string;
}

/** The amounts beneficiary cost sharing splits, as the composition hands them over. */
export interface CostSharingAmounts {
  physician: number;
  dme: number;
  lab: number;
  /** The OPPS amount and its copayment before the cap (null when Addendum B prints none). */
  opps: { allowed: number; copayment: Dec | null } | null;
}

/** Beneficiary cost sharing as the rules of stage `costSharing` build it, in the registry's order. */
export interface CostSharingState {
  readonly code: string;
  readonly year: number;
  readonly deductible_met: boolean;
  readonly amounts: CostSharingAmounts;
  /** A line rule's terms (stage `line`), if any. */
  readonly terms: CostSharingTerms | null;
  /** The year's Medicare figures (`medicare_yearly_figures`); null when no document of the year is loaded. */
  readonly figures: YearFigures | null;
  /** Set by a rule that leaves the beneficiary nothing to pay: the fold ends there. */
  waived: boolean;
  deductible_applies: boolean;
  deductible: Dec;
  coinsurance: Dec;
  copayment: Dec | null;
  /** What is left of each amount after the deductible. */
  rest: { physician: Dec; dme: Dec; opps: Dec };
  citations: string[];
  warnings: string[];
  calculation: string[];
}

/** A payment rule: what it is, and its hooks, listed in the order the composition runs them. */
export interface PaymentRule {
  /** Its id, the name of its test file (`<id>.test.ts`). */
  id: string;
  /** The modifiers the rule reads (empty: it reads a setting, a code or an indicator). */
  modifiers: readonly string[];
  /** What it applies to, in words (modifiers, settings, codes, indicators). */
  applies_to: string;
  /** What it does to the answer. */
  does: string;
  /** The block of the answer it changes: a rule of `beneficiary_cost_sharing` leaves the amounts as they are. */
  block: 'physician' | 'outpatient_facility' | 'asc' | 'beneficiary_cost_sharing';
  citation: PaymentRuleCitation;
  /** The `rule` values it writes in `physician.adjustments` or `outpatient_facility.adjustments`. */
  adjustments?: readonly string[];

  /** Before anything is looked up: an effect read where it acts (null: it does not apply). */
  line?(line: RuleLine): RuleEffect | null;
  /** Once the pricing modifier chose its RVU row: notes on the choice. */
  rowChosen?(r: RowChosen): void;
  /** In a hospital setting: the physician's row instead of `r.row` (null: no physician amount). */
  hospitalSetting?(r: HospitalSetting): Promise<RvuRow | null>;
  /** An Addendum B row without a payment rate: the warning and the `calculation` line that explain it, or null. */
  oppsUnpriced?(o: OppsUnpriced): { warning: string; calculation: string } | null;
  /** Inputs the rule looks up for its own later stages. */
  gather?(g: GatherContext): Promise<Partial<PaymentInputs>>;
  /** On the physician amount: an adjustment, no amount, warnings (null: it does not apply). */
  physician?(p: PhysicianLine): PhysicianEffect | null;
  /** The physician block by another formula than rule 1 (undefined: not this rule's line; null: no amount). */
  physicianFormula?(i: PaymentInputs, r: RvuInput, notes: Notes): PhysicianBlock | null | undefined;
  /** On the OPPS amount (null: it does not apply). */
  outpatient?(o: OutpatientLine): OutpatientEffect | null;
  /** The ASC block at place of service 24 (undefined: not this rule's; null: no block). */
  asc?(i: PaymentInputs, notes: Notes): AscBlock | null | undefined;
  /** On the beneficiary's share: updates the state (setting `waived` ends the fold). */
  costSharing?(s: CostSharingState): void;
}

/**
 * A rule's own table by years (the years a row applies to, `to_year` null: open-ended, and where it
 * is published): what a rule says from which year. The figures of a year are not rows here but the
 * dataset `medicare_yearly_figures` (`RuleLine.figures`, `CostSharingState.figures`).
 */
export interface YearRow {
  from_year: number;
  to_year: number | null;
  citation: string;
}

/** The row of `rows` whose years hold `year`, if any. */
export function rowForYear<R extends YearRow>(rows: readonly R[], year: number): R | undefined {
  return rows.find((r) => year >= r.from_year && (r.to_year === null || year <= r.to_year));
}

/** Where the manuals and regulations the rules cite are published. */
export const SOURCES = {
  claimsManualCh12: 'https://www.cms.gov/regulations-and-guidance/guidance/manuals/downloads/clm104c12.pdf',
  claimsManualCh13: 'https://www.cms.gov/regulations-and-guidance/guidance/manuals/downloads/clm104c13.pdf',
  claimsManualCh18: 'https://www.cms.gov/regulations-and-guidance/guidance/manuals/downloads/clm104c18.pdf',
  rvuFiles: 'https://www.cms.gov/medicare/payment/fee-schedules/physician/pfs-relative-value-files',
  ssa1833: 'https://www.ssa.gov/OP_Home/ssact/title18/1833.htm',
  ssa1834: 'https://www.ssa.gov/OP_Home/ssact/title18/1834.htm',
  cfr: (part: number, section: string) => `https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-B/part-${part}/section-${part}.${section}`,
} as const;

/** A payment-policy modifier's adjustment of the physician amount, with its `calculation` line. */
export function modifierAdjustment(modifier: string, rule: string, indicator: string, percent: number, citation: string): NonNullable<PhysicianEffect['adjustment']> {
  return {
    applied: { modifier, rule, indicator, percent, citation },
    calculation: `modifier ${modifier}: ${percent}% (${rule.replace(/_/g, ' ')}, indicator ${indicator}; ${citation})`,
  };
}

/** The stage `costSharing` of a rule that sets a line's terms (stage `line`): when the line's terms are its own, it cites them. */
export function citeOwnTerms(id: string): NonNullable<PaymentRule['costSharing']> {
  return (s) => {
    if (s.terms?.rule !== id) return;
    s.citations.push(s.terms.citation);
    s.calculation.push(s.terms.calculation);
  };
}
