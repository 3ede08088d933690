import { categoriesOf, type PayerKnowledge } from '../../datasets/payers/queries.js';
import type { PayerRow } from '../../datasets/payers/schema.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { TenantStore } from '../../warehouse/tenant_state.js';
import { resolveFacility } from '../facilities/service.js';
import { payerWarnings } from '../payers/service.js';
import type { Trace } from '../trace.js';
import { resolvePriorAuth, type FacilityContext, type PaQuery, type PaResolution } from './resolve.js';

/** The check's query: the resolver's, plus the facility and an optional date (default today). */
export type PaCheckQuery = Omit<PaQuery, 'date_of_service'> & { ccn?: string; date_of_service?: string };

export type PaCheckAnswer = Omit<PaResolution, 'warnings'> & { state: string | null; place_of_service: string | null; ccn: string | null; date_of_service: string };

/**
 * Gathers what the resolver needs: the payer's rules and the code's categories from the payers
 * dataset, and with `ccn` the facility's profile, registration, overrides and roster entry (the
 * facility also fills state and place of service the query leaves out).
 */
export async function checkPriorAuth(
  snapshot: SnapshotReader,
  /** The caller's state, for a `ccn`'s registration, overrides and roster; null reads the reference data alone (the claim check). */
  tenant: TenantStore | null,
  o: { knowledge: PayerKnowledge; payer: PayerRow; query: PaCheckQuery; today: string },
  trace: Trace,
): Promise<PaCheckAnswer> {
  const { knowledge: k, payer, query: q } = o;
  const date = q.date_of_service ?? o.today;
  trace.use('payers', k.version).warn(...payerWarnings(payer));
  let state = q.state;
  let pos = q.place_of_service;
  let facility: FacilityContext | null = null;
  if (q.ccn) {
    const f = await resolveFacility(snapshot, tenant, q.ccn, 'either');
    trace.useAll(f.reference?.versions ?? {});
    const eff = f.effective;
    const filled: string[] = [];
    if (state === undefined && eff.state) {
      state = eff.state;
      filled.push(`state ${state}`);
    }
    if (pos === undefined && eff.place_of_service) {
      pos = eff.place_of_service;
      filled.push(`place of service ${pos}`);
    }
    const own = f.fromRegistration.includes('place_of_service') || f.fromRegistration.includes('state');
    if (filled.length) trace.warn(`${filled.join(' and ')} from facility ${q.ccn}${own ? ' (its registration)' : ''}`);
    // Only an active registration changes the answer: a soft-deleted one's overrides and roster are not read.
    const [overrides, roster] = f.registered && tenant ? await Promise.all([tenant.overrides.list(q.ccn), tenant.rosters.list(q.ccn)]) : [[], []];
    facility = {
      ccn: q.ccn,
      payment_system: f.effective.payment_system,
      registered: f.registration !== null,
      active_registration: f.registered,
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
  trace.warn(...resolverWarnings);
  return { ...resolution, state: state ?? null, place_of_service: pos ?? null, ccn: q.ccn ?? null, date_of_service: date };
}
