import { z } from 'zod';
import { ReliabilitySchema } from '../schemas.js';

/** A fee-schedule year. */
export const YearSchema = z.coerce.number().int().min(1990).max(2100);

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

