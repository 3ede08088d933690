import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../errors.js';
import {
  DET_COLS,
  FAC_COLS,
  OVERRIDE_COLS,
  ROSTER_COLS,
  toDetermination,
  toFacility,
  toOverride,
  toRoster,
  type DeterminationRow,
  type FacilityRegistration,
  type RegistrationRow,
  type OverrideRow,
  type PaOverride,
  type PaOverrideFields,
  type RegistrationFields,
  type RosterEntry,
  type RosterFields,
  type RosterRow,
  type NewDetermination,
  type StoredDetermination,
} from '../facilities.js';
import type { KeyType } from '../key_kinds.js';
import type { Sql } from './sql.js';

/**
 * PostgreSQL implementation of the facility tables (`warehouse/facilities.ts` for SQLite), each
 * function bound to one tenant and mode. Writes run inside the state store's write transaction,
 * which first bumps (so locks) the tenant's generation row: a tenant's writes in one mode are
 * serialised across replicas, so an upsert's read-then-write sees every earlier commit, as under
 * SQLite's one writer.
 */

async function lookupFacility(db: Sql, tenantId: string, mode: KeyType, ccn: string): Promise<FacilityRegistration | null> {
  const r = await db.get<RegistrationRow>(`SELECT ${FAC_COLS} FROM facilities WHERE tenant_id = ? AND mode = ? AND ccn = ?`, [tenantId, mode, ccn]);
  return r ? toFacility(r) : null;
}

/** Registers the CCN with no overrides when the tenant has not (roster and override writes). */
async function ensureFacility(db: Sql, tenantId: string, mode: KeyType, ccn: string, now: Date): Promise<void> {
  const at = now.toISOString();
  await db.run('INSERT INTO facilities (tenant_id, mode, ccn, is_active, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?) ON CONFLICT (tenant_id, mode, ccn) DO NOTHING', [
    tenantId, mode, ccn, at, at,
  ]);
}

export function pgFacilities(db: Sql, tenantId: string, mode: KeyType) {
  const where = 'tenant_id = ? AND mode = ? AND ccn = ?';
  return {
    register: async (ccn: string, f: RegistrationFields, now: Date) => {
      const prev = await lookupFacility(db, tenantId, mode, ccn);
      const at = now.toISOString();
      await db.run(
        `INSERT INTO facilities (tenant_id, mode, ccn, name, facility_type, place_of_service, state, cah_method_ii, is_active, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
         ON CONFLICT (tenant_id, mode, ccn) DO UPDATE SET name = excluded.name, facility_type = excluded.facility_type,
           place_of_service = excluded.place_of_service, state = excluded.state, cah_method_ii = excluded.cah_method_ii,
           is_active = 1, updated_at = excluded.updated_at`,
        [tenantId, mode, ccn, f.name, f.facility_type, f.place_of_service, f.state, f.cah_method_ii ? 1 : 0, at, at],
      );
      return { facility: (await lookupFacility(db, tenantId, mode, ccn))!, created: prev === null };
    },
    lookup: (ccn: string) => lookupFacility(db, tenantId, mode, ccn),
    list: async () => (await db.all<RegistrationRow>(`SELECT ${FAC_COLS} FROM facilities WHERE tenant_id = ? AND mode = ? ORDER BY ccn`, [tenantId, mode])).map(toFacility),
    remove: async (ccn: string, hard: boolean, now: Date): Promise<FacilityRegistration> => {
      const prev = await lookupFacility(db, tenantId, mode, ccn);
      if (!prev) throw new NotFoundError(`facility ${ccn} is not registered by this tenant`);
      if (!hard) {
        await db.run(`UPDATE facilities SET is_active = 0, updated_at = ? WHERE ${where}`, [now.toISOString(), tenantId, mode, ccn]);
        return { ...prev, is_active: false, updated_at: now.toISOString() };
      }
      for (const table of ['pa_overrides', 'facility_payers', 'facilities']) await db.run(`DELETE FROM ${table} WHERE ${where}`, [tenantId, mode, ccn]);
      return { ...prev, is_active: false };
    },
  };
}

