import { z } from 'zod';
import { MUE_TYPES } from '../../datasets/_ncci_mue/mue.js';
import { PROC_CODE_RE } from '../../datasets/_ncci_mue/quarter.js';
import { HcpcsSchema, icd10Schema, IsoDateSchema, PayerRefSchema, QueryBoolSchema, ReliabilitySchema, StateSchema } from '../schemas.js';
import { SentinelSchema } from '../writer/schemas.js';

/** A payer slug or alias; checked against the loaded payers dataset (its `ncci_edit_set` selects the files). */
const PayerSchema = PayerRefSchema;

/** Query of both PTP routes (names fixed in ARCHITECTURE.md). */
export const PtpQuerySchema = z.object({
  column1: HcpcsSchema,
  column2: HcpcsSchema,
  date_of_service: IsoDateSchema.optional(),
  include_summary: QueryBoolSchema.optional(),
  state: StateSchema.optional(),
  payer: PayerSchema.optional(),
});



/**
 * The spec's "NCCI PTP edit", plus `edit_exists` / `edit_in_effect` / `status` / `message` so a
 * scrubber can tell "no edit for this pair" (`status: no_edit`) from "no data for that date"
 * (`reliability.degraded`) without parsing text.
 */
export const PtpEditSchema = z.object({
  col1_proc_cd: z.string(),
  col2_proc_cd: z.string(),
  edit_exists: z.boolean(),
  edit_in_effect: z.boolean(),
  status: z.enum(['active', 'deleted', 'not_yet_effective', 'not_applicable', 'no_edit', 'no_data']),
  message: z.string(),
  edit_scope: z.enum(['cms_medicare_national', 'cms_medicaid_national']),
  program: z.enum(['medicare', 'medicaid']),
  modifier: z.enum(['0', '1', '9']).nullable(),
  modifier_description: z.string(),
  ptp_type: z.enum(['prac', 'hosp']),
  version: z.string(),
  version_effective_dt: z.string(),
  version_posted_dt: z.string().nullable().describe('the day CMS posted the release, where the release states it; null when it does not (see version_posted_note)'),
  version_posted_note: z.string().nullable().describe('why version_posted_dt is null'),
  edit_effective_dt: z.string(),
  edit_delete_dt: z.string(),
  in_existence_prior_1996: z.boolean().nullable(),
  ptp_edit_rationale: z.string(),
  date_of_service: z.string(),
  payer: z.string(),
  state: z.string(),
  state_overlay: z.string().nullable().describe('the state-specific PTP overlay applied to the national edit; null when none is loaded (state_overlay_note says why)'),
  state_overlay_note: z.string().nullable().describe('why state_overlay is null'),
  ai_summary: z.string().optional(),
  summarizer: z.string().optional(),
  sentinel: SentinelSchema.optional(),
  reliability: ReliabilitySchema,
}).meta({ id: 'NcciPtpEdit' });
export type PtpEdit = z.infer<typeof PtpEditSchema>;

/** A HCPCS/CPT code in a shape NCCI files use (`99213`, `0001U`, `J9035`); anything else is 422. */
export const NcciCodeSchema = HcpcsSchema.refine((s) => PROC_CODE_RE.test(s), {
  message: 'Code must be a CPT code (5 digits, or 4 digits and a letter) or a HCPCS Level II code (a letter and 4 digits)',
});

export const CodeParams = z.object({ code: NcciCodeSchema });
export const DosQuery = z.object({
  date_of_service: IsoDateSchema.optional().describe('YYYY-MM-DD; selects the quarterly version whose quarter contains it (latest when omitted)'),
});

/** The Medicare MUE lookup's date, defaulting to today as the PTP lookup's does. */
export const MueDosQuery = z.object({
  date_of_service: IsoDateSchema.optional().describe('YYYY-MM-DD; selects the quarterly version whose quarter contains it (default today, UTC)'),
});

/** Where a rule is published. */
const RuleCitationSchema = z.object({ title: z.string(), url: z.string().nullable() });

const MueTypeSchema = z.enum(MUE_TYPES as [string, ...string[]]);

/** One Medicare MUE row per setting, with the version it came from. */
export const MedicareMueSchema = z.object({
  proc_cd: z.string(),
  mue_type: MueTypeSchema,
  program: z.literal('medicare'),
  mue_value: z.number().int().describe('maximum units of service'),
  mue_adj_ind: z.union([z.literal(1), z.literal(2), z.literal(3)]).describe('MUE Adjudication Indicator: 1 line edit, 2 date-of-service edit (policy), 3 date-of-service edit (clinical)'),
  mue_adj_ind_label: z.string().describe('the indicator words as published, e.g. "Date of Service Edit: Policy"'),
  mue_rationale: z.string().nullable(),
  when_exceeded: z.string().optional().describe('what CMS denies when the units exceed the value: the whole line (MAI 1), or all units of the code on the claim for the date (MAI 2/3), not only the excess'),
  when_exceeded_citation: RuleCitationSchema.optional(),
  version: z.string().describe('quarter label, e.g. 2026Q3'),
  version_effective_dt: z.string().nullable(),
  loaded_at: z.string(),
  source_file: z.string().nullable(),
}).meta({ id: 'MedicareMue' });

