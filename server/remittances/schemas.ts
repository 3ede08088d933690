import { z } from 'zod';
import { REMEDIES, RESPONSIBILITIES, RemedyCitationSchema, RemedyDeadlineSchema } from '../denials/remedy.js';
import { IsoDateSchema, ReliabilitySchema } from '../schemas.js';

export const RemitQuerySchema = z.strictObject({
  as_of: IsoDateSchema.optional().describe('the date deadlines count days to (YYYY-MM-DD; default today, UTC)'),
});

const Money = z.number().describe('US dollars, exact decimal arithmetic rounded to cents');

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
    remedy: z.enum(REMEDIES).describe('the next step, from the one denial classifier'),
    remedy_reason: z.string(),
    appeal_rights: z.enum(['yes', 'no', 'conditional']),
    appeal_condition: z.string().nullable(),
    deadline: RemedyDeadlineSchema.nullable().describe("the first appeal level from the remittance date under the payer's appeal rules, or resubmit_by from the date of service under its filing rule; null when the payer is not mapped or the remedy has none"),
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
    charged: Money,
    paid: Money,
    allowed: Money.describe('AMT*B6, else charged less the CO, PI and OA adjustments'),
    allowed_source: z.enum(['amt_b6', 'computed']),
    original_code: z.string().nullable().describe('SVC06: the code as billed, when the payer adjudicated another'),
    service_from: z.string().nullable(),
    service_to: z.string().nullable(),
    control_number: z.string().nullable().describe('REF*6R line item control number'),
    adjustments: z.array(AdjustmentSchema),
    remarks: z.array(RemarkSchema),
  })
  .meta({ id: 'RemittanceLine' });

const RemitClaimSchema = z
  .object({
    patient_control_number: z.string(),
    status: z.object({ code: z.string(), meaning: z.string() }),
    charged: Money,
    paid: Money,
    patient_responsibility: Money,
    claim_filing_indicator: z.string().nullable(),
    payer_claim_control_number: z.string().nullable(),
    statement_from: z.string().nullable(),
    statement_to: z.string().nullable(),
    received: z.string().nullable(),
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

const RemitTransactionSchema = z
  .object({
    interchange: z.int(),
    control_number: z.string(),
    version: z.string().nullable(),
    remittance_date: z.string().nullable().describe('BPR16, else DTM*405, else GS04: the date codes and deadlines are judged by'),
    payer: z.object({ name: z.string().nullable(), id: z.string().nullable(), slug: z.string().nullable().describe('the payers-dataset payer N1*PR names, when one matches') }),
    payee: z.object({ name: z.string().nullable(), npi: z.string().nullable() }),
    payment: z.object({
      method: z.string().nullable().describe('BPR04: ACH, CHK, FWT, BOP, NON'),
      amount: Money,
      credit_debit: z.string().nullable(),
      date: z.string().nullable(),
      trace_number: z.string().nullable().describe('TRN02: the check or EFT trace number'),
    }),
    provider_adjustments: z.array(ProviderAdjustmentSchema),
    claims: z.array(RemitClaimSchema),
  })
  .meta({ id: 'RemittanceTransaction' });

const FINDING_CODES = [
  'line_unbalanced',
  'claim_unbalanced',
  'transaction_unbalanced',
  'unparseable_segment',
  'unknown_code',
  'component_separator_mismatch',
  'segment_count_mismatch',
  'transaction_count_mismatch',
  'group_count_mismatch',
  'segment_outside_transaction',
  'other_transaction',
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

const WorklistItemSchema = z
  .object({
    payer: z.string().nullable().describe('payer slug, else the N1*PR name'),
    group: z.string(),
    reason: z.string(),
    remedy: z.enum(REMEDIES),
    count: z.int(),
    amount: Money,
    earliest_deadline: z.string().nullable(),
  })
  .meta({ id: 'RemittanceWorklistItem' });

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
    }),
    transactions: z.array(RemitTransactionSchema),
    findings: z.array(RemitFindingSchema),
    worklist: z.array(WorklistItemSchema).describe('adjustments grouped by payer, group, reason and remedy, earliest deadline first'),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'RemittanceExplanation' });

export type RemitExplanation = z.output<typeof RemitExplanationSchema>;
export type RemitAdjustment = z.output<typeof AdjustmentSchema>;
export type RemitRemark = z.output<typeof RemarkSchema>;
export type RemitLine = z.output<typeof RemitLineSchema>;
export type RemitClaim = z.output<typeof RemitClaimSchema>;
export type RemitTransaction = z.output<typeof RemitTransactionSchema>;
export type RemitFinding = z.output<typeof RemitFindingSchema>;
export type WorklistItem = z.output<typeof WorklistItemSchema>;
