import { z } from 'zod';
import { CcnSchema, IsoDateSchema, ReliabilitySchema, StateSchema } from '../schemas.js';
import { FacilityRegistrationSchema, NETWORK_STATUSES, StoredPaOverrideSchema, StoredRosterEntrySchema } from '../../warehouse/facilities.js';

const dateTime = z.string().describe('ISO 8601 date-time');

export const RegistrationSchema = FacilityRegistrationSchema.meta({ id: 'FacilityRegistration' });

/** `GET /v1/facilities/{ccn}`: a facility with its payment geography, as payment composition sees it. */
export const FacilityProfileSchema = z.object({
  ccn: z.string(),
  name: z.string(),
  address: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string(),
  county: z.string().nullable(),
  county_fips: z.string().nullable(),
  zip: z.string().nullable(),
  cbsa: z.string().nullable(),
  cbsa_name: z.string().nullable(),
  locality: z.string().nullable().describe('7-digit Medicare PFS locality: MAC + locality number (the GPCI key)'),
  locality_number: z.string().nullable(),
  mac: z.string().nullable(),
  locality_name: z.string().nullable(),
  locality_source: z.enum(['zip', 'county']).nullable().describe('zip: ZIP5 carrier locality file (CMS rule); county: LOCCO fallback'),
  wage_index: z.number().nullable().describe('FY IPPS wage index of the CBSA'),
  is_rural: z.boolean().nullable().describe('null for a CCN known only from the tenant registration'),
  rural_source: z.enum(['facility_file', 'zip_locality', 'cbsa']).nullable(),
  facility_type: z.string(),
  facility_type_label: z.string(),
  place_of_service: z.string().nullable().describe('default place of service: the registration\'s, else 22 (on-campus outpatient hospital) for hospitals'),
  cah_method_ii: z
    .boolean()
    .describe('the facility bills its practitioners\' professional services under CAH Method II (115% of the facility fee schedule amount, 42 CFR 413.70(b)(3)): as your active registration elects it, else false'),
  active: z.boolean().nullable().describe('CMS: false when the provider file marks the CCN terminated'),
  source_layout: z.enum(['pos', 'care_compare', 'tenant']).describe('tenant: the CCN is not in the reference data, only registered'),
  registered: z.boolean().describe('the calling tenant has registered this CCN'),
  is_active: z.boolean().nullable().describe('the registration is active (false after a soft delete); null when not registered'),
  registration: RegistrationSchema.nullable(),
  reliability: ReliabilitySchema,
}).meta({ id: 'FacilityProfile' });

/**
 * A CCN in the reference data with its payment geography resolved (no tenant in it): what
 * payment composition prices with and the public half of a facility profile.
 */
export const FacilityReferenceSchema = FacilityProfileSchema.pick({
  ccn: true, name: true, address: true, city: true, state: true, county: true, county_fips: true, zip: true, cbsa: true, cbsa_name: true,
  locality: true, locality_number: true, mac: true, locality_name: true, locality_source: true, wage_index: true,
  facility_type: true, facility_type_label: true, active: true,
}).extend({
  is_rural: z.boolean(),
  rural_source: z.enum(['facility_file', 'zip_locality', 'cbsa']).nullable(),
  source_layout: z.enum(['pos', 'care_compare']),
  /** Everything derived, missing or inconsistent, in words, for the reliability block. */
  warnings: z.array(z.string()),
  /** Version label of every dataset the geography used, e.g. `{ facilities: '2025Q3', zip_locality: '2025Q4' }`. */
  versions: z.record(z.string(), z.string()),
});
export type FacilityReference = z.output<typeof FacilityReferenceSchema>;

/** Dates in bodies: a date (midnight UTC) or a date-time with offset. */
const DateOrDateTime = z.union([IsoDateSchema, z.iso.datetime({ offset: true })]);
const Slug = z.string().trim().min(1).max(100);
const Text = (max: number) => z.string().trim().min(1).max(max);
const FacilityTypeSchema = z.string().regex(/^[a-z][a-z0-9_]{1,63}$/, 'facility_type is a snake_case type such as critical_access_hospital');
export const PosSchema = z.string().regex(/^\d{2}$/, 'place_of_service is a 2-digit CMS place-of-service code');

export const FacilityParamsSchema = z.object({ ccn: z.string().trim().toUpperCase().pipe(CcnSchema) });