/** `GET /v1/ncci/mue/{code}`: the Medicare MUE rows of a code across settings. */
export const MedicareMueListSchema = z.object({
  proc_cd: z.string(),
  program: z.literal('medicare'),
  date_of_service: z.string().describe('the date the version was chosen for: the one given, else today (UTC)'),
  results: z.array(MedicareMueSchema),
  reliability: ReliabilitySchema,
}).meta({ id: 'MedicareMueList' });

/** The spec's MedicaidMUEResponse. */
export const MedicaidMueSchema = z.object({
  proc_cd: z.string(),
  mue_type: MueTypeSchema,
  note: z.string(),
  program: z.literal('medicaid'),
  mue_value: z.number().int().nullable(),
  mue_adj_ind: z.null(),
  mue_rationale: z.string().nullable(),
  medicare_mue_value: z.number().int().nullable(),
  loaded_at: z.string().nullable(),
  source_file: z.string().nullable(),
}).meta({ id: 'MedicaidMUEResponse' });

/** The spec's MedicaidMUEListResponse, plus the reliability block. */
export const MedicaidMueListSchema = z.object({
  proc_cd: z.string(),
  program: z.literal('medicaid'),
  results: z.array(MedicaidMueSchema),
  reliability: ReliabilitySchema,
}).meta({ id: 'MedicaidMUEListResponse' });

const AocEditFields = {
  aoc_edit_type: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  aoc_edit_type_description: z.string(),
  aoc_edit_eff_dt: z.string(),
  aoc_edit_del_dt: z.string().nullable().describe('last date of service the edit applies; null while active'),
  addon_del_dt: z.string().nullable(),
  primary_del_dt: z.string().nullable(),
  special_instruction_notes: z.string().nullable(),
};

const AocPrimarySchema = z.object({
  primary_code: z.string().nullable().describe('null for a Type 2 add-on with no specific primary codes (CCCCC in the file)'),
  any_primary: z.boolean(),
  ...AocEditFields,
});

const AocAddonSchema = z.object({ addon_code: z.string(), ...AocEditFields });

/** Add-on code edits for one code, seen as an add-on and as a primary. */
export const AocLookupSchema = z.object({
  code: z.string(),
  date_of_service: z.string().nullable(),
  version: z.string().nullable(),
  version_effective_dt: z.string().nullable(),
  is_add_on: z.boolean(),
  primary_codes: z.array(AocPrimarySchema).describe('when the code is an add-on: the primary codes it may be reported with'),
  add_on_codes: z.array(AocAddonSchema).describe('when the code is a primary: the add-on codes that list it'),
  reliability: ReliabilitySchema,
}).meta({ id: 'AocLookup' });


const ModifierSchema = z
  .string()
  .trim()
  .toUpperCase()
  .pipe(z.string().regex(/^[A-Z0-9]{2}$/, 'a modifier is 2 letters or digits'));

export const ClaimLineSchema = z.strictObject({
  line_id: z.string().trim().min(1).max(50).optional().describe('default: the line number, 1-based'),
  code: HcpcsSchema.describe("the line's CPT/HCPCS code"),
  modifiers: z.array(ModifierSchema).max(4, 'a claim line carries at most 4 modifiers').default([]).describe("the line's modifiers (59, XE, XS, XP, XU bypass a PTP edit whose modifier indicator is 1)"),
  units: z.int().min(1).max(100_000).default(1).describe('units of service billed on the line (default 1): checked against the MUE'),
  date_of_service: IsoDateSchema.optional().describe("the line's own date (default: the claim's, else today)"),
  diagnosis_pointers: z.array(z.int().min(1).max(12)).min(1).max(4).optional().describe('1-based, into `diagnoses` (default: all)'),
});

