import { z } from 'zod';
import { OtherPayerSchema, REMEDIES, RESPONSIBILITIES, RemedyCitationSchema, RemedyDeadlineSchema } from '../denials/remedy.js';
import { LocalitySchema } from '../payment/schemas.js';
import { CcnSchema, IsoDateSchema, QueryBoolSchema, ReliabilitySchema } from '../schemas.js';
import { CoverageLinkSchema, MueLinkSchema, NcciLinkSchema, PricingSchema } from './links/schemas.js';


/** What `POST /v1/remittances/explain` and `rcm remit explain` write. */
export const REMIT_FORMATS = ['json', 'posting-csv', 'worklist-csv'] as const;
export type RemitFormat = (typeof REMIT_FORMATS)[number];

export const RemitQuerySchema = z.strictObject({
  as_of: IsoDateSchema.optional().describe('the date deadlines count days to (YYYY-MM-DD; default today, UTC)'),
  ccn: z.string().trim().toUpperCase().pipe(CcnSchema).optional().describe("the payee's facility (CMS Certification Number): its locality prices the Medicare Part B lines (wins over `locality`)"),
  locality: LocalitySchema.optional().describe("the payee's Medicare locality (7 digits, e.g. 1320201) for pricing; without ccn or locality, the payee NPI's practice ZIP in the local NPPES copy"),
  format: z
    .enum(REMIT_FORMATS)
    .optional()
    .describe('json (default): the explanation; posting-csv: one row per claim, service line, adjustment and provider adjustment, for a practice-management import (also `Accept: text/csv`); worklist-csv: the worklist'),
  redact: QueryBoolSchema.optional().describe('true: names, member and subscriber ids, patient control and payer claim numbers and other identifiers replaced by tokens stable within the answer (rows still pair); redacted, not de-identified: dates remain'),
});

const Money = z.number().describe('US dollars, exact decimal arithmetic rounded to cents');

const PersonSchema = z
  .object({
    name: z.string().nullable().describe('"LAST, FIRST MIDDLE SUFFIX" (an organisation: its name)'),
    last_name: z.string().nullable().describe('NM103'),
    first_name: z.string().nullable().describe('NM104'),
    middle_name: z.string().nullable().describe('NM105'),
    suffix: z.string().nullable().describe('NM107'),
    id_qualifier: z.string().nullable().describe('NM108: MI member id, HN, II, MR (Medicaid), 34 (social security number), XX (NPI) ...'),
    id: z.string().nullable().describe('NM109'),
  })
  .meta({ id: 'RemittancePerson' });

const ReferenceSchema = z
  .object({ qualifier: z.string(), meaning: z.string().nullable().describe('the TR3 name of the qualifier; null for one the 835 does not define there'), value: z.string() })
  .meta({ id: 'RemittanceReference' });

const AmountSchema = z.object({ qualifier: z.string(), meaning: z.string().nullable(), amount: z.number() }).meta({ id: 'RemittanceAmount' });
const QuantitySchema = z.object({ qualifier: z.string(), meaning: z.string().nullable(), quantity: z.number() }).meta({ id: 'RemittanceQuantity' });

const ClaimRefSchema = z
  .object({
    file: z.string().nullable().describe('the file, in a batch of several (`rcm remit explain`); null in a single answer'),
    transaction: z.int().describe('index in `transactions`'),
    claim: z.int().describe("index in the transaction's `claims`"),
    patient_control_number: z.string(),
    payer_claim_control_number: z.string().nullable(),
  })
  .meta({ id: 'RemittanceClaimRef' });

const RemarkSchema = z
  .object({
    code: z.string(),
    description: z.string().nullable().describe('the RARC text; null when the code is not in the loaded list (a finding)'),
    deactivated: z.boolean().nullable().describe('true when the code was stopped on or before the remittance date; null when unknown'),
  })
  .meta({ id: 'RemittanceRemark' });

