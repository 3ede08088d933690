import { IngestError } from '../_shared/issue.js';

/**
 * The NPPES Data Dissemination layouts (Readme, Exhibits 2-1 to 2-3), declared once: every
 * stored field names the header(s) it is read from. Files are mapped BY HEADER NAME, never by
 * position, so the V.1 layout, the V.2 layout (longer name fields, same names) and headers renamed
 * since (`Provider Sex Code` for `Provider Gender Code`) all load. Names are compared normalised:
 * lower case, letters and digits only (`Address- Address Line 1` = `Address - Address Line 1`).
 */

/** The kinds of cell, each with one rule shared by the row parser and the SQL loader. */
export type CellKind = 'text' | 'date' | 'masked' | 'switch';

export interface FieldSpec {
  /** The stored name (a column, or a key inside a JSON column). */
  name: string;
  /** Accepted header names, the Readme's first. */
  headers: string[];
  kind: CellKind;
}

const f = (name: string, kind: CellKind, ...headers: string[]): FieldSpec => ({ name, headers, kind });

const address = (prefix: string, base: string): FieldSpec[] => [
  f(`${prefix}address_1`, 'text', `Provider First Line Business ${base} Address`),
  f(`${prefix}address_2`, 'text', `Provider Second Line Business ${base} Address`),
  f(`${prefix}city`, 'text', `Provider Business ${base} Address City Name`),
  f(`${prefix}state`, 'text', `Provider Business ${base} Address State Name`),
  f(`${prefix}postal_code`, 'text', `Provider Business ${base} Address Postal Code`),
  f(`${prefix}country_code`, 'text', `Provider Business ${base} Address Country Code (If outside U.S.)`),
  f(`${prefix}telephone`, 'text', `Provider Business ${base} Address Telephone Number`),
  f(`${prefix}fax`, 'text', `Provider Business ${base} Address Fax Number`),
];

/** Exhibit 2-1, the single-valued columns (`mailing_`/`practice_`/`ao_` prefixes fold into JSON objects). */
export const PROVIDER_FIELDS: FieldSpec[] = [
  f('npi', 'text', 'NPI'),
  f('entity_type', 'text', 'Entity Type Code'),
  f('replacement_npi', 'text', 'Replacement NPI'),
  f('ein', 'masked', 'Employer Identification Number (EIN)'),
  f('organization_name', 'text', 'Provider Organization Name (Legal Business Name)'),
  f('last_name', 'text', 'Provider Last Name (Legal Name)'),
  f('first_name', 'text', 'Provider First Name'),
  f('middle_name', 'text', 'Provider Middle Name'),
  f('name_prefix', 'text', 'Provider Name Prefix Text'),
  f('name_suffix', 'text', 'Provider Name Suffix Text'),
  f('credential', 'text', 'Provider Credential Text'),
  f('other_organization_name', 'text', 'Provider Other Organization Name'),
  f('other_organization_name_type', 'text', 'Provider Other Organization Name Type Code'),
  f('other_last_name', 'text', 'Provider Other Last Name'),
  f('other_first_name', 'text', 'Provider Other First Name'),
  f('other_middle_name', 'text', 'Provider Other Middle Name'),
  f('other_name_prefix', 'text', 'Provider Other Name Prefix Text'),
  f('other_name_suffix', 'text', 'Provider Other Name Suffix Text'),
  f('other_credential', 'text', 'Provider Other Credential Text'),
  f('other_last_name_type', 'text', 'Provider Other Last Name Type Code'),
  ...address('mailing_', 'Mailing'),
  ...address('practice_', 'Practice Location'),
  f('enumeration_date', 'date', 'Provider Enumeration Date'),
  f('last_updated', 'date', 'Last Update Date'),
  f('deactivation_reason', 'text', 'NPI Deactivation Reason Code'),
  f('deactivation_date', 'date', 'NPI Deactivation Date'),
  f('reactivation_date', 'date', 'NPI Reactivation Date'),
  f('sex', 'text', 'Provider Gender Code', 'Provider Sex Code'),
  f('ao_last_name', 'text', 'Authorized Official Last Name'),
  f('ao_first_name', 'text', 'Authorized Official First Name'),
  f('ao_middle_name', 'text', 'Authorized Official Middle Name'),
  f('ao_title', 'text', 'Authorized Official Title or Position'),
  f('ao_telephone', 'text', 'Authorized Official Telephone Number'),
  f('sole_proprietor', 'text', 'Is Sole Proprietor'),
  f('organization_subpart', 'text', 'Is Organization Subpart'),
  f('parent_organization_lbn', 'text', 'Parent Organization LBN'),
  f('parent_organization_tin', 'masked', 'Parent Organization TIN'),
  f('ao_name_prefix', 'text', 'Authorized Official Name Prefix Text'),
  f('ao_name_suffix', 'text', 'Authorized Official Name Suffix Text'),
  f('ao_credential', 'text', 'Authorized Official Credential Text'),
  f('certification_date', 'date', 'Certification Date'),
];

