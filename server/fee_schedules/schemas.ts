import { z } from 'zod';
import { OppsAddendumARowSchema } from '../../datasets/opps_addendum_a/dataset.js';
import { IsoDateSchema, ReliabilitySchema } from '../schemas.js';

/** A fee-schedule year. */
export const YearSchema = z.coerce.number().int().min(1990).max(2100);

/**
 * The fee-schedule lookups' `year`, or a `date_of_service` whose year it is (as payment takes
 * it); both given, they must agree. Answers `year` (undefined: the latest loaded release).
 */
export const FeeYearFields = {
  year: YearSchema.optional().describe('the fee schedule year: the newest release effective in it'),
  date_of_service: IsoDateSchema.optional().describe("a date of service: its year is the fee schedule year (with `year`, the two must agree)"),
};

/** Checks `year` and `date_of_service` agree and resolves the year a lookup uses. */
export function withFeeYear<T extends { year?: number; date_of_service?: string }>(schema: z.ZodType<T>) {
  return schema
    .refine((q) => q.year === undefined || q.date_of_service === undefined || Number(q.date_of_service.slice(0, 4)) === q.year, {
      message: 'year and date_of_service name different years',
      path: ['year'],
    })
    .transform((q) => ({ ...q, year: q.year ?? (q.date_of_service ? Number(q.date_of_service.slice(0, 4)) : undefined) }));
}

/** Spec "Fee schedule rows": DME row (rates null where CMS prints 0.00 = no fee published). */
export const DmeRowSchema = z.object({
  hcpcs_code: z.string(),
  state: z.string(),
  year: z.number(),
  category: z.string(),
  jurisdiction: z.string(),
  modifier: z.string(),
  modifier2: z.string(),
  short_descriptor: z.string(),
  ceiling: z.number().nullable(),
  floor: z.number().nullable(),
  non_rural_rate: z.number().nullable(),
  rural_rate: z.number().nullable(),
}).meta({ id: 'DmeRow' });

/** DME list response: rows of one release plus the count before `limit`. */
export const DmeListSchema = z.object({
  results: z.array(DmeRowSchema),
  total_count: z.number().int(),
  reliability: ReliabilitySchema,
}).meta({ id: 'DmeList' });

/** An APC's row of OPPS Addendum A, with the release it was read from (the dataset's row, declared once). */
export const OppsApcRowSchema = OppsAddendumARowSchema.extend({ version: z.string().describe('the Addendum A release (`2025-01`)') });

/** The Addendum A group an Addendum B code is paid under: title, weight and rate of its APC in the same calendar year. */
export const OppsApcGroupSchema = OppsApcRowSchema.pick({ apc: true, group_title: true, status_indicator: true, relative_weight: true, payment_rate: true, year: true, version: true }).meta({ id: 'OppsApcGroup' });

/** `GET /v1/fee-schedules/opps-apc/{apc}`: an APC's Addendum A row. */
export const OppsApcSchema = OppsApcRowSchema.extend({ reliability: ReliabilitySchema }).meta({ id: 'OppsApc' });

/** Spec "Fee schedule rows": OPPS row (Addendum B). */
export const OppsRowSchema = z.object({
  hcpcs_code: z.string(),
  year: z.number(),
  short_descriptor: z.string(),
  status_indicator: z.string(),
  apc_code: z.string().nullable(),
  relative_weight: z.number().nullable(),
  payment_rate: z.number().nullable(),
  national_unadjusted_copayment: z.number().nullable(),
  minimum_unadjusted_copayment: z.number().nullable(),
  ira_coinsurance_pct: z.number().nullable(),
  adjusted_copayment: z.number().nullable(),
  drug_device_passthrough_expiry: z.string().nullable(),
  apc_group: OppsApcGroupSchema.nullable().describe('the APC\'s Addendum A row (group title, weight, rate) from the Addendum A release of the same calendar year; null when the code has no APC or that year\'s Addendum A is not loaded (see `apc_group_note`)'),
  apc_group_note: z.string().nullable().describe('why `apc_group` is null for a code with an APC: the year whose Addendum A is not loaded, or the APC missing from it'),
  reliability: ReliabilitySchema,
}).meta({ id: 'OppsRow' });

/** Clinical lab fee row (the spec names the endpoint area only; shape follows the DME list). */
export const LabRowSchema = z.object({
  hcpcs_code: z.string(),
  modifier: z.string(),
  year: z.number(),
  effective_date: z.string(),
  indicator: z.string(),
  rate: z.number().nullable(),
  nationally_priced: z.boolean(),
  short_descriptor: z.string(),
  long_descriptor: z.string().nullable(),
}).meta({ id: 'LabRow' });

/** Lab list response (plain and `QW` rows of one CLFS quarter). */
export const LabListSchema = z.object({
  results: z.array(LabRowSchema),
  total_count: z.number().int(),
  reliability: ReliabilitySchema,
}).meta({ id: 'LabList' });

