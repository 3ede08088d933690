import { z } from 'zod';
import { addDays, addMonths, daysBetween, endOfMonth, nextBusinessDay, type BusinessDayShift } from '../../datasets/_shared/dates.js';
import { AppealLevelRowSchema, CitationSchema, type AppealLevelRow, type Citation, type FilingRuleRow } from '../../datasets/payers/schema.js';
import { ownValue } from '../../lib/own.js';

/**
 * Filing and appeal deadlines, computed as the cited rules say: calendar months clamp to the
 * month's last day (a 2024-02-29 service + 12 months is due 2025-02-28), days are calendar days,
 * and a deadline on a weekend or federal holiday moves to the next business day only where the
 * payer's rule says so (Medicare: Claims Processing Manual ch. 1, section 70). A rule with
 * reduced-payment tiers after its limit (Medi-Cal: 75% in months 7-9, 50% in months 10-12 after
 * the month of service) is not expired while a tier is open: the deadline is the last tier's end,
 * and the answer states the full-payment date and the share paid on the as-of date. Pure functions.
 */

export interface DeadlineStatus {
  deadline_date: string;
  days_remaining: number;
  is_expired: boolean;
  /** Set when the date moved to the next business day. */
  business_day_adjustment: { moved_from: string; reasons: string[] } | null;
}

function finish(raw: string, rule: 'next_business_day' | 'none', asOf: string): DeadlineStatus {
  const shift: BusinessDayShift = rule === 'next_business_day' ? nextBusinessDay(raw) : { date: raw, moved_from: null, reasons: [] };
  const days = daysBetween(asOf, shift.date);
  return {
    deadline_date: shift.date,
    days_remaining: days,
    is_expired: days < 0,
    business_day_adjustment: shift.moved_from ? { moved_from: shift.moved_from, reasons: shift.reasons } : null,
  };
}

export interface FilingInput {
  date_of_service: string;
  as_of: string;
  plan_type?: string;
  state?: string;
  /** The primary payer's EOB date, for rules that count from it. */
  primary_payment_date?: string;
}

/** One window of a filing rule's payment: the full amount up to the limit, then each reduced tier. */
export interface PaymentWindow {
  /** First day of the window (null: from the clock start). */
  from_date: string | null;
  through_date: string;
  payment_percent: number;
}

export interface FilingDeadline extends Partial<DeadlineStatus> {
  /** The last day the claim is paid in full (set only for a rule with reduced-payment tiers). */
  full_payment_deadline_date?: string | null;
  /** Full payment, then each reduced tier (set only for a rule with tiers). */
  payment_schedule?: PaymentWindow[];
  /** The share paid for a claim received on `as_of`: 100, a tier's percent, or 0 once every tier has ended. */
  payment_percent_as_of?: number | null;
  rule_id: string;
  claim_type: string;
  plan_type: string | null;
  limit_value: number;
  limit_unit: 'days' | 'months';
  clock_starts: FilingRuleRow['clock_starts'];
  clock_start_date: string | null;
  /** `state:CA` or `plan:hmo` when an override replaced the standard limit. */
  override_applied: string | null;
  explanation: string;
  notes: string | null;
  citation: Citation;
}

/** A rule's deadline as the answers show it: every field present, null where the rule computes none. */
export function filingDeadlineRow(rule: FilingRuleRow, input: FilingInput) {
  const d = filingDeadline(rule, input);
  return {
    ...d,
    deadline_date: d.deadline_date ?? null,
    days_remaining: d.days_remaining ?? null,
    is_expired: d.is_expired ?? null,
    business_day_adjustment: d.business_day_adjustment ?? null,
    full_payment_deadline_date: d.full_payment_deadline_date ?? null,
    payment_schedule: d.payment_schedule ?? [],
    payment_percent_as_of: d.payment_percent_as_of ?? null,
  };
}

/** The limit a rule gives for a plan type and state: a state override wins over a plan override. */
export function filingLimit(rule: FilingRuleRow, planType?: string, state?: string): { value: number; unit: 'days' | 'months'; override: string | null } {
  // The caller's plan type and state are looked up as own keys only (plan_type=constructor is no plan).
  const byState = ownValue(rule.state_override_days, state);
  if (state && byState !== undefined) return { value: byState, unit: 'days', override: `state:${state}` };
  const byPlan = ownValue(rule.plan_override_days, planType);
  if (planType && byPlan !== undefined) return { value: byPlan, unit: 'days', override: `plan:${planType}` };
  return { value: rule.limit_value, unit: rule.limit_unit, override: null };
}

