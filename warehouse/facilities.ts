import type Database from 'better-sqlite3';
import { uuidv7 } from './ids.js';
import { z } from 'zod';
import { NotFoundError } from './errors.js';
import type { KeyType } from './key_kinds.js';

const dateTime = z.string().describe('ISO 8601 date-time');

/** A tenant's registration of a CCN: its own overrides of the public reference row. */
export const FacilityRegistrationSchema = z.object({
  ccn: z.string(),
  name: z.string().nullable(),
  facility_type: z.string().nullable(),
  place_of_service: z.string().nullable(),
  state: z.string().nullable(),
  cah_method_ii: z
    .boolean()
    .describe("a critical access hospital's election of the optional payment method (Method II, 42 CFR 413.70(b)(3)): its practitioners' professional services are paid 115% of the facility fee schedule amount; false when not elected"),
  is_active: z.boolean(),
  created_at: dateTime,
  updated_at: dateTime,
});
export type FacilityRegistration = z.output<typeof FacilityRegistrationSchema>;

/** The fields a registration sets; `cah_method_ii` omitted is not elected. */
export type RegistrationFields = Pick<FacilityRegistration, 'name' | 'facility_type' | 'place_of_service' | 'state'> & { cah_method_ii?: boolean };

export const NETWORK_STATUSES = ['in_network', 'out_of_network', 'unknown'] as const;

/** One payer on a facility's roster (the spec's "Facility payer roster entry"), as stored. */
export const StoredRosterEntrySchema = z.object({
  id: z.uuid(),
  ccn: z.string(),
  payer_slug: z.string(),
  payer_name: z.string(),
  network_status: z.enum(NETWORK_STATUSES),
  effective_date: dateTime.nullable(),
  expiration_date: dateTime.nullable(),
  is_active: z.boolean(),
  notes: z.string().nullable(),
  plan_types: z.array(z.string()),
  created_at: dateTime,
  updated_at: dateTime,
});
export type RosterEntry = z.output<typeof StoredRosterEntrySchema>;

export type RosterFields = Omit<RosterEntry, 'id' | 'ccn' | 'created_at' | 'updated_at'>;

/** A facility's own prior-auth rule (tier 0 of the resolver), as stored. */
export const StoredPaOverrideSchema = z.object({
  id: z.uuid(),
  ccn: z.string(),
  payer_slug: z.string().nullable().describe('null: every payer'),
  payer_name: z.string().nullable(),
  code: z.string().nullable().describe('null: every code (of the service category when that is set)'),
  code_type: z.string().nullable(),
  service_category: z.string().nullable(),
  pa_required: z.boolean(),
  auth_type: z.string().nullable(),
  delegation_vendor: z.string().nullable(),
  reason: z.string().nullable(),
  source_document: z.string().nullable(),
  effective_date: dateTime.nullable(),
  expiration_date: dateTime.nullable(),
  is_active: z.boolean(),
  created_at: dateTime,
});
export type PaOverride = z.output<typeof StoredPaOverrideSchema>;

export type PaOverrideFields = Omit<PaOverride, 'id' | 'ccn' | 'created_at'>;

/** A prior-auth determination as it was made: an audit record, never changed or deleted with the facility. */
export interface StoredDetermination {
  id: string;
  created_at: string;
  ccn: string | null;
  payer_slug: string;
  code: string | null;
  /** The validated query of the check. */
  inputs: Record<string, unknown>;
  /** The answer as returned (without its id). */
  result: Record<string, unknown>;
  snapshot_id: string;
  dataset_versions: Record<string, string>;
}

/** Facility registrations, payer rosters and prior-auth overrides of one tenant; every query binds the tenant. */
export interface TenantFacilities {
  /** Registers the CCN or updates its registration (re-activating a soft-deleted one); `created` on first registration. */
  register(ccn: string, fields: RegistrationFields, now: Date): Promise<{ facility: FacilityRegistration; created: boolean }>;
  /** The tenant's registration of the CCN, or null. */
  lookup(ccn: string): Promise<FacilityRegistration | null>;
  list(): Promise<FacilityRegistration[]>;
  /**
   * Soft delete sets `is_active` false; hard delete removes the registration, its roster and its
   * overrides in one transaction. Determinations are audit records and stay either way.
   * @throws NotFoundError when the tenant has not registered the CCN.
   */
  remove(ccn: string, hard: boolean, now: Date): Promise<FacilityRegistration>;
}

