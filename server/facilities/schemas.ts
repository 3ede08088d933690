import { z } from 'zod';
import { CcnSchema, IsoDateSchema, ReliabilitySchema, StateSchema } from '../schemas.js';
import { FacilityRegistrationSchema, NETWORK_STATUSES, StoredPaOverrideSchema, StoredRosterEntrySchema } from '../../warehouse/facilities.js';

const dateTime = z.string().describe('ISO 8601 date-time');

/**
 * How Medicare pays a facility's outpatient services, decided once (`paymentSystemOf`) for payment,
 * prior auth and knowledge resolve. 42 CFR 419.20(b) lists the hospitals outside the OPPS.
 */
export const PaymentSystemSchema = z
  .enum(['opps', 'cah_cost', 'maryland', 'reh', 'federal', 'non_hospital'])
  .describe(
    'opps: a hospital paid under the OPPS; cah_cost: a critical access hospital, paid at 101% of reasonable cost (42 CFR 413.70); ' +
      "maryland: a Maryland hospital (CCN state code 21), paid under the state's all-payer model (section 1814(b)(3) of the Act) instead of the OPPS; " +
      'reh: a rural emergency hospital, paid the OPPS amount plus 5% and a monthly facility payment (42 CFR 419.92); ' +
      'federal: a hospital of a federal agency (VA, DoD; F in the sixth position of the CCN): Medicare does not pay a Federal provider (42 CFR 411.6); ' +
      'non_hospital: a clinic, ASC, SNF...: no hospital outpatient payment',
  );

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
  name: Text(200).optional().describe("the facility's name as you use it (default: the reference data's)"),
  facility_type: FacilityTypeSchema.optional().describe("the facility's type when the reference data lacks or mis-states it (acute_care_hospital, critical_access_hospital, ...)"),
  place_of_service: PosSchema.optional().describe('the CMS place-of-service code its claims carry (22 outpatient hospital, 11 office, ...): picks the facility or non-facility rate'),
  state: StateSchema.optional().describe("the facility's state when the reference data has none (USPS code)"),
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
  effective_date: DateOrDateTime.optional().describe('the day the contract takes effect (YYYY-MM-DD or a date-time)'),
  expiration_date: DateOrDateTime.optional().describe('the day the contract ends'),
  notes: z.string().max(2000, 'notes is at most 2000 characters').optional().describe('free text for your team (at most 2000 characters)'),
  plan_types: z.array(Text(100)).max(50).optional().describe('the plans or lines of business the contract covers (commercial, hmo, medicare_advantage ...)'),
  is_active: z.boolean().optional().describe('default true'),
});

/** A roster entry as answered: the stored row without its CCN (the path names it). */
export const RosterEntrySchema = StoredRosterEntrySchema.omit({ ccn: true }).meta({ id: 'RosterEntry' });

/** The answer of a roster write: the entry and the reference data it was checked against (facility, payer). */
export const RosterEntryAnswerSchema = RosterEntrySchema.extend({ reliability: ReliabilitySchema }).meta({ id: 'RosterEntryAnswer' });

export const RosterListSchema = z.object({ ccn: z.string(), payers: z.array(RosterEntrySchema), total: z.int() }).meta({ id: 'RosterList' });

export const OverrideBodySchema = z.strictObject({
  payer_slug: Slug.optional().describe('payer slug or alias; omitted: every payer'),
  code: z.string().trim().toUpperCase().pipe(z.string().regex(/^[A-Z0-9]{5}$/, 'Code must be 5 letters or digits (HCPCS/CPT)')).optional().describe('the CPT/HCPCS code the override decides; omitted: the service category, or every code'),
  code_type: z.enum(['CPT', 'HCPCS']).optional().describe("the code's system"),
  service_category: z.string().regex(/^[a-z][a-z0-9_]{1,63}$/, 'service_category is a snake_case category such as vein_ablation').optional().describe('a service category (vein_ablation, blepharoplasty ...) instead of a code'),
  pa_required: z.boolean().describe('whether prior authorization is required: tier 0 of the prior-auth check, before payer rules'),
  auth_type: Text(100).optional().describe('the kind of authorization (prior authorization, notification, precertification ...)'),
  delegation_vendor: Text(200).optional().describe('the vendor the payer delegates review to (eviCore, Carelon ...)'),
  reason: Text(2000).optional().describe('why: the contract clause or notice that says so'),
  source_document: Text(500).optional().describe('the document the override comes from (contract, payer notice)'),
  effective_date: DateOrDateTime.optional().describe('the day the override takes effect (default: at once)'),
  expiration_date: DateOrDateTime.optional().describe('the day it ends (default: never)'),
  is_active: z.boolean().optional().describe('default true; false keeps it on file without applying it'),
});

/** An override as answered: the stored row without its CCN (the path names it). */
export const PaOverrideSchema = StoredPaOverrideSchema.omit({ ccn: true }).meta({ id: 'PaOverride' });

/** The answer of an override write: the override and the reference data it was checked against. */
export const PaOverrideAnswerSchema = PaOverrideSchema.extend({ reliability: ReliabilitySchema }).meta({ id: 'PaOverrideAnswer' });

export const PaOverrideListSchema = z.object({ ccn: z.string(), overrides: z.array(PaOverrideSchema), total: z.int() }).meta({ id: 'PaOverrideList' });

export const OverrideDeleteResultSchema = z.object({ ccn: z.string(), id: z.string(), deleted: z.boolean() }).meta({ id: 'PaOverrideDeleteResult' });

