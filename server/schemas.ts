import { z } from 'zod';
import { toIsoDate } from '../datasets/_shared/values.js';

/** Shared request/response schema pieces, so every route spells a code or a date the same way. */

/** An ICD-10-CM code with or without its dot (`M47.812`, `M47812`), upper-cased and given the dot; `message` names the field. */
export const icd10Schema = (message: string) =>
  z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z][0-9][0-9A-Z](\.?[0-9A-Z]{1,4})?$/, message)
    .transform((s) => (s.length > 3 && !s.includes('.') ? `${s.slice(0, 3)}.${s.slice(3)}` : s));

/** HCPCS/CPT code: five letters/digits, upper-cased on input. */
export const HcpcsSchema = z
  .string()
  .trim()
  .transform((s) => s.toUpperCase())
  .pipe(z.string().regex(/^[A-Z0-9]{5}$/, 'Code must be 5 letters or digits (HCPCS/CPT)'));

/**
 * USPS codes of the 50 states, the District of Columbia, the territories (AS, GU, MP, PR, VI) and
 * the freely associated states NPPES and CMS files carry (FM, MH, PW).
 */
export const US_STATES = [
  'AL', 'AK', 'AZ', 'AR', 'CA', 'CO', 'CT', 'DE', 'FL', 'GA', 'HI', 'ID', 'IL', 'IN', 'IA', 'KS', 'KY', 'LA', 'ME', 'MD', 'MA', 'MI', 'MN', 'MS', 'MO',
  'MT', 'NE', 'NV', 'NH', 'NJ', 'NM', 'NY', 'NC', 'ND', 'OH', 'OK', 'OR', 'PA', 'RI', 'SC', 'SD', 'TN', 'TX', 'UT', 'VT', 'VA', 'WA', 'WV', 'WI', 'WY',
  'DC', 'AS', 'GU', 'MP', 'PR', 'VI', 'FM', 'MH', 'PW',
] as const;
const US_STATE_SET: ReadonlySet<string> = new Set(US_STATES);

export const StateSchema = z
  .string()
  .trim()
  .transform((s) => s.toUpperCase())
  .pipe(
    z
      .string()
      .regex(/^[A-Z]{2}$/, 'State must be a two-letter abbreviation')
      .refine((s) => !/^[A-Z]{2}$/.test(s) || US_STATE_SET.has(s), 'State must be a US state, DC or territory code (USPS: CA, DC, PR ...)'),
  );

export const IsoDateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Date must be YYYY-MM-DD')
  .refine((s) => toIsoDate(s) !== null, 'Date is not a real calendar date')
  // The range deadline arithmetic supports (a filing or appeal limit added to 9999-12-31 has no year).
  .refine((s) => s >= '1900-01-01' && s <= '2199-12-31', 'Date must be between 1900-01-01 and 2199-12-31');

/** Query booleans: `true/false/1/0` (a bare `z.coerce.boolean()` would read "false" as true). */
export const QueryBoolSchema = z
  .enum(['true', 'false', '1', '0', 'True', 'False'])
  .transform((s) => s === 'true' || s === '1' || s === 'True');

/** A payer slug or alias as callers type it (`Medi-Cal`, `UHC`); resolved against the payers dataset. */
export const PayerRefSchema = z.string().trim().min(2, 'payer must be at least 2 characters').max(100);

/** A plan type or line of business (`hmo`, `ppo`, `group`), lower-cased. */
export const PlanTypeSchema = z.string().trim().toLowerCase().regex(/^[a-z0-9_]{2,40}$/, 'plan_type is a short snake_case word (hmo, ppo, group, ...)');

/**
 * CMS Certification Number: the state code (two digits) and four digits or capital letters, as
 * CMS assigns them (`050454`, a VA hospital's `01014F`; State Operations Manual chapter 2, section 2779A1).
 */
export const CcnSchema = z.string().regex(/^[0-9]{2}[0-9A-Z]{4}$/, 'CCN must be 6 characters: a two-digit state code, then four digits or capital letters (CMS Certification Number)');

/** The spec's reliability object: which dataset versions and source files an answer came from. */
export const ReliabilitySchema = z
  .object({
    generated_at: z.string(),
    data_sources: z.record(z.string(), z.object({ publisher: z.string(), source_files: z.array(z.string()), loaded_at: z.string() })),
    dataset_versions: z.record(z.string(), z.string()),
    degraded: z.boolean(),
    warnings: z.array(z.string()),
  })
  .meta({ id: 'Reliability' });

/** A document an answer rests on (an LCD, article or NCD version), named inside its dataset's citation. */
export const CitedDocumentSchema = z
  .object({
    doc_id: z.string().describe('L/A number, or NCD <section>'),
    version: z.number().nullable(),
    title: z.string(),
    url: z.string().nullable(),
  })
  .meta({ id: 'CitedDocument' });

/** The citation of one loaded dataset version: publisher and the source files it was built from. */
export const DatasetCitationSchema = z
  .object({
    dataset: z.string(),
    version: z.string(),
    publisher: z.string(),
    source_files: z.array(z.string()),
    document: CitedDocumentSchema.optional().describe('the document of the dataset the fact comes from (an LCD, article or NCD version)'),
  })
  .meta({ id: 'DatasetCitation' });

/** Errors other than 422: `{detail, code}` (500s add `request_id`; a 404 may add `suggestions`). */
export const ErrorBodySchema = z
  .object({
    detail: z.string(),
    code: z.string(),
    request_id: z.string().optional(),
    suggestions: z.array(z.unknown()).optional().describe('did-you-mean candidates of a 404'),
  })
  .meta({ id: 'ErrorBody' });

/** The spec's validation error body (HTTP 422): every issue, not only the first. */
export const ValidationErrorSchema = z
  .object({
    detail: z.array(
      z.object({
        loc: z.array(z.union([z.string(), z.number()])),
        msg: z.string(),
        type: z.string(),
        ctx: z.record(z.string(), z.unknown()).optional(),
        input: z.unknown().optional(),
      }),
    ),
  })
  .meta({ id: 'HTTPValidationError' });

/** Beside every published dashed NDC on the wire: the 11-digit billing form without dashes. */
export const Ndc11Schema = z.string().regex(/^\d{11}$/).describe('the 11-digit 5-4-2 form billed on claims, without dashes (`00002322930`): the published NDC with its short segment padded');
