import { categoriesOf, payerKnowledge } from '../../datasets/payers/queries.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { TenantStore } from '../../warehouse/state.js';
import { effectiveFacility, facilityView } from '../facilities/service.js';
import { payerWarnings, resolvePayer } from '../payers/service.js';
import { resolvePriorAuth, type FacilityContext, type PaQuery, type PaResolution } from './resolve.js';

/** The check's query: the resolver's, plus the payer, the facility and an optional date (default today). */
export type PaCheckQuery = Omit<PaQuery, 'date_of_service'> & { payer: string; ccn?: string; date_of_service?: string };

export interface PaCheckAnswer {
  body: Omit<PaResolution, 'warnings'> & { state: string | null; place_of_service: string | null; ccn: string | null; date_of_service: string };
  warnings: string[];
  used: Record<string, string>;
}

/**
 * Gathers what the resolver needs: the payer's rules and the code's categories from the payers
 * dataset, and with `ccn` the facility's profile, registration, overrides and roster entry (the
 * facility also fills state and place of service the query leaves out).
 */
export async function checkPriorAuth(snapshot: SnapshotReader, tenant: TenantStore, q: PaCheckQuery, today: string): Promise<PaCheckAnswer> {
  const k = await payerKnowledge(snapshot);
  const payer = resolvePayer(k, q.payer);
  const date = q.date_of_service ?? today;
  const warnings = [...payerWarnings(payer)];
  const used: Record<string, string> = { payers: k.version };
  let state = q.state;
  let pos = q.place_of_service;
  let facility: FacilityContext | null = null;
  if (q.ccn) {
    const view = await facilityView(snapshot, tenant, q.ccn);
    Object.assign(used, view.profile?.versions ?? {});
    const eff = effectiveFacility(view);
    const filled: string[] = [];
    if (state === undefined && eff.state) {
      state = eff.state;
      filled.push(`state ${state}`);
    }
    if (pos === undefined && eff.place_of_service) {
      pos = eff.place_of_service;
      filled.push(`place of service ${pos}`);
    }
    if (filled.length) warnings.push(`${filled.join(' and ')} from facility ${q.ccn}${view.registration?.place_of_service || view.registration?.state ? ' (its registration)' : ''}`);
    const reg = view.registration;
    const [overrides, roster] = reg ? await Promise.all([tenant.overrides.list(q.ccn), tenant.rosters.list(q.ccn)]) : [[], []];
    facility = {
      ccn: q.ccn,
      registered: reg !== null,
      active_registration: reg?.is_active === true,
      overrides,
      roster: roster.find((r) => r.payer_slug === payer.slug) ?? null,
    };
  }
  const codeCategories = q.code ? categoriesOf(k, q.code).map((c) => c.category) : [];
  const { warnings: resolverWarnings, ...resolution } = resolvePriorAuth({
    payer,
    rules: k.priorAuth.get(payer.slug) ?? [],
    code_categories: [...new Set(codeCategories)],
    query: { code: q.code, service_category: q.service_category, plan_type: q.plan_type, state, place_of_service: pos, visit_count: q.visit_count, date_of_service: date },
    facility,
  });
  return {
    body: { ...resolution, state: state ?? null, place_of_service: pos ?? null, ccn: q.ccn ?? null, date_of_service: date },
    warnings: [...warnings, ...resolverWarnings],
    used,
  };
}
