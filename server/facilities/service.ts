import type { z } from 'zod';
import type { PayerRow } from '../../datasets/payers/schema.js';
import { NotFoundError } from '../../warehouse/errors.js';
import type { FacilityRegistration, PaOverrideFields, RegistrationFields, RosterFields } from '../../warehouse/facilities.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { TenantStore } from '../../warehouse/tenant_state.js';
import { getFacilityReference } from './geography.js';
import type { FacilityReference, OverrideBodySchema, PaymentSystemSchema, RosterBodySchema } from './schemas.js';

/**
 * How Medicare pays the facility's outpatient services (`PaymentSystemSchema`, one decision for
 * payment, prior auth and knowledge resolve).
 */
export type PaymentSystem = z.output<typeof PaymentSystemSchema>;

/**
 * A federal hospital's CCN: F in the sixth position (01014F, Birmingham VA Medical Center, in the
 * Care Compare Hospital General Information file); Care Compare types them `va_acute_care_hospital`
 * (Acute Care - Veterans Administration) and `dod_acute_care_hospital` (Department of Defense).
 */
export function isFederalCcn(ccn: string): boolean {
  return /^\d{5}F$/.test(ccn);
}

/** True for the facility types that bill hospital outpatient services (not a Medicaid-only hospital). */
export function isHospitalType(facilityType: string): boolean {
  return /(^|_)hospital$/.test(facilityType) && facilityType !== 'medicaid_only_hospital';
}

/** The payment system of a CCN with a facility type (see `PaymentSystem`). */
export function paymentSystemOf(ccn: string, facilityType: string): PaymentSystem {
  if (!isHospitalType(facilityType)) return 'non_hospital';
  if (isFederalCcn(ccn) || facilityType === 'va_acute_care_hospital' || facilityType === 'dod_acute_care_hospital') return 'federal';
  if (facilityType === 'critical_access_hospital') return 'cah_cost';
  if (facilityType === 'rural_emergency_hospital') return 'reh';
  if (ccn.startsWith('21')) return 'maryland';
  return 'opps';
}

/**
 * CCN number series of the last four digits (CMS State Operations Manual, chapter 2, section
 * 2779A1, "CMS Certification Number"): the ranges kept here are those for hospitals, hospices,
 * dialysis facilities and skilled nursing facilities; a CCN outside them (or with a letter in the
 * third position: a distinct-part unit or swing-bed number) has no category here.
 */
const CCN_SERIES: [number, number, string][] = [
  [1, 879, 'short-term (general and specialty) hospital'],
  [1300, 1399, 'critical access hospital'],
  [1500, 1799, 'hospice'],
  [2000, 2299, 'long-term care hospital'],
  [2300, 2499, 'hospital-based renal dialysis facility'],
  [2500, 2899, 'independent renal dialysis facility'],
  [3025, 3099, 'rehabilitation hospital'],
  [3300, 3399, "children's hospital"],
  [4000, 4499, 'psychiatric hospital'],
  [5000, 6499, 'skilled nursing facility'],
];

/** The category a CCN's number series names, or null outside the kept ranges (see CCN_SERIES). */
export function ccnCategory(ccn: string): { range: string; category: string; citation: string } | null {
  if (!/^\d{6}$/.test(ccn)) return null;
  const n = Number(ccn.slice(2));
  const hit = CCN_SERIES.find(([lo, hi]) => n >= lo && n <= hi);
  if (!hit) return null;
  const pad = (x: number) => String(x).padStart(4, '0');
  return { range: `${pad(hit[0])}-${pad(hit[1])}`, category: hit[2], citation: 'CMS State Operations Manual, chapter 2, section 2779A1 (CCN number series)' };
}

