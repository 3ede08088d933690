import { carcClassOf, type CarcClass } from '../../lib/vocabulary/carc.js';
import { claimStatusOf } from '../../lib/vocabulary/claim_status.js';
import { liabilityModifierOf, type LiabilityModifier } from '../../lib/vocabulary/liability.js';
import type { RarcMeaning } from '../../lib/vocabulary/rarc.js';
import type { AppealRights, DeadlineKind, Remedy, Responsibility } from '../../lib/vocabulary/remedies.js';

/**
 * The denial rules: one ordered table, first match wins. A row matches on what a remittance (or a
 * caller) says of one adjustment: its group, CARC or CARC class, remark codes, the claim's
 * position (CLP02), the payer's type and slug, the line's liability modifier, the NCCI edit and
 * MUE linked to the line, and the amount's sign. It gives the next step (remedy, whose the amount
 * is, appeal rights, what the deadline counts) and the rule it rests on. The rows are data
 * (`DENIAL_TABLE` in table.ts); a payer's curated denial patterns become rows ahead of them
 * (`patternRows`); what no row covers is `review`, never a guess.
 */

/** What is known of one adjustment when its rule is chosen. */
export interface DenialFacts {
  group: string | null;
  carc: string | null;
  /** The line's remark codes, else its claim's (MOA/MIA). */
  rarcs: readonly string[];
  /** What the remarks mean (`rarcMeanings`: the vocabulary's meanings and documentation remarks by their text). */
  remarks: ReadonlySet<RarcMeaning>;
  /** CLP02, when the adjustment is on a remittance. */
  claimStatus: string | null;
  /** `medicare`, `medicare_advantage`, `medicaid`, `commercial`, ... */
  payerType: string | null;
  payer: string | null;
  modifiers: readonly string[];
  /** The linked PTP edit: its modifier indicator, `not_in_force` when the pair's edit was not in force on the date, null without a link. */
  ptp: '0' | '1' | '9' | 'not_in_force' | null;
  /** The linked MUE's adjudication indicator (Medicare), null without one. */
  mai: 1 | 2 | 3 | null;
  /** The adjustment's amount, when known (a lookup of a code alone has none). */
  amount: number | null;
  /** The payer the claim was forwarded to (835 NM1*TT), when named. */
  crossoverPayer: { name: string | null; id: string | null } | null;
  /** Not an adjustment: a line allowed less than the fee schedule pays (the amount is the shortfall). */
  underpayment?: boolean;
}

export interface RuleSource {
  title: string;
  url: string;
  section?: string;
  retrieved?: string;
}

/** What a row requires; every field given must hold (lists: any member). */
export interface RuleMatch {
  group?: readonly string[];
  carc?: readonly string[];
  class?: readonly CarcClass[];
  remark?: readonly RarcMeaning[];
  /** Exact remark codes (a payer pattern's RARC). */
  rarc?: readonly string[];
  claimStatus?: readonly string[];
  /** True: the claim went on to another payer (CLP02 19-21, RARC MA18/N89, or NM1*TT names one). */
  crossover?: boolean;
  payerType?: readonly (string | null)[];
  payer?: readonly string[];
  liability?: readonly (LiabilityModifier | 'none')[];
  ptp?: readonly ('0' | '1' | '9' | 'not_in_force' | 'none')[];
  mai?: readonly (1 | 2 | 3 | 'none')[];
  amount?: 'positive' | 'zero_or_negative';
  /** True: a row for a line allowed less than the fee schedule, not for an adjustment. */
  underpayment?: boolean;
}

/** The row's answer. `reason` may name `{adj}` (CO-97, or CARC 97 without a group). */
export interface RuleOutcome {
  remedy: Remedy;
  responsibility: Responsibility;
  appeal_rights: AppealRights;
  appeal_condition: string | null;
  reason: string;
  /**
   * What the deadline counts: `appeal_by` the payer's first appeal level (`dispute` says which
   * levels may carry it), `reopen_by` the initial determination's date plus `reopen_years`,
   * `resubmit_by` the payer's initial filing limit; null: the remedy has no date.
   */
  deadline: DeadlineKind | null;
  /** `benefit`: a coverage decision the member (or the provider for the member) appeals; `contract`: the provider's payment dispute, only a provider dispute rule dates it. */
  dispute?: 'benefit' | 'contract';
  reopen_years?: number;
  /** Fill `other_payer` from the claim's crossover carrier. */
  names_other_payer?: boolean;
}