/** The filing deadline one rule gives for a service. */
export function filingDeadline(rule: FilingRuleRow, input: FilingInput): FilingDeadline {
  const { value, unit, override } = filingLimit(rule, input.plan_type, input.state);
  const base = {
    rule_id: rule.rule_id,
    claim_type: rule.claim_type,
    plan_type: rule.plan_type,
    limit_value: value,
    limit_unit: unit,
    clock_starts: rule.clock_starts,
    override_applied: override,
    notes: rule.notes,
    citation: rule.citation,
  };
  const period = `${value} ${unit === 'months' ? (value === 1 ? 'month' : 'months') : value === 1 ? 'day' : 'days'}`;
  const start = clockStart(rule, input);
  const raw = limitDate(rule, input, value, unit);
  let explanation: string;
  switch (rule.clock_starts) {
    case 'date_of_service':
      explanation = `${period} from the date of service ${start}`;
      break;
    case 'end_of_service_month':
      explanation = unit === 'months' ? `within ${period} following the month of service (${input.date_of_service.slice(0, 7)})` : `${period} from the end of the month of service`;
      break;
    case 'primary_payment_date':
      explanation = start ? `${period} from the primary payer's payment date ${start}` : `${period} from the primary payer's payment date (pass primary_payment_date to compute it)`;
      break;
    case 'discharge_date':
      explanation = `${period} from the discharge date`;
      break;
  }
  if (raw === null) return { ...base, clock_start_date: start, explanation };
  const full = finish(raw, rule.business_day_rule, input.as_of);
  if (full.business_day_adjustment) explanation += `; ${raw} is not a business day, so the deadline moves to ${full.deadline_date}`;
  // Reduced-payment tiers apply to the rule's own limit (an override in days replaces the rule).
  const tiers = override ? [] : (rule.late_payment ?? []).filter((t) => t.through > value).sort((a, b) => a.through - b.through);
  if (tiers.length === 0) return { ...base, clock_start_date: start, explanation, ...full };

  const schedule: PaymentWindow[] = [{ from_date: null, through_date: full.deadline_date, payment_percent: 100 }];
  for (const t of tiers) {
    const end = finish(limitDate(rule, input, t.through, unit)!, rule.business_day_rule, input.as_of).deadline_date;
    schedule.push({ from_date: addDays(schedule.at(-1)!.through_date, 1), through_date: end, payment_percent: t.payment_percent });
  }
  const last = finish(limitDate(rule, input, tiers.at(-1)!.through, unit)!, rule.business_day_rule, input.as_of);
  const open = schedule.find((w) => input.as_of <= w.through_date);
  explanation += `: paid in full if received by ${full.deadline_date}; ${schedule
    .slice(1)
    .map((w) => `${w.payment_percent}% if received ${w.from_date} to ${w.through_date}`)
    .join('; ')}; denied after ${last.deadline_date} unless an exception applies`;
  if (open && open.payment_percent < 100) explanation += `. Received on ${input.as_of}: paid at ${open.payment_percent}%`;
  return {
    ...base,
    clock_start_date: start,
    explanation,
    ...last,
    full_payment_deadline_date: full.deadline_date,
    payment_schedule: schedule,
    payment_percent_as_of: open ? open.payment_percent : 0,
  };
}

/** Where a rule's clock starts for a service (null when the input lacks the date it counts from). */
function clockStart(rule: FilingRuleRow, input: FilingInput): string | null {
  switch (rule.clock_starts) {
    case 'date_of_service':
      return input.date_of_service;
    case 'end_of_service_month':
      return endOfMonth(input.date_of_service);
    case 'primary_payment_date':
      return input.primary_payment_date ?? null;
    case 'discharge_date':
      return null;
  }
}

/** The date `value` `unit`s after the rule's clock start, before any business-day move (null: not computable). */
function limitDate(rule: FilingRuleRow, input: FilingInput, value: number, unit: 'days' | 'months'): string | null {
  const start = clockStart(rule, input);
  if (start === null) return null;
  if (rule.clock_starts === 'end_of_service_month') {
    // "N months following the month of service": to the last day of the Nth month after it.
    return unit === 'months' ? endOfMonth(addMonths(`${input.date_of_service.slice(0, 8)}01`, value)) : addDays(start, value);
  }
  return unit === 'months' ? addMonths(start, value) : addDays(start, value);
}

