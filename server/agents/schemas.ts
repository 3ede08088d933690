import { GROUPS_5010 } from '../../lib/vocabulary/adjustment_groups.js';
import { z } from 'zod';
import { CcnSchema, DatasetCitationSchema, HcpcsSchema, IsoDateSchema } from '../schemas.js';
import { ModifierSchema } from '../payment/schemas.js';
import { DenialRemedySchema, REMEDIES } from '../denials/remedy.js';
import { AppealLevelDeadlineSchema } from '../deadlines/deadlines.js';
import { DenialPatternRowSchema } from '../../datasets/payers/schema.js';
import { X12_STATUSES } from '../../datasets/x12_codes/queries.js';
import { denialCodesInText } from '../payers/service.js';
import { EvidenceSchema } from '../writer/writer.js';

/** A CPT/HCPCS code in a sentence: the code a code-research or medical-necessity query names when its code field is left out. */
export const CODE_IN_TEXT = /\b(?:\d{4}[0-9A-Z]|[A-Z]\d{4})\b/i;

/** Free-form key-value context a caller attaches to a job (kept with the job, never logged). */
export const ContextSchema = z.record(z.string().max(100), z.union([z.string().max(2000), z.number(), z.boolean(), z.null()])).refine((o) => Object.keys(o).length <= 50, 'at most 50 context entries');

/** The submit fields every agent takes (spec limits: query at most 8000, callback_secret 8 to 128). */
export const CommonJobFields = {
  query: z.string().max(8000, 'query is at most 8000 characters').optional().describe('the question in words (at most 8000 characters); a code named in it is used when the code field is omitted'),
  ccn: z.string().trim().toUpperCase().pipe(CcnSchema).optional().describe("the billing facility's CMS Certification Number: its state and MAC jurisdiction pick the rules that apply"),
  context: ContextSchema.optional().describe('key-value context kept with the job, never logged (medical necessity reads state, mac/contractor/jurisdiction and date_of_service)'),
  callback_url: z.url({ message: 'callback_url must be a URL' }).max(2048).optional().describe('where the finished job is POSTed (https, a public address, in production)'),
  callback_secret: z.string().min(8, 'callback_secret is 8 to 128 characters').max(128, 'callback_secret is 8 to 128 characters').optional().describe('signs the callback: X-SVC-Signature is sha256=<hex HMAC-SHA256 of the body> (8 to 128 characters)'),
};

/** `POST /v1/agents/code-research`. */
export const CodeResearchInputSchema = z
  .strictObject({ ...CommonJobFields, code: HcpcsSchema.optional().describe('the CPT/HCPCS code to research') })
  .refine((b) => b.code !== undefined || (b.query !== undefined && CODE_IN_TEXT.test(b.query)), {
    message: 'give `code`, or a query that names a CPT/HCPCS code',
    path: ['code'],
  })
  .meta({ id: 'CodeResearchRequest' });

const Icd10Schema = z
  .string()
  .trim()
  .toUpperCase()
  .pipe(z.string().regex(/^[A-Z][0-9A-Z]{2}(\.?[0-9A-Z]{1,4})?$/, 'an ICD-10-CM code such as M54.50 or M5450'));

/** `POST /v1/agents/medical-necessity` (spec body: cpt_code, query, dx_codes, clinical_notes, ccn, context, callback). */
export const MedicalNecessityInputSchema = z
  .strictObject({
    ...CommonJobFields,
    cpt_code: HcpcsSchema.optional().describe('the procedure whose medical necessity is checked'),
    dx_codes: z.array(Icd10Schema).max(50, 'at most 50 diagnosis codes').optional().describe('the ICD-10-CM diagnoses on the claim (with or without the dot)'),
    clinical_notes: z.string().max(20_000, 'clinical_notes is at most 20000 characters').optional().describe('kept with the job and purged on schedule; never logged, never sent to a writer'),
    date_of_service: IsoDateSchema.optional().describe('selects the ICD-10-CM fiscal year and the policies in force (default today)'),
  })
  .refine((b) => b.cpt_code !== undefined || (b.query !== undefined && CODE_IN_TEXT.test(b.query)), {
    message: 'give `cpt_code`, or a query that names a CPT/HCPCS code',
    path: ['cpt_code'],
  })
  .meta({ id: 'MedicalNecessityRequest' });
export type MedicalNecessityInput = z.output<typeof MedicalNecessityInputSchema>;

/**
 * `POST /v1/agents/denial-resolution`: the reason code is `denial_code` (CARC, group+CARC or
 * RARC); `carc`/`rarc` win when given; with none of them, the code `query` names. `ccn` (the spec's field, validated as the other jobs')
 * names the billing facility: its state applies the payer's state-specific filing and appeal
 * rules, and the result echoes it with the facility's state and MAC. `modifiers` are the denied
 * line's: Medicare's GA/GZ/GY decide whose a non-covered amount is.
 */
