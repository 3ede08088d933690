import type { z } from 'zod';
import { isLabCode } from '../../datasets/clfs/queries.js';
import { isDmeCode } from '../../datasets/dmepos/queries.js';
import { jurisdictionsOfState, macIndex } from '../../datasets/mac_jurisdictions/queries.js';
import { getRvu, STATUS_CODES, type RvuRow } from '../../datasets/mpfs_rvu/queries.js';
import { lookupAocEdits } from '../../datasets/ncci_aoc/queries.js';
import { findMedicareMues } from '../../datasets/_ncci_mue/queries.js';
import { findOppsRatesIn, oppsVersionFor } from '../../datasets/opps_addendum_b/queries.js';
import { payerKnowledge } from '../../datasets/payers/queries.js';
import type { PayerRow } from '../../datasets/payers/schema.js';
import { NotFoundError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { TenantStore } from '../../warehouse/tenant_state.js';
import { ccnCategory, facilityProfile, isHospitalType, resolveFacility, type Facility, type PaymentSystem } from '../facilities/service.js';
import { filingDeadlineRow } from '../deadlines/deadlines.js';
import { payerWarnings } from '../payers/service.js';
import { choosePeSetting } from '../payment/calculate.js';
import { Dec, toCents } from '../../lib/decimal.js';
import { OPPS_POS, paymentFor, RVU_PRICING_MODIFIERS } from '../payment/service.js';
import { coveredDiagnoses, policyIndex, policyPayer, policyRulesFor } from '../policies/service.js';
import { checkPriorAuth } from '../prior_auth/service.js';
import { Trace } from '../trace.js';
import { isDatasetId } from '../../datasets/registry.js';
import type {
  CareSettingLayerSchema,
  FacilityTypeLayerSchema,
  LocationLayerSchema,
  PaymentLayerSchema,
  PayerRulesLayerSchema,
  ResolveAnswer,
  ResolveBody,
  ServiceGroupLayerSchema,
} from './schemas.js';
import { ownValue } from '../../lib/own.js';

/**
 * Knowledge resolve (`POST /v1/knowledge/resolve`): everything that decides how a service for a
 * payer at a facility is billed and paid, in six layers, each built by the service that owns it
 * (the facility resolver, the payer rules, the prior-auth check, the policy rules, the code sets,
 * the payment composition), so no layer can contradict the route it summarises.
 *
 * Layers are memoised on the snapshot (so a snapshot swap drops them) by what they depend on:
 * L1-L3 per tenant, mode, state generation, CCN, place of service and date; L4 per that plus
 * payer, code, plan type, state, modifiers and today (filing deadlines count days from today);
 * L5 per code and date (no tenant data); L6 per tenant, generation, CCN, code, pricing modifier,
 * place of service, date and today. A tenant write (registration, roster, override, a hard
 * delete) bumps the generation in its transaction, so the next call computes the tenant's layers
 * again: the cached layers of that tenant cascade away with it, another tenant's stay.
 */

type LayerFields = { dataset_versions: Record<string, string>; citations: ReturnType<Trace['cite']>[]; warnings: string[] };
type Status = 'resolved' | 'partial' | 'unavailable';

/** A layer as cached: the answer's object and whether it rests on a fallback (reliability.degraded). */
interface Built<L> {
  layer: L;
  degraded: boolean;
}

/** The fields every layer carries, from the layer's own trace. */
function traced(t: Trace): LayerFields & { degraded: boolean } {
  const r = t.reliability();
  return { dataset_versions: r.dataset_versions, citations: Object.entries(r.dataset_versions).flatMap(([d, v]) => (isDatasetId(d) ? [t.cite(d, v)] : [])), warnings: [...new Set(r.warnings)], degraded: r.degraded };
}

function built<L extends object>(t: Trace, status: Status, facts: Omit<L, keyof LayerFields | 'status'>): Built<L> {
  const { degraded, ...fields } = traced(t);
  return { layer: { status, ...facts, ...fields } as L, degraded };
}

/** What the request asks, as every layer reads it. */
export interface ResolveRequest {
  body: ResolveBody;
  payer: PayerRow;
  tenant: TenantStore;
  /** `YYYY-MM-DD`, UTC. */
  today: string;
  now: () => Date;
}

/**
 * The type of bill (UB-04 form locator 4, NUBC) a hospital's claim for the setting carries: 011x
 * inpatient, 013x outpatient, 085x a critical access hospital's outpatient claim; null for a
 * professional claim or a setting that does not decide it.
 */
export function typeOfBill(system: PaymentSystem, pos: string | null): string | null {
  if (!pos || system === 'non_hospital') return null;
  if (pos === '21') return '011x';
  if (OPPS_POS.has(pos)) return system === 'cah_cost' ? '085x' : '013x';
  return null;
}

type L1 = z.output<typeof LocationLayerSchema>;
type L2 = z.output<typeof FacilityTypeLayerSchema>;
type L3 = z.output<typeof CareSettingLayerSchema>;
type L4 = z.output<typeof PayerRulesLayerSchema>;
type L5 = z.output<typeof ServiceGroupLayerSchema>;
type L6 = z.output<typeof PaymentLayerSchema>;

/** L1-L3: where, what kind of facility, which setting, from the one facility resolver. */
async function facilityLayers(snapshot: SnapshotReader, r: ResolveRequest): Promise<{ facility: Facility; l1: Built<L1>; l2: Built<L2>; l3: Built<L3> }> {
  const { body, tenant, now } = r;
  const f = await resolveFacility(snapshot, tenant, body.ccn, 'either');
  const ref = f.reference;
  const e = f.effective;

  const t1 = new Trace(snapshot, now);
  if (ref) t1.useAll(ref.versions).warn(...ref.warnings);
  else t1.warn(`CCN ${body.ccn} is not in the facility reference data: only your registration's state is known (no county, locality, CBSA or wage index)`);
  const mac = await macIndex(snapshot);
  const jurisdictions = e.state && mac ? jurisdictionsOfState(mac, e.state) : [];
  if (mac && e.state) t1.use('mac_jurisdictions', mac.version);
  if (!mac) t1.warn('mac_jurisdictions is not loaded: the MAC jurisdictions of the state are not named');
  const complete = ref !== null && ref.locality !== null && ref.cbsa !== null && ref.wage_index !== null;
  // The facility profile's geography (null where only a registration knows the CCN).
  const profile = facilityProfile(f);
  const { county, county_fips, zip, cbsa, cbsa_name, mac: macNumber, locality, locality_number, locality_name, is_rural, rural_source, wage_index } = profile.profile;
  const geography = { county, county_fips, zip, cbsa, cbsa_name, mac: macNumber, locality, locality_number, locality_name, is_rural, rural_source, wage_index };
  const l1 = built<L1>(t1, !e.state ? 'unavailable' : complete ? 'resolved' : 'partial', {
    state: e.state,
    ...geography,
    mac_jurisdictions: jurisdictions.map((j) => ({ jurisdiction: j.jurisdiction, kind: j.kind, contractor: j.contractor, citation: j.citation, partial: e.state ? (j.partial_states[e.state]?.note ?? null) : null })),
  });

  const t2 = new Trace(snapshot, now);
  if (ref) t2.use('facilities', ref.versions.facilities);
  t2.warn(...profile.warnings);
  if (f.fromRegistration.length) t2.warn(`${f.fromRegistration.join(', ')} from your registration of ${body.ccn}`);
  const overrides = f.registered ? (await tenant.overrides.list(body.ccn)).filter((o) => o.is_active).map(({ ccn: _c, ...o }) => o) : [];
  const hospital = isHospitalType(e.facility_type);
  const l2 = built<L2>(t2, e.facility_type === 'unknown' ? 'partial' : 'resolved', {
    ccn: body.ccn,
    name: e.name,
    facility_type: e.facility_type,
    facility_type_label: profile.profile.facility_type_label,
    ccn_category: ccnCategory(body.ccn),
    payment_system: e.payment_system,
    billing_form: { facility_claim: hospital ? 'UB-04 (CMS-1450), 837I' : null, professional_claim: 'CMS-1500, 837P' },
    registered: f.registered,
    registration: f.registration,
    overrides,
    from_registration: f.fromRegistration,
  });

  const t3 = new Trace(snapshot, now);
  const pos = body.place_of_service ?? e.place_of_service;
  const source: L3['place_of_service_source'] = body.place_of_service ? 'request' : f.fromRegistration.includes('place_of_service') ? 'registration' : pos ? 'facility_default' : null;
  // The payment composition's own rule (L6 prices with it): the place of service, else the facility type.
  const pe = choosePeSetting({ placeOfService: pos ?? undefined, facilityIsFacilitySetting: hospital });
  if (!pos) t3.warn(`no place of service given or registered for ${body.ccn}: the ${pe.facility ? 'facility' : 'non-facility'} PE of a ${e.facility_type} applies; pass place_of_service to pin the setting`);
  const tob = typeOfBill(e.payment_system, pos);
  const l3 = built<L3>(t3, pos ? 'resolved' : 'partial', { place_of_service: pos, place_of_service_source: source, pe_setting: pe.facility ? 'facility' : 'non_facility', type_of_bill: tob });
  return { facility: f, l1, l2, l3 };
}

/** L4: the payer's filing and appeal rules, your roster entry, the prior-auth check and the policy rules. */
async function payerLayer(snapshot: SnapshotReader, r: ResolveRequest, f: Facility, date: string): Promise<Built<Omit<L4, 'diagnosis_coverage'>>> {
  const { body, payer, tenant, today, now } = r;
  const t = new Trace(snapshot, now);
  const k = await payerKnowledge(snapshot);
  t.use('payers', k.version).warn(...payerWarnings(payer));
  const state = body.state ?? f.effective.state;
  const plan = body.plan_type;
  const forPlan = <X extends { plan_type: string | null }>(xs: X[] | undefined) => (xs ?? []).filter((x) => !plan || x.plan_type === null || x.plan_type === plan);
  const filing = forPlan(k.filing.get(payer.slug)).map((x) => filingDeadlineRow(x, { date_of_service: date, as_of: today, plan_type: plan, state: state ?? undefined }));
  if (filing.length === 0) t.warn(`no filing rules are loaded for ${payer.slug}`);
  const appeals = forPlan(k.appeals.get(payer.slug)).map(({ payer_slug: _p, ...l }) => ({ ...l, applied_deadline_days: (state ? l.state_specific_rules[state]?.deadline_days : undefined) ?? l.deadline_days }));
  // Only an active registration's roster counts (as for prior auth).
  const entry = f.registered ? (await tenant.rosters.list(body.ccn)).find((x) => x.payer_slug === payer.slug) : undefined;
  const roster = entry ? (({ ccn: _c, ...x }) => x)(entry) : null;
  if (!roster) t.warn(`${payer.slug} is not on your roster of ${body.ccn}: network status unknown`);
  // The same call GET /v1/prior-auth/check makes for this input; resolve never stores it.
  const prior_auth = await checkPriorAuth(
    snapshot,
    tenant,
    { knowledge: k, payer, query: { code: body.cpt, plan_type: plan, state: body.state, place_of_service: body.place_of_service, ccn: body.ccn, date_of_service: body.date_of_service }, today },
    t,
  );
  const policy_rules = await policyRulesFor(snapshot, { payer: policyPayer(payer), code: body.cpt, date, state }, t);
  const complete = filing.length > 0 && prior_auth.resolution_tier !== 'none';
  return built<Omit<L4, 'diagnosis_coverage'>>(t, complete ? 'resolved' : 'partial', {
    payer: { slug: payer.slug, name: payer.name, payer_type: payer.payer_type, knowledge_depth: payer.knowledge_depth, review_status: payer.review_status },
    plan_type: plan ?? null,
    state: state ?? null,
    filing_rules: filing,
    appeal_levels: appeals,
    roster,
    prior_auth,
    policy_rules,
  });
}

/** L5: what the code is and which groups it belongs to on the date. */
async function serviceLayer(snapshot: SnapshotReader, cpt: string, date: string, now: () => Date): Promise<Built<L5>> {
  const t = new Trace(snapshot, now);
  let rvu: RvuRow | null = null;
  try {
    const found = await getRvu(snapshot, cpt, '', date);
    rvu = found.row;
    t.use('mpfs_rvu', rvu.version).fallback(...found.warnings);
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    t.warn(`${cpt} has no unmodified row in the loaded physician fee schedule RVU releases`);
  }
  const mues = await findMedicareMues(snapshot, cpt, date);
  t.useAll(mues.versions).warn(...mues.warnings).degrade(mues.degraded);
  const aoc = await lookupAocEdits(snapshot, cpt, date);
  if (aoc) t.use('ncci_aoc', aoc.used.version).fallback(...(aoc.used.warning ? [aoc.used.warning] : []));
  else t.warn('ncci_aoc is not loaded: add-on code relations are not checked');
  let opps: L5['opps'] = null;
  const year = Number(date.slice(0, 4));
  const oppsVersion = oppsVersionFor(snapshot, year) ?? oppsVersionFor(snapshot);
  if (oppsVersion) {
    const [row] = await findOppsRatesIn(snapshot, oppsVersion, cpt);
    t.use('opps_addendum_b', oppsVersion);
    if (!oppsVersionFor(snapshot, year)) t.fallback(`no OPPS Addendum B for ${year} is loaded; used ${oppsVersion}`);
    if (row) opps = { apc_code: row.apc_code, status_indicator: row.status_indicator, payment_rate: row.payment_rate, version: row.version };
  }
  const [lab, dme] = await Promise.all([isLabCode(snapshot, cpt), isDmeCode(snapshot, cpt)]);
  if (lab) t.use('clfs');
  if (dme) t.use('dmepos');
  const known = rvu !== null || opps !== null || lab || dme;
  if (!known) t.warn(`${cpt} is in no loaded code set (physician RVUs, OPPS Addendum B, CLFS, DMEPOS)`);
  return built<L5>(t, rvu ? 'resolved' : known ? 'partial' : 'unavailable', {
    code: cpt,
    description: rvu?.description ?? null,
    status_code: rvu?.status_code ?? null,
    status_description: ownValue(STATUS_CODES, rvu?.status_code) ?? null,
    pctc_indicator: rvu?.pctc_indicator ?? null,
    global_days: rvu?.global_days ?? null,
    mue: mues.lookups.filter((l) => l.row).map((l) => ({ mue_type: l.mue_type, mue_value: l.row!.mue_value, mue_adj_ind: l.row!.mue_adj_ind, mue_rationale: l.row!.mue_rationale })),
    add_on: { primary_codes: [...new Set(aoc?.as_addon.map((x) => x.primary_code) ?? [])], add_on_codes: [...new Set(aoc?.as_primary.map((x) => x.addon_code) ?? [])] },
    opps,
    lab,
    dme,
  });
}

/** L6 as cached: what the payer and the units (applied after the cache) do not change. */
type L6Cached = Omit<L6, 'units' | 'estimated_payment_total' | 'amount_basis' | 'total_blocks'>;

/** L6: the payment composition the payment route gives for the same input (per unit; the units apply after the cache). */
async function paymentLayer(snapshot: SnapshotReader, r: ResolveRequest): Promise<Built<L6Cached>> {
  const { body, tenant, today, now } = r;
  const t = new Trace(snapshot, now);
  const modifiers = body.modifiers ?? [];
  // Every modifier goes to the payment composition (the RVU row and the payment policies it
  // applies); the line's PC/TC rule below reads the pricing one.
  const modifier = modifiers.find((m) => RVU_PRICING_MODIFIERS.has(m));
  let composition: L6['composition'] = null;
  try {
    composition = await paymentFor(snapshot, tenant, { ccn: body.ccn, code: body.cpt, modifier: modifiers.length ? [...modifiers] : undefined, date_of_service: body.date_of_service, place_of_service: body.place_of_service }, today, t);
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    t.warn(`payment: ${e.message}`);
  }
  const status: Status = !composition ? 'unavailable' : composition.applicable_blocks.length ? 'resolved' : 'partial';
  return built<L6Cached>(t, status, { modifier: modifier ?? null, composition });
}

type Block = L6['total_blocks'][number];

/** The allowed amount of one block of a composition. */
function blockAmount(c: NonNullable<L6['composition']>, b: Block): number {
  switch (b) {
    case 'physician':
      return c.physician?.allowed_phy_payment ?? 0;
    case 'outpatient_facility':
      return c.outpatient_facility?.allowed_fac_payment ?? 0;
    case 'lab':
      return c.lab?.allowed_lab_payment ?? 0;
    case 'dme':
      return c.dme?.allowed_dme_payment ?? 0;
  }
}

/**
 * The layer as this payer reads it: the units, the blocks the line is paid and their total; for a
 * payer other than Medicare the amounts are the Medicare fee schedule as a reference (status
 * partial, with a warning), never that payer's payment.
 */
function paymentForPayer(l6: L6Cached, payer: PayerRow, units: number): L6 {
  const c = l6.composition;
  // The line's blocks are the composition's: a professional-only line (26, 80, 62...) already has the
  // facility's OPPS amount out of them (the professional_only_line payment rule).
  const blocks = c ? [...c.applicable_blocks] : [];
  const total = c ? toCents(blocks.reduce((sum, b) => sum.add(Dec.of(blockAmount(c, b)).mul(units)), Dec.of(0))) : null;
  const medicare = payer.payer_type === 'medicare';
  const warnings = [...l6.warnings];
  if (!medicare && c) warnings.push(`${payer.slug} (${payer.payer_type}): no fee schedule of this payer is loaded; the amounts are the Medicare fee schedule, shown as a reference, not what ${payer.name} pays`);
  const status: Status = !medicare && l6.status === 'resolved' ? 'partial' : l6.status;
  return { ...l6, status, warnings, units, amount_basis: medicare ? 'medicare_payment' : 'medicare_reference', total_blocks: blocks, estimated_payment_total: total };
}

/** Which covered ICD-10-CM codes of each Medicare billing article the claim's diagnoses are. */
function diagnosisCoverage(rules: L4['policy_rules'], covered: (docId: string) => string[], dx: string[] | undefined): L4['diagnosis_coverage'] {
  if (!dx?.length) return null;
  const given = new Set(dx);
  return rules
    .filter((x) => x.kind === 'article' && covered(x.doc_id).length > 0)
    .map((x) => {
      const hits = covered(x.doc_id).filter((c) => given.has(c));
      return { doc_id: x.doc_id, covered_dx_codes: hits, verdict: hits.length ? ('covered' as const) : ('not_covered' as const) };
    });
}

/** Resolves every layer for a request; the trace gets what they used, for the answer's reliability. */
export async function resolveKnowledge(snapshot: SnapshotReader, r: ResolveRequest, trace: Trace): Promise<Omit<ResolveAnswer, 'reliability'>> {
  const { body, payer, tenant, today } = r;
  const date = body.date_of_service ?? today;
  const gen = `${tenant.mode}:${tenant.tenantId}:${await tenant.generation()}`;
  const pos = body.place_of_service ?? '';
  const site = `${gen}:${body.ccn}:${pos}:${date}`;
  const modifier = (body.modifiers ?? []).join(',');
  const [setting, l5, l6] = await Promise.all([
    snapshot.memo(`knowledge:L1-3:${site}`, () => facilityLayers(snapshot, r)),
    snapshot.memo(`knowledge:L5:${body.cpt}:${date}`, () => serviceLayer(snapshot, body.cpt, date, r.now)),
    snapshot.memo(`knowledge:L6:${gen}:${body.ccn}:${pos}:${body.date_of_service ?? ''}:${today}:${body.cpt}:${modifier}`, () => paymentLayer(snapshot, r)),
  ]);
  const l4 = await snapshot.memo(
    `knowledge:L4:${site}:${payer.slug}:${body.cpt}:${body.plan_type ?? ''}:${body.state ?? ''}:${(body.modifiers ?? []).join(',')}:${today}`,
    () => payerLayer(snapshot, r, setting.facility, date),
  );
  const idx = await policyIndex(snapshot);
  const layers = {
    L1_location: setting.l1.layer,
    L2_facility_type: setting.l2.layer,
    L3_care_setting: setting.l3.layer,
    L4_payer_rules: { ...l4.layer, diagnosis_coverage: diagnosisCoverage(l4.layer.policy_rules, (id) => coveredDiagnoses(idx, id), body.dx_codes) },
    L5_service_group: l5.layer,
    L6_payment: paymentForPayer(l6.layer, payer, body.units ?? 1),
  };
  for (const b of [setting.l1, setting.l2, setting.l3, l4, l5]) trace.useAll(b.layer.dataset_versions).warn(...b.layer.warnings).degrade(b.degraded);
  trace.useAll(layers.L6_payment.dataset_versions).warn(...layers.L6_payment.warnings).degrade(l6.degraded);
  return { ccn: body.ccn, cpt: body.cpt, payer_slug: payer.slug, date_of_service: date, layers };
}
