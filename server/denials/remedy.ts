import { z } from 'zod';

/**
 * What a denial leaves the provider to do: the one classification of a denial's next step, used
 * by every caller (the denial-resolution agent, a payer's denial patterns, the denial-code
 * lookup). Pure: group code, CARC, RARC, the claim line's modifiers, the payer's type and (when
 * one is loaded) the payer's curated pattern in; the remedy, whose amount it is, the appeal rights
 * and the rules it rests on out. The remedy decides whether appeal levels apply at all, so an
 * answer never says "no appeal rights" and "first appeal due" at once, and every caller's action
 * is this remedy (the lookup's own remedy and its payers' patterns agree on a code's rule).
 */

export const REMEDIES = ['bill_patient', 'contractual_adjustment', 'correct_and_resubmit', 'appeal', 'not_appealable', 'bill_other_payer', 'check_original_claim', 'no_action'] as const;

/**
 * Whose the denied amount is: the provider's (group CO: to write off, fix, or appeal while it stays
 * the provider's liability), the patient's, another payer's, or still open with this payer (an
 * appeal where no group code says whose it is).
 */
export const RESPONSIBILITIES = ['provider', 'patient', 'other_payer', 'payer'] as const;

export const RemedyCitationSchema = z.object({ title: z.string(), url: z.string(), retrieved: z.string().optional().describe('when a curator read a payer rule'), section: z.string().optional() }).meta({ id: 'RemedyCitation' });
export type RemedyCitation = z.output<typeof RemedyCitationSchema>;

export const RemedyDeadlineSchema = z
  .object({
    kind: z.enum(['appeal', 'resubmit_by']).describe('`appeal`: the first appeal level is due; `resubmit_by`: a corrected claim must be in by the timely-filing limit'),
    date: z.string().nullable().describe('YYYY-MM-DD; null when the rule cannot be dated from the inputs'),
    days_remaining: z.int().nullable().describe('days from the as-of date (default today, UTC) to `date`'),
    citation: RemedyCitationSchema.nullable(),
  })
  .meta({ id: 'RemedyDeadline' });
export type RemedyDeadline = z.output<typeof RemedyDeadlineSchema>;

export const DenialRemedySchema = z
  .object({
    remedy: z.enum(REMEDIES),
    responsibility: z.enum(RESPONSIBILITIES),
    appeal_rights: z.enum(['yes', 'no', 'conditional']).describe('`conditional`: only in the case `appeal_condition` names'),
    appeal_condition: z.string().nullable(),
    reason: z.string(),
    deadline: RemedyDeadlineSchema.nullable().describe('the appeal or resubmission deadline when the caller gave the dates it needs, else null'),
    citations: z.array(RemedyCitationSchema),
  })
  .meta({ id: 'DenialRemedy' });
export type DenialRemedy = z.output<typeof DenialRemedySchema>;

/** A denial as a remittance or a caller names it. */
export interface DenialInput {
  group: string | null;
  carc: string | null;
  rarc: string | null;
  /** The payer's type (`medicare`, `commercial`, ...), when the payer is known. */
  payerType: string | null;
  /** The payer's curated pattern for the code, when one is loaded: its category and citation. */
  pattern?: { denial_category: string; citation: RemedyCitation } | null;
  /**
   * The denied claim line's modifiers, when the caller knows them: Medicare's liability modifiers
   * decide whose a non-covered amount is (GA: an ABN is on file; GZ: one was expected but not
   * obtained; GY: statutorily excluded).
   */
  modifiers?: string[];
}

const CPM_CH1 = 'https://www.cms.gov/regulations-and-guidance/guidance/manuals/downloads/clm104c01.pdf';
const CPM_CH29 = 'https://www.cms.gov/regulations-and-guidance/guidance/manuals/downloads/clm104c29.pdf';
const CPM_CH30 = 'https://www.cms.gov/regulations-and-guidance/guidance/manuals/downloads/clm104c30.pdf';
const CFR_405_926 = 'https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-B/part-405/subpart-I/section-405.926';
const CFR_405_942 = 'https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-B/part-405/subpart-I/section-405.942';
const CFR_411_15 = 'https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-B/part-411/subpart-A/section-411.15';
const NCCI_MANUAL = 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-policy-manual';

