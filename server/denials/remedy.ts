import { z } from 'zod';
import { DENIAL_CATEGORY_CLASS } from '../../lib/vocabulary/denial_categories.js';
import { isDocumentationRemark, rarcMeaningOf, type RarcMeaning } from '../../lib/vocabulary/rarc.js';
import { APPEAL_RIGHTS, DEADLINE_KINDS, REMEDIES, RESPONSIBILITIES } from '../../lib/vocabulary/remedies.js';
import type { PayerKnowledge } from '../../datasets/payers/queries.js';
import { chooseRule, type DenialFacts, type PatternRule, type RuleChoice } from './rules.js';
import { DENIAL_TABLE } from './table.js';

export { REMEDIES, RESPONSIBILITIES } from '../../lib/vocabulary/remedies.js';
export type { DenialFacts, RuleChoice } from './rules.js';

/**
 * What a denial leaves the provider to do, for every caller (the 835 explanation, the
 * denial-resolution agent, the denial-code lookup, a payer's denial patterns): the denial rules
 * table (table.ts, first match wins, a payer's patterns ahead of the generic rows) chooses the
 * remedy, and `remedyDeadline` (deadline.ts) dates it from the payer's rules.
 */

export const RemedyCitationSchema = z.object({ title: z.string(), url: z.string(), retrieved: z.string().optional().describe('when a curator read a payer rule'), section: z.string().optional() }).meta({ id: 'RemedyCitation' });
export type RemedyCitation = z.output<typeof RemedyCitationSchema>;

export const RemedyDeadlineSchema = z
  .object({
    kind: z.enum(DEADLINE_KINDS).describe('`appeal_by`: the first appeal level’s last day (Medicare: the notice date + 5 days presumed receipt + 120 days); `reopen_by`: the last day to request a reopening (the initial determination’s date + 1 year); `resubmit_by`: the timely-filing limit a corrected claim must meet'),
    date: z.string().nullable().describe('YYYY-MM-DD; null when the rule cannot be dated from the inputs'),
    days_remaining: z.int().nullable().describe('days from the as-of date (default today, UTC) to `date`; negative once it has passed'),
    citation: RemedyCitationSchema.nullable(),
  })
  .meta({ id: 'RemedyDeadline' });
export type RemedyDeadline = z.output<typeof RemedyDeadlineSchema>;

export const OtherPayerSchema = z.object({ name: z.string().nullable(), id: z.string().nullable() }).meta({ id: 'OtherPayer' });

export const DenialRemedySchema = z
  .object({
    remedy: z.enum(REMEDIES).describe('the next step (docs/denial-rules.md): `review` when no rule covers the case'),
    responsibility: z.enum(RESPONSIBILITIES),
    appeal_rights: z.enum(APPEAL_RIGHTS).describe('`conditional`: only in the case `appeal_condition` names'),
    appeal_condition: z.string().nullable(),
    reason: z.string(),
    rule_id: z.string().describe('the denial rules table row that decided (`payer:<slug>:... > <row>` through a payer’s pattern)'),
    deadline: RemedyDeadlineSchema.nullable().describe('the date the remedy must meet, when the rule has one and the payer’s rules and the dates date it, else null'),
    other_payer: OtherPayerSchema.nullable().describe('wait_for_other_payer: the payer the claim was forwarded to (835 NM1*TT), when named'),
    citations: z.array(RemedyCitationSchema),
  })
  .meta({ id: 'DenialRemedy' });
export type DenialRemedy = z.output<typeof DenialRemedySchema>;

/** What the remark codes mean, with the documentation remarks read from their X12 text. */
export function rarcMeanings(rarcs: readonly string[], describe: (code: string) => string | null | undefined = () => null): Set<RarcMeaning> {
  const out = new Set<RarcMeaning>();
  for (const r of rarcs) {
    const m = rarcMeaningOf(r);
    if (m) out.add(m);
    else if (isDocumentationRemark(r, describe(r))) out.add('documentation');
  }
  return out;
}

/** Facts with what a caller does not know left empty (a code looked up alone, a payer's pattern). */
export function denialFacts(f: Partial<DenialFacts> & { group: string | null; carc: string | null }): DenialFacts {
  const rarcs = f.rarcs ?? [];
  return {
    rarcs,
    remarks: f.remarks ?? rarcMeanings(rarcs),
    claimStatus: null,
    payerType: null,
    payer: null,
    modifiers: [],
    ptp: null,
    mai: null,
    amount: null,
    crossoverPayer: null,
    ...f,
  };
}

const patternsOf = new WeakMap<PayerKnowledge, PatternRule[]>();

/**
 * A loaded payer release's denial patterns as rows of the table: each names its payer, group,
 * CARC and remark, and reads the code as its category's class at that payer (the dataset refused
 * any pattern whose category contradicts the code's class).
 */
