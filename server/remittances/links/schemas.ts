import { z } from 'zod';
import { RemedyCitationSchema, DenialRemedySchema } from '../../denials/remedy.js';
import { PolicyRuleSchema } from '../../policies/schemas.js';

/** The answer fields of a remittance line's links (`index.ts`): its NCCI edit, MUE, coverage documents and pricing. */

const Money = z.number().describe('US dollars, exact decimal arithmetic rounded to cents');

const PROGRAMS = ['medicare', 'medicaid'] as const;
const NCCI_TABLES = ['practitioner', 'hospital'] as const;

export const NcciLinkSchema = z
  .object({
    edit: z.enum(['ptp', 'aoc']).describe('ptp: a procedure-to-procedure edit (bundling denial: CARC 97 or 236, RARC M80 or N20); aoc: an add-on code edit (CARC B15)'),
    program: z.enum(PROGRAMS).describe('by the claim filing indicator: MA/MB Medicare NCCI, MC the Medicaid NCCI edit set'),
    table: z.enum(NCCI_TABLES).describe('practitioner for professional claims, hospital (outpatient) for institutional claims'),
    dataset: z.string(),
    version: z.string().nullable().describe('the quarterly version read (the quarter of the date of service, else the nearest, flagged in reliability); null when none is loaded'),
    version_in_force: z.boolean().describe('the version read is the one in force on the date of service; false: the nearest loaded, which the denial rules do not decide by'),
    date_of_service: z.string().nullable(),
    column1: z.string().nullable().describe('ptp: the code on the same claim and date whose edit has this line as column 2; null when no edit in force pairs them'),
    column2: z.string().describe('ptp: this line\'s code; aoc: the add-on code'),
    modifier_indicator: z.enum(['0', '1', '9']).nullable().describe('0: no modifier allowed; 1: a modifier allowed; null without an edit'),
    edit_status: z
      .enum(['active', 'deleted', 'not_yet_effective', 'not_applicable', 'no_edit', 'no_data'])
      .describe('ptp: whether the edit pairing the codes was in force on the date of service (deleted, not_yet_effective: it exists but was not; not_applicable: indicator 9), no_edit, or no_data (no version loaded); aoc: active'),
    edit_effective: z.string().nullable(),
    edit_deleted: z.string().nullable().describe('the last day the edit applies; null while in force'),
    rationale: z.string().nullable(),
    primary_codes: z.array(z.string()).optional().describe('aoc: the primary codes the add-on edit accepts on the date (CCCCC: the contractor decides)'),
    primaries_on_claim: z.array(z.string()).optional().describe('aoc: the accepted primary codes found on the same claim'),
    explanation: z.string().describe("what the edit says of this line (the adjustment's remedy, from the denial rules table, says what to do)"),
    citations: z.array(RemedyCitationSchema),
  })
  .meta({ id: 'RemittanceNcciLink' });

export const MueLinkSchema = z
  .object({
    program: z.enum(PROGRAMS),
    table: z.enum(NCCI_TABLES),
    dataset: z.string(),
    version: z.string().nullable(),
    version_in_force: z.boolean().describe('the version read is the one in force on the date of service; false: the nearest loaded, which the denial rules do not decide by'),
    date_of_service: z.string().nullable(),
    code: z.string(),
    mue_value: z.number().nullable().describe('the most units of the code one provider reports for one beneficiary on one date; null when the code has no MUE in the version'),
    mai: z.union([z.literal(1), z.literal(2), z.literal(3)]).nullable().describe('MUE adjudication indicator (Medicare): 1 claim line edit, 2 date-of-service edit (policy), 3 date-of-service edit (clinical); null for Medicaid or no MUE'),
    mai_label: z.string().nullable(),
    rationale: z.string().nullable(),
    units_billed: z.number(),
    exceeded: z.boolean().nullable().describe('the line\'s units are above the MUE; null without one'),
    when_exceeded: z.string().nullable().describe('what CMS denies over the MUE with this indicator'),
    citations: z.array(RemedyCitationSchema),
  })
  .meta({ id: 'RemittanceMueLink' });