const AdjustmentSchema = z
  .object({
    group: z.string().describe('CAS01: CO, PR, OA, PI, CR'),
    reason: z.string().describe('the CARC'),
    amount: Money,
    quantity: z.number().nullable(),
    description: z.string().nullable().describe('the CARC text as of the remittance date; null when not in the loaded list (a finding)'),
    deactivated: z.boolean().nullable().describe('true when the CARC was stopped on or before the remittance date'),
    responsibility: z.enum(RESPONSIBILITIES),
    remedy: z.enum(REMEDIES).describe('the next step, from the denial rules table (docs/denial-rules.md); `review` when no rule covers the case'),
    remedy_reason: z.string(),
    appeal_rights: z.enum(['yes', 'no', 'conditional']),
    appeal_condition: z.string().nullable(),
    deadline: RemedyDeadlineSchema.nullable().describe("appeal_by: the first appeal level from the remittance date under the payer's appeal rules (only a rule of the kind the dispute is: a member's appeal never dates a provider's payment dispute); reopen_by: the determination date (DTM*405, else BPR16) + 1 year; resubmit_by: the date of service under the payer's filing rule; null when the remedy has none or no loaded rule dates it"),
    rule_id: z.string().describe('the denial rules table row that decided'),
    other_payer: OtherPayerSchema.nullable().describe('wait_for_other_payer: the payer the claim was forwarded to (NM1*TT), when named'),
    citations: z.array(RemedyCitationSchema),
  })
  .meta({ id: 'RemittanceAdjustment' });

const RemitLineSchema = z
  .object({
    code: z.string().nullable(),
    code_qualifier: z.string().nullable().describe('SVC01-1: HC (HCPCS/CPT), AD (dental), NU (revenue code) ...'),
    modifiers: z.array(z.string()),
    revenue_code: z.string().nullable(),
    units: z.number(),
    submitted_units: z.number().nullable().describe('SVC07: the units billed, when the payer paid another number'),
    charged: Money,
    paid: Money,
    allowed: Money.describe("AMT*B6, else paid plus the patient's share (PR with a patient-share CARC: 1, 2, 3, 66 ...), reductions taken after the allowed amount (253 sequestration, 237) and, on a secondary claim, CARC 23; a line denied to the patient (PR-50) is allowed 0"),
    allowed_source: z.enum(['amt_b6', 'computed']),
    original_code: z.string().nullable().describe('SVC06: the code as billed, when the payer adjudicated another'),
    service_from: z.string().nullable(),
    service_to: z.string().nullable(),
    control_number: z.string().nullable().describe('REF*6R line item control number'),
    rendering_provider_npi: z.string().nullable().describe('REF*HPI: the rendering provider of this line, when it is not the claim\'s'),
    references: z.array(ReferenceSchema).describe('the line\'s other REF segments (APC, location number, prior authorization, rate code ...)'),
    amounts: z.array(AmountSchema).describe('AMT: B6 allowed actual, KH deduction (late filing reduction), T tax, T2 total before taxes, ZK-ZO federal mandate categories'),
    quantities: z.array(QuantitySchema).describe('QTY: ZK-ZO federal mandate units'),
    adjustments: z.array(AdjustmentSchema),
    remarks: z.array(RemarkSchema),
    ncci: NcciLinkSchema.optional().describe('on a bundling denial (a CARC of class bundling: 97, 234, 236 ...; RARC M80 or N20) or an add-on denied without its primary (class add_on: B15; RARC N122): the NCCI edit behind it'),
    mue: MueLinkSchema.optional().describe('on a units denial (a CARC of class units: 151 ...; RARC N362): the MUE of the code on the date'),
    coverage: CoverageLinkSchema.optional().describe('on a coverage denial (a CARC of class coverage: 50, 55, 56, 150, 167 ...): the coverage documents that list the code where the payee is, and what to appeal with'),
    pricing: PricingSchema.optional().describe('lines with a HCPCS/CPT code: the allowed amount judged against the Medicare physician fee schedule (professional claims, MB) or the OPPS (outpatient hospital claims at a ccn)'),
  })
  .meta({ id: 'RemittanceLine' });

