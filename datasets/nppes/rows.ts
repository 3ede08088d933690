import type { Issue } from '../../warehouse/errors.js';
import { toIsoDate } from '../_shared/values.js';
import type { Layout } from './layout.js';
import type { NppesAddress, OtherNameRow, PracticeLocationRow, ProviderRow } from './schema.js';
import { ownValue } from '../../lib/own.js';

// The row rules of the JS path; native.ts states the same rules in SQL (and is tested against these).

/** CMS's masks and suppression marker, and what each withholds (Readme 1.1). */
export const MASKS: Record<string, 'ssn' | 'itin' | 'ein' | 'unavailable'> = {
  $$$$$$$$$: 'ssn',
  '*********': 'itin',
  '=========': 'ein',
  '<UNAVAIL>': 'unavailable',
};

export const DATE_RE = /^\d{2}\/\d{2}\/\d{4}$/;
export const NPI_RE = /^\d{10}$/;
export const SWITCH_VALUES = ['', 'Y', 'N', 'X'];

/** Reads the cells of one record by field name, collecting every issue (`loc: ['row', line, header]`). */
class Cells {
  readonly issues: Issue[] = [];
  constructor(
    private readonly layout: Layout,
    private readonly fields: string[],
    private readonly line: number,
  ) {}

  private fail(index: number, msg: string, type: string): void {
    const input = this.fields[index];
    this.issues.push({ loc: ['row', this.line, this.layout.header[index] ?? `column ${index + 1}`], msg, type, input });
  }

  /** The cell at `index` ('' and absent columns are null). */
  at(index: number | undefined): string | null {
    if (index === undefined) return null;
    const v = this.fields[index];
    return v === undefined || v === '' ? null : v;
  }
  text(name: string, m: Map<string, number> = this.layout.at): string | null {
    return this.at(m.get(name));
  }
  date(name: string): string | null {
    const i = this.layout.at.get(name);
    const v = this.at(i);
    if (v === null) return null;
    const iso = DATE_RE.test(v) ? toIsoDate(v) : null;
    if (iso === null) this.fail(i!, 'not a date in MM/DD/YYYY form', 'date');
    return iso;
  }
  masked(name: string, m: Map<string, number> = this.layout.at): { value: string | null; withheld: ProviderRow['ein_withheld'] } {
    const v = this.text(name, m);
    const w = ownValue(MASKS, v);
    return w ? { value: null, withheld: w } : { value: v, withheld: null };
  }
  switch(name: string, m: Map<string, number>): boolean {
    const i = m.get(name);
    const v = this.at(i) ?? '';
    if (!SWITCH_VALUES.includes(v)) this.fail(i!, "primary taxonomy switch is not 'Y', 'N' or 'X'", 'enum');
    return v === 'Y';
  }
  npi(name: string): string {
    const i = this.layout.at.get(name)!;
    const v = this.fields[i] ?? '';
    if (!NPI_RE.test(v)) this.fail(i, 'an NPI is 10 digits', 'npi');
    return v;
  }
  failAt(name: string, msg: string, type: string): void {
    this.fail(this.layout.at.get(name)!, msg, type);
  }
}

/** An object of the prefixed fields, or null when every one is empty. */
function group<K extends string>(c: Cells, prefix: string, keys: readonly K[]): Record<K, string | null> | null {
  const o = Object.fromEntries(keys.map((k) => [k, c.text(`${prefix}${k}`)])) as Record<K, string | null>;
  return Object.values(o).some((v) => v !== null) ? o : null;
}

export const ADDRESS_KEYS = ['address_1', 'address_2', 'city', 'state', 'postal_code', 'country_code', 'telephone', 'fax'] as const;
export const AO_KEYS = ['last_name', 'first_name', 'middle_name', 'title', 'telephone', 'name_prefix', 'name_suffix', 'credential'] as const;

export type Built<R> = { row: R; issues?: undefined } | { row?: undefined; issues: Issue[] };