export interface AppealInput {
  denial_date: string;
  as_of: string;
  state?: string;
  /** Date of the decision at `decision_level`, from which the next level's deadline runs. */
  decision_date?: string;
  decision_level?: number;
}

/** One appeal level with its deadline (`appealDeadlines`), as the appeal-deadline route answers it. */
export const AppealLevelDeadlineSchema = z.object({
  appeal_level: z.int(),
  level_name: z.string(),
  appeal_kind: AppealLevelRowSchema.shape.appeal_kind,
  plan_type: z.string().nullable(),
  deadline_days: z.int(),
  deadline_date: z.string().nullable(),
  days_remaining: z.int().nullable(),
  is_expired: z.boolean().nullable(),
  starts_from: z.string(),
  business_day_adjustment: z.object({ moved_from: z.string(), reasons: z.array(z.string()) }).nullable(),
  state_override_applied: z.string().nullable(),
  amount_in_controversy: z.number().nullable(),
  external_review_deadline_days: z.int().nullable(),
  peer_to_peer_available: z.boolean(),
  required_documents: z.array(z.string()),
  submission_method: z.string().nullable(),
  success_rate: z.number().nullable(),
  citation: CitationSchema,
});
export type AppealLevelDeadline = z.output<typeof AppealLevelDeadlineSchema>;

const STARTS: Record<AppealLevelRow['starts_from'], string> = {
  notice_date: 'the date on the denial notice',
  notice_receipt: 'receipt of the denial notice',
  previous_decision_receipt: 'receipt of the previous level’s decision',
  previous_decision: 'the date of the previous level’s decision',
};

/** The receipt convention a set of levels applies, in words (stated in every answer). */
export function receiptConvention(levels: AppealLevelRow[]): string {
  const days = [...new Set(levels.map((l) => l.receipt_presumption_days))];
  if (days.length === 1 && days[0]! > 0) {
    return `a notice is presumed received ${days[0]} days after the date on it (unless shown otherwise); each deadline counts from that presumed receipt`;
  }
  if (days.every((d) => d === 0)) return 'deadlines count from the date on the notice (no mailing or receipt days are added)';
  return 'levels differ: see each level’s starts_from';
}

/** Deadlines of every appeal level: the first from the denial notice, later ones from the previous decision. */
export function appealDeadlines(levels: AppealLevelRow[], input: AppealInput): AppealLevelDeadline[] {
  return levels.map((l) => {
    const override = ownValue(l.state_specific_rules, input.state);
    const days = override?.deadline_days ?? l.deadline_days;
    const previousDecision = l.starts_from === 'previous_decision' || l.starts_from === 'previous_decision_receipt';
    let from: string | null = null;
    let startsFrom = STARTS[l.starts_from];
    if (!previousDecision) from = input.denial_date;
    else if (input.decision_date && (input.decision_level ?? 1) === l.appeal_level - 1) from = input.decision_date;
    else startsFrom += `: ${days} days from then (pass decision_date for level ${l.appeal_level - 1} to get a date)`;
    let status: DeadlineStatus | null = null;
    if (from) {
      const receipt = addDays(from, l.receipt_presumption_days);
      status = finish(addDays(receipt, days), l.business_day_rule, input.as_of);
      startsFrom += l.receipt_presumption_days > 0 ? ` (${from} + ${l.receipt_presumption_days} days presumed mailing = ${receipt})` : ` (${from})`;
    }
    return {
      appeal_level: l.appeal_level,
      level_name: l.level_name,
      appeal_kind: l.appeal_kind,
      plan_type: l.plan_type,
      deadline_days: days,
      deadline_date: status?.deadline_date ?? null,
      days_remaining: status?.days_remaining ?? null,
      is_expired: status?.is_expired ?? null,
      starts_from: startsFrom,
      business_day_adjustment: status?.business_day_adjustment ?? null,
      state_override_applied: override ? input.state! : null,
      amount_in_controversy: l.amount_in_controversy,
      external_review_deadline_days: l.external_review_deadline_days,
      peer_to_peer_available: l.peer_to_peer_available,
      required_documents: l.required_documents,
      submission_method: l.submission_method,
      success_rate: l.success_rate,
      citation: override?.citation ?? l.citation,
    };
  });
}