/** Exhibit 2-1's numbered groups: `<header>_<n>`, slot n of 15 taxonomies / 50 identifiers (slots found from the header). */
export const TAXONOMY_SLOT: FieldSpec[] = [
  f('code', 'text', 'Healthcare Provider Taxonomy Code'),
  f('license', 'masked', 'Provider License Number'),
  f('license_state', 'text', 'Provider License Number State Code'),
  f('primary', 'switch', 'Healthcare Provider Primary Taxonomy Switch'),
  f('group', 'text', 'Healthcare Provider Taxonomy Group'),
];
export const IDENTIFIER_SLOT: FieldSpec[] = [
  f('identifier', 'masked', 'Other Provider Identifier'),
  f('type_code', 'text', 'Other Provider Identifier Type Code'),
  f('state', 'text', 'Other Provider Identifier State'),
  f('issuer', 'text', 'Other Provider Identifier Issuer'),
];

/** Exhibit 2-3 (`pl_pfile`). */
export const PRACTICE_LOCATION_FIELDS: FieldSpec[] = [
  f('npi', 'text', 'NPI'),
  f('address_1', 'text', 'Provider Secondary Practice Location Address- Address Line 1'),
  f('address_2', 'text', 'Provider Secondary Practice Location Address- Address Line 2'),
  f('city', 'text', 'Provider Secondary Practice Location Address - City Name'),
  f('state', 'text', 'Provider Secondary Practice Location Address - State Name'),
  f('postal_code', 'text', 'Provider Secondary Practice Location Address - Postal Code'),
  f('country_code', 'text', 'Provider Secondary Practice Location Address - Country Code (If outside U.S.)'),
  f('telephone', 'text', 'Provider Secondary Practice Location Address - Telephone Number'),
  f('telephone_extension', 'text', 'Provider Secondary Practice Location Address - Telephone Extension'),
  f('fax', 'text', 'Provider Practice Location Address - Fax Number'),
];

/** Exhibit 2-2 (`othername_pfile`). */
export const OTHER_NAME_FIELDS: FieldSpec[] = [
  f('npi', 'text', 'NPI'),
  f('organization_name', 'text', 'Provider Other Organization Name'),
  f('type_code', 'text', 'Provider Other Organization Name Type Code'),
];

/** Headers a file of each kind must have (the rest may be absent: null). */
const REQUIRED: Record<FileKind, string[]> = {
  npidata: ['npi', 'entity_type', 'deactivation_date'],
  pl: ['npi', 'address_1'],
  othername: ['npi', 'organization_name'],
};

export const normHeaderName = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');

export type FileKind = 'npidata' | 'pl' | 'othername';

export interface NppesFileName {
  kind: FileKind;
  from: string;
  to: string;
  /** `_FileHeader.csv`: the column names only, no data. */
  headerOnly: boolean;
}

const NAME_RE = /^(npidata|pl|othername)_pfile_(\d{8})-(\d{8})(_fileheader)?\.csv$/i;

/** The kind and date range in an NPPES file name (`npidata_pfile_20050523-20251109.csv`). */
export function parseNppesName(name: string): NppesFileName | undefined {
  const m = NAME_RE.exec(name);
  if (!m) return undefined;
  return { kind: m[1]!.toLowerCase() as FileKind, from: m[2]!, to: m[3]!, headerOnly: Boolean(m[4]) };
}

