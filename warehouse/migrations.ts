import type Database from 'better-sqlite3';

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
];