const InpatientSchema = z
  .object({
    covered_days_or_visits: z.number().nullable().describe('MIA01'),
    pps_operating_outlier_amount: Money.nullable().describe('MIA02'),
    lifetime_psychiatric_days: z.number().nullable().describe('MIA03'),
    claim_drg_amount: Money.nullable().describe('MIA04'),
    claim_disproportionate_share_amount: Money.nullable().describe('MIA06'),
    claim_msp_pass_through_amount: Money.nullable().describe('MIA07'),
    claim_pps_capital_amount: Money.nullable().describe('MIA08'),
    pps_capital_fsp_drg_amount: Money.nullable().describe('MIA09'),
    pps_capital_hsp_drg_amount: Money.nullable().describe('MIA10'),
    pps_capital_dsh_drg_amount: Money.nullable().describe('MIA11'),
    old_capital_amount: Money.nullable().describe('MIA12'),
    pps_capital_ime_amount: Money.nullable().describe('MIA13'),
    pps_operating_hospital_specific_drg_amount: Money.nullable().describe('MIA14'),
    cost_report_days: z.number().nullable().describe('MIA15'),
    pps_operating_federal_specific_drg_amount: Money.nullable().describe('MIA16'),
    claim_pps_capital_outlier_amount: Money.nullable().describe('MIA17'),
    claim_indirect_teaching_amount: Money.nullable().describe('MIA18'),
    nonpayable_professional_component_amount: Money.nullable().describe('MIA19'),
    pps_capital_exception_amount: Money.nullable().describe('MIA24 (an amount; MIA05 and MIA20-MIA23 are the remark codes, in `remarks`)'),
  })
  .meta({ id: 'RemittanceInpatientAdjudication' });

const OutpatientSchema = z
  .object({
    reimbursement_rate: z.number().nullable().describe('MOA01: a percentage as a decimal fraction'),
    claim_hcpcs_payable_amount: Money.nullable().describe('MOA02'),
    claim_esrd_payment_amount: Money.nullable().describe('MOA08'),
    nonpayable_professional_component_amount: Money.nullable().describe('MOA09'),
  })
  .meta({ id: 'RemittanceOutpatientAdjudication' });

const RemitClaimSchema = z
  .object({
    patient_control_number: z.string(),
    status: z.object({ code: z.string(), meaning: z.string() }),
    charged: Money,
    paid: Money,
    patient_responsibility: Money,
    claim_filing_indicator: z.string().nullable(),
    payer_claim_control_number: z.string().nullable(),
    facility_code: z.string().nullable().describe('CLP08: the place of service on a professional claim; the first two digits of the type of bill on an institutional claim'),
    statement_from: z.string().nullable(),
    statement_to: z.string().nullable(),
    received: z.string().nullable(),
    crossover_payer: OtherPayerSchema.nullable().describe('NM1*TT: the payer the claim was forwarded to (a crossover)'),
    claim_frequency: z.string().nullable().describe('CLP09: 1 original, 7 replacement, 8 void ... (the claim frequency type code billed)'),
    drg: z.object({ code: z.string(), weight: z.number().nullable().describe('CLP12'), discharge_fraction: z.number().nullable().describe('CLP13') }).nullable().describe('CLP11: the DRG the payer assigned'),
    patient: PersonSchema.nullable().describe('NM1*QC'),
    insured: PersonSchema.nullable().describe('NM1*IL: the subscriber, when not the patient'),
    corrected_patient: PersonSchema.nullable().describe('NM1*74: the corrected patient or insured name and id, as the payer has it'),
    member_id: z.string().nullable().describe("the patient's member id (NM1*QC09, not a social security number), else the subscriber's (NM1*IL09)"),
    rendering_provider: z.object({ name: z.string().nullable(), npi: z.string().nullable(), id_qualifier: z.string().nullable(), id: z.string().nullable() }).nullable().describe('NM1*82: the rendering provider'),
    original_reference: z.string().nullable().describe('REF*F8: the payer claim control number of the claim this one corrects or reverses'),
    references: z.array(ReferenceSchema).describe('the claim\'s other REF segments: 1L group or policy number, 1W member id, EA medical record number, 28 employee id, 6P group number, 9A/9C repriced claim reference, BB authorization, CE class of contract, G1 prior authorization, G3 predetermination, IG insurance policy, SY social security number ...'),
    amounts: z.array(AmountSchema).describe('claim AMT: AU coverage amount, D8 discount, DY per day limit, F5 patient amount paid, I interest, NL negative ledger balance, T tax, T2 total before taxes, ZK-ZO'),
    interest: Money.nullable().describe('AMT*I: the prompt-pay interest the payer reports on the claim (paid within CLP04, or at provider level as PLB L6, as Medicare does)'),
    quantities: z.array(QuantitySchema).describe('claim QTY: CA covered days, CD co-insured days, LA/LE lifetime reserve days, NE non-covered days, NR blood units not replaced, OU outlier days, PS prescriptions, VS visits, ZK-ZO'),
    inpatient: InpatientSchema.nullable().describe('MIA: inpatient adjudication amounts by their TR3 names'),
    outpatient: OutpatientSchema.nullable().describe('MOA: outpatient adjudication amounts by their TR3 names'),
    reversal_of: ClaimRefSchema.nullable().describe('a correction: the reversal (CLP02 22) of the same claim in this call, paired by REF*F8 = its CLP07, else the same CLP07, else the same patient control number and first date of service'),
    corrected_by: ClaimRefSchema.nullable().describe('a reversal (CLP02 22): its correction when seen in this call before the reversal is written (a reversal waits up to 1,000 claims of its transaction for it); every pair is in `reversals`'),
    net_paid_change: Money.nullable().describe('a correction paired with its reversal: its CLP04 plus the reversal\'s (negative) CLP04, what the provider gains (or, negative, loses) by the correction'),
    adjustments: z.array(AdjustmentSchema).describe('claim-level CAS'),
    remarks: z.array(RemarkSchema).describe('MIA (inpatient) and MOA (outpatient) remark codes'),
    lines: z.array(RemitLineSchema),
  })
  .meta({ id: 'RemittanceClaim' });

