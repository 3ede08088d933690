import { z } from 'zod';
import { ReliabilitySchema } from '../schemas.js';

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
  is_rural: z.boolean(),
  rural_source: z.enum(['facility_file', 'zip_locality', 'cbsa']).nullable(),
  facility_type: z.string(),
  facility_type_label: z.string(),
  active: z.boolean().nullable(),
  source_layout: z.enum(['pos', 'care_compare']),
  reliability: ReliabilitySchema,
}).meta({ id: 'FacilityProfile' });
/** The body of `GET /v1/facilities/{ccn}`. */
export type FacilityProfileResponse = z.infer<typeof FacilityProfileSchema>;