const TIMELY_NOT_APPEALABLE: RemedyCitation[] = [
  { title: '42 CFR 405.926(n): actions that are not initial determinations and are not appealable', url: CFR_405_926, section: '(n)' },
  { title: 'Medicare Claims Processing Manual, Pub. 100-04, ch. 1, section 70.7 (denial for failure to file timely is not an initial determination)', url: CPM_CH1, section: '70.7' },
];
const REDETERMINATION: RemedyCitation = { title: '42 CFR 405.942: a redetermination is requested within 120 days of receipt of the initial determination', url: CFR_405_942, section: '(a)' };
const LIABILITY: RemedyCitation = {
  title: 'Medicare Claims Processing Manual, Pub. 100-04, ch. 30 (Financial Liability Protections): the ABN and modifiers GA (ABN on file), GZ (ABN expected, not on file), GY (statutorily excluded)',
  url: CPM_CH30,
};
const EXCLUSIONS: RemedyCitation = { title: '42 CFR 411.15: particular services excluded from coverage (statutory exclusions, Social Security Act section 1862(a))', url: CFR_411_15 };
const X12_CARC = 'https://x12.org/codes/claim-adjustment-reason-codes';
const carc = (code: string, group?: string): RemedyCitation => ({ title: `X12 Claim Adjustment Reason Code ${code}${group ? ` with group code ${group}` : ''}`, url: X12_CARC });

type Rule = Omit<DenialRemedy, 'deadline'>;

/**
 * The remedy of a curated pattern's category (the payer's own word on the code), with the
 * pattern's citation: a coding or missing-information denial is corrected, a medical-necessity or
 * units denial appealed, coordination of benefits and eligibility go to the payer that covers
 * the patient, and a timely-filing denial cannot be billed (only a documented exception reopens it).
 */
const BY_CATEGORY: Record<string, Pick<Rule, 'remedy' | 'responsibility' | 'appeal_rights' | 'appeal_condition' | 'reason'>> = {
  missing_information: { remedy: 'correct_and_resubmit', responsibility: 'provider', appeal_rights: 'no', appeal_condition: null, reason: 'the payer needs information the claim lacks: correct the claim and submit it again' },
  coding: { remedy: 'correct_and_resubmit', responsibility: 'provider', appeal_rights: 'no', appeal_condition: null, reason: 'a coding error: correct the codes and submit the claim again' },
  bundling: {
    remedy: 'correct_and_resubmit',
    responsibility: 'provider',
    appeal_rights: 'conditional',
    appeal_condition: 'only if the services were distinct and the edit allows a modifier',
    reason: 'the service is bundled into another paid the same day: rebill with a modifier only when the edit allows one and the record supports a distinct service',
  },
  medical_necessity: { remedy: 'appeal', responsibility: 'payer', appeal_rights: 'yes', appeal_condition: null, reason: 'a medical-necessity denial: appeal with the records that support the service' },
  units_exceed_limit: { remedy: 'appeal', responsibility: 'payer', appeal_rights: 'yes', appeal_condition: null, reason: 'the units exceed the payer’s limit: appeal with records supporting the units when the limit allows it' },
  documentation: { remedy: 'appeal', responsibility: 'payer', appeal_rights: 'yes', appeal_condition: null, reason: 'the payer wants documentation: appeal with the documents it names' },
  prior_authorization: { remedy: 'appeal', responsibility: 'payer', appeal_rights: 'yes', appeal_condition: null, reason: 'no authorization on file: appeal with the authorization, or the proof that none was required' },
  timely_filing: {
    remedy: 'not_appealable',
    responsibility: 'provider',
    appeal_rights: 'conditional',
    appeal_condition: 'only with proof of an exception to the filing limit',
    reason: 'the filing limit has passed: the amount cannot be billed to the patient unless an exception to the limit applies',
  },
  coordination_of_benefits: { remedy: 'bill_other_payer', responsibility: 'other_payer', appeal_rights: 'no', appeal_condition: null, reason: 'another payer is primary: bill that payer first, then this one with its remittance' },
  eligibility: { remedy: 'bill_other_payer', responsibility: 'other_payer', appeal_rights: 'conditional', appeal_condition: 'only if the patient was covered by this payer on the date of service', reason: 'the patient was not covered by this payer on the date of service: bill the payer that covered the patient then, or the patient when none did' },
};

