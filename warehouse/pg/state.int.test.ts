import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../migrations.js';
import { PG_MIGRATIONS, sqliteStepForPostgres } from './schema.js';
import { PgStateStore } from './state.js';
import type { StoredChunk, StoredPolicyDocument } from '../policy_documents.js';
import { SqliteStateStore } from '../state.js';
import { TestClock } from '../../testing/clock.js';
import { PG_URL, pgDatabase } from '../../testing/state_stores.js';

// What only the PostgreSQL store has: its migrations and the listener behind its change marker.
// The repository behaviour both engines share is warehouse/state.int.test.ts and server/jobs/queue.int.test.ts.
const clock = new TestClock();

describe('PostgreSQL migrations', () => {
  it("reach SQLite's latest version, each step's DDL built from SQLite's schema, or by hand where SQLite's step changes a table", () => {
    expect(PG_MIGRATIONS.at(-1)!.version).toBe(MIGRATIONS.at(-1)!.version);
    for (const m of PG_MIGRATIONS) {
      if (/CREATE (TABLE|INDEX)/.test(m.sql())) continue;
      expect(m.sql(), `PostgreSQL migration ${m.version}`).toMatch(/^ALTER TABLE /);
      expect(() => sqliteStepForPostgres(m.version), `SQLite migration ${m.version} changes a table`).toThrow(/write its PostgreSQL twin by hand/);
    }
  });
});

