import { addMonths, daysBetween } from '../../datasets/_shared/dates.js';
import type { PayerKnowledge } from '../../datasets/payers/queries.js';
import type { AppealLevelRow, PayerRow } from '../../datasets/payers/schema.js';
import { appealDeadlines, filingDeadline } from '../deadlines/deadlines.js';
import type { RemedyDeadline } from './remedy.js';
import type { RuleChoice } from './rules.js';

/** The dates and rules a remedy's deadline is computed from. */
export interface DeadlineInputs {
  payers: PayerKnowledge | null;
  /** The payer whose rules apply (Medicare's contractors map to medicare_ffs), when known. */
  payer: PayerRow | null;
  /** The service's date (a corrected claim's filing limit counts from it). */
  dateOfService: string | null;
  /** The date on the notice (the remittance date): the first appeal level counts from it. */
  noticeDate: string | null;
  /** The initial determination's date (835 DTM*405, else BPR16): a reopening counts from it. */
  determinationDate: string | null;
  asOf: string;
  state?: string;
  /** The claim's plan type when the remittance says it (`medicare_advantage` by CLP06 16): levels of another plan type do not apply. */
  planType?: string;
}

/**
 * Which appeal levels may carry a dispute: a benefit (coverage) decision goes to the payer's claim
 * appeal or the member's appeal (the provider files it as the member's representative); a payment
 * dispute under the provider's contract only to a claim appeal or a provider dispute rule, never
 * to the member's appeal (29 CFR 2560.503-1 is the member's right, not the provider's).
 */
function levelsFor(levels: AppealLevelRow[], dispute: 'benefit' | 'contract'): AppealLevelRow[] {
  const kinds = dispute === 'benefit' ? ['claim_appeal', 'member_appeal'] : ['claim_appeal', 'provider_dispute'];
  const first = levels.filter((l) => kinds.includes(l.appeal_kind)).sort((a, b) => a.appeal_level - b.appeal_level);
  return first;
}

/**
 * The chosen rule's deadline from the payer's rules and the claim's dates, and the appeal rights
 * as they stand once those rules are read: a payment dispute whose payer has no provider dispute
 * rule loaded is `conditional`, with no date (a member's appeal deadline is not the provider's).
 * Null deadline: the rule has none, or nothing dates it (no payer rule, no date to count from).
 */
export function remedyDeadline(c: RuleChoice, i: DeadlineInputs): { deadline: RemedyDeadline | null; choice: RuleChoice } {
  if (!c.deadline) return { deadline: null, choice: c };
  switch (c.deadline) {
    case 'reopen_by': {
      const cite = c.citations.find((x) => /405\.980/.test(x.title)) ?? null;
      if (!i.determinationDate) return { deadline: null, choice: c };
      // "Within 1 year from the date of the initial determination": the same day a year on, the
      // month's last day when that day does not exist (2024-02-29 -> 2025-02-28).
      const date = addMonths(i.determinationDate, 12 * (c.reopen_years ?? 1));
      return { deadline: { kind: 'reopen_by', date, days_remaining: daysBetween(i.asOf, date), citation: cite }, choice: c };
    }
    case 'resubmit_by': {
      const filing = i.payer && i.payers ? (i.payers.filing.get(i.payer.slug) ?? []).find((r) => r.claim_type === 'initial') : undefined;
      if (!filing || !i.dateOfService) return { deadline: null, choice: c };
      const d = filingDeadline(filing, { date_of_service: i.dateOfService, as_of: i.asOf, state: i.state });
      return { deadline: { kind: 'resubmit_by', date: d.deadline_date ?? null, days_remaining: d.days_remaining ?? null, citation: filing.citation }, choice: c };
    }
    case 'appeal_by': {
      const all = (i.payer && i.payers ? (i.payers.appeals.get(i.payer.slug) ?? []) : []).filter((l) => !i.planType || l.plan_type === null || l.plan_type === i.planType);
      const levels = levelsFor(all, c.dispute ?? 'benefit');
      if (levels.length === 0) {
        if (c.dispute === 'contract' && i.payer && c.appeal_rights === 'yes') {
          return { deadline: null, choice: { ...c, appeal_rights: 'conditional', appeal_condition: `through ${i.payer.name}'s provider dispute process (its rule is not loaded, so no date is given)` } };
        }
        return { deadline: null, choice: c };
      }
      if (!i.noticeDate) return { deadline: null, choice: c };
      const first = appealDeadlines(levels.slice(0, 1), { denial_date: i.noticeDate, as_of: i.asOf, state: i.state })[0]!;
      return { deadline: { kind: 'appeal_by', date: first.deadline_date, days_remaining: first.days_remaining, citation: first.citation }, choice: c };
    }
  }
}