/** The claim line's liability modifier, if any (GA wins: an ABN on file decides). */
function liabilityModifier(modifiers: string[] | undefined): 'GA' | 'GZ' | 'GY' | null {
  const m = new Set((modifiers ?? []).map((x) => x.trim().toUpperCase()));
  return m.has('GA') ? 'GA' : m.has('GY') ? 'GY' : m.has('GZ') ? 'GZ' : null;
}

/** An appeal's liability while it runs: group CO keeps the amount the provider's, otherwise it is open with the payer. */
const appealOwner = (g: string | null): Rule['responsibility'] => (g === 'CO' ? 'provider' : 'payer');

/**
 * The remedy of a denial. Rules, first match:
 * - CO-16 (or CARC 16 without a group) or RARC MA130: an unprocessable claim, returned without
 *   appeal rights; correct it and submit it again within the timely-filing limit, which the return
 *   does not stop (Medicare Claims Processing Manual, Pub. 100-04, ch. 1, section 80.3.2; ch. 29,
 *   section 200).
 * - PR-1, PR-2, PR-3 (deductible, coinsurance, copayment): the patient's share; bill the patient
 *   or a secondary payer, nothing to appeal.
 * - CARC 18 (exact duplicate): not appealed; check the original claim's status (it is adjudicated
 *   on its own), never resubmit or appeal the copy.
 * - CARC 23 (the impact of prior payers' adjudication) with OA or no group: coordination of
 *   benefits, the other payer's part, settled through that payer's remittance.
 * - Medicare CARC 29 (time limit for filing expired): no appeal rights, a denial for failure to
 *   file timely is not an initial determination (42 CFR 405.926(n); Claims Processing Manual ch. 1,
 *   section 70.7); only a 42 CFR 424.44(b) exception reopens the limit. Other payers: see the
 *   timely-filing rule below.
 * - CARC 22 (covered by another payer per coordination of benefits) and 109 (not covered by this
 *   payer; send it to the correct one): bill the other payer.
 * - CO-45 (charge exceeds the fee schedule or contracted amount): a contractual adjustment,
 *   appealable only when the allowed amount is itself wrong. CO-253 (sequestration): a reduction
 *   of federal payment, written off, not appealable.
 * - CARC 97 and 236 (bundled, or incompatible with another procedure the same day): correct the
 *   claim (a modifier only where the edit allows one and the record supports a distinct service).
 * - CARC 96 (non-covered) with PR: the patient's, for a statutory exclusion (GY) or where an ABN
 *   was on file (GA).
 * - CARC 50 (not medically necessary): with PR, or GA on the line (an ABN on file), the patient's;
 *   with CO, or GZ / no liability modifier, the provider's, who may not bill the patient and keeps
 *   the appeal rights (Medicare: redetermination within 120 days, 42 CFR 405.942).
 * - With the payer's curated pattern for the code: the remedy of its category, citing it.
 * - CARC 29 at other payers: the filing limit passed; only proof of timely filing or an exception.
 * - Any other PR adjustment: the patient's, unless the service should have been covered.
 * - Anything else: the payer's appeal levels apply.
 */