export interface TenantRosters {
  /**
   * Creates or replaces the facility's entry for the payer (unique on tenant, CCN and payer):
   * the same id both times. Registers the CCN first when the tenant has not.
   */
  upsert(ccn: string, fields: RosterFields, now: Date): Promise<{ entry: RosterEntry; created: boolean }>;
  list(ccn: string): Promise<RosterEntry[]>;
}

export interface TenantPaOverrides {
  /** Adds an override (registering the CCN first when the tenant has not). */
  create(ccn: string, fields: PaOverrideFields, now: Date): Promise<PaOverride>;
  list(ccn: string): Promise<PaOverride[]>;
  /** @throws NotFoundError for an id that is not this tenant's override of this CCN. */
  remove(ccn: string, id: string): Promise<PaOverride>;
}

/** A determination to store, its answer as the JSON text that was sent (stored as is, not serialised again). */
export type NewDetermination = Omit<StoredDetermination, 'result'> & { result_json: string };

export interface TenantDeterminations {
  create(d: NewDetermination): Promise<void>;
  /** @throws NotFoundError for an id of another tenant (or none). */
  get(id: string): Promise<StoredDetermination>;
}

export interface RegistrationRow extends Omit<FacilityRegistration, 'is_active' | 'cah_method_ii'> {
  is_active: number;
  cah_method_ii: number;
}
export interface RosterRow extends Omit<RosterEntry, 'is_active' | 'plan_types'> {
  is_active: number;
  plan_types: string;
}
export interface OverrideRow extends Omit<PaOverride, 'is_active' | 'pa_required'> {
  is_active: number;
  pa_required: number;
}
export interface DeterminationRow {
  id: string;
  created_at: string;
  ccn: string | null;
  payer_slug: string;
  code: string | null;
  inputs: string;
  result: string;
  snapshot_id: string;
  dataset_versions: string;
}

export const FAC_COLS = 'ccn, name, facility_type, place_of_service, state, cah_method_ii, is_active, created_at, updated_at';
export const ROSTER_COLS = 'id, ccn, payer_slug, payer_name, network_status, effective_date, expiration_date, is_active, notes, plan_types, created_at, updated_at';
export const OVERRIDE_COLS =
  'id, ccn, payer_slug, payer_name, code, code_type, service_category, pa_required, auth_type, delegation_vendor, reason, source_document, effective_date, expiration_date, is_active, created_at';
export const DET_COLS = 'id, created_at, ccn, payer_slug, code, inputs, result, snapshot_id, dataset_versions';

export const toFacility = (r: RegistrationRow): FacilityRegistration => ({ ...r, cah_method_ii: r.cah_method_ii === 1, is_active: r.is_active === 1 });
export const toRoster = (r: RosterRow): RosterEntry => ({ ...r, is_active: r.is_active === 1, plan_types: JSON.parse(r.plan_types) as string[] });
export const toOverride = (r: OverrideRow): PaOverride => ({ ...r, is_active: r.is_active === 1, pa_required: r.pa_required === 1 });
export const toDetermination = (r: DeterminationRow): StoredDetermination => ({
  ...r,
  inputs: JSON.parse(r.inputs) as Record<string, unknown>,
  result: JSON.parse(r.result) as Record<string, unknown>,
  dataset_versions: JSON.parse(r.dataset_versions) as Record<string, string>,
});

/**
 * SQLite implementation of the facility tables. Statements are synchronous and the state store
 * runs each method under its lock inside one transaction, so an upsert's read-then-write cannot
 * interleave with another request's.
 */
export class SqliteFacilities {
  constructor(private readonly db: Database.Database) {}

  private lookupFacility(tenantId: string, mode: KeyType, ccn: string): FacilityRegistration | null {
    const r = this.db.prepare(`SELECT ${FAC_COLS} FROM facilities WHERE tenant_id = ? AND mode = ? AND ccn = ?`).get(tenantId, mode, ccn) as RegistrationRow | undefined;
    return r ? toFacility(r) : null;
  }

