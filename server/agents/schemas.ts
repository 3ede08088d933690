import { z } from 'zod';
import { CcnSchema, HcpcsSchema, IsoDateSchema } from '../schemas.js';
import { CALLBACK_STATES, CallbackAttemptSchema } from '../../warehouse/jobs.js';
import { ModifierSchema } from '../payment/schemas.js';

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
  .refine((b) => b.code !== undefined || (b.query !== undefined && /\b(?:\d{4}[0-9A-Z]|[A-Z]\d{4})\b/i.test(b.query)), {
    message: 'give `code`, or a query that names a CPT/HCPCS code',
    path: ['code'],
  })
  .meta({ id: 'CodeResearchRequest' });
export type CodeResearchInput = z.output<typeof CodeResearchInputSchema>;

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
  .refine((b) => b.cpt_code !== undefined || (b.query !== undefined && /\b(?:\d{4}[0-9A-Z]|[A-Z]\d{4})\b/i.test(b.query)), {
    message: 'give `cpt_code`, or a query that names a CPT/HCPCS code',
    path: ['cpt_code'],
  })
  .meta({ id: 'MedicalNecessityRequest' });
export type MedicalNecessityInput = z.output<typeof MedicalNecessityInputSchema>;

/**
 * `POST /v1/agents/denial-resolution`: the reason code is `denial_code` (CARC, group+CARC or
 * RARC); `carc`/`rarc` win when given. `ccn` (the spec's field, validated as the other jobs')
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
    group_code: z.enum(['CO', 'PR', 'OA', 'PI']).optional().describe('the adjustment group: CO contractual (provider), PR patient, OA other, PI payer initiated'),
    payer: z.string().trim().min(2).max(100).optional().describe('payer slug or alias: its denial patterns and appeal deadlines'),
    denial_date: IsoDateSchema.optional().describe('date on the denial notice (appeal deadlines count from it; default today)'),
    code: HcpcsSchema.optional().describe('the denied CPT/HCPCS code'),
  })
  .refine((b) => b.denial_code !== undefined || b.carc !== undefined || b.rarc !== undefined, { message: 'give denial_code (or carc / rarc)', path: ['denial_code'] })
  .meta({ id: 'DenialResolutionRequest' });
export type DenialResolutionInput = z.output<typeof DenialResolutionInputSchema>;

/** The spec's agent job (accepted response). */
export const AgentJobAcceptedSchema = z
  .object({
    agent_type: z.string(),
    created_at: z.string(),
    job_id: z.uuid(),
    status: z.enum(['accepted', 'running', 'completed', 'failed']).describe('`accepted` at submit; a repeated Idempotency-Key answers the job as it stands'),
  })
  .meta({ id: 'AgentJobAccepted' });


/** `GET /v1/agents/jobs/{job_id}`: the callback payload's fields plus timing and the delivery log; never the secret. */
export const PolledJobSchema = z
  .object({
    id: z.string().nullable().describe("the callback event's id (evt_ + the job id's hex digits); null until the job finishes"),
    type: z.enum(['agent.job.completed', 'agent.job.failed']).nullable().describe("the callback event's type; null until the job finishes"),
    job_id: z.uuid(),
    agent_type: z.string(),
    status: z.enum(['accepted', 'running', 'completed', 'failed']),
    created_at: z.string().describe('when the job was submitted (the same in the callback body)'),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    latency_ms: z.number().nullable(),
    result: z.unknown().describe('the agent result (null until completed, and after the retention period)'),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    purged: z.boolean().describe('inputs and results are purged RCM_JOB_RETENTION_DAYS after the job finished'),
    callback: z
      .object({
        url: z.string(),
        state: z.enum(CALLBACK_STATES).exclude(['none']),
        event_id: z.string(),
        attempts: z.array(CallbackAttemptSchema),
      })
      .nullable(),
  })
  .meta({ id: 'AgentJob' });