export function classifyDenial(d: DenialInput): Rule {
  const medicare = d.payerType === 'medicare';
  const g = d.group;
  const c = d.carc;
  const mod = liabilityModifier(d.modifiers);
  if ((c === '16' && (g === 'CO' || g === null)) || d.rarc === 'MA130') {
    return {
      remedy: 'correct_and_resubmit',
      responsibility: 'provider',
      appeal_rights: 'no',
      appeal_condition: null,
      reason: 'an unprocessable claim (it lacks information needed for adjudication) is returned, not denied: it has no appeal rights; correct the claim and submit it again before the timely-filing limit, which keeps running',
      citations: medicare
        ? [{ title: 'Medicare Claims Processing Manual, Pub. 100-04, ch. 1, section 80.3.2 (unprocessable claims) and ch. 29, section 200', url: CPM_CH1 }]
        : [{ title: 'X12 Claim Adjustment Reason Code 16 / Remittance Advice Remark Code MA130', url: X12_CARC }],
    };
  }
  if (g === 'PR' && (c === '1' || c === '2' || c === '3')) {
    return {
      remedy: 'bill_patient',
      responsibility: 'patient',
      appeal_rights: 'no',
      appeal_condition: null,
      reason: `PR-${c} is the patient's share (${{ '1': 'deductible', '2': 'coinsurance', '3': 'copayment' }[c]}): bill the patient or a secondary payer; there is nothing to appeal`,
      citations: [{ title: 'X12 Claim Adjustment Reason Codes 1, 2, 3 with group code PR (patient responsibility)', url: X12_CARC }],
    };
  }
  if (c === '18') {
    return {
      remedy: 'check_original_claim',
      responsibility: 'provider',
      appeal_rights: 'no',
      appeal_condition: null,
      reason: `CARC 18: an exact duplicate of a claim or service already received; do not appeal or resubmit this copy: check the original claim's status (paid, denied or pending) and act on that claim`,
      citations: [carc('18', g ?? undefined)],
    };
  }
  if (c === '23' && (g === 'OA' || g === null)) {
    return {
      remedy: 'bill_other_payer',
      responsibility: 'other_payer',
      appeal_rights: 'no',
      appeal_condition: null,
      reason: "OA-23: the impact of the prior payer's adjudication (coordination of benefits): this amount is the other payer's, settled through its remittance; reconcile with the primary payer's payment and bill any balance to the next payer, nothing to appeal here",
      citations: [carc('23', 'OA')],
    };
  }
  if (c === '29' && medicare && (g === 'CO' || g === null)) {
    return {
      remedy: 'not_appealable',
      responsibility: 'provider',
      appeal_rights: 'no',
      appeal_condition: null,
      reason: 'CO-29 at Medicare: the claim was filed after the time limit; a denial for failure to file timely is not an initial determination and has no appeal rights; only an exception of 42 CFR 424.44(b) (administrative error, retroactive entitlement) extends the limit, otherwise the amount is written off and may not be billed to the beneficiary',
      citations: TIMELY_NOT_APPEALABLE,
    };
  }
  if (c === '22' || c === '109') {
    return {
      remedy: 'bill_other_payer',
      responsibility: 'other_payer',
      appeal_rights: 'conditional',
      appeal_condition: 'only if this payer is in fact responsible for the service',
      reason:
        c === '22'
          ? 'CARC 22: another payer may cover the service under coordination of benefits; bill that payer first'
          : 'CARC 109: not covered by this payer or contractor; send the claim to the correct payer or contractor',
      citations: [carc(c, g ?? undefined)],
    };
  }
  if (g === 'CO' && c === '45') {
    return {
      remedy: 'contractual_adjustment',
      responsibility: 'provider',
      appeal_rights: 'conditional',
      appeal_condition: 'only if the allowed amount differs from the contract or fee schedule',
      reason: 'CO-45: the charge exceeds the fee schedule or contracted amount; write the difference off (the patient may not be billed for it)',
      citations: [carc('45', 'CO')],
    };
  }
  if (c === '253') {
    return {
      remedy: 'not_appealable',
      responsibility: 'provider',
      appeal_rights: 'no',
      appeal_condition: null,
      reason: 'CARC 253: sequestration, a reduction of federal payment; write it off (it may not be billed to the patient)',
      citations: [carc('253', g ?? undefined)],
    };
  }
  if ((c === '97' || c === '236') && g !== 'PR') {
    return {
      remedy: 'correct_and_resubmit',
      responsibility: 'provider',
      appeal_rights: 'conditional',
      appeal_condition: 'only if the services were distinct and the edit allows a modifier',
      reason: `CARC ${c}: the service is bundled into, or not billable with, another service the same day (an NCCI edit at Medicare): correct the claim, with a modifier only when the edit allows one and the record supports a distinct service; otherwise it is not separately payable`,
      citations: medicare ? [{ title: 'Medicare NCCI Policy Manual, Chapter I, section E (modifiers and modifier indicators)', url: NCCI_MANUAL }] : [carc(c, g ?? undefined)],
    };
  }
  if (c === '96' && g === 'PR') {
    const why = mod === 'GY' ? 'the line carries GY: the service is statutorily excluded' : mod === 'GA' ? 'the line carries GA: an ABN was on file before the service' : 'a statutory exclusion, or an ABN on file (GA), makes a non-covered service the patient’s';
    return {
      remedy: 'bill_patient',
      responsibility: 'patient',
      appeal_rights: 'conditional',
      appeal_condition: 'only if the service is in fact covered (the beneficiary, or the provider on the beneficiary’s behalf, may appeal)',
      reason: `PR-96: non-covered charges assigned to the patient; ${why}: bill the patient`,
      citations: medicare ? [EXCLUSIONS, LIABILITY] : [carc('96', 'PR')],
    };
  }
  if (c === '50') {
    if (g === 'PR' || (mod === 'GA' && g !== 'CO')) {
      return {
        remedy: 'bill_patient',
        responsibility: 'patient',
        appeal_rights: 'conditional',
        appeal_condition: 'only if the service was in fact reasonable and necessary (the beneficiary may appeal)',
        reason: `${g ?? ''}${g ? '-' : 'CARC '}50: not medically necessary, with ${mod === 'GA' ? 'an ABN on file (GA)' : 'the amount assigned to the patient (PR)'}: the patient is liable; bill the patient`,
        citations: medicare ? [LIABILITY] : [carc('50', g ?? undefined)],
      };
    }
    const abn = mod === 'GA' ? 'the line carries GA, but the payer assigned the amount to the provider (CO): appeal with the signed ABN' : mod === 'GZ' ? 'no ABN was obtained (GZ)' : 'no ABN on file (neither GA nor GZ on the line)';
    return {
      remedy: 'appeal',
      responsibility: 'provider',
      appeal_rights: 'yes',
      appeal_condition: null,
      reason: `${g ? `${g}-` : 'CARC '}50: not deemed medically necessary and ${abn}: the provider is liable and may not bill the patient; appeal with the records that support the service${medicare ? ' (redetermination within 120 days of receiving the notice)' : ''}`,
      citations: medicare ? [LIABILITY, REDETERMINATION] : [carc('50', g ?? undefined)],
    };
  }
  const byCategory = d.pattern ? BY_CATEGORY[d.pattern.denial_category] : undefined;
  if (byCategory) {
    const owner = byCategory.remedy === 'appeal' ? appealOwner(g) : byCategory.responsibility;
    return { ...byCategory, responsibility: owner, citations: [d.pattern!.citation] };
  }
  if (c === '29') {
    return { ...BY_CATEGORY.timely_filing!, citations: [carc('29', g ?? undefined)] };
  }
  if (g === 'PR') {
    return {
      remedy: 'bill_patient',
      responsibility: 'patient',
      appeal_rights: 'conditional',
      appeal_condition: 'only if the service should have been covered',
      reason: `PR-${c ?? d.rarc}: patient responsibility; the amount may be billed to the patient or a secondary payer`,
      citations: [{ title: 'X12 claim adjustment group code PR (patient responsibility)', url: X12_CARC }],
    };
  }
  return {
    remedy: 'appeal',
    responsibility: appealOwner(g),
    appeal_rights: 'yes',
    appeal_condition: null,
    reason: `a denial the payer adjudicated${g === 'CO' ? ' (group CO: the provider’s liability while it stands)' : ''}: the appeal levels apply`,
    citations: [medicare ? { title: 'Medicare Claims Processing Manual, Pub. 100-04, ch. 29 (appeals of claims decisions)', url: CPM_CH29 } : { title: 'X12 Claim Adjustment Reason Codes', url: X12_CARC }],
  };
}