const ProviderAdjustmentSchema = z
  .object({
    provider_id: z.string().nullable(),
    fiscal_period_date: z.string().nullable(),
    reason: z.string().describe('PLB03-1 adjustment reason code'),
    description: z.string().nullable(),
    reference: z.string().nullable().describe('PLB03-2'),
    claim: z.int().nullable().describe("index in this transaction's claims of the claim the reference names"),
    amount: Money.describe('positive: withheld from the payment; negative: added to it'),
  })
  .meta({ id: 'ProviderAdjustment' });

const ReconciliationSchema = z
  .object({
    payment: Money.describe('BPR02 signed by BPR03: negative for a debit (money taken back); a notification (no money moves) keeps its BPR02, which the balancing rule still reads'),
    direction: z.enum(['credit', 'debit', 'none']).describe('BPR03 C, D; none for a notification without money'),
    notification_only: z.boolean().describe('BPR01 H or BPR04 NON: the remittance moves no money'),
    claims_paid: Money.describe("the sum of the claims' CLP04"),
    interest: Money.describe('the sum of the claims\' AMT*I (named, not added: a payer pays it within CLP04 or as PLB L6)'),
    provider_adjustments: z.array(
      z.object({
        reason: z.string(),
        description: z.string().nullable(),
        reference: z.string().nullable(),
        amount: Money.describe('PLB as written: positive withheld, negative added'),
        effect: z.enum(['withheld_from_payment', 'added_to_payment']),
      }),
    ),
    provider_adjustments_total: Money.describe('the sum of the PLB amounts (positive: withheld in all)'),
    expected_payment: Money.describe('claims_paid less provider_adjustments_total: what the payment should be'),
    difference: Money.describe('payment less expected_payment'),
    balanced: z.boolean(),
    explanation: z.string().describe('the arithmetic in words: claims paid, each provider adjustment added or withheld, the payment'),
  })
  .meta({ id: 'RemittanceReconciliation' });

const RemitTransactionSchema = z
  .object({
    interchange: z.int(),
    control_number: z.string(),
    version: z.string().nullable(),
    remittance_date: z.string().nullable().describe('BPR16, else DTM*405, else GS04: the date codes and deadlines are judged by'),
    payer: z.object({
      name: z.string().nullable(),
      id: z.string().nullable(),
      slug: z.string().nullable().describe('the payers-dataset payer N1*PR names, when one matches (medicare_ffs for a Medicare contractor)'),
      type: z.string().nullable().describe("the payer's type (a claim's filing indicator may name another program: CLP06 MA/MB Medicare, 16 Medicare Advantage, MC Medicaid)"),
      identified_by: z.enum(['edi_payer_id', 'name', 'contractor_number', 'contractor_name']).nullable().describe('how the payer was recognised: its EDI payer id or name among the curated payers, or a Medicare contractor by its number (N1*PR04, REF*2U) or name'),
      medicare_jurisdictions: z.array(z.string()).describe('a Medicare contractor: the MAC jurisdictions it may be (several when only its name matched)'),
    }),
    payee: z.object({
      name: z.string().nullable(),
      npi: z.string().nullable().describe('N1*PE04 when N103 is XX'),
      tin: z.string().nullable().describe('N1*PE04 when N103 is FI, else REF*TJ of the payee'),
      id_qualifier: z.string().nullable().describe('N103: XX NPI, FI federal taxpayer id, XV CMS plan id'),
      id: z.string().nullable().describe('N104'),
    }),
    payment: z.object({
      handling: z.object({ code: z.string(), meaning: z.string().nullable() }).nullable().describe('BPR01: C payment with the remittance, D payment only, H notification only, I remittance information only, P prenotification of future transfers, U split payment and remittance, X handling of split payment and remittance'),
      method: z.string().nullable().describe('BPR04: ACH, CHK, FWT, BOP, NON'),
      amount: Money.describe('BPR02 as written (unsigned); `reconciliation.payment` is signed by BPR03'),
      credit_debit: z.string().nullable().describe('BPR03: C credit (money to the provider), D debit (money taken back)'),
      date: z.string().nullable(),
      trace_number: z.string().nullable().describe('TRN02: the check or EFT trace number'),
      originating_company_id: z.string().nullable().describe('TRN03: the payer\'s identifier (1 and its federal tax id, usually)'),
    }),
    duplicate_of: z
      .object({ file: z.string().nullable(), transaction: z.int() })
      .nullable()
      .describe('the same remittance (TRN02, TRN03 and signed BPR02) was already read in this call: this copy stays out of the totals, the worklist and reversal pairing'),
    provider_adjustments: z.array(ProviderAdjustmentSchema),
    claims: z.array(RemitClaimSchema),
    reconciliation: ReconciliationSchema,
  })
  .meta({ id: 'RemittanceTransaction' });