export const RegistrationBodySchema = z.strictObject({
  name: Text(200).optional(),
  facility_type: FacilityTypeSchema.optional(),
  place_of_service: PosSchema.optional(),
  state: StateSchema.optional(),
  cah_method_ii: z
    .boolean()
    .nullable()
    .optional()
    .describe('a critical access hospital elects the optional payment method (Method II): payment prices its professional services at 115% of the facility fee schedule amount unless the query says cah_method_ii=false; null or omitted: not elected'),
});

export const DeleteQuerySchema = z.object({ hard: z.enum(['true', 'false', '1', '0']).transform((s) => s === 'true' || s === '1').optional() });

export const FacilityDeleteResultSchema = z
  .object({ ccn: z.string(), deleted: z.boolean(), hard: z.boolean(), is_active: z.boolean() })
  .meta({ id: 'FacilityDeleteResult' });

export const FacilityListSchema = z
  .object({
    facilities: z.array(
      z.object({
        ccn: z.string(),
        name: z.string(),
        state: z.string().nullable(),
        facility_type: z.string(),
        place_of_service: z.string().nullable(),
        in_reference_data: z.boolean(),
        is_active: z.boolean(),
        created_at: dateTime,
        updated_at: dateTime,
      }),
    ),
    total: z.int(),
    reliability: ReliabilitySchema.describe('extension: the facilities version the reference fields were read from'),
  })
  .meta({ id: 'FacilityList' });

export const RosterBodySchema = z.strictObject({
  payer_slug: Slug.describe('payer slug or alias; stored as the slug'),
  network_status: z.enum(NETWORK_STATUSES).optional().describe('default unknown'),
  effective_date: DateOrDateTime.optional(),
  expiration_date: DateOrDateTime.optional(),
  notes: z.string().max(2000, 'notes is at most 2000 characters').optional(),
  plan_types: z.array(Text(100)).max(50).optional(),
  is_active: z.boolean().optional().describe('default true'),
});

/** A roster entry as answered: the stored row without its CCN (the path names it). */
export const RosterEntrySchema = StoredRosterEntrySchema.omit({ ccn: true }).meta({ id: 'RosterEntry' });

/** The answer of a roster write: the entry and the reference data it was checked against (facility, payer). */
export const RosterEntryAnswerSchema = RosterEntrySchema.extend({ reliability: ReliabilitySchema }).meta({ id: 'RosterEntryAnswer' });

export const RosterListSchema = z.object({ ccn: z.string(), payers: z.array(RosterEntrySchema), total: z.int() }).meta({ id: 'RosterList' });

export const OverrideBodySchema = z.strictObject({
  payer_slug: Slug.optional().describe('payer slug or alias; omitted: every payer'),
  code: z.string().trim().toUpperCase().pipe(z.string().regex(/^[A-Z0-9]{5}$/, 'Code must be 5 letters or digits (HCPCS/CPT)')).optional(),
  code_type: z.enum(['CPT', 'HCPCS']).optional(),
  service_category: z.string().regex(/^[a-z][a-z0-9_]{1,63}$/, 'service_category is a snake_case category such as vein_ablation').optional(),
  pa_required: z.boolean(),
  auth_type: Text(100).optional(),
  delegation_vendor: Text(200).optional(),
  reason: Text(2000).optional(),
  source_document: Text(500).optional(),
  effective_date: DateOrDateTime.optional(),
  expiration_date: DateOrDateTime.optional(),
  is_active: z.boolean().optional(),
});

/** An override as answered: the stored row without its CCN (the path names it). */
export const PaOverrideSchema = StoredPaOverrideSchema.omit({ ccn: true }).meta({ id: 'PaOverride' });

/** The answer of an override write: the override and the reference data it was checked against. */
export const PaOverrideAnswerSchema = PaOverrideSchema.extend({ reliability: ReliabilitySchema }).meta({ id: 'PaOverrideAnswer' });

export const PaOverrideListSchema = z.object({ ccn: z.string(), overrides: z.array(PaOverrideSchema), total: z.int() }).meta({ id: 'PaOverrideList' });

export const OverrideDeleteResultSchema = z.object({ ccn: z.string(), id: z.string(), deleted: z.boolean() }).meta({ id: 'PaOverrideDeleteResult' });

