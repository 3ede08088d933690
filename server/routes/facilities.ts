import { z } from 'zod';
import { defineRoute, json, result, type RouteDef } from '../route.js';
import {
  DeleteQuerySchema,
  FacilityDeleteResultSchema,
  FacilityListSchema,
  FacilityParamsSchema,
  FacilityProfileSchema,
  OverrideBodySchema,
  OverrideDeleteResultSchema,
  PaOverrideAnswerSchema,
  PaOverrideListSchema,
  RegistrationBodySchema,
  RosterBodySchema,
  RosterEntryAnswerSchema,
  RosterListSchema,
} from '../facilities/schemas.js';
import { facilityProfile, overrideFields, registrationFields, resolveFacility, rosterFields } from '../facilities/service.js';
import { resolvePayerIn } from '../payers/service.js';
import type { PaOverride, RosterEntry } from '../../warehouse/facilities.js';

const WRITE = { scope: 'knowledge' } as const;
const EXAMPLE_CCN = '050454';

const rosterOut = ({ ccn: _ccn, ...e }: RosterEntry) => e;
const overrideOut = ({ ccn: _ccn, ...o }: PaOverride) => o;

/**
 * Facilities: the public profile by CCN (reference data) and the tenant's own registration,
 * payer roster and prior-auth overrides. Writes need the `knowledge` scope and are tenant-scoped;
 * each commits (and bumps the tenant's generation, so cached answers that used it are stale)
 * before the answer leaves.
 */