/**
 * The remedy with its deadline: the first appeal level's date when the remedy leaves appeal
 * rights, the timely-filing limit when the claim is to be corrected and resubmitted, else none.
 * The caller computes the dates (it knows the payer's rules and the dates of the claim).
 */
const X12_CLAIM_STATUS_CATEGORY = 'https://x12.org/codes/claim-status-category-codes';
const X12_999 = 'https://x12.org/products';

/**
 * What to do about an acknowledgment: what a 999 (the receiver's syntax check of a submitted
 * claim file, per transaction) or a 277CA (the payer's front-end check, per claim) says about
 * claims before any adjudication. Accepted: nothing to do but wait for the 835. Rejected: the
 * claim was never adjudicated, so there is no denial and nothing to appeal; correct it and submit
 * it again, and the timely-filing limit keeps running meanwhile (Medicare: an unprocessable claim
 * is returned without appeal rights, Claims Processing Manual ch. 1, section 80.3.2).
 */
export function classifyAcknowledgment(a: { stage: '999' | '277CA'; accepted: boolean; medicare: boolean }): Rule {
  const source: RemedyCitation =
    a.stage === '999'
      ? { title: 'ASC X12 005010X231A1 Implementation Acknowledgment for Health Care Insurance (999): IK3, IK4, IK5 and AK9 codes', url: X12_999 }
      : { title: 'X12 Claim Status Category Codes (external code list 507), as a 277CA (005010X214) reports them', url: X12_CLAIM_STATUS_CATEGORY };
  if (a.accepted) {
    return {
      remedy: 'no_action',
      responsibility: 'payer',
      appeal_rights: 'no',
      appeal_condition: null,
      reason: a.stage === '999' ? 'the file passed the receiver\'s syntax check: its claims go on to the payer; watch for the 277CA and the 835' : 'the payer accepted the claim into adjudication: the 835 will say what it pays',
      citations: [source],
    };
  }
  return {
    remedy: 'correct_and_resubmit',
    responsibility: 'provider',
    appeal_rights: 'no',
    appeal_condition: null,
    reason:
      a.stage === '999'
        ? 'the receiver rejected the transaction for its syntax: none of its claims reached the payer; fix the segments named and send the file again before the timely-filing limit, which keeps running'
        : 'the payer rejected the claim before adjudication: it is not a denial and has no appeal rights; correct what the status names and submit it again before the timely-filing limit, which keeps running',
    citations: a.medicare ? [source, { title: 'Medicare Claims Processing Manual, Pub. 100-04, ch. 1, section 80.3.2 (unprocessable claims)', url: CPM_CH1 }] : [source],
  };
}

export function withDeadline(rule: Rule, dates: { appeal?: RemedyDeadline | null; resubmit_by?: RemedyDeadline | null }): DenialRemedy {
  const deadline = rule.remedy === 'correct_and_resubmit' ? (dates.resubmit_by ?? null) : rule.appeal_rights !== 'no' ? (dates.appeal ?? null) : null;
  return { ...rule, deadline };
}