/** A CCN as one tenant sees it: the reference row, the tenant's registration, and what they make together. */
export interface Facility {
  ccn: string;
  /** The public row with its payment geography; null when only the tenant's registration knows the CCN. */
  reference: FacilityReference | null;
  /** The tenant's registration, active or not (the facility routes show it either way). */
  registration: FacilityRegistration | null;
  /** True when an active registration applies: only then does it change any answer. */
  registered: boolean;
  /** The facility as every answer uses it: the active registration's fields win over the reference's. */
  effective: {
    name: string;
    state: string | null;
    facility_type: string;
    /** The default place of service: the registration's, else on-campus outpatient hospital (22) for hospitals. */
    place_of_service: string | null;
    payment_system: PaymentSystem;
    /**
     * The facility bills its practitioners' professional services under the optional payment
     * method (CAH Method II, 42 CFR 413.70(b)(3)): only an active registration elects it (the
     * reference data does not say), and it prices only at a critical access hospital.
     */
    cah_method_ii: boolean;
  };
  /** Which effective fields came from the registration (for the answers' warnings). */
  fromRegistration: ('name' | 'state' | 'facility_type' | 'place_of_service')[];
}

/** The reference row of a CCN, or null when the reference data does not list it (or is not loaded). */
async function lookupReference(snapshot: SnapshotReader, ccn: string): Promise<FacilityReference | null> {
  try {
    return await getFacilityReference(snapshot, ccn);
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    throw e;
  }
}

/** What facility resolution reads of a tenant: its registrations (a request's tenant view, or an agent's read-only one). */
export type FacilityReads = { facilities: Pick<TenantStore['facilities'], 'lookup'> };

/**
 * The one rule for what a tenant's registration changes, for payment, prior auth, the facility
 * routes and knowledge resolve: an active registration's name, state, facility type and default
 * place of service win over the reference data, and its CAH Method II election is the facility's;
 * an inactive (soft-deleted) one changes nothing (its determinations stay readable). `need: 'reference'` (payment, which prices with the
 * geography) requires the CCN in the reference data; `'either'` accepts a registration alone.
 * Without a tenant (an answer shared across tenants) only the reference counts.
 * @throws NotFoundError when the CCN is not known as `need` requires.
 */
export async function resolveFacility(snapshot: SnapshotReader, tenant: FacilityReads | null, ccn: string, need: 'reference' | 'either'): Promise<Facility> {
  const [reference, registration] = await Promise.all([
    need === 'reference' ? getFacilityReference(snapshot, ccn) : lookupReference(snapshot, ccn),
    tenant ? tenant.facilities.lookup(ccn) : null,
  ]);
  if (!reference && !registration) {
    throw new NotFoundError(`CCN ${ccn} is not in the facility reference data${snapshot.has('facilities') ? '' : ' (facilities is not loaded)'} and not registered by this tenant`);
  }
  const active = registration?.is_active ? registration : null;
  const fromRegistration: Facility['fromRegistration'] = [];
  const pick = <K extends 'name' | 'state' | 'facility_type' | 'place_of_service'>(k: K, fallback: FacilityRegistration[K] | undefined) => {
    const own = active?.[k];
    if (own !== null && own !== undefined && own !== fallback) fromRegistration.push(k);
    return own ?? fallback ?? null;
  };
  const facility_type = pick('facility_type', reference?.facility_type) ?? 'unknown';
  return {
    ccn,
    reference,
    registration,
    registered: active !== null,
    effective: {
      name: pick('name', reference?.name) ?? ccn,
      state: pick('state', reference?.state),
      facility_type,
      place_of_service: pick('place_of_service', null) ?? (isHospitalType(facility_type) ? '22' : null),
      payment_system: paymentSystemOf(ccn, facility_type),
      cah_method_ii: active?.cah_method_ii === true,
    },
    fromRegistration,
  };
}

