import Database from 'better-sqlite3';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIO } from '../../cli/main.js';
import { MIGRATIONS } from '../migrations.js';
import { PgStateStore } from './state.js';
import { SqliteStateStore } from '../state.js';
import { hashKey } from '../tenant_state.js';
import { TestClock } from '../../testing/clock.js';
import { PG_URL, pgDatabase } from '../../testing/state_stores.js';

const clock = new TestClock();

async function rcm(env: Record<string, string>, ...argv: string[]) {
  const o = { out: '', err: '' };
  const io: CliIO = { isTTY: false, env, stdout: (s) => void (o.out += s), stderr: (s) => void (o.err += s) };
  const code = await main(argv, io);
  return { code, ...o };
}

/** A SQLite state file with rows in every table (a job with a callback attempt, a policy document, ...). */
async function fill(file: string): Promise<{ secret: string; tenantId: string }> {
  const st = new SqliteStateStore(file, clock.now);
  try {
    const t = await st.admin.createTenant('hospital');
    const { secret } = await st.admin.createKey({ tenant: t.id, type: 'live', scopes: ['knowledge', 'agents'], label: 'ops' });
    const v = st.forTenant(t.id, 'live');
    await v.rosters.upsert('050454', { payer_slug: 'aetna', payer_name: 'Aetna', network_status: 'in_network', effective_date: null, expiration_date: null, is_active: true, notes: 'n', plan_types: ['hmo'] }, clock.now());
    await v.overrides.create('050454', { payer_slug: null, payer_name: null, code: '70553', code_type: 'CPT', service_category: null, pa_required: true, auth_type: null, delegation_vendor: null, reason: 'r', source_document: null, effective_date: null, expiration_date: null, is_active: true }, clock.now());
    await v.determinations.create({ id: 'd0000000-0000-4000-8000-000000000001', created_at: clock.now().toISOString(), ccn: '050454', payer_slug: 'aetna', code: '70553', inputs: { a: 1 }, result_json: '{"b":2}', snapshot_id: 's', dataset_versions: { payers: 'v' } });
    await v.watches.create({ manufacturers: ['abbvie'], ndcs: [], states: ['AR'], entity_types: [] }, clock.now());
    await st.replicas.beat('host-a/1/aa', '20261206T080000Z-abcd', clock.now());
    await v.policyDocuments.save(
      {
        document_id: 'pd_00000000000000000000000a', sha256: 'ab'.repeat(32), title: 'Bariatric surgery', policy_number: 'P-1', effective_date: null, payer_slug: 'aetna', payer_name: 'Aetna',
        page_count: 1, byte_size: 10, structure_source: 'headings', headings: [{ title: 'Coverage', level: 1, page: 1, index: 0 }], chunk_sections: [0, 0], created_at: clock.now().toISOString(),
      },
      [
        { chunk_id: 'c1', ordinal: 0, page_start: 1, page_end: 1, section_path: ['Coverage'], text: 'gastric banding is covered', codes: [{ code: '43770', system: 'CPT', page: 1 }] },
        { chunk_id: 'c2', ordinal: 1, page_start: 1, page_end: 1, section_path: ['Coverage'], text: 'sleeve gastrectomy criteria', codes: [] },
      ],
    );
    await v.jobs.create({ id: '00000000-0000-4000-8000-000000000001', agent_type: 'code_research', input: { q: 1 }, request_hash: 'h', callback_url: 'https://hooks.example.com/x', callback_secret: 's3cret' }, clock.now(), 86_400_000);
    const j = (await st.jobs.claim('w', clock.now(), 10_000))!;
    await st.jobs.finish(j.id, j.fence, { status: 'completed', result: { ok: true } }, clock.now(), () => 'BODY');
    await st.jobs.claimCallback(clock.now(), 1000);
    const at = clock.now().toISOString();
    await st.jobs.recordAttempt(j.id, { attempt: 1, started_at: at, finished_at: at, outcome: 'delivered', http_status: 200, error: null }, { state: 'delivered' });
    return { secret, tenantId: t.id };
  } finally {
    await st.close();
  }
}

describe('rcm state copy: bad options', () => {
  it('names each bad option, and touches nothing', async () => {
    const r = await rcm({ RCM_DATA_DIR: '/nonexistent' }, 'state', 'copy', '--from', 'state.sqlite', '--to', 'mysql://db/x');
    expect(r.code).toBe(1);
    expect(r.err).toContain('option.from: expected sqlite:<path to state.sqlite>');
    expect(r.err).toContain('option.to: expected postgres://');
  });
});