export function patternRules(k: PayerKnowledge | null): readonly PatternRule[] {
  if (!k) return [];
  let rows = patternsOf.get(k);
  if (!rows) {
    rows = [];
    for (const [slug, patterns] of k.denials) {
      for (const p of patterns) {
        const cls = DENIAL_CATEGORY_CLASS[p.denial_category as keyof typeof DENIAL_CATEGORY_CLASS];
        if (!cls) continue;
        rows.push({
          id: `payer:${slug}:${p.group_code ? `${p.group_code}-` : ''}${p.carc_code}${p.remark_code ? `/${p.remark_code}` : ''}`,
          when: { payer: [slug], carc: [p.carc_code], ...(p.group_code ? { group: [p.group_code] } : {}), ...(p.remark_code ? { rarc: [p.remark_code] } : {}) },
          asClass: cls,
          citation: p.citation,
        });
      }
    }
    // A pattern naming a remark is more specific than one that does not: tried first.
    rows.sort((a, b) => Number(!!b.when.rarc) - Number(!!a.when.rarc));
    patternsOf.set(k, rows);
  }
  return rows;
}

/** The rule for a denial: the table's first matching row (a payer's patterns ahead of the generic rows). */
export function classifyDenial(f: DenialFacts, k: PayerKnowledge | null = null): RuleChoice {
  return chooseRule(f, DENIAL_TABLE, patternRules(k));
}

/** A chosen rule as answered, with its deadline (computed by `remedyDeadline`, or none). */
export function withDeadline(c: RuleChoice, deadline: RemedyDeadline | null = null, otherPayer: { name: string | null; id: string | null } | null = null): DenialRemedy {
  return {
    remedy: c.remedy,
    responsibility: c.responsibility,
    appeal_rights: c.appeal_rights,
    appeal_condition: c.appeal_condition,
    reason: c.reason,
    rule_id: c.rule_id,
    deadline: c.deadline ? deadline : null,
    other_payer: c.names_other_payer ? otherPayer : null,
    citations: c.citations,
  };
}

const X12_CLAIM_STATUS_CATEGORY = 'https://x12.org/codes/claim-status-category-codes';
const X12_999 = 'https://x12.org/products';
const CPM_CH1 = 'https://www.cms.gov/regulations-and-guidance/guidance/manuals/downloads/clm104c01.pdf';

/**
 * What to do about an acknowledgment: what a 999 (the receiver's syntax check of a submitted
 * claim file, per transaction) or a 277CA (the payer's front-end check, per claim) says about
 * claims before any adjudication. Accepted: nothing to do but wait for the 835. Rejected: the
 * claim was never adjudicated, so there is no denial and nothing to appeal; correct it and submit
 * it again, and the timely-filing limit keeps running meanwhile (Medicare: an unprocessable claim
 * is returned without appeal rights, Claims Processing Manual ch. 1, section 80.3.2).
 */
export function classifyAcknowledgment(a: { stage: '999' | '277CA'; accepted: boolean; medicare: boolean }): RuleChoice {
  const source = a.stage === '999' ? { title: 'ASC X12 005010X231A1 Implementation Acknowledgment for Health Care Insurance (999): IK3, IK4, IK5 and AK9 codes', url: X12_999 } : { title: 'X12 Claim Status Category Codes (external code list 507), as a 277CA (005010X214) reports them', url: X12_CLAIM_STATUS_CATEGORY };
  if (a.accepted) {
    return {
      rule_id: `ack.${a.stage}.accepted`,
      remedy: 'no_action',
      responsibility: 'payer',
      appeal_rights: 'no',
      appeal_condition: null,
      deadline: null,
      reason: a.stage === '999' ? "the file passed the receiver's syntax check: its claims go on to the payer; watch for the 277CA and the 835" : 'the payer accepted the claim into adjudication: the 835 will say what it pays',
      citations: [source],
    };
  }
  return {
    rule_id: `ack.${a.stage}.rejected`,
    remedy: 'correct_and_resubmit',
    responsibility: 'provider',
    appeal_rights: 'no',
    appeal_condition: null,
    deadline: 'resubmit_by',
    reason:
      a.stage === '999'
        ? 'the receiver rejected the transaction for its syntax: none of its claims reached the payer; fix the segments named and send the file again before the timely-filing limit, which keeps running'
        : 'the payer rejected the claim before adjudication: it is not a denial and has no appeal rights; correct what the status names and submit it again before the timely-filing limit, which keeps running',
    citations: a.medicare ? [source, { title: 'Medicare Claims Processing Manual, Pub. 100-04, ch. 1, section 80.3.2 (unprocessable claims)', url: CPM_CH1 }] : [source],
  };
}