  /** Registers the CCN with no overrides when the tenant has not (roster and override writes). */
  private ensureFacility(tenantId: string, mode: KeyType, ccn: string, now: Date): void {
    const at = now.toISOString();
    this.db
      .prepare('INSERT INTO facilities (tenant_id, mode, ccn, is_active, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?) ON CONFLICT (tenant_id, mode, ccn) DO NOTHING')
      .run(tenantId, mode, ccn, at, at);
  }

  facilities(tenantId: string, mode: KeyType) {
    return {
      register: (ccn: string, f: RegistrationFields, now: Date) => {
        const prev = this.lookupFacility(tenantId, mode, ccn);
        const at = now.toISOString();
        this.db
          .prepare(
            `INSERT INTO facilities (tenant_id, mode, ccn, name, facility_type, place_of_service, state, cah_method_ii, is_active, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
             ON CONFLICT (tenant_id, mode, ccn) DO UPDATE SET name = excluded.name, facility_type = excluded.facility_type,
               place_of_service = excluded.place_of_service, state = excluded.state, cah_method_ii = excluded.cah_method_ii,
               is_active = 1, updated_at = excluded.updated_at`,
          )
          .run(tenantId, mode, ccn, f.name, f.facility_type, f.place_of_service, f.state, f.cah_method_ii ? 1 : 0, at, at);
        return { facility: this.lookupFacility(tenantId, mode, ccn)!, created: prev === null };
      },
      lookup: (ccn: string) => this.lookupFacility(tenantId, mode, ccn),
      list: () => (this.db.prepare(`SELECT ${FAC_COLS} FROM facilities WHERE tenant_id = ? AND mode = ? ORDER BY ccn`).all(tenantId, mode) as RegistrationRow[]).map(toFacility),
      remove: (ccn: string, hard: boolean, now: Date) => {
        const prev = this.lookupFacility(tenantId, mode, ccn);
        if (!prev) throw new NotFoundError(`facility ${ccn} is not registered by this tenant`);
        if (!hard) {
          this.db.prepare('UPDATE facilities SET is_active = 0, updated_at = ? WHERE tenant_id = ? AND mode = ? AND ccn = ?').run(now.toISOString(), tenantId, mode, ccn);
          return { ...prev, is_active: false, updated_at: now.toISOString() };
        }
        this.db.prepare('DELETE FROM pa_overrides WHERE tenant_id = ? AND mode = ? AND ccn = ?').run(tenantId, mode, ccn);
        this.db.prepare('DELETE FROM facility_payers WHERE tenant_id = ? AND mode = ? AND ccn = ?').run(tenantId, mode, ccn);
        this.db.prepare('DELETE FROM facilities WHERE tenant_id = ? AND mode = ? AND ccn = ?').run(tenantId, mode, ccn);
        return { ...prev, is_active: false };
      },
    };
  }

  rosters(tenantId: string, mode: KeyType) {
    const byPayer = (ccn: string, slug: string) =>
      this.db.prepare(`SELECT ${ROSTER_COLS} FROM facility_payers WHERE tenant_id = ? AND mode = ? AND ccn = ? AND payer_slug = ?`).get(tenantId, mode, ccn, slug) as RosterRow | undefined;
    return {
      upsert: (ccn: string, f: RosterFields, now: Date) => {
        this.ensureFacility(tenantId, mode, ccn, now);
        const prev = byPayer(ccn, f.payer_slug);
        const at = now.toISOString();
        // The entry as stored, without reading it back: an update keeps the row's id and created_at.
        const entry: RosterEntry = {
          id: prev?.id ?? uuidv7(now.getTime()),
          ccn,
          payer_slug: f.payer_slug,
          payer_name: f.payer_name,
          network_status: f.network_status,
          effective_date: f.effective_date,
          expiration_date: f.expiration_date,
          is_active: f.is_active,
          notes: f.notes,
          plan_types: [...f.plan_types],
          created_at: prev?.created_at ?? at,
          updated_at: at,
        };
        this.db
          .prepare(
            `INSERT INTO facility_payers (id, tenant_id, mode, ccn, payer_slug, payer_name, network_status, effective_date, expiration_date, is_active, notes, plan_types, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (tenant_id, mode, ccn, payer_slug) DO UPDATE SET payer_name = excluded.payer_name, network_status = excluded.network_status,
               effective_date = excluded.effective_date, expiration_date = excluded.expiration_date, is_active = excluded.is_active,
               notes = excluded.notes, plan_types = excluded.plan_types, updated_at = excluded.updated_at`,
          )
          .run(
            entry.id, tenantId, mode, ccn, f.payer_slug, f.payer_name, f.network_status, f.effective_date, f.expiration_date,
            f.is_active ? 1 : 0, f.notes, JSON.stringify(f.plan_types), at, at,
          );
        return { entry, created: prev === undefined };
      },
      list: (ccn: string) =>
        (this.db.prepare(`SELECT ${ROSTER_COLS} FROM facility_payers WHERE tenant_id = ? AND mode = ? AND ccn = ? ORDER BY payer_slug`).all(tenantId, mode, ccn) as RosterRow[]).map(toRoster),
    };
  }