export interface DenialRule {
  id: string;
  when: RuleMatch;
  then: RuleOutcome;
  citations: readonly RuleSource[];
}

/** A payer pattern's row: it assigns the CARC's class at that payer and the class rows decide, citing the pattern too. */
export interface PatternRule {
  id: string;
  when: RuleMatch;
  asClass: CarcClass;
  citation: RuleSource;
}

/** A chosen rule: the outcome, the row's id (`payer:<slug>:... > <row id>` through a pattern) and its citations. */
export interface RuleChoice extends RuleOutcome {
  rule_id: string;
  citations: RuleSource[];
}

const LIABILITY_NONE = 'none';

/** Derived facts a row may test, computed once per adjustment. */
interface Derived {
  class: CarcClass | null;
  liability: LiabilityModifier | null;
  crossover: boolean;
}

function derive(f: DenialFacts, asClass?: CarcClass): Derived {
  const position = claimStatusOf(f.claimStatus);
  return {
    class: asClass ?? carcClassOf(f.carc) ?? null,
    liability: liabilityModifierOf(f.modifiers),
    crossover: !!position?.forwarded || f.remarks.has('crossover') || f.crossoverPayer !== null,
  };
}

const has = <T>(list: readonly T[] | undefined, v: T): boolean => list === undefined || list.includes(v);

/** Whether a row's conditions hold for the facts. */
export function matches(w: RuleMatch, f: DenialFacts, d: Derived): boolean {
  // An underpayment is matched only by rows written for one (and by the catch-all row).
  if (!!w.underpayment !== !!f.underpayment && Object.keys(w).length > 0) return false;
  if (w.group && (f.group === null || !w.group.includes(f.group))) return false;
  if (w.carc && (f.carc === null || !w.carc.includes(f.carc))) return false;
  if (w.class && (d.class === null || !w.class.includes(d.class))) return false;
  if (w.remark && !w.remark.some((m) => f.remarks.has(m))) return false;
  if (w.rarc && !w.rarc.some((r) => f.rarcs.includes(r))) return false;
  if (w.claimStatus && (f.claimStatus === null || !w.claimStatus.includes(f.claimStatus))) return false;
  if (w.crossover !== undefined && w.crossover !== d.crossover) return false;
  if (!has(w.payerType, f.payerType)) return false;
  if (w.payer && (f.payer === null || !w.payer.includes(f.payer))) return false;
  if (!has(w.liability, d.liability ?? LIABILITY_NONE)) return false;
  if (!has(w.ptp, f.ptp ?? 'none')) return false;
  if (!has(w.mai, f.mai ?? 'none')) return false;
  if (w.amount === 'positive' && !(f.amount !== null && f.amount > 0)) return false;
  if (w.amount === 'zero_or_negative' && !(f.amount !== null && f.amount <= 0)) return false;
  return true;
}

const adjOf = (f: DenialFacts): string => (f.group && f.carc ? `${f.group}-${f.carc}` : f.carc ? `CARC ${f.carc}` : f.rarcs.length ? `RARC ${f.rarcs[0]}` : 'the adjustment');

function choose(rule: DenialRule, f: DenialFacts, id: string, extra: RuleSource[] = []): RuleChoice {
  return { ...rule.then, reason: rule.then.reason.replaceAll('{adj}', adjOf(f)), rule_id: id, citations: [...extra, ...rule.citations] };
}

/**
 * The rule for an adjustment: the first row of `table` that matches, where a payer pattern row
 * (`patterns`, tried after the table's guards) re-reads the facts with the class it assigns and
 * continues down the table. `table` must end with a row that matches anything.
 */
export function chooseRule(f: DenialFacts, table: readonly DenialRule[], patterns: readonly PatternRule[] = []): RuleChoice {
  const d = derive(f);
  let i = 0;
  for (; i < table.length && table[i]!.id.startsWith('guard.'); i++) if (matches(table[i]!.when, f, d)) return choose(table[i]!, f, table[i]!.id);
  for (const p of patterns) {
    if (!matches(p.when, f, d)) continue;
    const pd = derive(f, p.asClass);
    for (let j = i; j < table.length; j++) if (matches(table[j]!.when, f, pd)) return choose(table[j]!, f, `${p.id} > ${table[j]!.id}`, [p.citation]);
  }
  for (; i < table.length; i++) if (matches(table[i]!.when, f, d)) return choose(table[i]!, f, table[i]!.id);
  throw new Error('the denial rules table has no catch-all row');
}