/** The first date of every full (monthly) file: NPPES's start. A file from a later date is a weekly delta. */
export const FULL_FILE_FROM = '20050523';

/** Where each stored field sits in a file's header. */
export interface Layout {
  kind: FileKind;
  width: number;
  /** field name -> column index */
  at: Map<string, number>;
  /** taxonomy / identifier slots in slot order: field name -> column index */
  taxonomies: Map<string, number>[];
  identifiers: Map<string, number>[];
  /** The header names as the file spells them. */
  header: string[];
}

const FIELDS: Record<FileKind, FieldSpec[]> = { npidata: PROVIDER_FIELDS, pl: PRACTICE_LOCATION_FIELDS, othername: OTHER_NAME_FIELDS };

function byHeader(specs: FieldSpec[]): Map<string, FieldSpec> {
  const m = new Map<string, FieldSpec>();
  for (const s of specs) for (const h of s.headers) m.set(normHeaderName(h), s);
  return m;
}
const BY_HEADER: Record<FileKind, Map<string, FieldSpec>> = { npidata: byHeader(PROVIDER_FIELDS), pl: byHeader(PRACTICE_LOCATION_FIELDS), othername: byHeader(OTHER_NAME_FIELDS) };
const TAX_BY_HEADER = byHeader(TAXONOMY_SLOT);
const ID_BY_HEADER = byHeader(IDENTIFIER_SLOT);

/** The kind of a header row by its names (the NPI column plus one name only that file has). */
export function kindOfHeader(header: string[]): FileKind | undefined {
  const names = new Set(header.map(normHeaderName));
  if (!names.has('npi')) return undefined;
  if (names.has(normHeaderName('Entity Type Code'))) return 'npidata';
  if (names.has(normHeaderName('Provider Secondary Practice Location Address- Address Line 1'))) return 'pl';
  if (names.has(normHeaderName('Provider Other Organization Name')) && header.length <= 4) return 'othername';
  return undefined;
}

/** Maps a header row; a required column missing or a name given twice is an IngestError naming it. */
export function layoutOf(kind: FileKind, header: string[], file: string): Layout {
  const at = new Map<string, number>();
  const slots = { taxonomies: new Map<number, Map<string, number>>(), identifiers: new Map<number, Map<string, number>>() };
  header.forEach((raw, i) => {
    const n = normHeaderName(raw);
    const spec = BY_HEADER[kind].get(n);
    if (spec) {
      if (at.has(spec.name)) throw new IngestError(`column '${raw}' maps to ${spec.name}, which an earlier column already gives`, file, 1, raw);
      at.set(spec.name, i);
      return;
    }
    const m = kind === 'npidata' ? /^(.*?)(\d+)$/.exec(n) : null;
    if (!m) return; // a column we do not store
    for (const [group, specs] of [['taxonomies', TAX_BY_HEADER], ['identifiers', ID_BY_HEADER]] as const) {
      const slot = specs.get(m[1]!);
      if (!slot) continue;
      const k = Number(m[2]);
      const map = slots[group].get(k) ?? new Map<string, number>();
      map.set(slot.name, i);
      slots[group].set(k, map);
    }
  });
  for (const r of REQUIRED[kind]) {
    if (!at.has(r)) {
      const spec = FIELDS[kind].find((s) => s.name === r)!;
      throw new IngestError(`no '${spec.headers.join("' or '")}' column in the header row`, file, 1, spec.headers[0]);
    }
  }
  const ordered = (m: Map<number, Map<string, number>>, key: string, label: string) =>
    [...m.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([k, v]) => {
        if (!v.has(key)) throw new IngestError(`${label} slot ${k} has no '${key}' column`, file, 1);
        return v;
      });
  return {
    kind,
    width: header.length,
    at,
    taxonomies: ordered(slots.taxonomies, 'code', 'taxonomy'),
    identifiers: ordered(slots.identifiers, 'identifier', 'other provider identifier'),
    header,
  };
}
