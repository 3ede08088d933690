import { z } from 'zod';
import { dataRecords, findHeader, normHeader } from '../_shared/header.js';
import type { Issue } from '../../warehouse/errors.js';
import { readRecords, type FileSample, type SourceFile } from '../_shared/source.js';
import { RowReader, clean } from '../_shared/values.js';
import { defineDataset, type ParsedItem, type ParseContext, type VersionInfo } from '../types.js';
import { toStateCode } from '../locality_county/states.js';
import { ownValue } from '../../lib/own.js';

/** Which publisher layout a facility row came from. */
export type FacilityLayout = FacilityRow['source_layout'];

/** One Medicare-certified facility: identity, location and type (geography is resolved in queries). */
export const FacilityRowSchema = z.object({
  ccn: z.string().describe('CMS Certification Number, 6 characters (`010001`; VA hospitals end in `F`, e.g. `01014F`).'),
  name: z.string(),
  address: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().describe('USPS state code.'),
  zip: z.string().nullable(),
  county_name: z.string().nullable(),
  county_fips: z.string().nullable().describe('5-digit FIPS state + county (POS `FIPS_STATE_CD` + `FIPS_CNTY_CD`); null in Care Compare.'),
  cbsa: z.string().nullable().describe('CBSA as published (POS `CBSA_CD`); null in Care Compare, derived in queries.'),
  is_rural: z.boolean().nullable().describe('POS `CBSA_URBN_RRL_IND` = R; null when the file has no flag (Care Compare).'),
  facility_type: z.string().describe('snake_case type, e.g. `critical_access_hospital`, from `PRVDR_CTGRY_CD`/subtype or `Hospital Type`.'),
  facility_type_label: z.string().describe('Readable type, e.g. `Critical Access Hospital`.'),
  active: z.boolean().nullable().describe('False when POS `PGM_TRMNTN_CD` is not `00`; null when the file does not say.'),
  source_layout: z.enum(['pos', 'care_compare']),
});
/** One Medicare-certified facility: identity, location and type (geography is resolved in queries). */
export type FacilityRow = z.infer<typeof FacilityRowSchema>;

/** Care Compare `Hospital Type` values (Hospital_General_Information.csv, 2025 release) to types. */
const CARE_COMPARE_TYPES: Record<string, [string, string]> = {
  'ACUTE CARE HOSPITALS': ['acute_care_hospital', 'Acute Care Hospital'],
  'CRITICAL ACCESS HOSPITALS': ['critical_access_hospital', 'Critical Access Hospital'],
  PSYCHIATRIC: ['psychiatric_hospital', 'Psychiatric Hospital'],
  'ACUTE CARE - VETERANS ADMINISTRATION': ['va_acute_care_hospital', 'Acute Care Hospital - Veterans Administration'],
  CHILDRENS: ['childrens_hospital', "Children's Hospital"],
  'RURAL EMERGENCY HOSPITAL': ['rural_emergency_hospital', 'Rural Emergency Hospital'],
  'ACUTE CARE - DEPARTMENT OF DEFENSE': ['dod_acute_care_hospital', 'Acute Care Hospital - Department of Defense'],
  'LONG-TERM': ['long_term_care_hospital', 'Long-Term Care Hospital'],
};

/** POS hospital subtypes (`PRVDR_CTGRY_CD` 01, `PRVDR_CTGRY_SBTYP_CD`) to types. */
const POS_HOSPITAL_SUBTYPES: Record<string, [string, string]> = {
  '01': ['acute_care_hospital', 'Acute Care Hospital'],
  '02': ['long_term_care_hospital', 'Long-Term Care Hospital'],
  '03': ['religious_nonmedical_institution', 'Religious Non-Medical Health Care Institution'],
  '04': ['psychiatric_hospital', 'Psychiatric Hospital'],
  '05': ['rehabilitation_hospital', 'Rehabilitation Hospital'],
  '06': ['childrens_hospital', "Children's Hospital"],
  '07': ['psychiatric_hospital', 'Psychiatric Hospital (distinct part)'],
  '11': ['critical_access_hospital', 'Critical Access Hospital'],
  '20': ['transplant_hospital', 'Transplant Hospital'],
  '22': ['medicaid_only_hospital', 'Medicaid-only Hospital'],
};