/** Body of `POST /v1/ncci/validate`. */
export const ValidateBodySchema = z
  .strictObject({
    date_of_service: IsoDateSchema.optional().describe("the claim's date of service: selects the NCCI quarter (default today)"),
    setting: z.enum(['prac', 'hosp']).describe('prac: practitioner and ASC claims; hosp: outpatient hospital claims'),
    payer: PayerSchema.optional().describe('medicaid, masshealth, medi_cal (any payer whose ncci_edit_set is medicaid) select the Medicaid files'),
    state: StateSchema.optional().describe("the state whose Medicaid program's edits apply (Medicaid payers)"),
    diagnoses: z.array(icd10Schema('diagnoses are ICD-10-CM codes such as M47.812')).max(12, 'at most 12 diagnosis codes').optional().describe('ICD-10-CM diagnoses: a Medicare claim\'s lines are checked against the LCD articles\' covered lists'),
    lines: z.array(ClaimLineSchema).min(1, 'a claim has at least one line').max(100, 'at most 100 lines per call').describe('the claim lines, 1 to 100: every pair is checked against PTP, each code against its MUE and add-on edits'),
  })
  // Each line as checked: its id (default: the line number) and its date (default: the claim's;
  // a line with neither is dated today by the handler).
  // Built field by field: spreading the parsed line objects cost 0.8 us each (17 us a 20-line claim).
  .transform((b) => ({
    ...b,
    lines: b.lines.map((l, i) => ({ line_id: l.line_id ?? String(i + 1), code: l.code, modifiers: l.modifiers, units: l.units, date_of_service: l.date_of_service ?? b.date_of_service })),
    pointers: b.lines.map((l) => l.diagnosis_pointers ?? null),
  }))
  .superRefine((b, ctx) => {
    b.pointers.forEach((ps, i) => {
      for (const [j, p] of (ps ?? []).entries()) if (p > (b.diagnoses?.length ?? 0)) ctx.addIssue({ code: 'custom', path: ['lines', i, 'diagnosis_pointers', j], message: `points at diagnosis ${p}, but the claim has ${b.diagnoses?.length ?? 0}` });
    });
    const seen = new Set<string>();
    b.lines.forEach((l, i) => {
      if (seen.has(l.line_id)) ctx.addIssue({ code: 'custom', path: ['lines', i, 'line_id'], message: `line_id ${l.line_id} is used twice` });
      seen.add(l.line_id);
    });
  });

/** A claim line as checked: every default applied. */
export const CheckedLineSchema = z.object({ line_id: z.string(), code: z.string(), modifiers: z.array(z.string()), units: z.number(), date_of_service: z.string() });
export type ClaimLine = z.output<typeof CheckedLineSchema>;

const PtpEditUsedSchema = z.object({
    type: z.literal('ptp'),
    dataset: z.string(),
    version: z.string(),
    column1: z.string(),
    column2: z.string(),
    effective_date: z.string().nullable(),
    deletion_date: z.string().nullable(),
    modifier_indicator: z.enum(['0', '1', '9']),
    rationale: z.string(),
  });
const MueEditUsedSchema = z.object({
    type: z.literal('mue'),
    dataset: z.string(),
    version: z.string(),
    code: z.string(),
    mue_value: z.number(),
    mue_adj_ind: z.union([z.literal(1), z.literal(2), z.literal(3)]).nullable(),
    mue_adj_ind_label: z.string().nullable(),
    mue_rationale: z.string().nullable(),
  });
const AocEditUsedSchema = z.object({ type: z.literal('aoc'), dataset: z.string(), version: z.string(), addon_code: z.string(), aoc_edit_type: z.number(), primary_codes: z.array(z.string()) });
export type PtpEditUsed = z.output<typeof PtpEditUsedSchema>;
export type MueEditUsed = z.output<typeof MueEditUsedSchema>;
export type AocEditUsed = z.output<typeof AocEditUsedSchema>;
const EditUsedSchema = z.union([PtpEditUsedSchema, MueEditUsedSchema, AocEditUsedSchema]);


export const ClaimFindingSchema = z.object({
  kind: z.enum(['code', 'ptp', 'mue', 'aoc', 'modifier', 'coverage']).describe('code: the code itself (unknown, not paid by Medicare, invalid in the setting or on the date); modifier: a modifier that does not apply to the code; coverage: the line\'s diagnoses against the LCD billing articles (with `diagnoses`)'),
  status: z.enum(['fail', 'bypassed', 'pass', 'warn', 'no_data']),
  line_ids: z.array(z.string()),
  codes: z.array(z.string()),
  message: z.string(),
  edit: EditUsedSchema.nullable().describe('the NCCI row the finding used'),
  rule: z.string().nullable().describe('the modifier, MAI, add-on type, PFS status code or OPPS status indicator that decided'),
  citation: RuleCitationSchema.optional().describe('where the rule is published (the Medicare payment findings: RVU file status codes, OPPS status indicators, NCCI Policy Manual; a failed MUE: CMS on what an MUE denies)'),
  denied_units: z.number().optional().describe('a failed Medicare MUE: the units CMS denies, all of the line (MAI 1) or all of the code on the claim for the date (MAI 2/3), not only the excess'),
});
export type ClaimFinding = z.output<typeof ClaimFindingSchema>;

export const ClaimValidationSchema = z
  .object({
    date_of_service: z.string(),
    setting: z.enum(['prac', 'hosp']),
    program: z.enum(['medicare', 'medicaid']),
    payer: z.string().nullable(),
    state: z.string().nullable(),
    lines: z.array(CheckedLineSchema),
    findings: z.array(ClaimFindingSchema),
    summary: z.object({
      fail: z.int(),
      bypassed: z.int(),
      pass: z.int(),
      warn: z.int(),
      no_data: z.int(),
      clean: z.boolean().describe('true only when nothing failed and nothing lacked data'),
      lines: z.int(),
      pairs_checked: z.int(),
      ncci_versions: z.record(z.string(), z.string()),
      policy: z.object({ title: z.string(), url: z.string() }).describe('where the modifier rules come from'),
    }),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'NcciClaimValidation' });