export const CoverageLinkSchema = z
  .object({
    payer: z.string().nullable().describe("the payer whose rules apply: the mapped payer's slug, `medicare` for a Medicare claim (filing indicator MA or MB) of an unmapped payer; null when neither"),
    code: z.string(),
    date_of_service: z.string(),
    state: z.string().nullable().describe("the payee's state, which keeps Medicare LCDs and articles to its MAC jurisdictions: from the ccn or locality asked, else the payee NPI's practice location in NPPES; null: every jurisdiction's documents"),
    state_source: z.enum(['ccn', 'locality', 'payee_npi']).nullable(),
    rules: z.array(PolicyRuleSchema).describe('the billing articles and LCDs listing the code in the jurisdiction (Medicare), and the payer\'s curated rules for it, as payment composition gives them'),
    covered_diagnosis_lists: z
      .array(z.object({ doc_id: z.string(), covered_count: z.int() }))
      .describe("the articles among `rules` with a covered-diagnosis list: an 835 carries no diagnoses, so the claim's (from the 837) are checked against these"),
    explanation: z.string().describe('what the documents mean for this denial'),
  })
  .meta({ id: 'RemittanceCoverageLink' });

export const PRICING_STATUSES = ['as_expected', 'underpaid', 'overpaid', 'not_priced'] as const;
export const NOT_PRICED_REASONS = ['other_payer_contract', 'institutional_claim', 'no_location', 'no_loaded_year', 'not_on_fee_schedule', 'no_code', 'no_date_of_service', 'line_denied', 'reversal', 'unit_basis_unknown'] as const;

export const PricingSchema = z
  .object({
    status: z.enum(PRICING_STATUSES).describe('as_expected: within a cent per unit of the fee schedule; underpaid/overpaid: the allowed amount is below/above it; not_priced: see reason'),
    reason: z.enum(NOT_PRICED_REASONS).optional().describe("not_priced only: other_payer_contract (not Medicare: the payer's contract prices it), institutional_claim (an institutional claim not paid per line under the OPPS: inpatient, or a hospital outside the OPPS), no_location (a professional line without ccn or locality and no payee NPI practice ZIP; an outpatient hospital line without ccn), no_loaded_year (no fee schedule release of the service's year), not_on_fee_schedule, no_code, no_date_of_service, line_denied (allowed 0: the adjustments explain it; expected_allowed shows what the fee schedule pays), reversal (CLP02 22: the line takes back an earlier payment), unit_basis_unknown (an anesthesia line of a payer whose unit basis, minutes or time units, is not known)"),
    reason_text: z.string().optional(),
    expected_allowed: Money.nullable().describe('from payment composition (as GET /v1/codes/{code}/payment): a professional line (MB) the physician fee schedule amount at the payee\'s locality times the units (an anesthesia code: base plus time units, SVC07 else SVC05 read as minutes); an outpatient hospital line (MA or MB, type of bill 12x-14x) the OPPS amount at the ccn times the units (once for a comprehensive APC, SI J1/J2; 0 for a packaged code, SI N, and for every other line of a claim with a J1 line except what the year\'s comprehensive-APC rules exclude)'),
    expected_per_unit: Money.nullable(),
    actual_allowed: Money.describe("the line's allowed amount"),
    difference: Money.nullable().describe('actual_allowed less expected_allowed'),
    locality: z.string().nullable().describe('the Medicare locality priced'),
    location_source: z.enum(['ccn', 'locality', 'payee_npi']).nullable().describe('where the payee location came from: the ccn or locality query, or the payee NPI (N1*PE XX) practice ZIP in NPPES'),
    place_of_service: z.string().nullable().describe('CLP08 of the professional claim, pinning the facility or non-facility PE'),
    date_of_service: z.string().nullable(),
    status_indicator: z.string().nullable().describe('an outpatient hospital line: its OPPS status indicator (J1 a comprehensive APC, N packaged, ...)'),
    notes: z.array(z.string()).describe('what the payment composition said about this line (fallbacks, modifiers, packaging into a comprehensive APC)'),
    remedy: DenialRemedySchema.optional().describe('underpaid only: what to do about the shortfall (a worklist item), from the denial rules table'),
  })
  .meta({ id: 'RemittanceLinePricing' });

