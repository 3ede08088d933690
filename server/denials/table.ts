import { NOT_PATIENT_GROUPS } from '../../lib/vocabulary/adjustment_groups.js';
import type { DenialRule, RuleSource } from './rules.js';

/**
 * The denial rules table (server/denials/README.md; docs/denial-rules.md is generated from it).
 * Order matters: the first row that matches an adjustment decides. Guards (ids `guard.`) come
 * first and are never overridden by a payer's pattern; a payer's pattern rows come next (they
 * assign a class at that payer and continue here); then the rows by payer type and CARC class;
 * the last row matches anything and says `review`.
 */

const ecfr = (part: string, section: string) => `https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-B/part-${part}/section-${section}`;
const CPM = (ch: string) => `https://www.cms.gov/regulations-and-guidance/guidance/manuals/downloads/clm104c${ch}.pdf`;
const X12_CARC = 'https://x12.org/codes/claim-adjustment-reason-codes';
const X12_RARC = 'https://x12.org/codes/remittance-advice-remark-codes';

const C = {
  initialDetermination: { title: '42 CFR 405.924(b): a contractor’s payment or denial of a Part B claim is an initial determination', url: ecfr('405', '405.924'), section: '(b)' },
  redetermination: { title: '42 CFR 405.942: a redetermination is requested within 120 days of receipt of the initial determination (receipt presumed 5 days after its date)', url: ecfr('405', '405.942'), section: '(a)' },
  reopening: { title: '42 CFR 405.980: a party may request a reopening of an initial determination within 1 year of its date for any reason, and a clerical error is corrected by reopening; Medicare Claims Processing Manual, Pub. 100-04, ch. 34 (reopening and revision of claim determinations)', url: ecfr('405', '405.980'), section: '(a)(3), (c)(1)' },
  notInitialDetermination: { title: '42 CFR 405.926(n): a denial for failure to file timely is not an initial determination and is not appealable; Medicare Claims Processing Manual, Pub. 100-04, ch. 1, section 70.7', url: ecfr('405', '405.926'), section: '(n)' },
  unprocessable: { title: 'Medicare Claims Processing Manual, Pub. 100-04, ch. 1, section 80.3.2 (unprocessable claims are returned without appeal rights) and ch. 29, section 200', url: CPM('01'), section: '80.3.2' },
  liability: {
    title: 'Social Security Act section 1879; 42 CFR 411.400-411.406; Medicare Claims Processing Manual, Pub. 100-04, ch. 30, sections 40.3.6 (GA, GZ, GY, GX) and 50 (the ABN); MLN Matters MM7228 (GZ: the provider is liable, the beneficiary may not be billed)',
    url: CPM('30'),
    section: '40.3.6, 50',
  },
  exclusions: { title: '42 CFR 411.15: services excluded from coverage (Social Security Act section 1862(a)); GY marks a statutory exclusion, for which the beneficiary is liable', url: ecfr('411', '411.15') },
  qmb: { title: 'Social Security Act section 1902(n)(3)(B): a provider may not bill a Qualified Medicare Beneficiary for Medicare cost sharing; RARC N781-N783 mark the patient as a QMB', url: 'https://www.ssa.gov/OP_Home/ssact/title19/1902.htm', section: '1902(n)(3)(B)' },
  crossover: { title: 'Medicare Claims Processing Manual, Pub. 100-04, ch. 28, section 70.6 (claims crossed over to supplemental payers under the Coordination of Benefits Agreement); CLP02 19, 20, 21 and RARC MA18, N89: the claim was forwarded to another payer', url: CPM('28'), section: '70.6' },
  ncciModifiers: { title: 'Medicare NCCI Policy Manual, ch. I, section E (modifiers and modifier indicators: 1 allows an NCCI-associated modifier, 0 allows none)', url: 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-policy-manual', section: 'I.E' },
  mue: { title: 'CMS: Medicare NCCI Medically Unlikely Edits, MUE adjudication indicators (1 claim line edit; 2 date-of-service edit, policy; 3 date-of-service edit, clinical)', url: 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-medically-unlikely-edits' },
  globalSurgery: { title: 'Medicare Claims Processing Manual, Pub. 100-04, ch. 12, sections 40.1-40.4 (global surgery: modifiers 24, 25, 57 and 79 identify services outside the global package)', url: CPM('12'), section: '40.1-40.4' },
  maAppeals: { title: '42 CFR part 422, subpart M (Medicare Advantage grievances, organization determinations and appeals): a non-contracted provider requests a reconsideration; a contracted provider disputes payment under its agreement', url: 'https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-B/part-422/subpart-M' },
  medicaidFiling: { title: '42 CFR 447.45(d): Medicaid timely claims (12 months from the date of service, with the exceptions it lists)', url: 'https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-C/part-447/subpart-A/section-447.45', section: '(d)' },
  sequestration: { title: '2 U.S.C. 901a (Budget Control Act of 2011 section 251A): the sequestration of Medicare payments, reported with CARC 253', url: 'https://www.law.cornell.edu/uscode/text/2/901a' },
  groupPR: { title: 'X12 claim adjustment group code PR (patient responsibility): the amount may be billed to the patient or a secondary payer', url: X12_CARC },
  x12Negative: { title: 'ASC X12 005010X221A1 (835), CAS: a negative adjustment amount increases the payment; a zero amount moves no money', url: 'https://x12.org/products' },
  clp02: { title: 'ASC X12 005010X221A1 (835), CLP02 claim status codes (1-3 primary, secondary, tertiary; 19-21 forwarded; 22 reversal; 25 predetermination)', url: 'https://x12.org/products' },
} satisfies Record<string, RuleSource>;

const carc = (codes: string, what: string): RuleSource => ({ title: `X12 Claim Adjustment Reason Code ${codes}: ${what}`, url: X12_CARC });
const rarc = (codes: string, what: string): RuleSource => ({ title: `X12 Remittance Advice Remark Code ${codes}: ${what}`, url: X12_RARC });

const MEDICARE = ['medicare'] as const;

export const DENIAL_TABLE: readonly DenialRule[] = [
  // Guards: what the claim's position or the amount's sign decides, whatever the code or payer.
  {
    id: 'guard.zero_or_negative',
    when: { amount: 'zero_or_negative' },
    then: { remedy: 'no_action', responsibility: 'payer', appeal_rights: 'no', appeal_condition: null, deadline: null, reason: '{adj} of zero or less takes nothing from the provider: a negative amount increases the payment, a zero amount only informs; nothing to bill, correct or appeal' },
    citations: [C.x12Negative],
  },
  {
    id: 'guard.reversal',
    when: { claimStatus: ['22'] },
    then: { remedy: 'no_action', responsibility: 'payer', appeal_rights: 'no', appeal_condition: null, deadline: null, reason: 'a reversal (CLP02 22) takes back an earlier payment: its adjustments undo that claim’s; the corrected claim that follows carries the new adjudication, act on that' },
    citations: [C.clp02],
  },
  {
    id: 'guard.predetermination',
    when: { claimStatus: ['25'] },
    then: { remedy: 'no_action', responsibility: 'payer', appeal_rights: 'no', appeal_condition: null, deadline: null, reason: 'a predetermination (CLP02 25) prices the claim without paying it: nothing to post, bill or appeal' },
    citations: [C.clp02],
  },
  {
    id: 'guard.prior_payer_reported',
    when: { group: ['OA'], carc: ['23'], claimStatus: ['2', '3', '20', '21'] },
    then: { remedy: 'no_action', responsibility: 'other_payer', appeal_rights: 'no', appeal_condition: null, deadline: null, reason: 'OA-23 on a secondary or tertiary remittance reports the prior payer’s adjudication (its payment and adjustments), already posted from that payer’s remittance: nothing to do here' },
    citations: [carc('23', 'the impact of prior payer(s) adjudication including payments and/or adjustments (use only with group code OA)'), C.clp02],
  },
  {
    id: 'guard.qmb',
    when: { group: ['PR'], remark: ['qmb'] },
    then: { remedy: 'bill_other_payer', responsibility: 'other_payer', appeal_rights: 'no', appeal_condition: null, deadline: null, reason: '{adj} on a Qualified Medicare Beneficiary (RARC N781-N783): the patient may not be billed Medicare cost sharing; bill the subsequent payer (the state Medicaid program) or write the amount off, and refund anything collected from the patient' },
    citations: [C.qmb],
  },
  {
    id: 'guard.gz_not_patient',
    when: { group: ['PR'], liability: ['GZ'], payerType: MEDICARE },
    then: { remedy: 'reopen', responsibility: 'provider', appeal_rights: 'no', appeal_condition: null, deadline: 'reopen_by', reopen_years: 1, reason: '{adj} on a GZ line: GZ says no ABN was given, so the provider is liable and the beneficiary may not be billed; the patient-responsibility group is the payer’s error: ask the contractor to correct it (a reopening), and do not bill the patient' },
    citations: [C.liability, C.reopening],
  },
  {
    id: 'guard.crossover_patient_share',
    when: { group: ['PR'], crossover: true },
    then: { remedy: 'wait_for_other_payer', responsibility: 'other_payer', appeal_rights: 'no', appeal_condition: null, deadline: null, names_other_payer: true, reason: '{adj}: the claim was forwarded to another payer (a crossover): wait for its answer before billing the patient what it leaves' },
    citations: [C.crossover],
  },
  // A line the payer allowed less than the fee schedule pays (not an adjustment: the pricing says so).
  {
    id: 'underpayment.medicare',
    when: { underpayment: true, payerType: MEDICARE },
    then: {
      remedy: 'reopen',
      responsibility: 'payer',
      appeal_rights: 'yes',
      appeal_condition: null,
      deadline: 'reopen_by',
      reopen_years: 1,
      reason: 'the line was allowed less than the Medicare fee schedule amount for its code, modifiers, date and place: when the pricing inputs are right (the line’s pricing notes name the locality and the rows used), ask the contractor to correct the amount by a reopening within a year of the determination, or by a redetermination within 120 days of the notice',
    },
    citations: [C.reopening, C.redetermination],
  },
  // The remark says the claim was returned, or documents are wanted.
  {
    id: 'unprocessable',
    when: { remark: ['unprocessable'] },
    then: { remedy: 'correct_and_resubmit', responsibility: 'provider', appeal_rights: 'no', appeal_condition: null, deadline: 'resubmit_by', reason: 'an unprocessable claim (RARC MA130) is returned, not denied: it has no appeal rights; correct it and submit a new claim before the timely-filing limit, which keeps running' },
    citations: [C.unprocessable, rarc('MA130', 'incomplete or invalid information; no appeal rights because the claim is unprocessable')],
  },
  {
    id: 'documentation.requested',
    when: { class: ['documentation'] },
    then: { remedy: 'send_documents', responsibility: 'provider', appeal_rights: 'yes', appeal_condition: null, deadline: 'appeal_by', dispute: 'benefit', reason: '{adj}: the payer needs documentation (the remark codes name it) to decide the claim: send it, with a redetermination or appeal request where the claim was already denied' },
    citations: [carc('251, 252, 226, 227', 'the attachment or documentation requested was not received or is required to adjudicate')],
  },
  {
    id: 'documentation.missing_information',
    when: { carc: ['16'], remark: ['documentation'] },
    then: { remedy: 'send_documents', responsibility: 'provider', appeal_rights: 'no', appeal_condition: null, deadline: 'resubmit_by', reason: '{adj} with a documentation remark: the claim lacks the documents the remark names; send them with the corrected claim before the timely-filing limit' },
    citations: [carc('16', 'claim/service lacks information or has submission/billing error(s); at least one remark code must be provided')],
  },
  {
    id: 'missing_information.medicare',
    when: { class: ['missing_information'], payerType: MEDICARE },
    then: { remedy: 'correct_and_resubmit', responsibility: 'provider', appeal_rights: 'no', appeal_condition: null, deadline: 'resubmit_by', reason: '{adj}: an unprocessable claim (it lacks information needed for adjudication) is returned, not denied: it has no appeal rights; correct the claim and submit it again before the timely-filing limit, which keeps running' },
    citations: [C.unprocessable],
  },
  {
    id: 'missing_information',
    when: { class: ['missing_information'] },
    then: { remedy: 'correct_and_resubmit', responsibility: 'provider', appeal_rights: 'no', appeal_condition: null, deadline: 'resubmit_by', reason: '{adj}: the claim lacks information or has a billing error (the remark codes say which): correct it and submit it again before the timely-filing limit' },
    citations: [carc('16', 'claim/service lacks information or has submission/billing error(s)')],
  },
  // The patient's share, duplicates, other payers.
  {
    id: 'patient_share',
    when: { group: ['PR'], class: ['patient_share'] },
    then: { remedy: 'bill_patient', responsibility: 'patient', appeal_rights: 'no', appeal_condition: null, deadline: null, reason: '{adj} is the patient’s cost share (deductible, coinsurance, copayment): bill the patient or a secondary payer; there is nothing to appeal' },
    citations: [carc('1, 2, 3, 66', 'deductible, coinsurance, copayment and blood deductible amounts, with group code PR')],
  },
  {
    id: 'duplicate',
    when: { class: ['duplicate'] },
    then: { remedy: 'check_original_claim', responsibility: 'provider', appeal_rights: 'no', appeal_condition: null, deadline: null, reason: '{adj}: an exact duplicate of a claim or service already received; do not appeal or resubmit this copy: check the original claim’s status (paid, denied or pending) and act on that claim' },
    citations: [carc('18', 'exact duplicate claim/service')],
  },
  {
    id: 'other_payer.primary_remittance_needed',
    when: { carc: ['23'], remark: ['other_payer_remittance'] },
    then: { remedy: 'send_documents', responsibility: 'other_payer', appeal_rights: 'no', appeal_condition: null, deadline: null, reason: '{adj}: this payer needs the other (primary) payer’s adjudication before it can pay: send the primary payer’s remittance with the claim' },
    citations: [carc('23', 'the impact of prior payer(s) adjudication'), rarc('N36, N4', 'the claim must meet the primary payer’s processing requirements; the prior payer’s EOB is missing or invalid')],
  },
  {
    id: 'other_payer.prior_payer_on_primary',
    when: { group: ['OA'], carc: ['23'], claimStatus: ['1', '19'] },
    then: { remedy: 'send_documents', responsibility: 'other_payer', appeal_rights: 'no', appeal_condition: null, deadline: null, reason: 'OA-23 on a claim processed as primary: the payer applied another payer’s adjudication: send it that payer’s remittance, or correct the coordination-of-benefits information when no other payer paid first' },
    citations: [carc('23', 'the impact of prior payer(s) adjudication including payments and/or adjustments (use only with group code OA)'), C.clp02],
  },
  {
    id: 'other_payer.prior_payer_unclear',
    when: { carc: ['23'] },
    then: { remedy: 'review', responsibility: 'undetermined', appeal_rights: 'conditional', appeal_condition: 'by what the prior payer’s remittance shows', deadline: null, reason: '{adj}: a prior payer’s adjudication applied where the claim’s position does not say which payer paid first: compare with the prior payer’s remittance before posting; no rule here decides it' },
    citations: [carc('23', 'the impact of prior payer(s) adjudication including payments and/or adjustments')],
  },
  {
    id: 'other_payer',
    when: { class: ['other_payer'] },
    then: { remedy: 'bill_other_payer', responsibility: 'other_payer', appeal_rights: 'conditional', appeal_condition: 'only if this payer is in fact responsible for the service', deadline: null, reason: '{adj}: another payer (coordination of benefits, the right contractor, a workers’ compensation, liability or no-fault carrier) is responsible: bill that payer' },
    citations: [carc('19, 20, 21, 22, 109', 'covered by another payer (workers’ compensation, liability, no-fault, coordination of benefits), or not covered by this payer or contractor')],
  },
  // Timely filing.
  {
    id: 'timely_filing.medicare',
    when: { class: ['timely_filing'], payerType: MEDICARE },
    then: {
      remedy: 'not_appealable',
      responsibility: 'provider',
      appeal_rights: 'no',
      appeal_condition: null,
      deadline: null,
      reason: '{adj} at Medicare: the claim was filed after the time limit; a denial for failure to file timely is not an initial determination and has no appeal rights; only an exception of 42 CFR 424.44(b) (administrative error, retroactive entitlement) extends the limit, otherwise the amount is written off and may not be billed to the beneficiary',
    },
    citations: [C.notInitialDetermination],
  },
  {
    id: 'timely_filing.medicaid',
    when: { class: ['timely_filing'], payerType: ['medicaid'] },
    then: { remedy: 'appeal', responsibility: 'provider', appeal_rights: 'conditional', appeal_condition: 'only with proof the claim was submitted within the limit (a clearinghouse or payer acceptance report), or an exception the state rule allows', deadline: 'appeal_by', dispute: 'contract', reason: '{adj}: the filing limit passed; ask the program to reconsider only with proof of timely submission or an exception (retroactive eligibility, a prior payer’s delay); otherwise write it off' },
    citations: [C.medicaidFiling, carc('29', 'the time limit for filing has expired')],
  },
  {
    id: 'timely_filing.commercial',
    when: { class: ['timely_filing'], payerType: ['commercial'] },
    then: { remedy: 'appeal', responsibility: 'provider', appeal_rights: 'conditional', appeal_condition: 'only with proof the claim was submitted within the limit (a clearinghouse or payer acceptance report)', deadline: 'appeal_by', dispute: 'contract', reason: '{adj}: the filing limit passed; ask for a reconsideration only with proof of timely submission; otherwise write it off (in-network providers may not bill the patient for it)' },
    citations: [carc('29', 'the time limit for filing has expired')],
  },
  // Reductions the provider writes off.
  {
    id: 'sequestration',
    when: { class: ['sequestration'] },
    then: { remedy: 'contractual_adjustment', responsibility: 'provider', appeal_rights: 'no', appeal_condition: null, deadline: null, reason: '{adj}: sequestration, a reduction of federal payment taken after the allowed amount; write it off (it may not be billed to the patient)' },
    citations: [C.sequestration, carc('253', 'sequestration - reduction in federal payment')],
  },
  {
    id: 'legislated_penalty',
    when: { class: ['legislated_penalty'] },
    then: { remedy: 'contractual_adjustment', responsibility: 'provider', appeal_rights: 'conditional', appeal_condition: 'only if the penalty (the remark code names the program) was applied in error', deadline: null, reason: '{adj}: a legislated or regulatory penalty taken from the payment (the remark code names the program); write it off' },
    citations: [carc('237', 'legislated/regulatory penalty; at least one remark code must be provided')],
  },
  {
    id: 'contractual',
    when: { class: ['contractual'], group: NOT_PATIENT_GROUPS },
    then: { remedy: 'contractual_adjustment', responsibility: 'provider', appeal_rights: 'conditional', appeal_condition: 'only if the allowed amount differs from the contract or fee schedule', deadline: null, reason: '{adj}: the charge exceeds the fee schedule, contract or negotiated amount: write the difference off (the patient may not be billed for it)' },
    citations: [carc('45, 42, 131, A2, 24', 'charge exceeds the fee schedule or contracted amount; negotiated discount; contractual adjustment; capitation')],
  },
  {
    id: 'pricing',
    when: { class: ['pricing'], group: NOT_PATIENT_GROUPS },
    then: { remedy: 'contractual_adjustment', responsibility: 'provider', appeal_rights: 'conditional', appeal_condition: 'only if the payer applied the pricing rule (multiple procedure, outlier, percentage) in error', deadline: null, reason: '{adj}: a pricing rule (multiple or concurrent procedures, an outlier, a percentage) set the amount: write the reduction off' },
    citations: [carc('59, 69, 70', 'processed under multiple or concurrent procedure rules; outlier adjustments')],
  },
  // Coverage (medical necessity) and liability.
  {
    id: 'coverage.abn_on_file',
    when: { class: ['coverage', 'non_covered'], liability: ['GA'], group: ['PR'] },
    then: { remedy: 'bill_patient', responsibility: 'patient', appeal_rights: 'conditional', appeal_condition: 'only if the service was in fact reasonable and necessary (the beneficiary may appeal)', deadline: null, reason: '{adj} with an ABN on file (GA): the patient accepted liability for a service expected to be denied; bill the patient' },
    citations: [C.liability],
  },
  {
    id: 'coverage.abn_on_file_assigned_to_provider',
    when: { class: ['coverage', 'non_covered'], liability: ['GA'], group: NOT_PATIENT_GROUPS, payerType: MEDICARE },
    then: { remedy: 'appeal', responsibility: 'provider', appeal_rights: 'yes', appeal_condition: null, deadline: 'appeal_by', dispute: 'benefit', reason: '{adj}: the line carries GA (an ABN on file) but the amount was assigned to the provider: appeal with the signed ABN (redetermination within 120 days of receiving the notice)' },
    citations: [C.liability, C.redetermination],
  },
  {
    id: 'non_covered.statutory_or_abn',
    when: { class: ['non_covered'], group: ['PR'], liability: ['GY', 'GX'] },
    then: { remedy: 'bill_patient', responsibility: 'patient', appeal_rights: 'conditional', appeal_condition: 'only if the service is in fact covered (the beneficiary, or the provider on the beneficiary’s behalf, may appeal)', deadline: null, reason: '{adj}: the line carries GY or GX: the service is statutorily excluded or not a benefit; the patient is liable: bill the patient' },
    citations: [C.exclusions, C.liability],
  },
  {
    id: 'coverage.diagnosis_missing.medicare',
    when: { class: ['coverage', 'coding'], remark: ['diagnosis_missing'], group: NOT_PATIENT_GROUPS, payerType: MEDICARE },
    then: { remedy: 'reopen', responsibility: 'provider', appeal_rights: 'no', appeal_condition: null, deadline: 'reopen_by', reopen_years: 1, reason: '{adj} with RARC M76: the diagnosis is missing or invalid, a clerical error: request a reopening with the diagnosis the record supports (a new claim would be denied as a duplicate)' },
    citations: [C.reopening, rarc('M76', 'missing/incomplete/invalid diagnosis or condition')],
  },
  {
    id: 'coverage.medicare',
    when: { class: ['coverage'], group: NOT_PATIENT_GROUPS, payerType: MEDICARE },
    then: {
      remedy: 'appeal',
      responsibility: 'provider',
      appeal_rights: 'yes',
      appeal_condition: null,
      deadline: 'appeal_by',
      dispute: 'benefit',
      reason: '{adj}: not deemed reasonable and necessary and no ABN assigned the amount to the patient: the provider is liable and may not bill the patient; appeal (a redetermination within 120 days of receiving the notice) with the records that support the service; a diagnosis coded wrongly is corrected by a reopening instead',
    },
    citations: [C.liability, C.redetermination, C.reopening],
  },
  {
    id: 'coverage.patient',
    when: { class: ['coverage'], group: ['PR'] },
    then: { remedy: 'bill_patient', responsibility: 'patient', appeal_rights: 'conditional', appeal_condition: 'only if the service was in fact medically necessary (the patient may appeal)', deadline: null, reason: '{adj}: not covered as medically necessary and assigned to the patient by the payer: bill the patient' },
    citations: [C.groupPR],
  },
  {
    id: 'coverage.commercial',
    when: { class: ['coverage'], group: NOT_PATIENT_GROUPS, payerType: ['commercial'] },
    then: { remedy: 'appeal', responsibility: 'provider', appeal_rights: 'yes', appeal_condition: null, deadline: 'appeal_by', dispute: 'benefit', reason: '{adj}: a medical-necessity (coverage) denial: appeal with the records that meet the plan’s criteria (the provider files for the member as authorized representative where the plan’s appeal is the member’s); the amount may not be billed to the patient while it stays with group CO' },
    citations: [{ title: '29 CFR 2560.503-1(h) (group health plans: a full and fair review of an adverse benefit determination) and 45 CFR 147.136 (internal appeals and external review)', url: 'https://www.ecfr.gov/current/title-29/subtitle-B/chapter-XXV/subchapter-G/part-2560/section-2560.503-1', section: '(h)' }],
  },
  // NCCI: bundling (PTP edits, global surgery), units (MUEs).
  {
    id: 'bundling.global_surgery.medicare',
    when: { class: ['bundling'], remark: ['global_surgery'], payerType: MEDICARE },
    then: { remedy: 'reopen', responsibility: 'provider', appeal_rights: 'no', appeal_condition: null, deadline: 'reopen_by', reopen_years: 1, reason: '{adj} with RARC M144: the service fell in a surgery’s global period; when the record shows it was outside the package (24 an unrelated visit, 25 a separate significant visit, 57 the decision for surgery, 79 an unrelated procedure), request a reopening to add the modifier; otherwise it is included in the surgery' },
    citations: [C.globalSurgery, C.reopening],
  },
  {
    id: 'bundling.ptp_modifier_allowed.medicare',
    when: { class: ['bundling'], ptp: ['1'], payerType: MEDICARE },
    then: { remedy: 'reopen', responsibility: 'provider', appeal_rights: 'no', appeal_condition: null, deadline: 'reopen_by', reopen_years: 1, reason: '{adj}: the NCCI edit allows a modifier (indicator 1): when the record supports a distinct service (another encounter, site or practitioner), request a reopening to add the modifier (a new claim would be denied as a duplicate); otherwise the service is bundled and written off' },
    citations: [C.ncciModifiers, C.reopening],
  },
  {
    id: 'bundling.ptp_no_modifier.medicare',
    when: { class: ['bundling'], ptp: ['0'], payerType: MEDICARE },
    then: { remedy: 'not_appealable', responsibility: 'provider', appeal_rights: 'no', appeal_condition: null, deadline: null, reason: '{adj}: the NCCI edit allows no modifier (indicator 0): the column 2 code is not payable with the column 1 code on the same date, and no modifier or appeal changes that; write it off' },
    citations: [C.ncciModifiers],
  },
  {
    id: 'bundling.ptp_not_in_force.medicare',
    when: { class: ['bundling'], ptp: ['not_in_force'], payerType: MEDICARE },
    then: { remedy: 'appeal', responsibility: 'provider', appeal_rights: 'yes', appeal_condition: null, deadline: 'appeal_by', dispute: 'benefit', reason: '{adj}: the NCCI edit pairing these codes was not in force on the date of service: appeal (a redetermination) naming the edit’s dates' },
    citations: [C.ncciModifiers, C.redetermination],
  },
  {
    id: 'units.line_edit.medicare',
    when: { class: ['units'], mai: [1], payerType: MEDICARE },
    then: { remedy: 'reopen', responsibility: 'provider', appeal_rights: 'no', appeal_condition: null, deadline: 'reopen_by', reopen_years: 1, reason: '{adj}: the MUE is a claim line edit (MAI 1): the whole line was denied; when the record supports more units, request a reopening to report them on separate lines with the modifiers that make them distinct (76, 77, 91, anatomic or distinct-service modifiers)' },
    citations: [C.mue, C.reopening],
  },
  {
    id: 'units.policy.medicare',
    when: { class: ['units'], mai: [2], payerType: MEDICARE },
    then: { remedy: 'not_appealable', responsibility: 'provider', appeal_rights: 'conditional', appeal_condition: 'only if the units were reported in error (then a reopening corrects them)', deadline: null, reason: '{adj}: the MUE is a date-of-service edit set by policy (MAI 2): units above it are not payable, whatever the record; the whole line was denied: correct the units by a reopening only if they were reported in error' },
    citations: [C.mue],
  },
  {
    id: 'units.clinical.medicare',
    when: { class: ['units'], mai: [3], payerType: MEDICARE },
    then: { remedy: 'appeal', responsibility: 'provider', appeal_rights: 'yes', appeal_condition: null, deadline: 'appeal_by', dispute: 'benefit', reason: '{adj}: the MUE is a clinical date-of-service edit (MAI 3): the whole line was denied; appeal (a redetermination) with the records that support the units' },
    citations: [C.mue, C.redetermination],
  },
  {
    id: 'coding.medicare',
    when: { class: ['coding'], group: NOT_PATIENT_GROUPS, payerType: MEDICARE },
    then: { remedy: 'reopen', responsibility: 'provider', appeal_rights: 'no', appeal_condition: null, deadline: 'reopen_by', reopen_years: 1, reason: '{adj}: a code, modifier, diagnosis or place of service on the claim is wrong or inconsistent, a clerical error: request a reopening with the corrected value the record supports (a new claim would be denied as a duplicate)' },
    citations: [C.reopening],
  },
  // Eligibility, the patient's other amounts.
  {
    id: 'eligibility',
    when: { class: ['eligibility'], group: NOT_PATIENT_GROUPS },
    then: { remedy: 'bill_other_payer', responsibility: 'other_payer', appeal_rights: 'conditional', appeal_condition: 'only if the patient was covered by this payer on the date of service', deadline: null, reason: '{adj}: the patient was not covered by this payer on the date of service: bill the payer that covered the patient then, or the patient when none did' },
    citations: [carc('26, 27, 31, 32, 33, 177, 200', 'expenses before coverage or after it ended; the patient is not identified as covered')],
  },
  {
    id: 'patient.other',
    when: { group: ['PR'], class: ['non_covered', 'benefit_limit', 'eligibility', 'authorization', 'informational'] },
    then: { remedy: 'bill_patient', responsibility: 'patient', appeal_rights: 'conditional', appeal_condition: 'only if the service should have been covered', deadline: null, reason: '{adj}: the payer assigned the amount to the patient (patient responsibility): bill the patient or a secondary payer' },
    citations: [C.groupPR],
  },
  {
    id: 'add_on',
    when: { class: ['add_on'] },
    then: { remedy: 'review', responsibility: 'undetermined', appeal_rights: 'conditional', appeal_condition: 'when the primary service was furnished by the same provider on the same date', deadline: null, reason: '{adj}: the add-on code was denied because its primary service was not paid with it (the ncci link lists the primaries the edit accepts): check whether the primary was billed, denied or is still pending on another claim before correcting or appealing; no rule here decides which' },
    citations: [carc('B15', 'this service requires that a qualifying service be received and covered; the qualifying service has not been received or adjudicated')],
  },
  {
    id: 'prior_processing',
    when: { class: ['prior_processing'] },
    then: { remedy: 'contact_payer', responsibility: 'undetermined', appeal_rights: 'conditional', appeal_condition: 'after the payer says what it corrected', deadline: null, reason: '{adj}: the payer corrected an earlier adjudication of the claim: ask it what changed before posting or disputing' },
    citations: [carc('129', 'prior processing information appears incorrect')],
  },
  {
    id: 'informational',
    when: { class: ['informational'] },
    then: { remedy: 'review', responsibility: 'undetermined', appeal_rights: 'conditional', appeal_condition: 'by what the remark codes say', deadline: null, reason: '{adj} says no more than that the claim or service was adjusted: the remark codes say why, and no rule here reads them for this code' },
    citations: [carc('A1', 'claim/service denied; at least one remark code must be provided')],
  },
  // What else an adjudicating payer denied.
  {
    id: 'denial.medicare_advantage',
    when: { group: NOT_PATIENT_GROUPS, payerType: ['medicare_advantage'] },
    then: {
      remedy: 'appeal',
      responsibility: 'provider',
      appeal_rights: 'conditional',
      appeal_condition: 'a non-contracted provider requests a reconsideration (42 CFR 422 subpart M, with a waiver of liability); a contracted provider disputes the payment under its agreement',
      deadline: 'appeal_by',
      dispute: 'contract',
      reason: '{adj} at a Medicare Advantage plan: a non-contracted provider’s reconsideration or a contracted provider’s payment dispute; the date is the plan’s notice’s or the agreement’s',
    },
    citations: [C.maAppeals],
  },
  {
    id: 'denial.medicare',
    when: { group: NOT_PATIENT_GROUPS, payerType: MEDICARE, class: ['authorization', 'non_covered', 'benefit_limit', 'provider_eligibility'] },
    then: { remedy: 'appeal', responsibility: 'provider', appeal_rights: 'yes', appeal_condition: null, deadline: 'appeal_by', dispute: 'benefit', reason: '{adj}: a denial Medicare adjudicated is an initial determination: appeal (a redetermination within 120 days of receiving the notice) with what shows the service met the requirement' },
    citations: [C.initialDetermination, C.redetermination],
  },
  {
    id: 'review',
    when: {},
    then: { remedy: 'review', responsibility: 'undetermined', appeal_rights: 'conditional', appeal_condition: 'by the payer’s rules for this denial, which are not loaded', deadline: null, reason: 'no rule here covers {adj} for this payer and claim: a person decides the next step (the payer’s own rules for it are not loaded)' },
    citations: [{ title: 'X12 Claim Adjustment Reason Codes and their usage notes (no row of this table covers the case)', url: X12_CARC }],
  },
];
