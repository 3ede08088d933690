/**
 * What a denial leaves the provider to do, by group code, CARC, RARC and payer type: a pure
 * classification with the rule it rests on. The remedy decides whether appeal levels are given
 * at all, so an answer never says "no appeal rights" and "first appeal due" at once.
 */
export type Remedy = 'correct_and_resubmit' | 'bill_patient' | 'contractual_adjustment' | 'appeal' | 'review';

export interface RemedyRule {
  remedy: Remedy;
  /** `yes`: the appeal levels apply; `no`: none (resubmit or bill instead); `conditional`: only in the named case. */
  appeal_rights: 'yes' | 'no' | 'conditional';
  /** The case in which a conditional appeal applies. */
  appeal_condition: string | null;
  reason: string;
  citation: { title: string; url: string };
}

const CPM_CH1 = 'https://www.cms.gov/regulations-and-guidance/guidance/manuals/downloads/clm104c01.pdf';
const CPM_CH29 = 'https://www.cms.gov/regulations-and-guidance/guidance/manuals/downloads/clm104c29.pdf';
const X12_CARC = 'https://x12.org/codes/claim-adjustment-reason-codes';

/**
 * The remedy of a denial. Rules, first match:
 * - CO-16 (or CARC 16 without a group) or RARC MA130 (a claim that lacks information needed for adjudication): an
 *   unprocessable claim, returned without appeal rights; correct it and submit it again within
 *   the timely-filing limit, which the return does not stop (Medicare Claims Processing Manual,
 *   Pub. 100-04, ch. 1, section 80.3.2; ch. 29, section 200: unprocessable claims are not
 *   appealable).
 * - PR with CARC 1, 2 or 3 (deductible, coinsurance, copayment): the patient's share; bill the
 *   patient or a secondary payer, nothing to appeal.
 * - CO-45 (charge exceeds the fee schedule or contracted amount): a contractual adjustment;
 *   appeal only when the allowed amount differs from the contract or fee schedule.
 * - Anything else: the payer's appeal levels apply (a CO-50 medical-necessity denial is the
 *   classic appealable one).
 */
export function remedyOf(d: { group: string | null; carc: string | null; rarc: string | null; payerType: string | null }): RemedyRule {
  const medicare = d.payerType === 'medicare';
  if ((d.carc === '16' && (d.group === 'CO' || d.group === null)) || d.rarc === 'MA130') {
    return {
      remedy: 'correct_and_resubmit',
      appeal_rights: 'no',
      appeal_condition: null,
      reason: 'an unprocessable claim (it lacks information needed for adjudication) is returned, not denied: it has no appeal rights; correct the claim and submit it again before the timely-filing limit, which keeps running',
      citation: medicare
        ? { title: 'Medicare Claims Processing Manual, Pub. 100-04, ch. 1, section 80.3.2 (unprocessable claims) and ch. 29, section 200', url: CPM_CH1 }
        : { title: 'X12 Claim Adjustment Reason Code 16 / Remittance Advice Remark Code MA130', url: X12_CARC },
    };
  }
  if (d.group === 'PR' && (d.carc === '1' || d.carc === '2' || d.carc === '3')) {
    return {
      remedy: 'bill_patient',
      appeal_rights: 'no',
      appeal_condition: null,
      reason: `PR-${d.carc} is the patient's share (${{ '1': 'deductible', '2': 'coinsurance', '3': 'copayment' }[d.carc]}): bill the patient or a secondary payer; there is nothing to appeal`,
      citation: { title: 'X12 Claim Adjustment Reason Codes 1, 2, 3 with group code PR (patient responsibility)', url: X12_CARC },
    };
  }
  if (d.group === 'CO' && d.carc === '45') {
    return {
      remedy: 'contractual_adjustment',
      appeal_rights: 'conditional',
      appeal_condition: 'only if the allowed amount differs from the contract or fee schedule',
      reason: 'CO-45: the charge exceeds the fee schedule or contracted amount; write the difference off (the patient may not be billed for it)',
      citation: { title: 'X12 Claim Adjustment Reason Code 45 with group code CO (contractual obligation)', url: X12_CARC },
    };
  }
  return {
    remedy: 'appeal',
    appeal_rights: 'yes',
    appeal_condition: null,
    reason: 'a denial the payer adjudicated: the appeal levels apply',
    citation: medicare ? { title: 'Medicare Claims Processing Manual, Pub. 100-04, ch. 29 (appeals of claims decisions)', url: CPM_CH29 } : { title: 'X12 Claim Adjustment Reason Codes', url: X12_CARC },
  };
}