export const facilityRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/facilities',
    operationId: 'listFacilities',
    tag: 'facilities',
    summary: "The calling tenant's registered facilities (active and soft-deleted)",
    auth: { scope: 'knowledge' },
    reads: 'snapshot+tenant',
    cache: true,
    response: FacilityListSchema,
    examples: [
      { summary: "the tenant's facilities" },
      { summary: 'an unknown query parameter', status: 422, query: { state: 'CA' } },
    ],
    handler: async ({ snapshot, tenant, trace }) => {
      const regs = await tenant.facilities.list();
      // Each registration is read against the reference data: named even when the list is empty.
      trace.use('facilities');
      const facilities = await Promise.all(
        regs.map(async (r) => {
          // The registration's own fields, active or not: this is the tenant's list of what it registered.
          const p = (await resolveFacility(snapshot, null, r.ccn, 'either').catch(() => null))?.reference ?? null;
          return {
            ccn: r.ccn,
            name: r.name ?? p?.name ?? r.ccn,
            state: r.state ?? p?.state ?? null,
            facility_type: r.facility_type ?? p?.facility_type ?? 'unknown',
            place_of_service: r.place_of_service,
            in_reference_data: p !== null,
            is_active: r.is_active,
            created_at: r.created_at,
            updated_at: r.updated_at,
          };
        }),
      );
      return { facilities, total: facilities.length, reliability: trace.reliability() };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/facilities/{ccn}',
    operationId: 'getFacility',
    tag: 'facilities',
    summary: 'Facility profile by CCN with locality, CBSA, wage index and rural flag, merged with your registration',
    description:
      'Locality comes from the facility ZIP (CMS ZIP5 carrier locality file), falling back to its county (LOCCO). ' +
      'CBSA and the rural flag come from the facility file when it has them, otherwise they are derived and the derivation is listed in reliability.warnings. ' +
      "The tenant's registration (PUT) overrides name, facility type, state and default place of service, and records a critical access hospital's Method II election (`cah_method_ii`); `registered` and `is_active` describe it.",
    auth: { scope: 'knowledge' },
    reads: 'snapshot+tenant',
    cache: true,
    params: FacilityParamsSchema,
    response: FacilityProfileSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'a hospital in California', params: { ccn: EXAMPLE_CCN } },
      { summary: 'a CCN in no CMS file and not registered', status: 404, params: { ccn: '999999' } },
      { summary: 'a CCN too short', status: 422, params: { ccn: '12' } },
    ],
    handler: async ({ params, snapshot, tenant, trace }) => {
      const { profile, warnings, versions } = facilityProfile(await resolveFacility(snapshot, tenant, params.ccn, 'either'));
      // The reference data was searched for the CCN even when it has no row (only the registration answers).
      return { ...profile, reliability: trace.use('facilities').useAll(versions).warn(...warnings).reliability() };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/facilities/{ccn}',
    operationId: 'registerFacility',
    tag: 'facilities',
    summary: 'Register a CCN for your tenant (201 the first time, 200 after), optionally overriding name, type, state and default place of service',
    description:
      'The body replaces the previous registration (omitted fields fall back to the reference data) and re-activates a soft-deleted one. ' +
      'A CCN absent from the reference data needs `name` and `state`, else 404. ' +
      '`cah_method_ii: true` records that a critical access hospital elected the optional payment method (Method II, 42 CFR 413.70(b)(3)): ' +
      'payment at the CCN then prices professional services at 115% of the facility fee schedule amount unless its query passes `cah_method_ii=false`; omitted, null or false is not elected.',
    auth: WRITE,
    reads: 'snapshot+tenant',
    params: FacilityParamsSchema,
    body: json(RegistrationBodySchema, 16 * 1024),
    response: FacilityProfileSchema,
    responseHeaders: { Location: { description: 'the registered facility: /v1/facilities/{ccn}', always: true } },
    alsoStatus: [201],
    errors: ['not_found'],
    examples: [
      { summary: 'register a hospital as an outpatient department', params: { ccn: EXAMPLE_CCN }, body: { place_of_service: '22' } },
      { summary: 'register a hospital the first time', status: 201, params: { ccn: '330101' }, body: {} },
      { summary: 'register it again with a facility type', status: 200, params: { ccn: '330101' }, body: { facility_type: 'acute_care_hospital' } },
      { summary: 'register a clinic in no CMS file, naming it', status: 201, params: { ccn: '99999Z' }, body: { name: 'Clinic not in the CMS files', state: 'TX' } },
      { summary: 'a numeric CCN in no CMS file', status: 404, params: { ccn: '999999' }, body: {} },
      { summary: 'a place of service that is not a code, and an unknown field', status: 422, params: { ccn: '330101' }, body: { place_of_service: 'office', color: 'red' } },
    ],
    handler: async ({ params, body, snapshot, tenant, now, trace }) => {
      const ccn = params.ccn;
      const reference = (await resolveFacility(snapshot, null, ccn, 'either').catch(() => null))?.reference ?? null;
      const { created } = await tenant.facilities.register(ccn, registrationFields({ ccn, reference }, body), now());
      const { profile, warnings, versions } = facilityProfile(await resolveFacility(snapshot, tenant, ccn, 'either'));
      return result(created ? 201 : 200, { ...profile, reliability: trace.use('facilities').useAll(versions).warn(...warnings).reliability() }, { location: `/v1/facilities/${ccn}` });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/facilities/{ccn}',
    operationId: 'deleteFacility',
    tag: 'facilities',
    summary: 'Deactivate (default) or, with hard=true, remove a registration with its roster and overrides',
    description:
      'Soft delete sets is_active false: overrides stop applying and determinations made with them still resolve. ' +
      'hard=true removes the registration, roster and overrides in one transaction; cached answers that used them are dropped with it. ' +
      'Persisted determinations are audit records and stay.',
    auth: WRITE,
    reads: 'tenant',
    params: FacilityParamsSchema,
    query: DeleteQuerySchema,
    response: FacilityDeleteResultSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'deactivate a registration', status: 404, params: { ccn: '999999' } },
      { summary: 'delete the clinic registered above for good', status: 200, params: { ccn: '99999Z' }, query: { hard: 'true' } },
      { summary: 'delete it again', status: 404, params: { ccn: '99999Z' } },
      { summary: 'hard is true or false', status: 422, params: { ccn: '330101' }, query: { hard: 'maybe' } },
    ],
    handler: async ({ params, query, tenant, now }) => {
      const hard = query.hard ?? false;
      await tenant.facilities.remove(params.ccn, hard, now());
      return { ccn: params.ccn, deleted: true, hard, is_active: false };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/facilities/{ccn}/payers',
    operationId: 'upsertFacilityPayer',
    tag: 'facilities',
    summary: "Add or update a payer on the facility's roster (idempotent on facility and payer: 201 created, 200 updated, same id)",
    description:
      'payer_slug takes a slug or an alias and is stored as the slug; an unknown payer is 422. The body replaces the entry (omitted fields take their defaults). ' +
      'A CCN in the reference data that the tenant has not registered is registered implicitly.',
    auth: WRITE,
    reads: 'snapshot+tenant',
    params: FacilityParamsSchema,
    body: json(RosterBodySchema, 16 * 1024),
    resolve: resolvePayerIn('body', 'payer_slug'),
    response: RosterEntryAnswerSchema,
    alsoStatus: [201],
    errors: ['not_found'],
    examples: [
      { summary: 'UnitedHealthcare in network', params: { ccn: EXAMPLE_CCN }, body: { payer_slug: 'united healthcare', network_status: 'in_network', plan_types: ['commercial'] } },
      { summary: 'add a payer to the roster', status: 201, params: { ccn: '330101' }, body: { payer_slug: 'aetna' } },
      { summary: 'update it, naming the payer in another case', status: 200, params: { ccn: '330101' }, body: { payer_slug: 'Aetna', network_status: 'out_of_network' } },
      { summary: 'an unknown payer and notes too long', status: 422, params: { ccn: '330101' }, body: { payer_slug: 'no such payer', notes: 'x'.repeat(2001) } },
      { summary: 'a CCN nobody knows', status: 404, params: { ccn: '999999' }, body: { payer_slug: 'aetna' } },
    ],
    handler: async ({ params, body, resolved, snapshot, tenant, now, trace }) => {
      await resolveFacility(snapshot, tenant, params.ccn, 'either'); // 404 for a CCN nobody knows
      const { entry, created } = await tenant.rosters.upsert(params.ccn, rosterFields(resolved.payer!, body), now());
      return result(created ? 201 : 200, { ...rosterOut(entry), reliability: trace.use('facilities').use('payers').reliability() });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/facilities/{ccn}/payers',
    operationId: 'listFacilityPayers',
    tag: 'facilities',
    summary: "The facility's payer roster",
    auth: { scope: 'knowledge' },
    reads: 'tenant',
    cache: true,
    params: FacilityParamsSchema,
    response: RosterListSchema,
    examples: [
      { summary: 'roster of a facility', params: { ccn: EXAMPLE_CCN } },
      { summary: 'the roster built above', params: { ccn: '330101' } },
      { summary: 'a CCN too short', status: 422, params: { ccn: '3301' } },
    ],
    handler: async ({ params, tenant }) => {
      const payers = (await tenant.rosters.list(params.ccn)).map(rosterOut);
      return { ccn: params.ccn, payers, total: payers.length };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/facilities/{ccn}/pa-overrides',
    operationId: 'listPaOverrides',
    tag: 'facilities',
    summary: "The facility's prior-auth overrides (tier 0 of the prior-auth check)",
    auth: { scope: 'knowledge' },
    reads: 'tenant',
    cache: true,
    params: FacilityParamsSchema,
    response: PaOverrideListSchema,
    examples: [
      { summary: 'overrides of a facility', params: { ccn: EXAMPLE_CCN } },
      { summary: 'a facility without overrides', params: { ccn: '330101' } },
      { summary: 'a CCN too short', status: 422, params: { ccn: '3301' } },
    ],
    handler: async ({ params, tenant }) => {
      const overrides = (await tenant.overrides.list(params.ccn)).map(overrideOut);
      return { ccn: params.ccn, overrides, total: overrides.length };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/facilities/{ccn}/pa-overrides',
    operationId: 'createPaOverride',
    tag: 'facilities',
    summary: 'Add a facility prior-auth override (for a payer or every payer; a code, a service category or every code)',
    description:
      'The most specific active override in force decides tier 0: code before service category before payer-wide, a named payer before every payer. ' +
      'A CCN in the reference data that the tenant has not registered is registered implicitly.',
    auth: WRITE,
    reads: 'snapshot+tenant',
    params: FacilityParamsSchema,
    body: json(OverrideBodySchema, 16 * 1024),
    resolve: resolvePayerIn('body', 'payer_slug'),
    response: PaOverrideAnswerSchema,
    responseHeaders: { Location: { description: 'the override created: /v1/facilities/{ccn}/pa-overrides/{id}', always: true } },
    status: 201,
    errors: ['not_found'],
    examples: [
      {
        summary: 'PA for an MRI at this facility',
        params: { ccn: EXAMPLE_CCN },
        body: { payer_slug: 'aetna', code: '70553', pa_required: true, reason: 'contract section 4.2', source_document: 'Aetna facility agreement 2026' },
      },
      { summary: 'no PA for a service category, any payer', params: { ccn: '330101' }, body: { service_category: 'vein_ablation', pa_required: false } },
      { summary: 'pa_required missing', status: 422, params: { ccn: '330101' }, body: { code: '70553' } },
    ],
    handler: async ({ params, body, resolved, snapshot, tenant, now, trace }) => {
      await resolveFacility(snapshot, tenant, params.ccn, 'either');
      const o = await tenant.overrides.create(params.ccn, overrideFields(resolved.payer, body), now());
      if (resolved.payer) trace.use('payers');
      return result(201, { ...overrideOut(o), reliability: trace.use('facilities').reliability() }, { location: `/v1/facilities/${params.ccn}/pa-overrides/${o.id}` });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/facilities/{ccn}/pa-overrides/{id}',
    operationId: 'deletePaOverride',
    tag: 'facilities',
    summary: 'Remove a facility prior-auth override (determinations made with it keep their record)',
    auth: WRITE,
    reads: 'tenant',
    params: FacilityParamsSchema.extend({ id: z.uuid() }),
    response: OverrideDeleteResultSchema,
    errors: ['not_found'],
    examples: [
      { summary: 'remove an override', status: 404, params: { ccn: EXAMPLE_CCN, id: '00000000-0000-4000-8000-000000000000' } },
      { summary: 'remove an override that exists', status: 200, params: { ccn: EXAMPLE_CCN, id: '{override}' } },
      { summary: 'remove it again', status: 404, params: { ccn: EXAMPLE_CCN, id: '{override}' } },
      { summary: 'an id that is not a UUID', status: 422, params: { ccn: EXAMPLE_CCN, id: 'not-a-uuid' } },
    ],
    handler: async ({ params, tenant }) => {
      await tenant.overrides.remove(params.ccn, params.id);
      return { ccn: params.ccn, id: params.id, deleted: true };
    },
  }),
];