describe.skipIf(!PG_URL)('rcm state copy and rcm state migrate on PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof pgDatabase>>;
  let dir: string;
  let file: string;
  let filled: Awaited<ReturnType<typeof fill>>;
  beforeAll(async () => {
    db = await pgDatabase('pg_state_copy');
    dir = await mkdtemp(join(tmpdir(), 'rcm-state-copy-'));
    file = join(dir, 'state.sqlite');
    filled = await fill(file);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await db.drop();
  });

  it('rcm state migrate migrates the configured store and prints its version', async () => {
    const r = await rcm({ RCM_DATA_DIR: dir, RCM_STATE_URL: db.url }, 'state', 'migrate');
    expect(r).toMatchObject({ code: 0, out: `state store (postgres) at schema version ${MIGRATIONS.at(-1)!.version}\n` });
    expect((await rcm({ RCM_DATA_DIR: dir }, 'state', 'migrate')).out).toMatch(/^state store \(sqlite\) at schema version \d+\n$/);
  });

  it('copies every row of every table, and the copy works as the state store', async () => {
    const r = await rcm({ RCM_DATA_DIR: dir }, 'state', 'copy', '--from', `sqlite:${file}`, '--to', db.url);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).not.toContain(db.url);
    const src = new Database(file, { readonly: true });
    const tables = (src.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'schema_migrations' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
    const pgs = await PgStateStore.open(db.url, clock.now, 2);
    try {
      for (const t of tables) {
        const cols = (src.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').all(t) as { name: string }[]).map((c) => `"${c.name}"`).join(', ');
        const want = src.prepare(`SELECT ${cols} FROM "${t}" ORDER BY ${cols}`).all();
        expect(want.length, `${t} has rows to copy`).toBeGreaterThan(0);
        const got = (await pgs.pool.query(`SELECT ${cols} FROM "${t}" ORDER BY ${cols}`)).rows;
        expect(got, t).toEqual(want);
      }
      expect(r.out).toContain(`copied ${tables.reduce((a, t) => a + (src.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n, 0)} rows in ${tables.length} tables`);
      // The key works, search ranks from the copied postings, and new chunks get new ids.
      expect((await pgs.admin.findActiveKeyByHash(hashKey(filled.secret), clock.now()))?.tenant_id).toBe(filled.tenantId);
      const v = pgs.forTenant(filled.tenantId, 'live');
      expect((await v.policyDocuments.search({ terms: ['gastric'], codes: ['43770'], top_k: 5 })).map((h) => h.chunk.chunk_id)).toEqual(['c1']);
      await v.policyDocuments.save(
        { document_id: 'pd_00000000000000000000000b', sha256: 'cd'.repeat(32), title: null, policy_number: null, effective_date: null, payer_slug: null, payer_name: null, page_count: 1, byte_size: 1, structure_source: 'headings', headings: [], chunk_sections: [-1], created_at: clock.now().toISOString() },
        [{ chunk_id: 'c3', ordinal: 0, page_start: 1, page_end: 1, section_path: [], text: 'new text', codes: [] }],
      );
      expect((await v.policyDocuments.get('pd_00000000000000000000000b')).chunks).toHaveLength(1);
      expect(await v.generation()).toBe((src.prepare("SELECT generation FROM tenant_state WHERE mode = 'live'").get() as { generation: number }).generation + 1);
    } finally {
      src.close();
      await pgs.close();
    }
  });

  it('refuses a source whose tables are not the schema it claims', async () => {
    const odd = join(dir, 'odd.sqlite');
    await copyFile(file, odd);
    const w = new Database(odd);
    w.exec('CREATE TABLE "x""; DROP TABLE tenants; --" (a TEXT)');
    w.close();
    const r = await rcm({ RCM_DATA_DIR: dir }, 'state', 'copy', '--from', `sqlite:${odd}`, '--to', db.url);
    expect(r.code).toBe(1);
    expect(r.err).toContain('schemas differ in tables x"; DROP TABLE tenants; --');
  });

  it('refuses a target that already holds state, changing nothing', async () => {
    const pgs = await PgStateStore.open(db.url, clock.now, 2);
    const before = (await pgs.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM tenants')).rows[0]!.n;
    await pgs.close();
    const r = await rcm({ RCM_DATA_DIR: dir }, 'state', 'copy', '--from', `sqlite:${file}`, '--to', db.url);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/already holds state rows: tenants \(1\)/);
    const again = await PgStateStore.open(db.url, clock.now, 2);
    expect((await again.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM tenants')).rows[0]!.n).toBe(before);
    await again.close();
  });
});