  overrides(tenantId: string, mode: KeyType) {
    const one = (ccn: string, id: string) =>
      this.db.prepare(`SELECT ${OVERRIDE_COLS} FROM pa_overrides WHERE tenant_id = ? AND mode = ? AND ccn = ? AND id = ?`).get(tenantId, mode, ccn, id) as OverrideRow | undefined;
    return {
      create: (ccn: string, f: PaOverrideFields, now: Date) => {
        this.ensureFacility(tenantId, mode, ccn, now);
        const id = uuidv7(now.getTime());
        // The override as stored, without reading it back.
        const created: PaOverride = {
          id,
          ccn,
          payer_slug: f.payer_slug,
          payer_name: f.payer_name,
          code: f.code,
          code_type: f.code_type,
          service_category: f.service_category,
          pa_required: f.pa_required,
          auth_type: f.auth_type,
          delegation_vendor: f.delegation_vendor,
          reason: f.reason,
          source_document: f.source_document,
          effective_date: f.effective_date,
          expiration_date: f.expiration_date,
          is_active: f.is_active,
          created_at: now.toISOString(),
        };
        this.db
          .prepare(
            `INSERT INTO pa_overrides (id, tenant_id, mode, ccn, payer_slug, payer_name, code, code_type, service_category, pa_required, auth_type,
               delegation_vendor, reason, source_document, effective_date, expiration_date, is_active, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            id, tenantId, mode, ccn, f.payer_slug, f.payer_name, f.code, f.code_type, f.service_category, f.pa_required ? 1 : 0, f.auth_type,
            f.delegation_vendor, f.reason, f.source_document, f.effective_date, f.expiration_date, f.is_active ? 1 : 0, created.created_at,
          );
        return created;
      },
      list: (ccn: string) =>
        (this.db.prepare(`SELECT ${OVERRIDE_COLS} FROM pa_overrides WHERE tenant_id = ? AND mode = ? AND ccn = ? ORDER BY created_at, id`).all(tenantId, mode, ccn) as OverrideRow[]).map(toOverride),
      remove: (ccn: string, id: string) => {
        const r = one(ccn, id);
        if (!r) throw new NotFoundError(`prior-auth override ${id} of facility ${ccn} not found`);
        this.db.prepare('DELETE FROM pa_overrides WHERE tenant_id = ? AND mode = ? AND ccn = ? AND id = ?').run(tenantId, mode, ccn, id);
        return toOverride(r);
      },
    };
  }

  determinations(tenantId: string, mode: KeyType) {
    return {
      create: (d: NewDetermination) => {
        this.db
          .prepare(`INSERT INTO pa_determinations (tenant_id, mode, ${DET_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
          .run(tenantId, mode, d.id, d.created_at, d.ccn, d.payer_slug, d.code, JSON.stringify(d.inputs), d.result_json, d.snapshot_id, JSON.stringify(d.dataset_versions));
      },
      get: (id: string) => {
        const r = this.db.prepare(`SELECT ${DET_COLS} FROM pa_determinations WHERE tenant_id = ? AND mode = ? AND id = ?`).get(tenantId, mode, id) as DeterminationRow | undefined;
        if (!r) throw new NotFoundError(`determination ${id} not found`);
        return toDetermination(r);
      },
    };
  }
}