export const DenialResolutionInputSchema = z
  .strictObject({
    ...CommonJobFields,
    modifiers: z.array(ModifierSchema).max(4, 'a claim line carries at most 4 modifiers').optional().describe("the denied line's modifiers: GA (ABN on file), GZ (no ABN), GY (statutorily excluded) decide whose the amount is"),
    claim_id: z.string().trim().min(1).max(64).optional().describe('your claim identifier, echoed in the result'),
    date_of_service: IsoDateSchema.optional().describe('the claim\'s date of service: a returned (unprocessable) claim\'s resubmit_by date counts from it'),
    denial_code: z.string().trim().min(1).max(20).optional().describe('CARC (50), group and CARC (CO-50) or RARC (N290)'),
    carc: z.string().trim().toUpperCase().regex(/^(?:\d{1,3}|[A-Z]\d{1,2})$/, 'a CARC is 1-3 digits or a letter and digits (50, 197, B7)').optional().describe('the claim adjustment reason code (wins over denial_code)'),
    rarc: z.string().trim().toUpperCase().regex(/^(?:N|M|MA)\d{1,3}$/, 'a RARC is N, M or MA and digits (N290, MA130)').optional().describe('the remittance advice remark code'),
    group_code: z.enum(GROUPS_5010).optional().describe('the adjustment group: CO contractual (provider), PR patient, OA other, PI payer initiated'),
    payer: z.string().trim().min(2).max(100).optional().describe('payer slug or alias: its denial patterns and appeal deadlines'),
    denial_date: IsoDateSchema.optional().describe('date on the denial notice (appeal deadlines count from it; default today)'),
    code: HcpcsSchema.optional().describe('the denied CPT/HCPCS code'),
  })
  .refine((b) => b.denial_code !== undefined || b.carc !== undefined || b.rarc !== undefined || (b.query !== undefined && denialCodesInText(b.query) !== null), {
    message: 'give denial_code (or carc / rarc), or a query that names one (CO-50, CARC 50, N290)',
    path: ['denial_code'],
  })
  .meta({ id: 'DenialResolutionRequest' });
export type DenialResolutionInput = z.output<typeof DenialResolutionInputSchema>;

/** The tail every agent result shares (`conclude` in evidence.ts): the conclusion, its phrasing, the evidence and what it read. */
export const AgentConclusionSchema = z.object({
  conclusion: z.string().describe('the finding in one sentence, built from the evidence'),
  narrative: z.string().describe("the note for a person: the template's (the conclusion and each statement) or an LLM's that passed the audit"),
  writer: z.string().describe('who phrased the narrative: `template`, or `llm:<model>`'),
  evidence: z.array(EvidenceSchema).describe('every fact found, each with the values it rests on and its citation'),
  citations: z.array(DatasetCitationSchema).describe('the citations of the evidence, in its order'),
  dataset_versions: z.record(z.string(), z.string()).describe('every dataset version the agent read'),
  warnings: z.array(z.string()),
});
export type AgentConclusion = z.output<typeof AgentConclusionSchema>;

/** `code_research`'s result: the code, its descriptor and status, and the cited facts. */
export const CodeResearchResultSchema = AgentConclusionSchema.extend({
  code: z.string().describe('the code researched: `code`, else the first CPT/HCPCS code of `query`'),
  descriptor: z.string().nullable().describe('its PFS short descriptor; null when no loaded RVU release has it'),
  status_code: z.string().nullable().describe('its PFS status code'),
}).meta({ id: 'CodeResearchResult' });

const X12ExplainedSchema = z.object({
  code: z.string(),
  description: z.string(),
  start_date: z.string().nullable(),
  stop_date: z.string().nullable(),
  status: z.enum(X12_STATUSES).describe('the code on codes_checked_on, by its start and stop dates'),
  status_note: z.string(),
});