const FINDING_CODES = [
  'line_unbalanced',
  'claim_unbalanced',
  'transaction_unbalanced',
  'unparseable_segment',
  'unknown_code',
  'remark_code_missing',
  'component_separator_mismatch',
  'segment_count_mismatch',
  'transaction_count_mismatch',
  'group_count_mismatch',
  'segment_outside_transaction',
  'other_transaction',
  'unknown_group_code',
  'group_code_retired',
  'carc_group_mismatch',
  'cas_triplets_exceeded',
  'required_element_missing',
  'invalid_date',
  'service_after_remittance',
  'patient_share_mismatch',
  'invalid_npi',
  'duplicate_remittance',
  'reversal_unpaired',
  'notification_only',
  'status_code_not_described',
] as const;

const RemitFindingSchema = z
  .object({
    code: z.enum(FINDING_CODES),
    severity: z.enum(['error', 'warning', 'info']),
    message: z.string(),
    loc: z.object({
      interchange: z.int().nullable(),
      transaction: z.int().nullable().describe('index in `transactions`'),
      claim: z.int().nullable().describe("index in the transaction's `claims`"),
      line: z.int().nullable().describe("index in the claim's `lines`"),
      segment_index: z.int().describe('1-based position of the segment in the file'),
      segment_id: z.string(),
    }),
  })
  .meta({ id: 'RemittanceFinding' });

const CodeMeaning = z.object({ code: z.string(), meaning: z.string().nullable().describe('null: a code the X12 list does not name') });

const AckRemedySchema = z
  .object({
    remedy: z.enum(REMEDIES).describe('no_action while accepted; correct_and_resubmit for a rejection (never an appeal: nothing was adjudicated)'),
    responsibility: z.enum(RESPONSIBILITIES),
    appeal_rights: z.enum(['yes', 'no', 'conditional']),
    reason: z.string(),
    deadline: RemedyDeadlineSchema.nullable().describe("resubmit_by from the date of service under the mapped payer's filing rule; null without them"),
    citations: z.array(RemedyCitationSchema),
  })
  .meta({ id: 'AcknowledgmentRemedy' });

const AckTransactionSchema = z
  .object({
    set_id: z.string().describe('AK201: the acknowledged transaction set (837 ...)'),
    control_number: z.string().describe('AK202: its ST02 in the submitted file'),
    version: z.string().nullable(),
    status: CodeMeaning.nullable().describe('IK501: A accepted, E accepted with errors, R rejected ...'),
    errors: z.array(CodeMeaning).describe('IK502-IK506'),
    segment_errors: z.array(
      z.object({
        segment_id: z.string().describe('IK301'),
        position: z.int().nullable().describe('IK302: the segment\'s position in the submitted transaction (ST is 1)'),
        loop: z.string().nullable().describe('IK303'),
        code: z.string().nullable().describe('IK304'),
        meaning: z.string().nullable(),
        context: z.array(z.string()).describe('CTX: the business unit (CLM01: the claim) or situational trigger'),
        element_errors: z.array(
          z.object({
            position: z.string().nullable().describe('IK401: element position (:component:repetition)'),
            reference: z.string().nullable().describe('IK402: X12 data element number'),
            code: z.string().nullable().describe('IK403'),
            meaning: z.string().nullable(),
            bad_value: z.string().nullable().describe('IK404: the value as sent'),
          }),
        ),
      }),
    ),
    claims: z.array(z.string()).describe('patient control numbers (CLM01) the errors name through CTX'),
    remedy: AckRemedySchema.nullable(),
    segment_index: z.int().describe('position of its AK2 in this file'),
  })
  .meta({ id: 'AcknowledgedTransaction' });

