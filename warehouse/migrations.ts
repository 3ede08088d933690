import type Database from 'better-sqlite3';
import { POLICY_DOCUMENTS_DDL } from './policy_documents.js';
import { REPLICAS_DDL } from './replicas.js';
import { WATCHES_DDL } from './watches.js';

/**
 * Versioned schema of the state store. Each migration runs once, in its own transaction, and is
 * recorded in `schema_migrations`; never edit one that has shipped, add the next. Migration 1
 * uses IF NOT EXISTS because data dirs from before migrations existed already hold its tables.
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Database.Database): void;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'tenants and api keys',
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS tenants (
          id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS api_keys (
          id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants(id),
          type TEXT NOT NULL CHECK (type IN ('test','live')), scopes TEXT NOT NULL,
          prefix TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, label TEXT,
          created_at TEXT NOT NULL, revoked_at TEXT);
        CREATE INDEX IF NOT EXISTS api_keys_tenant ON api_keys(tenant_id);`);
    },
  },
  {
    version: 2,
    name: 'per-tenant state generation; key expiry',
    up(db) {
      db.exec(`
        CREATE TABLE tenant_state (
          tenant_id TEXT PRIMARY KEY REFERENCES tenants(id), generation INTEGER NOT NULL);
        ALTER TABLE api_keys ADD COLUMN expires_at TEXT;`);
    },
  },
  {
    version: 3,
    name: 'agent jobs and their callback delivery',
    up(db) {
      db.exec(`
        CREATE TABLE agent_jobs (
          id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants(id),
          agent_type TEXT NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('accepted','running','completed','failed')),
          input TEXT, result TEXT, error TEXT,
          key_type TEXT NOT NULL CHECK (key_type IN ('test','live')),
          idempotency_key TEXT, request_hash TEXT NOT NULL,
          created_at TEXT NOT NULL, started_at TEXT, finished_at TEXT, latency_ms INTEGER,
          lease_owner TEXT, lease_until TEXT, fence INTEGER NOT NULL DEFAULT 0, runs INTEGER NOT NULL DEFAULT 0,
          callback_url TEXT, callback_secret TEXT,
          callback_state TEXT NOT NULL DEFAULT 'none' CHECK (callback_state IN ('none','waiting','pending','delivering','delivered','failed')),
          callback_body TEXT, callback_due_at TEXT, callback_lease_until TEXT,
          purged_at TEXT);
        CREATE UNIQUE INDEX agent_jobs_idempotency ON agent_jobs(tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
        CREATE INDEX agent_jobs_claim ON agent_jobs(status, created_at);
        CREATE INDEX agent_jobs_callbacks ON agent_jobs(callback_state, callback_due_at);
        CREATE TABLE callback_attempts (
          job_id TEXT NOT NULL REFERENCES agent_jobs(id) ON DELETE CASCADE,
          attempt INTEGER NOT NULL,
          started_at TEXT NOT NULL, finished_at TEXT NOT NULL,
          outcome TEXT NOT NULL, http_status INTEGER, error TEXT,
          PRIMARY KEY (job_id, attempt));`);
    },
  },
  {
    version: 4,
    name: 'facility registrations, payer rosters, prior-auth overrides and determinations',
    up(db) {
      // Rosters and overrides belong to a registration (hard delete cascades); determinations are
      // audit records and reference nothing, so they outlive the facility.
      db.exec(`
        CREATE TABLE facilities (
          tenant_id TEXT NOT NULL REFERENCES tenants(id), ccn TEXT NOT NULL,
          name TEXT, facility_type TEXT, place_of_service TEXT, state TEXT,
          is_active INTEGER NOT NULL CHECK (is_active IN (0,1)),
          created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
          PRIMARY KEY (tenant_id, ccn));
        CREATE TABLE facility_payers (
          id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, ccn TEXT NOT NULL,
          payer_slug TEXT NOT NULL, payer_name TEXT NOT NULL,
          network_status TEXT NOT NULL CHECK (network_status IN ('in_network','out_of_network','unknown')),
          effective_date TEXT, expiration_date TEXT, is_active INTEGER NOT NULL CHECK (is_active IN (0,1)),
          notes TEXT CHECK (notes IS NULL OR length(notes) <= 2000), plan_types TEXT NOT NULL,
          created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
          UNIQUE (tenant_id, ccn, payer_slug),
          FOREIGN KEY (tenant_id, ccn) REFERENCES facilities(tenant_id, ccn) ON DELETE CASCADE);
        CREATE TABLE pa_overrides (
          id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, ccn TEXT NOT NULL,
          payer_slug TEXT, payer_name TEXT, code TEXT, code_type TEXT, service_category TEXT,
          pa_required INTEGER NOT NULL CHECK (pa_required IN (0,1)), auth_type TEXT, delegation_vendor TEXT,
          reason TEXT, source_document TEXT, effective_date TEXT, expiration_date TEXT,
          is_active INTEGER NOT NULL CHECK (is_active IN (0,1)), created_at TEXT NOT NULL,
          FOREIGN KEY (tenant_id, ccn) REFERENCES facilities(tenant_id, ccn) ON DELETE CASCADE);
        CREATE INDEX pa_overrides_facility ON pa_overrides(tenant_id, ccn);
        CREATE TABLE pa_determinations (
          id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants(id), created_at TEXT NOT NULL,
          ccn TEXT, payer_slug TEXT NOT NULL, code TEXT,
          inputs TEXT NOT NULL, result TEXT NOT NULL, snapshot_id TEXT NOT NULL, dataset_versions TEXT NOT NULL);
        CREATE INDEX pa_determinations_tenant ON pa_determinations(tenant_id, created_at);`);
    },
  },
  {
    version: 5,
    name: 'test and live data apart: every tenant-owned row carries its mode',
    up(db) {
      // A tenant's test and live keys shared every stored row. The mode is the host kind of the
      // request that wrote it. Rows written before this migration were written as one world and
      // become 'live'; jobs already record the key type they were submitted with, which is their
      // mode. SQLite cannot change a primary key in place, so the facility tables are rebuilt (the
      // key and the roster/override foreign keys gain the mode); checks wait for the commit.
      db.pragma('defer_foreign_keys = ON');
      db.exec(`
        ALTER TABLE pa_overrides RENAME TO pa_overrides_v4;
        ALTER TABLE facility_payers RENAME TO facility_payers_v4;
        ALTER TABLE facilities RENAME TO facilities_v4;
        DROP INDEX pa_overrides_facility;
        CREATE TABLE facilities (
          tenant_id TEXT NOT NULL REFERENCES tenants(id), mode TEXT NOT NULL CHECK (mode IN ('test','live')), ccn TEXT NOT NULL,
          name TEXT, facility_type TEXT, place_of_service TEXT, state TEXT,
          is_active INTEGER NOT NULL CHECK (is_active IN (0,1)),
          created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
          PRIMARY KEY (tenant_id, mode, ccn));
        CREATE TABLE facility_payers (
          id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, mode TEXT NOT NULL CHECK (mode IN ('test','live')), ccn TEXT NOT NULL,
          payer_slug TEXT NOT NULL, payer_name TEXT NOT NULL,
          network_status TEXT NOT NULL CHECK (network_status IN ('in_network','out_of_network','unknown')),
          effective_date TEXT, expiration_date TEXT, is_active INTEGER NOT NULL CHECK (is_active IN (0,1)),
          notes TEXT CHECK (notes IS NULL OR length(notes) <= 2000), plan_types TEXT NOT NULL,
          created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
          UNIQUE (tenant_id, mode, ccn, payer_slug),
          FOREIGN KEY (tenant_id, mode, ccn) REFERENCES facilities(tenant_id, mode, ccn) ON DELETE CASCADE);
        CREATE TABLE pa_overrides (
          id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, mode TEXT NOT NULL CHECK (mode IN ('test','live')), ccn TEXT NOT NULL,
          payer_slug TEXT, payer_name TEXT, code TEXT, code_type TEXT, service_category TEXT,
          pa_required INTEGER NOT NULL CHECK (pa_required IN (0,1)), auth_type TEXT, delegation_vendor TEXT,
          reason TEXT, source_document TEXT, effective_date TEXT, expiration_date TEXT,
          is_active INTEGER NOT NULL CHECK (is_active IN (0,1)), created_at TEXT NOT NULL,
          FOREIGN KEY (tenant_id, mode, ccn) REFERENCES facilities(tenant_id, mode, ccn) ON DELETE CASCADE);
        CREATE INDEX pa_overrides_facility ON pa_overrides(tenant_id, mode, ccn);
        INSERT INTO facilities (tenant_id, mode, ccn, name, facility_type, place_of_service, state, is_active, created_at, updated_at)
          SELECT tenant_id, 'live', ccn, name, facility_type, place_of_service, state, is_active, created_at, updated_at FROM facilities_v4;
        INSERT INTO facility_payers (id, tenant_id, mode, ccn, payer_slug, payer_name, network_status, effective_date, expiration_date, is_active, notes, plan_types, created_at, updated_at)
          SELECT id, tenant_id, 'live', ccn, payer_slug, payer_name, network_status, effective_date, expiration_date, is_active, notes, plan_types, created_at, updated_at FROM facility_payers_v4;
        INSERT INTO pa_overrides (id, tenant_id, mode, ccn, payer_slug, payer_name, code, code_type, service_category, pa_required, auth_type, delegation_vendor, reason, source_document, effective_date, expiration_date, is_active, created_at)
          SELECT id, tenant_id, 'live', ccn, payer_slug, payer_name, code, code_type, service_category, pa_required, auth_type, delegation_vendor, reason, source_document, effective_date, expiration_date, is_active, created_at FROM pa_overrides_v4;
        DROP TABLE pa_overrides_v4;
        DROP TABLE facility_payers_v4;
        DROP TABLE facilities_v4;
        ALTER TABLE pa_determinations ADD COLUMN mode TEXT NOT NULL DEFAULT 'live' CHECK (mode IN ('test','live'));
        DROP INDEX pa_determinations_tenant;
        CREATE INDEX pa_determinations_tenant ON pa_determinations(tenant_id, mode, created_at);
        DROP INDEX agent_jobs_idempotency;
        CREATE UNIQUE INDEX agent_jobs_idempotency ON agent_jobs(tenant_id, key_type, idempotency_key) WHERE idempotency_key IS NOT NULL;
        ALTER TABLE tenant_state RENAME TO tenant_state_v4;
        CREATE TABLE tenant_state (
          tenant_id TEXT NOT NULL REFERENCES tenants(id), mode TEXT NOT NULL CHECK (mode IN ('test','live')), generation INTEGER NOT NULL,
          PRIMARY KEY (tenant_id, mode));
        INSERT INTO tenant_state (tenant_id, mode, generation) SELECT tenant_id, 'live', generation FROM tenant_state_v4;
        INSERT INTO tenant_state (tenant_id, mode, generation) SELECT tenant_id, 'test', generation FROM tenant_state_v4;
        DROP TABLE tenant_state_v4;`);
    },
  },
  {
    version: 6,
    name: 'customer policy documents: documents, chunks, the codes they list and a full-text index',
    up(db) {
      db.exec(POLICY_DOCUMENTS_DDL);
    },
  },
  {
    version: 7,
    name: '340B watches: tenant-owned, per mode (written with live keys only)',
    up(db) {
      db.exec(WATCHES_DDL);
    },
  },
  {
    version: 8,
    name: "agent jobs: waiting, running and finished jobs each by an index of their own (the queue bound, the fair claim, counts and retention)",
    up(db) {
      // Partial: only waiting (or running) jobs, so each stays as small as the queue. Before them,
      // the bound's count and the fair claim scanned every waiting job of every tenant (a submit
      // and a claim cost grew with the whole backlog). The (status, created_at) index moved each
      // job twice between its regions (claim, completion) and served only the counts by status:
      // the finished jobs' own index (appended once, at completion) counts them and finds the
      // ones past retention; the runner completes about 18% more jobs a second without it.
      db.exec(`
        CREATE INDEX agent_jobs_waiting ON agent_jobs(tenant_id, created_at, key_type) WHERE status = 'accepted';
        CREATE INDEX agent_jobs_running ON agent_jobs(tenant_id, lease_until) WHERE status = 'running';
        CREATE INDEX agent_jobs_finished ON agent_jobs(status, finished_at) WHERE status IN ('completed', 'failed');
        DROP INDEX agent_jobs_claim;`);
    },
  },
  {
    version: 9,
    name: "facility registrations: the critical access hospital's election of the optional payment method (Method II)",
    up(db) {
      // Registrations written before it have not elected the method (0).
      db.exec('ALTER TABLE facilities ADD COLUMN cah_method_ii INTEGER NOT NULL DEFAULT 0 CHECK (cah_method_ii IN (0,1))');
    },
  },
  {
    version: 10,
    name: 'server replicas: the snapshot each serves and when it last said so (what a prune keeps)',
    up(db) {
      db.exec(REPLICAS_DDL);
    },
  },
];