/** `denial_resolution`'s result: the codes explained, the remedy of the denial rules table dated by the payer's rules, appeal levels and coverage. */
export const DenialResolutionResultSchema = AgentConclusionSchema.extend({
  claim_id: z.string().nullable(),
  denial_code: z.string().nullable().describe('`denial_code` as given; without one, the code the query names (a warning says so)'),
  carc: z.string().nullable(),
  rarc: z.string().nullable(),
  group_code: z.string().nullable(),
  payer_slug: z.string().nullable(),
  ccn: z.string().nullable(),
  facility: z.object({ ccn: z.string(), name: z.string(), state: z.string().nullable(), mac: z.string().nullable() }).nullable().describe('the billing facility `ccn` names, its state applying state rules'),
  modifiers: z.array(z.string()),
  explanation: z.object({
    codes_checked_on: z.string().describe('the date the X12 lists were read on (denial_date, else today)'),
    carc: X12ExplainedSchema.nullable(),
    rarc: X12ExplainedSchema.nullable(),
    group: z.object({ code: z.string(), description: z.string() }).nullable(),
  }),
  denial_category: DenialPatternRowSchema.shape.denial_category.nullable().describe("the payer's curated pattern's category; null without one"),
  root_cause: z.string().nullable(),
  recommended_action: z.enum(REMEDIES),
  remedy: DenialRemedySchema,
  resolution_steps: z.array(z.string()),
  required_documents: z.array(z.string()),
  auto_appealable: z.boolean(),
  appeal: z
    .object({
      denial_date: z.string(),
      receipt_convention: z.string(),
      conditional: z.boolean(),
      condition: z.string().nullable(),
      levels: z.array(AppealLevelDeadlineSchema),
    })
    .nullable()
    .describe("the payer's appeal levels dated from denial_date; null without a payer, or when the remedy has no appeal rights"),
  coverage: z
    .array(
      z.object({
        article_id: z.string(),
        article_version: z.number(),
        title: z.string(),
        lcds: z.array(z.object({ lcd_id: z.string(), lcd_version: z.number(), title: z.string() })),
        documentation_requirements: z.string().nullable(),
      }),
    )
    .describe('the billing articles listing `code` (Medicare): their documentation supports an appeal'),
  similar_patterns: z.array(
    z.object({ denial_code: z.string(), remark_code: z.string().nullable(), denial_category: DenialPatternRowSchema.shape.denial_category, root_cause: z.string() }),
  ),
}).meta({ id: 'DenialResolutionResult' });
export type DenialResolutionResult = z.output<typeof DenialResolutionResultSchema>;

const WhoSchema = {
  contractors: z.array(z.string()),
  jurisdictions: z.array(z.string()),
  placed: z.boolean().describe('false when its contractor is not known: kept, though it may not apply in the jurisdiction'),
};
const LcdSchema = z.object({ lcd_id: z.string(), lcd_version: z.number(), title: z.string(), url: z.string(), ...WhoSchema, doc_reqs: z.string().nullable() });

/** `medical_necessity`'s result: the verdict, the diagnoses checked and the coverage documents of the jurisdiction. */
export const MedicalNecessityResultSchema = AgentConclusionSchema.extend({
  cpt_code: z.string(),
  date_of_service: z.string(),
  verdict: z.enum(['supported', 'not_supported', 'policy_without_dx_list', 'no_policy']),
  jurisdiction: z.object({
    ccn: z.string().nullable(),
    facility: z.string().nullable(),
    state: z.string().nullable(),
    state_source: z.enum(['ccn', 'context']).nullable(),
    contractor_filter: z.string().nullable(),
    mac_jurisdictions: z.array(z.object({ jurisdiction: z.string(), kind: z.string(), contractor: z.string() })),
  }),
  context_used: z.record(z.string(), z.string()),
  context_ignored: z.array(z.string()),
  diagnoses: z.array(
    z.object({
      submitted: z.string(),
      code: z.string(),
      status: z.enum(['valid', 'not_billable', 'invalid', 'unknown', 'unchecked']).describe('`unknown`: not in a seed excerpt of ICD-10-CM (it may be valid); `unchecked`: icd10cm not loaded'),
      description: z.string().nullable(),
    }),
  ),
  policies: z.array(
    z.object({
      article_id: z.string(),
      article_version: z.number(),
      title: z.string(),
      url: z.string(),
      ...WhoSchema,
      lcds: z.array(z.object({ lcd_id: z.string(), lcd_version: z.number(), title: z.string(), url: z.string(), doc_reqs: z.string().nullable() })),
      covered_dx: z.array(z.string()).describe('the submitted diagnoses on its covered list'),
      doc_reqs: z.string().nullable(),
    }),
  ).describe('the billing articles listing the code'),
  lcds: z.array(LcdSchema).describe('LCDs listing the code themselves'),
  ncds: z.array(z.object({ ncd_id: z.string(), version: z.number(), title: z.string(), url: z.string(), found_by: z.enum(['text', 'related']), via: z.array(z.string()) })),
  out_of_jurisdiction: z.array(z.object({ doc_id: z.string(), kind: z.string(), contractors: z.array(z.string()), jurisdictions: z.array(z.string()), states: z.array(z.string()).nullable() })),
  documentation_required: z.array(z.string()),
}).meta({ id: 'MedicalNecessityResult' });
export type MedicalNecessityResult = z.output<typeof MedicalNecessityResultSchema>;
