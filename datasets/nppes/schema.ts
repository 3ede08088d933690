import { z } from 'zod';
import { table } from '../_shared/table.js';

/**
 * Why a value is missing although the provider reported one: CMS's masks (`$$$$$$$$$` an SSN,
 * `*********` an IRS ITIN, `=========` an EIN) and `<UNAVAIL>` (the EIN and parent TIN CMS
 * suppresses for every organization). Null when the value is there or was never given.
 */
export const WithheldSchema = z.enum(['ssn', 'itin', 'ein', 'unavailable']).nullable();

const AddressSchema = z.object({
  address_1: z.string().nullable(),
  address_2: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  postal_code: z.string().nullable(),
  country_code: z.string().nullable(),
  telephone: z.string().nullable(),
  fax: z.string().nullable(),
});
export type NppesAddress = z.infer<typeof AddressSchema>;

export const TaxonomySlotSchema = z.object({
  code: z.string(),
  license: z.string().nullable(),
  license_withheld: WithheldSchema,
  license_state: z.string().nullable(),
  primary: z.boolean(),
  group: z.string().nullable(),
});
export const IdentifierSlotSchema = z.object({
  identifier: z.string().nullable(),
  withheld: WithheldSchema,
  type_code: z.string().nullable(),
  state: z.string().nullable(),
  issuer: z.string().nullable(),
});

/** One NPI of the data file (`npidata_pfile`). A deactivated NPI carries its number and dates only. */
export const ProviderRowSchema = z.object({
  npi: z.string().describe('10-digit NPI'),
  entity_type: z.enum(['individual', 'organization']).nullable().describe('Entity Type Code 1 / 2; null on a deactivated NPI'),
  status: z.enum(['active', 'deactivated']).describe('deactivated: a deactivation date and no later reactivation date'),
  replacement_npi: z.string().nullable(),
  ein: z.string().nullable(),
  ein_withheld: WithheldSchema,
  organization_name: z.string().nullable(),
  last_name: z.string().nullable(),
  first_name: z.string().nullable(),
  middle_name: z.string().nullable(),
  name_prefix: z.string().nullable(),
  name_suffix: z.string().nullable(),
  credential: z.string().nullable(),
  other_organization_name: z.string().nullable(),
  other_organization_name_type: z.string().nullable(),
  other_last_name: z.string().nullable(),
  other_first_name: z.string().nullable(),
  other_middle_name: z.string().nullable(),
  other_name_prefix: z.string().nullable(),
  other_name_suffix: z.string().nullable(),
  other_credential: z.string().nullable(),
  other_last_name_type: z.string().nullable(),
  mailing_address: AddressSchema.nullable(),
  practice_address: AddressSchema.nullable(),
  enumeration_date: z.string().nullable().describe('YYYY-MM-DD'),
  last_updated: z.string().nullable().describe('YYYY-MM-DD'),
  deactivation_reason: z.string().nullable(),
  deactivation_date: z.string().nullable().describe('YYYY-MM-DD'),
  reactivation_date: z.string().nullable().describe('YYYY-MM-DD'),
  sex: z.string().nullable().describe('Provider Gender Code (V.1) / Provider Sex Code (later files)'),
  authorized_official: z
    .object({
      last_name: z.string().nullable(),
      first_name: z.string().nullable(),
      middle_name: z.string().nullable(),
      title: z.string().nullable(),
      telephone: z.string().nullable(),
      name_prefix: z.string().nullable(),
      name_suffix: z.string().nullable(),
      credential: z.string().nullable(),
    })
    .nullable(),
  taxonomies: z.array(TaxonomySlotSchema).describe('the filled taxonomy slots, in slot order'),
  identifiers: z.array(IdentifierSlotSchema).describe('the filled Other Provider Identifier slots, in slot order'),
  sole_proprietor: z.string().nullable(),
  organization_subpart: z.string().nullable(),
  parent_organization_lbn: z.string().nullable(),
  parent_organization_tin: z.string().nullable(),
  parent_organization_tin_withheld: WithheldSchema,
  certification_date: z.string().nullable().describe('YYYY-MM-DD'),
});
export type ProviderRow = z.infer<typeof ProviderRowSchema>;

/** A non-primary practice location (`pl_pfile`); `ordinal` is its order among the NPI's rows in the file. */
export const PracticeLocationRowSchema = z.object({
  npi: z.string(),
  ordinal: z.number().int(),
  ...AddressSchema.shape,
  telephone_extension: z.string().nullable(),
});
export type PracticeLocationRow = z.infer<typeof PracticeLocationRowSchema>;

/** An additional other name of an organization (`othername_pfile`). */
export const OtherNameRowSchema = z.object({
  npi: z.string(),
  ordinal: z.number().int(),
  organization_name: z.string().nullable(),
  type_code: z.string().nullable(),
});
export type OtherNameRow = z.infer<typeof OtherNameRowSchema>;

export const NPPES_TABLES = {
  provider: table('provider', ProviderRowSchema, ['npi']),
  practice_location: table('practice_location', PracticeLocationRowSchema, ['npi', 'ordinal']),
  other_name: table('other_name', OtherNameRowSchema, ['npi', 'ordinal']),
};
