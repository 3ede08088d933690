import { z } from 'zod';
import { CLAIM_FIXES } from '../../lib/vocabulary/claim_fixes.js';
import { DenialRemedySchema, RemedyCitationSchema } from '../denials/remedy.js';
import { LocalitySchema } from '../payment/schemas.js';
import { CcnSchema, IsoDateSchema, ReliabilitySchema } from '../schemas.js';

/** What `POST /v1/claims/check` and `rcm claim check` write. */
export const CLAIM_CHECK_FORMATS = ['json', 'csv'] as const;

export const ClaimCheckQuerySchema = z.strictObject({
  as_of: IsoDateSchema.optional().describe('the day the filing limit counts to (default today)'),
  ccn: z.string().trim().toUpperCase().pipe(CcnSchema).optional().describe('the billing facility (CCN): prices outpatient hospital lines'),
  locality: LocalitySchema.optional().describe('the Medicare locality pricing professional lines (default: the claim\'s ZIP)'),
  format: z.enum(CLAIM_CHECK_FORMATS).optional().describe('json (default) or csv: a row per finding'),
});

export const CHECK_KINDS = ['structure', 'code', 'diagnosis', 'ptp', 'mue', 'aoc', 'modifier', 'coverage', 'duplicate', 'global_surgery', 'ndc', 'prior_auth', 'timely_filing', 'place_of_service'] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

const IfSentSchema = z
  .object({
    rejected: z.boolean().describe('true: a structural error the payer (or its front end, a 277CA) returns before adjudication; no CARC is sent'),
    group: z.string().nullable().describe('the claim adjustment group code the payer would most likely send (CO, PR, OA)'),
    carc: z.string().nullable(),
    rarc: z.array(z.string()),
    remedy: DenialRemedySchema.nullable().describe('what the denial rules table (docs/denial-rules.md) says to do about that adjustment, and by when, as a remittance explanation would'),
  })
  .meta({ id: 'ClaimIfSent' });

export const ClaimCheckFindingSchema = z
  .object({
    kind: z.enum(CHECK_KINDS),
    status: z.enum(['fail', 'warn', 'pass', 'no_data']),
    message: z.string(),
    fix: z.enum(CLAIM_FIXES).nullable().describe('what to change before sending; null on a pass'),
    if_sent: IfSentSchema.nullable().describe('what the payer would most likely answer if the claim were sent as it is (fail and warn)'),
    citations: z.array(RemedyCitationSchema),
    segment: z.int().nullable().describe('1-based position of the segment in the file'),
    line_numbers: z.array(z.int()).describe('the lines (LX01) it concerns; empty for the claim'),
  })
  .meta({ id: 'ClaimCheckFinding' });
export type ClaimCheckFinding = z.output<typeof ClaimCheckFindingSchema>;

const Money = z.number().describe('US dollars, exact decimal arithmetic rounded to cents');

export const CheckedClaimLineSchema = z
  .object({
    line_number: z.int(),
    segment: z.int(),
    code: z.string().nullable(),
    revenue_code: z.string().nullable(),
    modifiers: z.array(z.string()),
    units: z.number().nullable(),
    charged: Money.nullable(),
    date_of_service: z.string().nullable(),
    diagnosis_pointers: z.array(z.int()),
    control_number: z.string().nullable().describe('REF*6R: the line item control number a remittance echoes'),
    findings: z.array(ClaimCheckFindingSchema),
    expected_allowed: Money.nullable().describe('the payment route\'s allowed amount (GET /v1/codes/{code}/payment) for the code, modifiers, date and place, times the units; null when not priced (see the claim\'s `unchecked`)'),
  })
  .meta({ id: 'CheckedClaimLine' });

export const CheckedClaimSchema = z
  .object({
    transaction: z.int(),
    segment: z.int(),
    kind: z.enum(['professional', 'institutional']),
    patient_control_number: z.string(),
    payer: z.object({ name: z.string().nullable(), id: z.string().nullable(), slug: z.string().nullable(), type: z.string().nullable(), filing_indicator: z.string().nullable() }),
    frequency: z.string().nullable(),
    type_of_bill: z.string().nullable(),
    place_of_service: z.string().nullable(),
    billing_provider: z.object({ npi: z.string().nullable(), name: z.string().nullable(), state: z.string().nullable() }).nullable(),
    total_charge: Money.nullable(),
    diagnoses: z.array(z.object({ code: z.string(), qualifier: z.string(), pointer: z.int().nullable(), status: z.enum(['valid', 'not_billable', 'invalid', 'unknown', 'unchecked']) })),
    findings: z.array(ClaimCheckFindingSchema).describe('the claim\'s own findings (structure, timely filing); each line carries its own'),
    lines: z.array(CheckedClaimLineSchema),
    expected_allowed: Money.nullable().describe('the sum of the lines\' expected_allowed; null when a line is not priced'),
    expected_payment: Money.nullable().describe('what Medicare would pay: the sum of the payment route\'s program payment per line, the year\'s Part B deductible taken as met'),
    submit_by: z
      .object({ date: z.string().nullable(), days_remaining: z.int().nullable(), rule_id: z.string(), citation: RemedyCitationSchema })
      .nullable()
      .describe('the last day the payer takes the claim: its timely-filing rule from the earliest date of service, days counted to `as_of`; null when the payer or its rule is not known'),
    status: z.enum(['clean', 'issues', 'incomplete']).describe('issues: a fail or a warn; incomplete: nothing failed but a check had no data (`unchecked`); clean: every check ran and passed'),
    unchecked: z.array(z.object({ check: z.string(), reason: z.string() })).describe('each check that had no data, and why'),
  })
  .meta({ id: 'CheckedClaim' });
export type CheckedClaim = z.output<typeof CheckedClaimSchema>;

export const CrossClaimFindingSchema = z
  .object({
    kind: z.enum(['duplicate', 'global_surgery']),
    status: z.enum(['fail', 'warn']),
    message: z.string(),
    fix: z.enum(CLAIM_FIXES),
    if_sent: IfSentSchema,
    citations: z.array(RemedyCitationSchema),
    claims: z.array(z.object({ patient_control_number: z.string(), line_number: z.int(), segment: z.int() })),
  })
  .meta({ id: 'ClaimCrossFinding' });

export const ClaimsCheckSchema = z
  .object({
    claims: z.array(CheckedClaimSchema),
    cross_claim_findings: z.array(CrossClaimFindingSchema).describe('the same service on two claims of the file; a visit in a procedure\'s global period without 24, 25 or 57'),
    file_findings: z.array(z.object({ code: z.string(), message: z.string(), segment: z.int() })).describe('envelope counts (SE, GE, IEA) and segments outside a claim'),
    summary: z.object({
      claims: z.int(),
      clean: z.int(),
      issues: z.int(),
      incomplete: z.int(),
      fail: z.int(),
      warn: z.int(),
      predicted: z.record(z.string(), z.int()).describe('how many findings predict each adjustment (`CO-97`, `rejected` ...)'),
      expected_allowed: Money,
      truncated: z.boolean().describe('true when the MCP tool\'s bounded summary left claims out'),
    }),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'ClaimsCheck' });
export type ClaimsCheck = z.output<typeof ClaimsCheckSchema>;
