import type { z } from 'zod';
import type { ProviderSchema } from './schemas.js';
import type { LocalNpiRecord } from '../../datasets/nppes/queries.js';
import type { ApiResult } from './registry.js';

/**
 * The NPI check digit (CMS, "Requirements for NPI check digit"): Luhn over the prefix 80840 and
 * the first nine digits; the tenth digit is the check digit. Null when valid, else why not.
 */
export function npiProblem(npi: string): string | null {
  if (!/^\d{10}$/.test(npi)) return 'an NPI is 10 digits';
  const digits = `80840${npi.slice(0, 9)}`;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    // From the right of the 14-digit string, double every second digit starting with the rightmost.
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  const check = (10 - (sum % 10)) % 10;
  return check === Number(npi[9]) ? null : `the check digit of ${npi} should be ${check} (Luhn over 80840 and the first nine digits)`;
}

type Provider = z.output<typeof ProviderSchema>;

const blank = (s: string | undefined) => (s === undefined || s.trim() === '' ? null : s.trim());

/** A registry result as the spec's provider: the LOCATION address is the practice address. */
export function providerOf(r: ApiResult): Provider {
  const b = r.basic;
  const location = r.addresses.find((a) => a.address_purpose === 'LOCATION') ?? null;
  const tax = r.taxonomies.map((t) => ({ code: t.code, description: blank(t.desc), license: blank(t.license), state: blank(t.state), primary: t.primary === true }));
  const primary = tax.find((t) => t.primary) ?? null;
  const strip = ({ primary: _p, ...t }: (typeof tax)[number]) => t;
  const individual = r.enumeration_type === 'NPI-1';
  const personal = [b.first_name, b.middle_name, b.last_name].map(blank).filter((x) => x !== null).join(' ');
  return {
    npi: r.number,
    entity_type: individual ? 'individual' : 'organization',
    name: (individual ? personal || blank(b.name) : blank(b.organization_name) ?? blank(b.name)) ?? '',
    credential: individual ? blank(b.credential) : null,
    gender: individual ? blank(b.gender) : null,
    enumeration_date: blank(b.enumeration_date),
    last_updated: blank(b.last_updated),
    status: b.status === 'A' ? 'active' : b.status === 'D' ? 'deactivated' : blank(b.status) ?? 'unknown',
    deactivation_date: blank(b.deactivation_date),
    primary_taxonomy: primary ? strip(primary) : null,
    other_taxonomies: tax.filter((t) => t !== primary).map(strip),
    practice_address: location
      ? {
          address_1: blank(location.address_1),
          address_2: blank(location.address_2),
          city: blank(location.city),
          state: blank(location.state),
          postal_code: blank(location.postal_code),
          phone: blank(location.telephone_number),
          fax: blank(location.fax_number),
        }
      : null,
  };
}

/**
 * A local NPPES row as the spec's provider: the data file's practice location is the practice
 * address. The bulk file has no taxonomy descriptions (codes only): `description` is null.
 */
export function providerOfLocal(r: LocalNpiRecord): Provider {
  const p = r.provider;
  const tax = p.taxonomies.map((t) => ({ code: t.code, description: null, license: t.license, state: t.license_state, primary: t.primary }));
  const primary = tax.find((t) => t.primary) ?? null;
  const strip = ({ primary: _p, ...t }: (typeof tax)[number]) => t;
  const individual = p.entity_type === 'individual';
  const personal = [p.first_name, p.middle_name, p.last_name].filter((x) => x !== null).join(' ');
  const a = p.practice_address;
  return {
    npi: p.npi,
    entity_type: p.entity_type,
    name: (individual ? personal : p.organization_name) ?? '',
    credential: individual ? p.credential : null,
    gender: individual ? p.sex : null,
    enumeration_date: p.enumeration_date,
    last_updated: p.last_updated,
    status: p.status,
    deactivation_date: p.deactivation_date,
    primary_taxonomy: primary ? strip(primary) : null,
    other_taxonomies: tax.filter((t) => t !== primary).map(strip),
    practice_address: a ? { address_1: a.address_1, address_2: a.address_2, city: a.city, state: a.state, postal_code: a.postal_code, phone: a.telephone, fax: a.fax } : null,
  };
}