describe.skipIf(!PG_URL)('PostgreSQL state store: migrations', () => {
  let db: Awaited<ReturnType<typeof pgDatabase>>;
  beforeAll(async () => {
    db = await pgDatabase('pg_state');
  });
  afterAll(() => db.drop());

  it('replicas starting together migrate once, and reopening applies nothing twice', async () => {
    const stores = await Promise.all([0, 1, 2].map(() => PgStateStore.open(db.url, clock.now, 2)));
    const again = await PgStateStore.open(db.url, clock.now, 2);
    try {
      for (const s of [...stores, again]) expect(await s.schemaVersion()).toBe(PG_MIGRATIONS.at(-1)!.version);
      const rows = (await again.pool.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows;
      expect(rows.map((r) => r.version)).toEqual(PG_MIGRATIONS.map((m) => m.version));
    } finally {
      await Promise.all([...stores, again].map((s) => s.close()));
    }
  });

  it("has SQLite's tables, columns and indexes of the same version, in the same order", async () => {
    const version = MIGRATIONS.at(-1)!.version;
    const lite = new Database(':memory:');
    for (const m of MIGRATIONS) if (m.version <= version) m.up(lite);
    const want = (lite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((t) => ({
      table: t.name,
      columns: (lite.prepare('SELECT name, type FROM pragma_table_info(?) ORDER BY cid').all(t.name) as { name: string; type: string }[]).map((c) => `${c.name} ${c.type.toLowerCase()}`),
    }));
    const indexes = (lite.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").all() as { name: string }[]).map((i) => i.name);
    lite.close();
    const store = await PgStateStore.open(db.url, clock.now, 2);
    try {
      expect(await store.schemaVersion()).toBe(version);
      // The indexes made by CREATE INDEX (not those behind a primary key or UNIQUE constraint).
      const pgIndexes = await store.pool.query<{ n: string }>(
        `SELECT indexname AS n FROM pg_indexes i WHERE schemaname = current_schema() AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname) ORDER BY indexname COLLATE "C"`,
      );
      expect(pgIndexes.rows.map((r) => r.n)).toEqual(indexes);
      const cols = (
        await store.pool.query<{ table_name: string; column_name: string; data_type: string }>(
          `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
           WHERE c.table_schema = current_schema() AND c.table_name <> 'schema_migrations' ORDER BY c.table_name, c.ordinal_position`,
        )
      ).rows;
      const got = [...new Set(cols.map((c) => c.table_name))].map((table) => ({
        table,
        columns: cols.filter((c) => c.table_name === table).map((c) => `${c.column_name} ${c.data_type}`),
      }));
      expect(got).toEqual(want);
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(!PG_URL)('PostgreSQL state store: migration 9 (CAH Method II on the registration)', () => {
  let db: Awaited<ReturnType<typeof pgDatabase>>;
  beforeAll(async () => {
    db = await pgDatabase('pg_state_m9');
  });
  afterAll(() => db.drop());

  it('reads a registration written before it as not elected, and stores the election after it', async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      // The database as version 8 left it, with a registration in it.
      await c.query('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
      for (const m of PG_MIGRATIONS.filter((x) => x.version <= 8)) {
        await c.query(m.sql());
        await c.query('INSERT INTO schema_migrations VALUES ($1, $2, $3)', [m.version, m.name, '2026-01-01T00:00:00Z']);
      }
      await c.query(`INSERT INTO tenants VALUES ('t1', 'old', '2026-01-01T00:00:00Z')`);
      await c.query(`INSERT INTO facilities VALUES ('t1', 'live', '011300', NULL, NULL, NULL, NULL, 1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`);
    } finally {
      await c.end();
    }
    const store = await PgStateStore.open(db.url, clock.now, 2);
    try {
      expect(await store.schemaVersion()).toBe(PG_MIGRATIONS.at(-1)!.version);
      const live = store.forTenant('t1', 'live');
      expect(await live.facilities.lookup('011300')).toMatchObject({ ccn: '011300', cah_method_ii: false, is_active: true });
      await live.facilities.register('011300', { name: null, facility_type: null, place_of_service: null, state: null, cah_method_ii: true }, clock.now());
      expect((await live.facilities.lookup('011300'))!.cah_method_ii).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(!PG_URL)('PostgreSQL state store: change marker', () => {
  let db: Awaited<ReturnType<typeof pgDatabase>>;
  beforeAll(async () => {
    db = await pgDatabase('pg_state_marker');
  });
  afterAll(() => db.drop());

  const settle = async (s: PgStateStore, from: string) => {
    const deadline = Date.now() + 5000;
    while ((await s.changeMarker()) === from && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    return s.changeMarker();
  };

  it('moves for a committed write of another replica, never for a rolled-back one', async () => {
    const a = await PgStateStore.open(db.url, clock.now, 2);
    const b = await PgStateStore.open(db.url, clock.now, 2);
    try {
      const start = await a.changeMarker();
      const t = await b.admin.createTenant('marker');
      const m0 = await settle(a, start);
      await expect(
        b.forTenant(t.id, 'live').transaction(async (tx) => {
          await tx.facilities.register('050454', { name: null, facility_type: null, place_of_service: null, state: null }, clock.now());
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      // A committed write after it: its notification arrives after any the rollback could have sent.
      await b.forTenant(t.id, 'live').watches.create({ manufacturers: [], ndcs: [], states: [], entity_types: [] }, clock.now());
      const m1 = await settle(a, m0);
      expect(Number(m1.split(':')[0]) - Number(m0.split(':')[0])).toBe(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('changes on every read while its listening connection is down, and recovers', async () => {
    const a = await PgStateStore.open(db.url, clock.now, 2);
    try {
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      // End the listener's session from outside, as a failover or an idle timeout would.
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`);
      await admin.end();
      const deadline = Date.now() + 5000;
      // Each poll waits a timer's turn: the listener's socket closes in an I/O phase, which a loop of
      // resolved promises alone would never reach.
      let m = await a.changeMarker();
      while (!m.startsWith('down:') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
        m = await a.changeMarker();
      }
      expect(m).toMatch(/^down:/);
      expect(await a.changeMarker()).not.toBe(m);
      const back = Date.now() + 5000;
      while ((await a.changeMarker()).startsWith('down:') && Date.now() < back) await new Promise((r) => setTimeout(r, 10));
      expect(await a.changeMarker()).not.toMatch(/^down:/);
    } finally {
      await a.close();
    }
  });
});

describe.skipIf(!PG_URL)('PostgreSQL state store: policy document search', () => {
  let db: Awaited<ReturnType<typeof pgDatabase>>;
  let dir: string;
  beforeAll(async () => {
    db = await pgDatabase('pg_state_search');
    dir = await mkdtemp(join(tmpdir(), 'rcm-pg-search-'));
  });
  afterAll(async () => {
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const texts = [
    ['Coverage Rationale', 'Bariatric surgery is covered when BMI is 40 or more; gastric banding requires six months of supervised diet.'],
    ['Coverage Rationale', 'Gastric bypass and sleeve gastrectomy are covered for adults with obesity-related comorbidities.'],
    ['Documentation', 'Submit the surgeon notes, the psychological evaluation and the diet history with the prior authorization request.'],
    ['Exclusions', 'Banding revision for weight regain is not covered. Sleep studies are covered under another policy.'],
  ] as const;
  const doc = (id: string): [StoredPolicyDocument, StoredChunk[]] => [
    {
      document_id: id, sha256: 'cd'.repeat(32), title: `policy ${id}`, policy_number: null, effective_date: null, payer_slug: null, payer_name: null,
      page_count: 2, byte_size: 100, structure_source: 'headings', headings: [], chunk_sections: texts.map(() => -1), created_at: clock.now().toISOString(),
    },
    texts.map(([section, text], i) => ({
      chunk_id: `${id}_c${i}`, ordinal: i, page_start: 1, page_end: 2, section_path: [section], text,
      codes: i % 2 ? [{ code: '43775', system: 'CPT', page: 1 }] : [{ code: '43770', system: 'CPT', page: 1 }],
    })),
  ];

  it('ranks the same chunks with the same scores as SQLite', async () => {
    const lite = new SqliteStateStore(join(dir, 'state.sqlite'), clock.now);
    const pgs = await PgStateStore.open(db.url, clock.now, 2);
    try {
      const results = [];
      for (const s of [lite, pgs]) {
        const t = await s.admin.createTenant('search');
        const v = s.forTenant(t.id, 'live');
        for (const id of ['pd_00000000000000000000000a', 'pd_00000000000000000000000b']) await v.policyDocuments.save(...doc(id));
        const queries = [
          { terms: ['gastric', 'banding'], codes: [], top_k: 5 },
          { terms: ['covered'], codes: ['43775'], top_k: 3 },
          { terms: ['diet', 'surgeon'], codes: [], top_k: 10, document_id: 'pd_00000000000000000000000b' },
          { terms: [], codes: ['43770', '43775'], top_k: 4 },
        ];
        results.push(await Promise.all(queries.map((q) => v.policyDocuments.search(q))));
      }
      expect(results[0]!.flat().length).toBeGreaterThan(10);
      expect(results[1]).toEqual(results[0]);
    } finally {
      await lite.close();
      await pgs.close();
    }
  });
});