const AckClaimSchema = z
  .object({
    patient_control_number: z.string().describe('TRN02 of the patient level: the claim submitter\'s identifier (CLM01)'),
    payer_claim_control_number: z.string().nullable().describe('REF*1K'),
    billing_provider: z.object({ name: z.string().nullable(), npi: z.string().nullable() }),
    charged: Money.nullable().describe('STC04: the total claim charge'),
    service_from: z.string().nullable(),
    service_to: z.string().nullable(),
    statuses: z.array(
      z.object({
        category: z.string().describe('STC01-1: Claim Status Category Code (A1 received, A2 accepted, A3/A6/A7/A8 rejected ...)'),
        category_meaning: z.string().nullable(),
        status_code: z.string().nullable().describe('STC01-2: Claim Status Code (X12 external code list 508; not loaded here, so not described)'),
        entity: z.string().nullable().describe('STC01-3: the entity the status is about'),
        date: z.string().nullable(),
        action: z.string().nullable().describe('STC03: WQ accept, U reject'),
      }),
    ),
    accepted: z.boolean().nullable().describe('false when any status rejects the claim; null when no status decides (A4 not found, E1, E2)'),
    remedy: AckRemedySchema.nullable(),
  })
  .meta({ id: 'AcknowledgedClaim' });

const AcknowledgmentSchema = z
  .object({
    kind: z.enum(['999', '277CA']),
    interchange: z.int(),
    control_number: z.string(),
    version: z.string().nullable(),
    date: z.string().nullable().describe('GS04'),
    acknowledged_group: z.object({ functional_id: z.string(), control_number: z.string(), version: z.string().nullable() }).nullable().describe('999 AK1: the submitted functional group'),
    group_status: z
      .object({ code: z.string(), meaning: z.string().nullable(), transactions_included: z.int().nullable(), transactions_received: z.int().nullable(), transactions_accepted: z.int().nullable(), errors: z.array(CodeMeaning) })
      .nullable()
      .describe('999 AK9'),
    transactions: z.array(AckTransactionSchema).describe('999: each acknowledged transaction'),
    payer: z.object({ name: z.string().nullable(), id: z.string().nullable(), slug: z.string().nullable() }).nullable().describe('277CA: NM1*PR of the information source'),
    claims: z.array(AckClaimSchema).describe('277CA: each claim acknowledged'),
  })
  .meta({ id: 'Acknowledgment' });

const WorklistItemSchema = z
  .object({
    source: z.enum(['835', 'underpayment', '999', '277CA']).describe('835: group and reason are CAS01 and the CARC; underpayment: lines allowed less than the fee schedule (group `pricing`, reason the code; amount the shortfall); 277CA: the status category and claim status code of a rejected claim; 999: IK501 and the first IK502 of a rejected transaction'),
    payer: z.string().nullable().describe('payer slug, else the N1*PR name'),
    group: z.string(),
    reason: z.string(),
    remedy: z.enum(REMEDIES),
    count: z.int(),
    amount: Money,
    earliest_deadline: z.string().nullable(),
  })
  .meta({ id: 'RemittanceWorklistItem' });

const ReversalSchema = z
  .object({
    reversal: ClaimRefSchema,
    corrected_by: ClaimRefSchema.nullable(),
    matched_by: z.enum(['original_reference', 'payer_claim_control_number', 'patient_control_number_and_date']).nullable().describe('original_reference: the correction\'s REF*F8 is the reversal\'s CLP07'),
    reversed_paid: Money.describe("the reversal's CLP04 (negative: taken back)"),
    corrected_paid: Money.nullable(),
    net_paid_change: Money.nullable().describe('corrected_paid plus reversed_paid'),
  })
  .meta({ id: 'RemittanceReversal' });

