import { getFacility, type FacilityProfile } from '../../datasets/facilities/queries.js';
import { payerKnowledge } from '../../datasets/payers/queries.js';
import { NotFoundError, ValidationError } from '../../warehouse/errors.js';
import type { FacilityRegistration, PaOverrideFields, RegistrationFields, RosterFields } from '../../warehouse/facilities.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { TenantStore } from '../../warehouse/state.js';
import { payerParamIssues, resolvePayer } from '../payers/service.js';
import { isHospitalType } from '../payment/service.js';

/** A CCN as the tenant sees it: the public reference row (if any) and the tenant's registration (if any). */
export interface FacilityView {
  ccn: string;
  profile: FacilityProfile | null;
  registration: FacilityRegistration | null;
}

/** The public profile of a CCN, or null when the reference data does not list it. */
export async function referenceProfile(snapshot: SnapshotReader, ccn: string): Promise<FacilityProfile | null> {
  try {
    return await getFacility(snapshot, ccn);
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    throw e;
  }
}

/**
 * Both halves of a CCN for the tenant.
 * @throws NotFoundError when the CCN is neither in the reference data nor registered by the tenant.
 */
export async function facilityView(snapshot: SnapshotReader, tenant: TenantStore, ccn: string): Promise<FacilityView> {
  const [profile, registration] = await Promise.all([referenceProfile(snapshot, ccn), tenant.facilities.get(ccn)]);
  if (!profile && !registration) {
    throw new NotFoundError(`CCN ${ccn} is not in the facility reference data${snapshot.has('facilities') ? '' : ' (facilities is not loaded)'} and not registered by this tenant`);
  }
  return { ccn, profile, registration };
}

/** What the tenant's registration changes: its own name, type, state and default place of service win. */
export function effectiveFacility(v: FacilityView): { name: string; state: string | null; facility_type: string; place_of_service: string | null } {
  const reg = v.registration;
  const type = reg?.facility_type ?? v.profile?.facility_type ?? 'unknown';
  return {
    name: reg?.name ?? v.profile?.name ?? v.ccn,
    state: reg?.state ?? v.profile?.state ?? null,
    facility_type: type,
    // The default the prior-auth check and payment assume: the registration's, else on-campus outpatient hospital for hospitals.
    place_of_service: reg?.place_of_service ?? (isHospitalType(type) ? '22' : null),
  };
}

/** The body of `GET`/`PUT /v1/facilities/{ccn}`: the public profile merged with the tenant's registration. */
export function mergedProfile(v: FacilityView) {
  const e = effectiveFacility(v);
  const p = v.profile;
  const warnings = [...(p?.warnings ?? [])];
  if (!p) warnings.push(`CCN ${v.ccn} is not in the facility reference data: only the tenant's registration is known (no locality, CBSA or wage index)`);
  const reg = v.registration;
  return {
    profile: {
      ccn: v.ccn,
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
      facility_type_label: reg?.facility_type ? reg.facility_type.replace(/_/g, ' ') : (p?.facility_type_label ?? 'unknown'),
      place_of_service: e.place_of_service,
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
export function registrationFields(v: { profile: FacilityProfile | null; ccn: string }, body: Partial<RegistrationFields> | undefined): RegistrationFields {
  const b = body ?? {};
  if (!v.profile && (!b.name || !b.state)) {
    throw new NotFoundError(`CCN ${v.ccn} is not in the facility reference data; registering it needs name and state in the body`);
  }
  return { name: b.name ?? null, facility_type: b.facility_type ?? null, place_of_service: b.place_of_service ?? null, state: b.state ?? null };
}

/** A body's payer (slug or alias) as its slug and name; an unknown one is a 422 on `body.payer_slug`. */
async function bodyPayer(snapshot: SnapshotReader, raw: string): Promise<{ slug: string; name: string }> {
  const k = await payerKnowledge(snapshot);
  const issues = payerParamIssues(k, raw, ['body', 'payer_slug']);
  if (issues.length) throw new ValidationError(issues);
  const p = resolvePayer(k, raw);
  return { slug: p.slug, name: p.name };
}

/** A date or date-time of a body as an ISO date-time (dates are midnight UTC). */
export const toDateTime = (s: string | undefined): string | null => (s === undefined ? null : new Date(s.length === 10 ? `${s}T00:00:00Z` : s).toISOString());

export interface RosterBody {
  payer_slug: string;
  network_status?: RosterFields['network_status'];
  effective_date?: string;
  expiration_date?: string;
  notes?: string;
  plan_types?: string[];
  is_active?: boolean;
}

/** The roster entry a body describes (payer as slug); an unknown payer is a 422 on `payer_slug`. */
export async function rosterFields(snapshot: SnapshotReader, b: RosterBody): Promise<RosterFields> {
  const p = await bodyPayer(snapshot, b.payer_slug);
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

export interface OverrideBody {
  payer_slug?: string;
  code?: string;
  code_type?: string;
  service_category?: string;
  pa_required: boolean;
  auth_type?: string;
  delegation_vendor?: string;
  reason?: string;
  source_document?: string;
  effective_date?: string;
  expiration_date?: string;
  is_active?: boolean;
}

export async function overrideFields(snapshot: SnapshotReader, b: OverrideBody): Promise<PaOverrideFields> {
  const payer = b.payer_slug !== undefined ? await bodyPayer(snapshot, b.payer_slug) : null;
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
