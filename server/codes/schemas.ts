import { z } from 'zod';
import { ReliabilitySchema } from '../schemas.js';

/** One PPRRVU row of a code in one release. */
export const RvuEntrySchema = z
  .object({
    version: z.string(),
    rvu_year: z.number(),
    rvu_quarter: z.number(),
    modifier: z.string(),
    status_code: z.string(),
    work_rvu: z.number().nullable(),
    non_fac_pe_rvu: z.number().nullable(),
    facility_pe_rvu: z.number().nullable(),
    mp_rvu: z.number().nullable(),
    non_facility_total: z.number().nullable(),
    facility_total: z.number().nullable(),
    non_fac_na_indicator: z.string(),
    facility_na_indicator: z.string(),
    pctc_indicator: z.string(),
    global_days: z.string(),
    mult_proc: z.string(),
    conv_factor: z.number().nullable(),
    conv_factor_qpp: z.number().nullable(),
  })
  .meta({ id: 'RvuEntry' });

/** `GET /v1/codes/{code}`: descriptor, status and RVUs per release. */
export const CodeLookupSchema = z
  .object({
    code: z.string(),
    description: z.string(),
    status_code: z.string(),
    status_description: z.string().nullable(),
    modifiers: z.array(z.string()),
    rvus: z.array(RvuEntrySchema),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'CodeLookup' });

/** Spec "Crosswalk result" entry, plus optional `attributes`. */
export const CrosswalkEntrySchema = z
  .object({
    target_code: z.string(),
    target_system: z.string(),
    confidence: z.number(),
    crosswalk_type: z.string(),
    description: z.string(),
    relationship_type: z.string(),
    /** Source facts that qualify the link (billing units per package, status indicator, …). */
    attributes: z.record(z.string(), z.union([z.string(), z.number(), z.null()])).optional(),
  })
  .meta({ id: 'CrosswalkEntry' });

/** One crosswalk target (APC, NDC or HCPCS) with its source facts. */
export type CrosswalkEntry = z.infer<typeof CrosswalkEntrySchema>;

/** Spec "Crosswalk result": `by_system` groups `crosswalks` by target system (`APC`, `NDC`, `HCPCS`). */
export const CrosswalkResultSchema = z
  .object({
    code: z.string(),
    by_system: z.record(z.string(), z.array(CrosswalkEntrySchema)),
    crosswalks: z.array(CrosswalkEntrySchema),
    total_count: z.number().int().default(0),
    reliability: ReliabilitySchema,
  })
  .meta({ id: 'CrosswalkResult' });

/** A HCPCS code (`J9035`) or an NDC: 11 digits, or dashed 5-4-2 / 4-4-2 / 5-3-2 / 5-4-1. */
export const CrosswalkCodeSchema = z
  .string()
  .trim()
  .transform((s) => s.toUpperCase())
  .pipe(
    z
      .string()
      .regex(
        /^(?:[A-Z0-9]{5}|\d{11}|\d{5}-\d{4}-\d{2}|\d{4}-\d{4}-\d{2}|\d{5}-\d{3}-\d{2}|\d{5}-\d{4}-\d)$/,
        'Code must be a 5-character HCPCS/CPT code or an NDC (11 digits or dashed 5-4-2, 4-4-2, 5-3-2, 5-4-1)',
      ),
  );