export function pgRosters(db: Sql, tenantId: string, mode: KeyType) {
  const byPayer = (ccn: string, slug: string) =>
    db.get<RosterRow>(`SELECT ${ROSTER_COLS} FROM facility_payers WHERE tenant_id = ? AND mode = ? AND ccn = ? AND payer_slug = ?`, [tenantId, mode, ccn, slug]);
  return {
    upsert: async (ccn: string, f: RosterFields, now: Date): Promise<{ entry: RosterEntry; created: boolean }> => {
      await ensureFacility(db, tenantId, mode, ccn, now);
      const prev = await byPayer(ccn, f.payer_slug);
      const at = now.toISOString();
      const row = await db.get<RosterRow>(
        `INSERT INTO facility_payers (id, tenant_id, mode, ccn, payer_slug, payer_name, network_status, effective_date, expiration_date, is_active, notes, plan_types, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (tenant_id, mode, ccn, payer_slug) DO UPDATE SET payer_name = excluded.payer_name, network_status = excluded.network_status,
           effective_date = excluded.effective_date, expiration_date = excluded.expiration_date, is_active = excluded.is_active,
           notes = excluded.notes, plan_types = excluded.plan_types, updated_at = excluded.updated_at
         RETURNING ${ROSTER_COLS}`,
        [
          prev?.id ?? randomUUID(), tenantId, mode, ccn, f.payer_slug, f.payer_name, f.network_status, f.effective_date, f.expiration_date,
          f.is_active ? 1 : 0, f.notes, JSON.stringify(f.plan_types), at, at,
        ],
      );
      return { entry: toRoster(row!), created: prev === undefined };
    },
    list: async (ccn: string) =>
      (await db.all<RosterRow>(`SELECT ${ROSTER_COLS} FROM facility_payers WHERE tenant_id = ? AND mode = ? AND ccn = ? ORDER BY payer_slug`, [tenantId, mode, ccn])).map(toRoster),
  };
}

export function pgOverrides(db: Sql, tenantId: string, mode: KeyType) {
  const one = (ccn: string, id: string) =>
    db.get<OverrideRow>(`SELECT ${OVERRIDE_COLS} FROM pa_overrides WHERE tenant_id = ? AND mode = ? AND ccn = ? AND id = ?`, [tenantId, mode, ccn, id]);
  return {
    create: async (ccn: string, f: PaOverrideFields, now: Date): Promise<PaOverride> => {
      await ensureFacility(db, tenantId, mode, ccn, now);
      const row = await db.get<OverrideRow>(
        `INSERT INTO pa_overrides (id, tenant_id, mode, ccn, payer_slug, payer_name, code, code_type, service_category, pa_required, auth_type,
           delegation_vendor, reason, source_document, effective_date, expiration_date, is_active, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${OVERRIDE_COLS}`,
        [
          randomUUID(), tenantId, mode, ccn, f.payer_slug, f.payer_name, f.code, f.code_type, f.service_category, f.pa_required ? 1 : 0, f.auth_type,
          f.delegation_vendor, f.reason, f.source_document, f.effective_date, f.expiration_date, f.is_active ? 1 : 0, now.toISOString(),
        ],
      );
      return toOverride(row!);
    },
    list: async (ccn: string) =>
      (await db.all<OverrideRow>(`SELECT ${OVERRIDE_COLS} FROM pa_overrides WHERE tenant_id = ? AND mode = ? AND ccn = ? ORDER BY created_at, id`, [tenantId, mode, ccn])).map(toOverride),
    remove: async (ccn: string, id: string): Promise<PaOverride> => {
      const r = await one(ccn, id);
      if (!r) throw new NotFoundError(`prior-auth override ${id} of facility ${ccn} not found`);
      await db.run('DELETE FROM pa_overrides WHERE tenant_id = ? AND mode = ? AND ccn = ? AND id = ?', [tenantId, mode, ccn, id]);
      return toOverride(r);
    },
  };
}

export function pgDeterminations(db: Sql, tenantId: string, mode: KeyType) {
  return {
    create: async (d: NewDetermination): Promise<void> => {
      await db.run(`INSERT INTO pa_determinations (tenant_id, mode, ${DET_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
        tenantId, mode, d.id, d.created_at, d.ccn, d.payer_slug, d.code, JSON.stringify(d.inputs), d.result_json, d.snapshot_id, JSON.stringify(d.dataset_versions),
      ]);
    },
    get: async (id: string): Promise<StoredDetermination> => {
      const r = await db.get<DeterminationRow>(`SELECT ${DET_COLS} FROM pa_determinations WHERE tenant_id = ? AND mode = ? AND id = ?`, [tenantId, mode, id]);
      if (!r) throw new NotFoundError(`determination ${id} not found`);
      return toDetermination(r);
    },
  };
}