/** Maps a Care Compare `Hospital Type` to [type, label]; undefined for an unknown value. */
export function careCompareType(text: string): [string, string] | undefined {
  return CARE_COMPARE_TYPES[clean(text).toUpperCase()];
}

/** Maps POS category + subtype to [type, label]; non-hospital categories keep their codes. */
export function posType(category: string, subtype: string): [string, string] {
  if (category === '01') return ownValue(POS_HOSPITAL_SUBTYPES, subtype) ?? ['hospital', `Hospital (subtype ${subtype || 'none'})`];
  return [`pos_category_${category}`, `POS provider category ${category}${subtype ? ` subtype ${subtype}` : ''}`];
}

const CARE_COMPARE_COLS = { ccn: 'FACILITY ID', name: 'FACILITY NAME', address: 'ADDRESS', city: 'CITY/TOWN', state: 'STATE', zip: 'ZIP CODE', county: 'COUNTY/PARISH', type: 'HOSPITAL TYPE' };
const POS_COLS = {
  ccn: 'PRVDR_NUM',
  name: 'FAC_NAME',
  address: 'ST_ADR',
  city: 'CITY_NAME',
  state: 'STATE_CD',
  zip: 'ZIP_CD',
  fips_state: 'FIPS_STATE_CD',
  fips_county: 'FIPS_CNTY_CD',
  category: 'PRVDR_CTGRY_CD',
  subtype: 'PRVDR_CTGRY_SBTYP_CD',
  cbsa: 'CBSA_CD',
  urban_rural: 'CBSA_URBN_RRL_IND',
  termination: 'PGM_TRMNTN_CD',
};

const has = (h: string[], names: string[]) => names.every((n) => h.includes(n));
const isCareCompareHeader = (f: string[]) => has(f.map(normHeader), ['FACILITY ID', 'FACILITY NAME', 'STATE', 'ZIP CODE', 'HOSPITAL TYPE']);
const isPosHeader = (f: string[]) => has(f.map(normHeader), ['PRVDR_NUM', 'FAC_NAME', 'STATE_CD', 'PRVDR_CTGRY_CD']);
const layoutOf = (f: string[]): FacilityLayout | undefined => (isPosHeader(f) ? 'pos' : isCareCompareHeader(f) ? 'care_compare' : undefined);

/**
 * Version label from the file name: POS `Hospital_and_other.DATA.Q3_2025.csv` → `2025Q3`; a dated
 * download `Hospital_General_Information_2025-10.csv` → `2025-10`. The Care Compare CSV carries no
 * date at all (SOURCE.md: "exact refresh date is not in the file"), so its plain name needs --version.
 */
function versionOf(sample: FileSample): VersionInfo | undefined {
  let m = /Q([1-4])[_ -]?(20\d{2})/i.exec(sample.name) ?? null;
  if (m) return quarter(Number(m[2]), Number(m[1]));
  m = /(20\d{2})[_ -]?Q([1-4])/i.exec(sample.name);
  if (m) return quarter(Number(m[1]), Number(m[2]));
  m = /(20\d{2})-(0[1-9]|1[0-2])(?:-(\d{2}))?/.exec(sample.name);
  if (m) return { label: `${m[1]}-${m[2]}`, effective_date: `${m[1]}-${m[2]}-${m[3] ?? '01'}` };
  return undefined;
}

function quarter(y: number, q: number): VersionInfo {
  return { label: `${y}Q${q}`, effective_date: `${y}-${String((q - 1) * 3 + 1).padStart(2, '0')}-01` };
}