/** The body of `GET`/`PUT /v1/facilities/{ccn}`: the reference profile merged with the tenant's registration. */
export function facilityProfile(f: Facility) {
  const e = f.effective;
  const p = f.reference;
  const warnings = [...(p?.warnings ?? [])];
  if (!p) warnings.push(`CCN ${f.ccn} is not in the facility reference data: only the tenant's registration is known (no locality, CBSA or wage index)`);
  if (f.registration && !f.registered) warnings.push(`your registration of ${f.ccn} is inactive (soft-deleted): it changes no answer until you register the CCN again`);
  if (e.cah_method_ii && e.payment_system !== 'cah_cost') {
    warnings.push(`cah_method_ii: your registration elects Method II, but ${f.ccn} is not a critical access hospital (facility type ${e.facility_type}): payment ignores it`);
  }
  const reg = f.registration;
  return {
    profile: {
      ccn: f.ccn,
      name: e.name,
      address: p?.address ?? null,
      city: p?.city ?? null,
      state: e.state ?? '',
      county: p?.county ?? null,
      county_fips: p?.county_fips ?? null,
      zip: p?.zip ?? null,
      cbsa: p?.cbsa ?? null,
      cbsa_name: p?.cbsa_name ?? null,
      locality: p?.locality ?? null,
      locality_number: p?.locality_number ?? null,
      mac: p?.mac ?? null,
      locality_name: p?.locality_name ?? null,
      locality_source: p?.locality_source ?? null,
      wage_index: p?.wage_index ?? null,
      is_rural: p ? p.is_rural : null,
      rural_source: p?.rural_source ?? null,
      facility_type: e.facility_type,
      facility_type_label: f.fromRegistration.includes('facility_type') ? e.facility_type.replace(/_/g, ' ') : (p?.facility_type_label ?? 'unknown'),
      place_of_service: e.place_of_service,
      cah_method_ii: e.cah_method_ii,
      active: p?.active ?? null,
      source_layout: p?.source_layout ?? ('tenant' as const),
      registered: reg !== null,
      is_active: reg ? reg.is_active : null,
      registration: reg,
    },
    warnings,
    versions: p?.versions ?? {},
  };
}

/** A registration body: for a CCN outside the reference data, name and state are required. */
export function registrationFields(
  v: { reference: FacilityReference | null; ccn: string },
  body: (Partial<Omit<RegistrationFields, 'cah_method_ii'>> & { cah_method_ii?: boolean | null }) | undefined,
): RegistrationFields {
  const b = body ?? {};
  if (!v.reference && (!b.name || !b.state)) {
    throw new NotFoundError(`CCN ${v.ccn} is not in the facility reference data; registering it needs name and state in the body`);
  }
  return {
    name: b.name ?? null,
    facility_type: b.facility_type ?? null,
    place_of_service: b.place_of_service ?? null,
    state: b.state ?? null,
    cah_method_ii: b.cah_method_ii ?? false,
  };
}

/** A date or date-time of a body as an ISO date-time (dates are midnight UTC). */
export const toDateTime = (s: string | undefined): string | null => (s === undefined ? null : new Date(s.length === 10 ? `${s}T00:00:00Z` : s).toISOString());

export type RosterBody = z.output<typeof RosterBodySchema>;
export type OverrideBody = z.output<typeof OverrideBodySchema>;

/** The roster entry a body describes, with the payer its `resolve` step found (stored by slug). */
export function rosterFields(p: PayerRow, b: RosterBody): RosterFields {
  return {
    payer_slug: p.slug,
    payer_name: p.name,
    network_status: b.network_status ?? 'unknown',
    effective_date: toDateTime(b.effective_date),
    expiration_date: toDateTime(b.expiration_date),
    is_active: b.is_active ?? true,
    notes: b.notes ?? null,
    plan_types: [...new Set(b.plan_types ?? [])],
  };
}

/** The override a body describes, with its payer (null: every payer) as the `resolve` step found it. */
export function overrideFields(payer: PayerRow | null, b: OverrideBody): PaOverrideFields {
  return {
    payer_slug: payer?.slug ?? null,
    payer_name: payer?.name ?? null,
    code: b.code ?? null,
    code_type: b.code_type ?? (b.code ? (/^\d{4}[0-9A-Z]$/.test(b.code) ? 'CPT' : 'HCPCS') : null),
    service_category: b.service_category ?? null,
    pa_required: b.pa_required,
    auth_type: b.auth_type ?? null,
    delegation_vendor: b.delegation_vendor ?? null,
    reason: b.reason ?? null,
    source_document: b.source_document ?? null,
    effective_date: toDateTime(b.effective_date),
    expiration_date: toDateTime(b.expiration_date),
    is_active: b.is_active ?? true,
  };
}
