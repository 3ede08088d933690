import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { PgStateStore } from '../warehouse/pg/state.js';
import { SqliteStateStore } from '../warehouse/state.js';
import { type StateStore } from '../warehouse/tenant_state.js';

/** The PostgreSQL server of the PostgreSQL suite (CI starts one: `.ci/run`); unset, those suites skip. */
export const PG_URL = process.env.RCM_TEST_PG_URL;

/**
 * One engine of the state store as the repository suites see it, so the same tests run against
 * both (`describe.each(STORE_KINDS)`). Each test gets an empty store; each test file its own
 * SQLite directory or PostgreSQL database, so files running in parallel never meet.
 */
export interface StoreKind {
  name: 'sqlite' | 'postgres';
  /** True when the engine is not available here (PostgreSQL without RCM_TEST_PG_URL). */
  skip: boolean;
  setup(label: string): Promise<void>;
  /** An empty store on the injected clock. */
  open(now: () => Date): Promise<StateStore>;
  /** Another store on the same data (a second replica, or the CLI beside the server). */
  openAgain(now: () => Date): Promise<StateStore>;
  /** Makes every delete of a facility row fail with 'forced failure' until the returned function is called. */
  failFacilityDeletes(store: StateStore): Promise<() => Promise<void>>;
  teardown(): Promise<void>;
}

/** A database of its own on the test server, or on `server` (dropped by `drop`); `label` names the test file. */
export async function pgDatabase(label: string, server = PG_URL): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `rcm_${label.replace(/\W/g, '_')}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`.toLowerCase();
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(server!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

function sqliteKind(): StoreKind {
  let dir = '';
  let n = 0;
  return {
    name: 'sqlite',
    skip: false,
    setup: async (label) => {
      dir = await mkdtemp(join(tmpdir(), `rcm-${label}-`));
    },
    open: async (now) => new SqliteStateStore(join(dir, `state-${++n}.sqlite`), now),
    openAgain: async (now) => new SqliteStateStore(join(dir, `state-${n}.sqlite`), now),
    failFacilityDeletes: async (store) => {
      const db = (store as SqliteStateStore).db;
      db.exec(`CREATE TRIGGER fail_facility_delete BEFORE DELETE ON facilities BEGIN SELECT RAISE(ABORT, 'forced failure'); END`);
      return async () => void db.exec('DROP TRIGGER fail_facility_delete');
    },
    teardown: () => rm(dir, { recursive: true, force: true }),
  };
}

function postgresKind(): StoreKind {
  let db: Awaited<ReturnType<typeof pgDatabase>> | null = null;
  return {
    name: 'postgres',
    skip: !PG_URL,
    setup: async (label) => {
      db = await pgDatabase(label);
    },
    open: async (now) => {
      const store = await PgStateStore.open(db!.url, now);
      // Empty every table the migrations made (their record stays), identities from 1 again.
      const tables = (await store.pool.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'schema_migrations'`)).rows;
      await store.pool.query(`TRUNCATE ${tables.map((r) => `"${r.t}"`).join(', ')} RESTART IDENTITY CASCADE`);
      return store;
    },
    openAgain: (now) => PgStateStore.open(db!.url, now),
    failFacilityDeletes: async (store) => {
      const pool = (store as PgStateStore).pool;
      await pool.query(`CREATE FUNCTION fail_facility_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'forced failure'; END $$;
        CREATE TRIGGER fail_facility_delete BEFORE DELETE ON facilities FOR EACH ROW EXECUTE FUNCTION fail_facility_delete();`);
      return async () => void (await pool.query('DROP TRIGGER fail_facility_delete ON facilities; DROP FUNCTION fail_facility_delete();'));
    },
    teardown: async () => {
      await db?.drop();
    },
  };
}

/**
 * The hooks of a suite run on `kind`: its database for the file (`label`), and an empty store for
 * each test, handed to `use` and closed after it.
 */
export function storePerTest(kind: StoreKind, label: string, now: () => Date, use: (store: StateStore) => void): void {
  let store: StateStore;
  beforeAll(() => kind.setup(label));
  afterAll(() => kind.teardown());
  beforeEach(async () => {
    store = await kind.open(now);
    use(store);
  });
  afterEach(() => store.close());
}

/** Both engines, each test file getting fresh instances (setup state is per file). */
export const storeKinds = (): StoreKind[] => [sqliteKind(), postgresKind()];