/**
 * The loop closed (`server/claims/loop.ts`): each remitted line against what the claim check
 * predicted for it before the 837 was sent.
 */
export const LOOP_OUTCOMES = ['confirmed', 'missed', 'false_alarm', 'none'] as const;

export const ClaimLoopSchema = z
  .object({
    claims: z.array(
      z.object({
        patient_control_number: z.string(),
        payer_claim_control_number: z.string().nullable(),
        checked: z.boolean().describe('false: no checked claim has this CLM01'),
        lines: z.array(
          z.object({
            code: z.string().nullable(),
            date_of_service: z.string().nullable(),
            checked_line: z.int().nullable().describe('the 837 line (LX01) it is linked to; null when none is'),
            linked_by: z.enum(['control_number', 'code_and_date']).nullable(),
            predicted: z.array(z.string()).describe('the adjustments the check predicted for the line (`CO-97`)'),
            denied: z.array(z.string()).describe('the adjustments of a denial class the payer sent (`CO-97`)'),
            outcome: z.enum(LOOP_OUTCOMES),
          }),
        ),
      }),
    ),
    predictions: z.object({ confirmed: z.int(), missed: z.int(), false_alarm: z.int(), none: z.int(), lines: z.int(), lines_not_linked: z.int() }),
    not_remitted: z.array(z.string()).describe('checked claims (CLM01) no remittance answered'),
  })
  .meta({ id: 'ClaimLoop' });

export const RemitExplanationSchema = z
  .object({
    as_of: z.string(),
    summary: z.object({
      interchanges: z.int(),
      transactions: z.int(),
      claims: z.int(),
      service_lines: z.int(),
      adjustments: z.int(),
      totals: z.object({ charged: Money, paid: Money, patient_responsibility: Money, adjusted_by_group: z.record(z.string(), Money) }),
      findings: z.int(),
      acknowledgments: z.int().describe('999 and 277CA transactions in the file'),
      duplicates: z.int().describe('transactions left out of the totals and the worklist as copies of one already read'),
    }),
    transactions: z.array(RemitTransactionSchema),
    acknowledgments: z.array(AcknowledgmentSchema).describe('999 and 277CA transactions: what was accepted or rejected before adjudication, and what to do'),
    findings: z.array(RemitFindingSchema),
    worklist: z.array(WorklistItemSchema).describe('adjustments with something to do (not `no_action`), underpaid lines and rejected acknowledgments, grouped by payer, group, reason and remedy, earliest deadline first'),
    reversals: z.array(ReversalSchema).describe('each reversal (CLP02 22) read in this call with its correction, when one pairs'),
    loop: ClaimLoopSchema.optional().describe('with the 837s as `claims` parts of a multipart body: each remitted line marked `confirmed`, `missed`, `false_alarm` or `none` against the claim check\'s prediction'),
    truncated: z.boolean().optional().describe('the MCP tool only: true when its bounded summary left something out (the transactions answer without their claims; at most 100 worklist items and findings); the whole answer comes from this route or `rcm remit explain`'),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'RemittanceExplanation' });

export type RemitExplanation = z.output<typeof RemitExplanationSchema>;
export type RemitAdjustment = z.output<typeof AdjustmentSchema>;
export type RemitRemark = z.output<typeof RemarkSchema>;
export type RemitLine = z.output<typeof RemitLineSchema>;
export type NcciLink = z.output<typeof NcciLinkSchema>;
export type MueLink = z.output<typeof MueLinkSchema>;
export type CoverageLink = z.output<typeof CoverageLinkSchema>;
export type Acknowledgment = z.output<typeof AcknowledgmentSchema>;
export type AckTransaction = z.output<typeof AckTransactionSchema>;
export type AckClaim = z.output<typeof AckClaimSchema>;
export type AckRemedy = z.output<typeof AckRemedySchema>;
export type LinePricing = z.output<typeof PricingSchema>;
export type RemitClaim = z.output<typeof RemitClaimSchema>;
export type RemitTransaction = z.output<typeof RemitTransactionSchema>;
export type RemitFinding = z.output<typeof RemitFindingSchema>;
export type WorklistItem = z.output<typeof WorklistItemSchema>;
export type RemitClaimRef = z.output<typeof ClaimRefSchema>;
export type RemitReversal = z.output<typeof ReversalSchema>;
export type RemitPerson = z.output<typeof PersonSchema>;
export type RemitReconciliation = z.output<typeof ReconciliationSchema>;