/** A data file record as a provider row, or its issues. */
export function providerRow(layout: Layout, fields: string[], line: number): Built<ProviderRow> {
  const c = new Cells(layout, fields, line);
  const npi = c.npi('npi');
  const deactivation_date = c.date('deactivation_date');
  const reactivation_date = c.date('reactivation_date');
  const code = c.text('entity_type');
  if (code !== '1' && code !== '2' && !(code === null && deactivation_date !== null)) {
    c.failAt('entity_type', code === null ? 'no entity type, and no deactivation date (only a deactivated NPI leaves it blank)' : "entity type is not '1' (individual) or '2' (organization)", 'enum');
  }
  const ein = c.masked('ein');
  const tin = c.masked('parent_organization_tin');
  const taxonomies: ProviderRow['taxonomies'] = [];
  for (const m of layout.taxonomies) {
    const primary = c.switch('primary', m);
    const tcode = c.text('code', m);
    if (tcode === null) continue;
    const lic = c.masked('license', m);
    taxonomies.push({ code: tcode, license: lic.value, license_withheld: lic.withheld, license_state: c.text('license_state', m), primary, group: c.text('group', m) });
  }
  const identifiers: ProviderRow['identifiers'] = [];
  for (const m of layout.identifiers) {
    if (c.text('identifier', m) === null) continue;
    const id = c.masked('identifier', m);
    identifiers.push({ identifier: id.value, withheld: id.withheld, type_code: c.text('type_code', m), state: c.text('state', m), issuer: c.text('issuer', m) });
  }
  const row: ProviderRow = {
    npi,
    entity_type: code === '1' ? 'individual' : code === '2' ? 'organization' : null,
    status: deactivation_date !== null && (reactivation_date === null || reactivation_date < deactivation_date) ? 'deactivated' : 'active',
    replacement_npi: c.text('replacement_npi'),
    ein: ein.value,
    ein_withheld: ein.withheld,
    organization_name: c.text('organization_name'),
    last_name: c.text('last_name'),
    first_name: c.text('first_name'),
    middle_name: c.text('middle_name'),
    name_prefix: c.text('name_prefix'),
    name_suffix: c.text('name_suffix'),
    credential: c.text('credential'),
    other_organization_name: c.text('other_organization_name'),
    other_organization_name_type: c.text('other_organization_name_type'),
    other_last_name: c.text('other_last_name'),
    other_first_name: c.text('other_first_name'),
    other_middle_name: c.text('other_middle_name'),
    other_name_prefix: c.text('other_name_prefix'),
    other_name_suffix: c.text('other_name_suffix'),
    other_credential: c.text('other_credential'),
    other_last_name_type: c.text('other_last_name_type'),
    mailing_address: group(c, 'mailing_', ADDRESS_KEYS) as NppesAddress | null,
    practice_address: group(c, 'practice_', ADDRESS_KEYS) as NppesAddress | null,
    enumeration_date: c.date('enumeration_date'),
    last_updated: c.date('last_updated'),
    deactivation_reason: c.text('deactivation_reason'),
    deactivation_date,
    reactivation_date,
    sex: c.text('sex'),
    authorized_official: group(c, 'ao_', AO_KEYS),
    taxonomies,
    identifiers,
    sole_proprietor: c.text('sole_proprietor'),
    organization_subpart: c.text('organization_subpart'),
    parent_organization_lbn: c.text('parent_organization_lbn'),
    parent_organization_tin: tin.value,
    parent_organization_tin_withheld: tin.withheld,
    certification_date: c.date('certification_date'),
  };
  return c.issues.length ? { issues: c.issues } : { row };
}

/** A practice location record (its ordinal is counted by the caller, per NPI in file order). */
export function practiceLocationRow(layout: Layout, fields: string[], line: number, ordinal: number): Built<PracticeLocationRow> {
  const c = new Cells(layout, fields, line);
  const npi = c.npi('npi');
  const row: PracticeLocationRow = {
    npi,
    ordinal,
    ...(Object.fromEntries(ADDRESS_KEYS.map((k) => [k, c.text(k)])) as NppesAddress),
    telephone_extension: c.text('telephone_extension'),
  };
  return c.issues.length ? { issues: c.issues } : { row };
}

export function otherNameRow(layout: Layout, fields: string[], line: number, ordinal: number): Built<OtherNameRow> {
  const c = new Cells(layout, fields, line);
  const npi = c.npi('npi');
  const row: OtherNameRow = { npi, ordinal, organization_name: c.text('organization_name'), type_code: c.text('type_code') };
  return c.issues.length ? { issues: c.issues } : { row };
}