const CCN = /^[0-9A-Z]{6}$/;

/**
 * Restores leading zeros an Excel round-trip strips from CCNs and ZIPs (`10001` → `010001`,
 * `6105` → `06105`; pos-facilities/SOURCE.md describes such a copy). Other text is returned as is
 * and validated by the caller.
 */
export function padCode(raw: string | undefined, width: number, min: number): string {
  const v = clean(raw);
  return v.length >= min && v.length < width && /^[0-9][0-9A-Z]*$/.test(v) ? v.padStart(width, '0') : v;
}

/**
 * Medicare facilities from either of two CMS layouts, detected by header: the Provider of Services
 * file (`PRVDR_NUM, FAC_NAME, STATE_CD, FIPS_STATE_CD, FIPS_CNTY_CD, ZIP_CD, PRVDR_CTGRY_CD,
 * CBSA_CD, CBSA_URBN_RRL_IND`, codes as text with leading zeros) and the Care Compare
 * `Hospital_General_Information.csv` (quoted header, CCN/ZIP as text, no CBSA or rural flag — those
 * are derived at query time from zip_locality and cbsa_county, with a warning).
 */
export const facilities = defineDataset({
  id: 'facilities',
  title: 'Medicare facilities by CCN (Provider of Services file or Care Compare Hospital General Information)',
  publisher: 'CMS (Provider of Services file; Care Compare / Provider Data Catalog)',
  formats: [
    'POS CSV (Hospital_and_other.DATA.Q<N>_<YEAR>.csv): PRVDR_NUM, FAC_NAME, STATE_CD, FIPS_STATE_CD, FIPS_CNTY_CD, ZIP_CD, PRVDR_CTGRY_CD, PRVDR_CTGRY_SBTYP_CD, CBSA_CD, CBSA_URBN_RRL_IND, PGM_TRMNTN_CD',
    'Care Compare Hospital_General_Information.csv: "Facility ID","Facility Name",...,"County/Parish",...,"Hospital Type" (no version in the file: pass --version)',
  ],
  row: FacilityRowSchema,
  key: ['ccn'],
  // Care Compare quotes every header cell (`"Facility ID","Facility Name",...`).
  detect: (s) => s.lines.slice(0, 5).some((l) => layoutOf(l.split(',').map((x) => x.trim().replace(/^"(.*)"$/, '$1'))) !== undefined),
  version(samples): VersionInfo | undefined {
    return samples.map(versionOf).find((v) => v !== undefined);
  },
  async *parse(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<FacilityRow>> {
    const records = readRecords(file, { onBytes: ctx.onBytes })[Symbol.asyncIterator]();
    const { header } = await findHeader(records, file, (f) => layoutOf(f) !== undefined, 'POS (PRVDR_NUM, FAC_NAME, STATE_CD, PRVDR_CTGRY_CD) or Care Compare ("Facility ID", "Facility Name", "State", "ZIP Code", "Hospital Type")', 20);
    const layout = layoutOf(header.fields)!;
    const names = header.fields.map(normHeader);
    const idx = <K extends string>(cols: Record<K, string>) =>
      Object.fromEntries(Object.entries(cols).map(([k, v]) => [k, names.indexOf(v as string)])) as Record<K, number>;
    const seen = new Set<string>();
    if (layout === 'care_compare') {
      const c = idx(CARE_COMPARE_COLS);
      for await (const { line, fields } of dataRecords(records)) {
        const r = new RowReader(line);
        const ccn = r.text('ccn', padCode(fields[c.ccn], 6, 4), { required: true, pattern: CCN });
        const typeText = r.text('facility_type', fields[c.type], { required: true });
        const stateText = r.text('state', fields[c.state], { required: true, pattern: /^[A-Z]{2}$/ });
        const zip = r.text('zip', padCode(fields[c.zip], 5, 3), { pattern: /^\d{5}$/ });
        const name = r.text('name', fields[c.name], { required: true });
        const issues: Issue[] = [...r.issues];
        const type = careCompareType(typeText);
        if (typeText && !type) issues.push({ loc: ['row', line, 'facility_type'], msg: `Unknown Hospital Type '${typeText}'`, type: 'enum', input: fields[c.type] });
        yield* emit(line, issues, seen, {
          ccn,
          name,
          address: clean(fields[c.address]) || null,
          city: clean(fields[c.city]) || null,
          state: stateText,
          zip: zip || null,
          county_name: clean(fields[c.county]).toUpperCase() || null,
          county_fips: null,
          cbsa: null,
          is_rural: null,
          facility_type: type?.[0] ?? '',
          facility_type_label: type?.[1] ?? '',
          active: null,
          source_layout: 'care_compare',
        });
      }
      return;
    }
    const c = idx(POS_COLS);
    for await (const { line, fields } of dataRecords(records)) {
      const cell = (k: keyof typeof POS_COLS) => (c[k] >= 0 ? fields[c[k]] : undefined);
      const r = new RowReader(line);
      const ccn = r.text('ccn', padCode(cell('ccn'), 6, 4), { required: true, pattern: CCN });
      const name = r.text('name', cell('name'), { required: true });
      const stateText = r.text('state', cell('state'), { required: true, pattern: /^[A-Z]{2}$/ });
      // POS ZIP_CD is 5 digits, sometimes ZIP+4 run together (`941430296`): keep the first five.
      const zipRaw = r.text('zip', padCode(cell('zip'), 5, 3), { pattern: /^\d{5}(\d{4})?$/ });
      const fipsState = r.text('fips_state', cell('fips_state'), { pattern: /^\d{1,2}$/ });
      const fipsCounty = r.text('fips_county', cell('fips_county'), { pattern: /^\d{1,3}$/ });
      const category = r.text('category', cell('category'), { required: true, pattern: /^\d{2}$/ });
      const subtype = r.text('subtype', cell('subtype'), { pattern: /^\d{2}$/ });
      const cbsa = r.text('cbsa', cell('cbsa'), { pattern: /^(\d{5}|\d{2})$/ });
      const ur = r.text('urban_rural', cell('urban_rural'), { pattern: /^[UR]$/ });
      const term = r.text('termination', cell('termination'), { pattern: /^\d{2}$/ });
      const [type, label] = posType(category, subtype);
      yield* emit(line, r.issues, seen, {
        ccn,
        name,
        address: clean(cell('address')) || null,
        city: clean(cell('city')) || null,
        state: stateText,
        zip: zipRaw ? zipRaw.slice(0, 5) : null,
        // POS has no county name, only FIPS/SSA codes: the name is looked up in cbsa_county.
        county_name: null,
        county_fips: fipsState && fipsCounty ? `${fipsState.padStart(2, '0')}${fipsCounty.padStart(3, '0')}` : null,
        cbsa: cbsa || null,
        is_rural: ur ? ur === 'R' : null,
        facility_type: type,
        facility_type_label: label,
        active: term ? term === '00' : null,
        source_layout: 'pos',
      });
    }
  },
});

function* emit(line: number, issues: Issue[], seen: Set<string>, row: FacilityRow): Generator<ParsedItem<FacilityRow>> {
  if (issues.length > 0) {
    yield { line, issues };
    return;
  }
  if (!toStateCode(row.state)) {
    yield { line, issues: [{ loc: ['row', line, 'state'], msg: 'Unknown state code', type: 'value_error', input: row.state }] };
    return;
  }
  if (seen.has(row.ccn)) {
    yield { line, issues: [{ loc: ['row', line, 'ccn'], msg: `Duplicate CCN ${row.ccn} in this file`, type: 'duplicate', input: row.ccn }] };
    return;
  }
  seen.add(row.ccn);
  yield { line, row };
}

