import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from './errors.js';
import { MIGRATIONS } from './migrations.js';
import type { NewDetermination, PaOverrideFields, RosterFields } from './facilities.js';
import type { StoredChunk, StoredPolicyDocument } from './policy_documents.js';
import { SqliteStateStore } from './state.js';
import { GENERATION_TTL_MS, hashKey, WRITE_POLICY, type StateStore, type TenantStore } from './tenant_state.js';
import { TestClock } from '../testing/clock.js';
import { storeKinds, storePerTest } from '../testing/state_stores.js';

const clock = new TestClock();
let store: StateStore;
/** One tenant's live world as `a` and its test world as `b` (they shared every row). */
async function twoWorlds() {
  const t = await store.admin.createTenant(`worlds-${Math.random().toString(36).slice(2, 8)}`);
  const keyA = await store.admin.createKey({ tenant: t.id, type: 'live', scopes: ['knowledge'] });
  const keyB = await store.admin.createKey({ tenant: t.id, type: 'test', scopes: ['knowledge'] });
  return { a: store.forTenant(t.id, 'live'), b: store.forTenant(t.id, 'test'), keyA, keyB };
}

async function twoTenants() {
  const a = await store.admin.createTenant('tenant-a');
  const b = await store.admin.createTenant('tenant-b');
  const keyA = await store.admin.createKey({ tenant: a.id, type: 'test', scopes: ['knowledge'] });
  const keyB = await store.admin.createKey({ tenant: b.id, type: 'test', scopes: ['knowledge'] });
  return { a: store.forTenant(a.id, 'test'), b: store.forTenant(b.id, 'test'), keyA, keyB };
}

type Fixture = Awaited<ReturnType<typeof twoTenants>>;

const CCN = '050454';
const NO_FIELDS = { name: null, facility_type: null, place_of_service: null, state: null };
const roster = (payer: string): RosterFields => ({
  payer_slug: payer,
  payer_name: payer,
  network_status: 'in_network',
  effective_date: null,
  expiration_date: null,
  is_active: true,
  notes: null,
  plan_types: [],
});
const override = (required: boolean): PaOverrideFields => ({
  payer_slug: null,
  payer_name: null,
  code: '70553',
  code_type: 'CPT',
  service_category: null,
  pa_required: required,
  auth_type: null,
  delegation_vendor: null,
  reason: null,
  source_document: null,
  effective_date: null,
  expiration_date: null,
  is_active: true,
});
const determination = (id: string): NewDetermination => ({
  id,
  created_at: clock.now().toISOString(),
  ccn: CCN,
  payer_slug: 'aetna',
  code: '70553',
  inputs: { payer: 'aetna' },
  result_json: JSON.stringify({ determination: 'unknown' }),
  snapshot_id: 's1',
  dataset_versions: { payers: '2026-11-22' },
});

/** A parsed policy document with one chunk whose text is `text` and which lists `code`. */
const policyDoc = (id: string, text: string, code: string): [StoredPolicyDocument, StoredChunk[]] => [
  {
    document_id: id,
    sha256: 'ab'.repeat(32),
    title: `title of ${text}`,
    policy_number: null,
    effective_date: null,
    payer_slug: null,
    payer_name: null,
    page_count: 1,
    byte_size: 100,
    structure_source: 'headings',
    headings: [{ title: 'Coverage Rationale', level: 1, page: 1, index: 0 }],
    chunk_sections: [0],
    created_at: clock.now().toISOString(),
  },
  [{ chunk_id: `${id}_c1`, ordinal: 1, page_start: 1, page_end: 1, section_path: ['Coverage Rationale'], text, codes: [{ code, system: 'CPT', page: 1 }] }],
];
const DOC = 'pd_00000000000000000000000a';
const watch = (manufacturers: string[]) => ({ manufacturers, ndcs: [], states: ['AR'], entity_types: [] });
const search = (terms: string[], codes: string[] = []) => ({ terms, codes, top_k: 10 });

/**
 * One case per repository method of TenantStore: what tenant B sees or may change of tenant
 * A's rows. Every repository added later (facilities, rosters, overrides, determinations,
 * jobs) adds its methods here; the last test fails when a method has no case.
 */
const ISOLATION: Record<string, (f: Fixture) => Promise<void>> = {
  'keys.list': async ({ a, b, keyA, keyB }) => {
    expect((await a.keys.list()).map((k) => k.id)).toEqual([keyA.record.id]);
    expect((await b.keys.list()).map((k) => k.id)).toEqual([keyB.record.id]);
  },
  'jobs.create': async ({ a, b }) => {
    const now = clock.now();
    const ja = await a.jobs.create({ id: 'a0000000-0000-4000-8000-000000000001', agent_type: 'code_research', input: { q: 'a' }, idempotency_key: 'same', request_hash: 'h1' }, now, 86_400_000);
    // The same Idempotency-Key in another tenant is another job, not A's.
    const jb = await b.jobs.create({ id: 'b0000000-0000-4000-8000-000000000001', agent_type: 'code_research', input: { q: 'b' }, idempotency_key: 'same', request_hash: 'h2' }, now, 86_400_000);
    expect(jb.created).toBe(true);
    expect(jb.job.id).not.toBe(ja.job.id);
    expect((await a.jobs.get(ja.job.id)).input).toEqual({ q: 'a' });
  },
  'jobs.get': async ({ a, b }) => {
    const { job } = await a.jobs.create({ id: 'a0000000-0000-4000-8000-000000000002', agent_type: 'code_research', input: { q: 'secret' }, request_hash: 'h' }, clock.now(), 86_400_000);
    await expect(b.jobs.get(job.id)).rejects.toBeInstanceOf(NotFoundError);
  },
  'facilities.register': async ({ a, b }) => {
    // The same CCN in two tenants is two registrations: B's write neither sees nor changes A's.
    expect((await a.facilities.register(CCN, { ...NO_FIELDS, name: 'A name' }, clock.now())).created).toBe(true);
    expect((await b.facilities.register(CCN, { ...NO_FIELDS, name: 'B name' }, clock.now())).created).toBe(true);
    expect((await a.facilities.lookup(CCN))!.name).toBe('A name');
  },
  'facilities.lookup': async ({ a, b }) => {
    await a.facilities.register(CCN, NO_FIELDS, clock.now());
    expect(await b.facilities.lookup(CCN)).toBeNull();
  },
  'facilities.list': async ({ a, b }) => {
    await a.facilities.register(CCN, NO_FIELDS, clock.now());
    expect(await b.facilities.list()).toEqual([]);
    expect((await a.facilities.list()).map((f) => f.ccn)).toEqual([CCN]);
  },
  'facilities.remove': async ({ a, b }) => {
    await a.facilities.register(CCN, NO_FIELDS, clock.now());
    await expect(b.facilities.remove(CCN, true, clock.now())).rejects.toBeInstanceOf(NotFoundError);
    expect((await a.facilities.lookup(CCN))!.is_active).toBe(true);
  },
  'rosters.upsert': async ({ a, b }) => {
    const ea = await a.rosters.upsert(CCN, roster('aetna'), clock.now());
    const eb = await b.rosters.upsert(CCN, { ...roster('aetna'), network_status: 'out_of_network' }, clock.now());
    expect(eb.created).toBe(true);
    expect(eb.entry.id).not.toBe(ea.entry.id);
    expect((await a.rosters.list(CCN))[0]!.network_status).toBe('in_network');
  },
  'rosters.list': async ({ a, b }) => {
    await a.rosters.upsert(CCN, roster('aetna'), clock.now());
    expect(await b.rosters.list(CCN)).toEqual([]);
  },
  'overrides.create': async ({ a, b }) => {
    await a.overrides.create(CCN, override(true), clock.now());
    await b.overrides.create(CCN, override(false), clock.now());
    expect((await a.overrides.list(CCN)).map((o) => o.pa_required)).toEqual([true]);
  },
  'overrides.list': async ({ a, b }) => {
    await a.overrides.create(CCN, override(true), clock.now());
    expect(await b.overrides.list(CCN)).toEqual([]);
  },
  'overrides.remove': async ({ a, b }) => {
    const o = await a.overrides.create(CCN, override(true), clock.now());
    await b.facilities.register(CCN, NO_FIELDS, clock.now());
    await expect(b.overrides.remove(CCN, o.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await a.overrides.list(CCN)).toHaveLength(1);
  },
  'determinations.create': async ({ a, b }) => {
    await a.determinations.create(determination('d0000000-0000-4000-8000-000000000001'));
    // The same id in another tenant cannot overwrite or reveal A's record (ids are global).
    await expect(b.determinations.create(determination('d0000000-0000-4000-8000-000000000001'))).rejects.toThrow();
    expect((await a.determinations.get('d0000000-0000-4000-8000-000000000001')).inputs).toEqual({ payer: 'aetna' });
  },
  'determinations.get': async ({ a, b }) => {
    await a.determinations.create(determination('d0000000-0000-4000-8000-000000000002'));
    await expect(b.determinations.get('d0000000-0000-4000-8000-000000000002')).rejects.toBeInstanceOf(NotFoundError);
  },
  'policyDocuments.save': async ({ a, b }) => {
    // The same document id in another tenant (or mode) is another document: B's save neither sees nor replaces A's.
    expect((await a.policyDocuments.save(...policyDoc(DOC, 'gastric banding criteria', '43770'))).created).toBe(true);
    expect((await b.policyDocuments.save(...policyDoc(DOC, 'sleep apnea criteria', '95810'))).created).toBe(true);
    expect((await a.policyDocuments.get(DOC)).chunks[0]!.text).toBe('gastric banding criteria');
  },
  'policyDocuments.get': async ({ a, b }) => {
    await a.policyDocuments.save(...policyDoc(DOC, 'gastric banding criteria', '43770'));
    await expect(b.policyDocuments.get(DOC)).rejects.toBeInstanceOf(NotFoundError);
  },
  'policyDocuments.list': async ({ a, b }) => {
    await a.policyDocuments.save(...policyDoc(DOC, 'gastric banding criteria', '43770'));
    expect(await b.policyDocuments.list()).toEqual([]);
    expect((await a.policyDocuments.list()).map((d) => [d.document_id, d.chunk_count])).toEqual([[DOC, 1]]);
  },
  'policyDocuments.remove': async ({ a, b }) => {
    await a.policyDocuments.save(...policyDoc(DOC, 'gastric banding criteria', '43770'));
    await expect(b.policyDocuments.remove(DOC)).rejects.toBeInstanceOf(NotFoundError);
    expect((await a.policyDocuments.search(search(['gastric']))).map((h) => h.chunk.chunk_id)).toEqual([`${DOC}_c1`]);
  },
  'policyDocuments.search': async ({ a, b }) => {
    await a.policyDocuments.save(...policyDoc(DOC, 'gastric banding criteria', '43770'));
    await b.policyDocuments.save(...policyDoc('pd_00000000000000000000000b', 'unrelated sleep study text', '95810'));
    // Neither A's words nor A's codes reach B, in all of B's documents or naming A's id.
    expect(await b.policyDocuments.search(search(['gastric', 'banding'], ['43770']))).toEqual([]);
    await expect(b.policyDocuments.search({ ...search(['gastric']), document_id: DOC })).rejects.toBeInstanceOf(NotFoundError);
    expect((await a.policyDocuments.search(search(['gastric'], ['43770'])))[0]!.codes_matched).toEqual(['43770']);
  },
  'watches.create': async ({ a, b }) => {
    // The same fields in another tenant (or mode) are another watch: B's create neither sees nor changes A's.
    const wa = await a.watches.create(watch(['abbvie']), clock.now());
    const wb = await b.watches.create(watch(['sanofi']), clock.now());
    expect(wb.id).not.toBe(wa.id);
    expect((await a.watches.list()).map((w) => w.manufacturers)).toEqual([['abbvie']]);
  },
  'watches.list': async ({ a, b }) => {
    await a.watches.create(watch(['abbvie']), clock.now());
    expect(await b.watches.list()).toEqual([]);
  },
  'watches.get': async ({ a, b }) => {
    const w = await a.watches.create(watch(['abbvie']), clock.now());
    await expect(b.watches.get(w.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await a.watches.get(w.id)).manufacturers).toEqual(['abbvie']);
  },
  'watches.remove': async ({ a, b }) => {
    const w = await a.watches.create(watch(['abbvie']), clock.now());
    await expect(b.watches.remove(w.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await a.watches.list()).map((x) => x.id)).toEqual([w.id]);
  },
  'keys.revoke': async ({ a, b, keyA }) => {
    await expect(b.keys.revoke(keyA.record.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await a.keys.list())[0]!.revoked_at).toBeNull();
    expect(await store.admin.findActiveKeyByHash(hashKey(keyA.secret), clock.now())).not.toBeNull();
  },
};

/**
 * One successful call of each repository method: the set-up (not measured) returns the call whose
 * effect on the tenant's generation the write-policy test measures.
 */
const ONE_CALL: Record<string, (t: TenantStore, ownKeyId: string) => Promise<() => Promise<unknown>>> = {
  'keys.list': async (t) => () => t.keys.list(),
  'keys.revoke': async (t, key) => () => t.keys.revoke(key),
  'jobs.create': async (t) => () => t.jobs.create({ id: 'c0000000-0000-4000-8000-000000000001', agent_type: 'code_research', input: { q: 'x' }, request_hash: 'h' }, clock.now(), 86_400_000),
  'jobs.get': async (t) => {
    const { job } = await t.jobs.create({ id: 'c0000000-0000-4000-8000-000000000002', agent_type: 'code_research', input: { q: 'x' }, request_hash: 'h' }, clock.now(), 86_400_000);
    return () => t.jobs.get(job.id);
  },
  'facilities.register': async (t) => () => t.facilities.register(CCN, NO_FIELDS, clock.now()),
  'facilities.lookup': async (t) => () => t.facilities.lookup(CCN),
  'facilities.list': async (t) => () => t.facilities.list(),
  'facilities.remove': async (t) => {
    await t.facilities.register(CCN, NO_FIELDS, clock.now());
    return () => t.facilities.remove(CCN, false, clock.now());
  },
  'rosters.upsert': async (t) => () => t.rosters.upsert(CCN, roster('aetna'), clock.now()),
  'rosters.list': async (t) => () => t.rosters.list(CCN),
  'overrides.create': async (t) => () => t.overrides.create(CCN, override(true), clock.now()),
  'overrides.list': async (t) => () => t.overrides.list(CCN),
  'overrides.remove': async (t) => {
    const o = await t.overrides.create(CCN, override(true), clock.now());
    return () => t.overrides.remove(CCN, o.id);
  },
  'determinations.create': async (t) => () => t.determinations.create(determination('d0000000-0000-4000-8000-000000000009')),
  'determinations.get': async (t) => {
    await t.determinations.create(determination('d0000000-0000-4000-8000-00000000000a'));
    return () => t.determinations.get('d0000000-0000-4000-8000-00000000000a');
  },
  'policyDocuments.save': async (t) => () => t.policyDocuments.save(...policyDoc(DOC, 'gastric banding criteria', '43770')),
  'policyDocuments.get': async (t) => {
    await t.policyDocuments.save(...policyDoc(DOC, 'gastric banding criteria', '43770'));
    return () => t.policyDocuments.get(DOC);
  },
  'policyDocuments.list': async (t) => () => t.policyDocuments.list(),
  'policyDocuments.remove': async (t) => {
    await t.policyDocuments.save(...policyDoc(DOC, 'gastric banding criteria', '43770'));
    return () => t.policyDocuments.remove(DOC);
  },
  'policyDocuments.search': async (t) => () => t.policyDocuments.search(search(['gastric'])),
  'watches.create': async (t) => () => t.watches.create(watch(['abbvie']), clock.now()),
  'watches.list': async (t) => () => t.watches.list(),
  'watches.get': async (t) => {
    const w = await t.watches.create(watch(['abbvie']), clock.now());
    return () => t.watches.get(w.id);
  },
  'watches.remove': async (t) => {
    const w = await t.watches.create(watch(['abbvie']), clock.now());
    return () => t.watches.remove(w.id);
  },
};

for (const kind of storeKinds()) {
  describe.skipIf(kind.skip)(`the ${kind.name} state store`, () => {
    storePerTest(kind, 'state', clock.now, (s) => (store = s));

    it('refuses a second tenant of the same name as a conflict naming it, and keeps the first', async () => {
      const first = await store.admin.createTenant('acme');
      await expect(store.admin.createTenant('acme')).rejects.toThrow(new ConflictError('tenant acme exists; its keys: rcm keys create --tenant acme'));
      expect((await store.admin.findTenants()).filter((t) => t.name === 'acme')).toEqual([first]);
    });

    describe('tenant isolation, one case per repository method', () => {
      for (const [method, check] of Object.entries(ISOLATION)) {
        it(`${method}: tenant B can neither read nor change tenant A's rows`, async () => {
          await check(await twoTenants());
        });
      }

      for (const [method, check] of Object.entries(ISOLATION)) {
        it(`${method}: a tenant's test world can neither read nor change its live rows`, async () => {
          await check(await twoWorlds());
        });
      }

      it("keeps a generation per mode: a test write leaves live cached answers alone", async () => {
        const { a, b } = await twoWorlds();
        const live0 = await a.generation();
        await b.facilities.register('050454', { name: 'test only', facility_type: null, place_of_service: null, state: null }, clock.now());
        expect(await a.generation()).toBe(live0);
        expect(await b.generation()).toBeGreaterThan(0);
      });

      it('moves the generation on each repository method exactly as the one write policy says (writes bump, appends and reads do not)', async () => {
        for (const [repo, methods] of Object.entries(WRITE_POLICY)) {
          for (const [m, kind] of Object.entries(methods)) {
            const method = `${repo}.${m}`;
            const { a, keyA } = await twoWorlds();
            const call = ONE_CALL[method];
            expect(call, `ONE_CALL has no case for ${method}`).toBeDefined();
            const run = await call!(a, keyA.record.id);
            const before = await a.generation();
            await run();
            expect({ method, moved: (await a.generation()) - before }).toEqual({ method, moved: kind === 'write' || kind === 'key_write' ? 1 : 0 });
          }
        }
        expect(Object.keys(ONE_CALL).sort()).toEqual(Object.entries(WRITE_POLICY).flatMap(([r, ms]) => Object.keys(ms).map((m) => `${r}.${m}`)).sort());
      });

      it('covers every repository method of TenantStore', () => {
        const view = store.forTenant('x', 'test') as unknown as Record<string, unknown>;
        const methods: string[] = [];
        for (const [repo, v] of Object.entries(view)) {
          if (v && typeof v === 'object') for (const m of Object.keys(v)) methods.push(`${repo}.${m}`);
        }
        expect(methods.sort()).toEqual(Object.keys(ISOLATION).sort());
      });
    });

    describe('writes', () => {
      it('bumps the tenant generation with every write, in the same transaction', async () => {
        const { a, b, keyA } = await twoTenants();
        const g0 = await a.generation();
        await a.keys.revoke(keyA.record.id);
        expect(await a.generation()).toBe(g0 + 1);
        expect(await b.generation()).toBe(0);
      });

      it('a transaction that fails mid-way leaves nothing half-done and the generation unchanged', async () => {
        const { a } = await twoTenants();
        const k2 = await store.admin.createKey({ tenant: a.tenantId, type: 'test', scopes: ['knowledge'] });
        const [k1] = await a.keys.list();
        const g0 = await a.generation();
        await expect(
          a.transaction(async (tx) => {
            await tx.keys.revoke(k1!.id);
            await tx.keys.revoke(k2.record.id);
            throw new Error('forced failure after two writes');
          }),
        ).rejects.toThrow('forced failure');
        expect((await a.keys.list()).every((k) => k.revoked_at === null)).toBe(true);
        expect(await a.generation()).toBe(g0);
        // And a transaction that succeeds commits both writes with one bump.
        await a.transaction(async (tx) => {
          await tx.keys.revoke(k1!.id);
          await tx.keys.revoke(k2.record.id);
        });
        expect((await a.keys.list()).every((k) => k.revoked_at !== null)).toBe(true);
        expect(await a.generation()).toBe(g0 + 1);
      });

      it('other callers wait for an open transaction instead of seeing its uncommitted rows', async () => {
        const { a, keyA } = await twoTenants();
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        const tx = a.transaction(async (t: TenantStore) => {
          await t.keys.revoke(keyA.record.id);
          await gate;
          throw new Error('rolled back');
        });
        const outside = a.keys.list();
        release();
        await expect(tx).rejects.toThrow('rolled back');
        expect((await outside)[0]!.revoked_at).toBeNull();
      });

      it('purges session tenants with every row they stored, and never a tenant holding a key that does not expire', async () => {
      const hour = new Date(clock.now().getTime() + 3_600_000);
      const session = await store.admin.createTenant('playground-abc');
      await store.admin.createKey({ tenant: session.id, type: 'test', scopes: ['knowledge'], label: 'playground', expiresAt: hour });
      const kept = await store.admin.createTenant('playground-def');
      await store.admin.createKey({ tenant: kept.id, type: 'test', scopes: ['knowledge'], label: 'playground', expiresAt: hour });
      await store.admin.createKey({ tenant: kept.id, type: 'test', scopes: ['knowledge'] });
      const other = await store.admin.createTenant('playgroundish');
      await store.admin.createKey({ tenant: other.id, type: 'test', scopes: ['knowledge'], label: 'playground', expiresAt: hour });
      for (const t of [session, kept]) {
        const v = store.forTenant(t.id, 'test');
        await v.rosters.upsert(CCN, roster('aetna'), clock.now());
        await v.policyDocuments.save(...policyDoc(DOC, 'gastric banding criteria', '43770'));
        await v.jobs.create({ id: `${t.id.slice(0, 8)}-0000-4000-8000-000000000001`, agent_type: 'code_research', input: {}, request_hash: 'h' }, clock.now(), 86_400_000);
      }
      expect(await store.admin.purgeSessionTenants('playground', clock.now())).toBe(0); // keys still valid
      expect(await store.admin.purgeSessionTenants('playground', new Date(hour.getTime() + 1))).toBe(1);
      expect((await store.admin.findTenants()).map((t) => t.name).sort()).toEqual(['playground-def', 'playgroundish']);
      expect(await store.admin.findKeys(session.id)).toEqual([]);
      // The purged tenant's id now finds nothing; the kept one's rows are whole.
      expect(await store.forTenant(session.id, 'test').rosters.list(CCN)).toEqual([]);
      expect(await store.forTenant(kept.id, 'test').rosters.list(CCN)).toHaveLength(1);
      expect((await store.forTenant(kept.id, 'test').policyDocuments.search(search(['gastric']))).length).toBe(1);
      expect(await store.admin.purgeExpiredKeys(kept.id, new Date(hour.getTime() + 1))).toBe(1);
      expect(await store.admin.findKeys(kept.id)).toHaveLength(1);
    });

    it("an operator's revoke and the tenant's own revoke of one key at once both succeed", async () => {
      const { a } = await twoTenants();
      for (let i = 0; i < 5; i++) {
        const k = await store.admin.createKey({ tenant: a.tenantId, type: 'test', scopes: ['knowledge'] });
        const [x, y] = await Promise.all([store.admin.revokeKey(k.record.id), a.keys.revoke(k.record.id)]);
        expect([x.revoked_at, y.revoked_at].every((r) => r !== null)).toBe(true);
      }
    });

    it('keys expire at their time on the injected clock', async () => {
        const t = await store.admin.createTenant('p');
        const k = await store.admin.createKey({ tenant: t.id, type: 'test', scopes: ['knowledge'], expiresAt: new Date(clock.now().getTime() + 3_600_000) });
        expect(await store.admin.findActiveKeyByHash(hashKey(k.secret), clock.now())).not.toBeNull();
        expect(await store.admin.findActiveKeyByHash(hashKey(k.secret), new Date(clock.now().getTime() + 3_600_001))).toBeNull();
      });

      it('issues keys of the documented shape, each character drawn evenly', async () => {
        const t = await store.admin.createTenant('shape');
        const k = await store.admin.createKey({ tenant: t.id, type: 'live', scopes: ['knowledge'] });
        expect(k.secret).toMatch(/^kp_live_[A-Za-z0-9]{32}$/);
        expect(k.record.prefix).toBe(k.secret.slice(0, 12));
      });
    });

    describe('replica heartbeats', () => {
      it('keeps one row per replica, its latest snapshot, and lists those heard from since a time', async () => {
        const t0 = clock.now();
        const at = (s: number) => new Date(t0.getTime() + s * 1000);
        await store.replicas.beat('host-a/1/aa', 'snap-1', at(0));
        await store.replicas.beat('host-b/2/bb', 'snap-1', at(10));
        await store.replicas.beat('host-a/1/aa', 'snap-2', at(20));
        expect(await store.replicas.since(at(0))).toEqual([
          { replica: 'host-a/1/aa', snapshot_id: 'snap-2', seen_at: at(20).toISOString() },
          { replica: 'host-b/2/bb', snapshot_id: 'snap-1', seen_at: at(10).toISOString() },
        ]);
        expect((await store.replicas.since(at(15))).map((h) => h.replica)).toEqual(['host-a/1/aa']);
        expect(await store.replicas.forget(at(15))).toBe(1);
        expect((await store.replicas.since(at(0))).map((h) => h.replica)).toEqual(['host-a/1/aa']);
      });
    });

    describe('facility state', () => {
      it("a registration's CAH Method II election reads back as written; omitted, re-registered or implicit is not elected", async () => {
        const { a } = await twoTenants();
        const first = await a.facilities.register(CCN, { ...NO_FIELDS, facility_type: 'critical_access_hospital', cah_method_ii: true }, clock.now());
        expect(first.facility).toMatchObject({ ccn: CCN, facility_type: 'critical_access_hospital', cah_method_ii: true, is_active: true });
        expect(await a.facilities.lookup(CCN)).toEqual(first.facility);
        expect(await a.facilities.list()).toEqual([first.facility]);
        // Soft delete keeps the election (it applies again on re-registration only if the body says so).
        expect((await a.facilities.remove(CCN, false, clock.now())).cah_method_ii).toBe(true);
        expect((await a.facilities.lookup(CCN))!.cah_method_ii).toBe(true);
        // The body replaces the registration: omitted is not elected.
        expect((await a.facilities.register(CCN, NO_FIELDS, clock.now())).facility.cah_method_ii).toBe(false);
        expect((await a.facilities.register(CCN, { ...NO_FIELDS, cah_method_ii: false }, clock.now())).facility.cah_method_ii).toBe(false);
        // A roster write registers the CCN implicitly, not elected.
        await a.rosters.upsert('011300', roster('aetna'), clock.now());
        expect((await a.facilities.lookup('011300'))!.cah_method_ii).toBe(false);
      });

      it('a roster upsert and an override answer exactly what a read of them then shows (created, then updated)', async () => {
        const { a } = await twoTenants();
        const first = await a.rosters.upsert(CCN, { ...roster('aetna'), plan_types: ['hmo', 'ppo'], notes: 'n1' }, clock.now());
        expect([first.entry]).toEqual(await a.rosters.list(CCN));
        clock.advance(60_000);
        const second = await a.rosters.upsert(CCN, { ...roster('aetna'), network_status: 'out_of_network', is_active: false, effective_date: '2026-01-01', plan_types: [], notes: null }, clock.now());
        expect(second.created).toBe(false);
        expect(second.entry.id).toBe(first.entry.id);
        expect(second.entry.created_at).toBe(first.entry.created_at);
        expect(second.entry.updated_at).not.toBe(first.entry.updated_at);
        expect([second.entry]).toEqual(await a.rosters.list(CCN));
        const o = await a.overrides.create(CCN, { ...override(false), payer_slug: 'aetna', payer_name: 'Aetna', reason: 'contract', expiration_date: '2027-01-01', is_active: false }, clock.now());
        expect([o]).toEqual(await a.overrides.list(CCN));
      });

      it('soft delete keeps the roster and overrides; hard delete removes them and the registration, not the determinations', async () => {
        const { a } = await twoTenants();
        await a.rosters.upsert(CCN, roster('aetna'), clock.now()); // registers implicitly
        await a.overrides.create(CCN, override(true), clock.now());
        await a.determinations.create(determination('d0000000-0000-4000-8000-000000000003'));
        expect((await a.facilities.remove(CCN, false, clock.now())).is_active).toBe(false);
        expect((await a.facilities.lookup(CCN))!.is_active).toBe(false);
        expect(await a.rosters.list(CCN)).toHaveLength(1);
        // Registering again re-activates the same registration.
        expect((await a.facilities.register(CCN, NO_FIELDS, clock.now())).created).toBe(false);
        expect((await a.facilities.lookup(CCN))!.is_active).toBe(true);
        await a.facilities.remove(CCN, true, clock.now());
        expect(await a.facilities.lookup(CCN)).toBeNull();
        expect(await a.rosters.list(CCN)).toEqual([]);
        expect(await a.overrides.list(CCN)).toEqual([]);
        expect((await a.determinations.get('d0000000-0000-4000-8000-000000000003')).ccn).toBe(CCN);
      });

      it('a hard delete that fails mid-way (after the overrides and roster went) leaves everything in place', async () => {
        const { a } = await twoTenants();
        await a.rosters.upsert(CCN, roster('aetna'), clock.now());
        await a.overrides.create(CCN, override(true), clock.now());
        const g0 = await a.generation();
        // Forced error inside the repository's own transaction: the last of its three deletes fails.
        const restore = await kind.failFacilityDeletes(store);
        await expect(a.facilities.remove(CCN, true, clock.now())).rejects.toThrow('forced failure');
        await restore();
        expect(await a.facilities.lookup(CCN)).not.toBeNull();
        expect(await a.rosters.list(CCN)).toHaveLength(1);
        expect(await a.overrides.list(CCN)).toHaveLength(1);
        expect(await a.generation()).toBe(g0);
      });

      it('a roster upsert that fails after registering the facility implicitly leaves no registration', async () => {
        const { a } = await twoTenants();
        await expect(a.rosters.upsert(CCN, { ...roster('aetna'), notes: 'x'.repeat(2001) }, clock.now())).rejects.toThrow(/check constraint/i);
        expect(await a.facilities.lookup(CCN)).toBeNull();
      });

      it('20 concurrent upserts of one facility and payer leave one row with one id', async () => {
        const { a } = await twoTenants();
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => a.rosters.upsert(CCN, { ...roster('aetna'), notes: `write ${i}` }, clock.now())),
        );
        expect(results.filter((r) => r.created)).toHaveLength(1);
        expect(new Set(results.map((r) => r.entry.id)).size).toBe(1);
        const rows = await a.rosters.list(CCN);
        expect(rows).toHaveLength(1);
        expect(rows[0]!.notes).toBe('write 19');
      });

      it('20 concurrent upserts of one facility and payer split over two replicas leave one row with one id', async () => {
      const { a } = await twoTenants();
      const other = await kind.openAgain(clock.now);
      try {
        const b = other.forTenant(a.tenantId, a.mode);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).rosters.upsert(CCN, { ...roster('aetna'), notes: `write ${i}` }, clock.now())),
        );
        expect(results.filter((r) => r.created)).toHaveLength(1);
        expect(new Set(results.map((r) => r.entry.id)).size).toBe(1);
        expect(await a.rosters.list(CCN)).toHaveLength(1);
        expect(await a.generation()).toBe(20);
      } finally {
        await other.close();
      }
    });

    it("moves the change marker when another replica commits, and shows that replica's write in the generation", async () => {
      const { a } = await twoTenants();
      const other = await kind.openAgain(clock.now);
      try {
        const m0 = await store.changeMarker();
        const g0 = await a.generation();
        await other.forTenant(a.tenantId, a.mode).facilities.register(CCN, NO_FIELDS, clock.now());
        // PostgreSQL delivers the commit's notification asynchronously: wait for it (no clock moves,
        // so the generation memo has not expired: the notification itself must drop it).
        const deadline = Date.now() + 2000;
        while ((await store.changeMarker()) === m0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
        expect(await store.changeMarker()).not.toBe(m0);
        if (kind.name === 'postgres') expect(await a.generation()).toBe(g0 + 1);
        clock.advance(GENERATION_TTL_MS);
        expect(await a.generation()).toBe(g0 + 1);
      } finally {
        await other.close();
      }
    });

    it('writes move the generation; a stored determination does not (no cached answer changes)', async () => {
        const { a } = await twoTenants();
        const g0 = await a.generation();
        await a.facilities.register(CCN, NO_FIELDS, clock.now());
        await a.rosters.upsert(CCN, roster('aetna'), clock.now());
        const o = await a.overrides.create(CCN, override(true), clock.now());
        await a.overrides.remove(CCN, o.id);
        expect(await a.generation()).toBe(g0 + 4);
        await a.determinations.create(determination('d0000000-0000-4000-8000-000000000004'));
        expect(await a.generation()).toBe(g0 + 4);
      });
    });
  });
}

describe('SQLite state file', () => {
  let dir: string;
  let store: SqliteStateStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rcm-state-'));
    store = new SqliteStateStore(join(dir, 'state.sqlite'), clock.now);
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('migrations', () => {
    it('records each versioned migration once', async () => {
      expect(await store.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
      await store.close();
      store = new SqliteStateStore(join(dir, 'state.sqlite'), clock.now); // reopening applies nothing twice
      const db = new Database(join(dir, 'state.sqlite'), { readonly: true });
      const rows = db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as { version: number }[];
      db.close();
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    });

    it('upgrades a state file written before migrations existed, keeping its keys', async () => {
      const file = join(dir, 'old.sqlite');
      const db = new Database(file);
      db.exec(`CREATE TABLE tenants (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL);
        CREATE TABLE api_keys (id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants(id), type TEXT NOT NULL, scopes TEXT NOT NULL,
          prefix TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, label TEXT, created_at TEXT NOT NULL, revoked_at TEXT);
        INSERT INTO tenants VALUES ('t1', 'old', '2026-01-01T00:00:00Z');
        INSERT INTO api_keys VALUES ('key_1', 't1', 'test', '["knowledge"]', 'kp_test_abcd', '${hashKey('kp_test_' + 'a'.repeat(32))}', NULL, '2026-01-01T00:00:00Z', NULL);`);
      db.close();
      const old = new SqliteStateStore(file, clock.now);
      try {
        expect(await old.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
        const k = await old.admin.findActiveKeyByHash(hashKey('kp_test_' + 'a'.repeat(32)), clock.now());
        expect(k).toMatchObject({ id: 'key_1', tenant_id: 't1', expires_at: null });
        expect(await old.forTenant('t1', 'live').generation()).toBe(0);
      } finally {
        await old.close();
      }
    });
  });

  describe('migration 9: CAH Method II on the registration', () => {
    it('reads a registration written before it as not elected, and stores the election after it', async () => {
      const file = join(dir, 'v8.sqlite');
      const db = new Database(file);
      db.pragma('foreign_keys = ON');
      db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
      for (const m of MIGRATIONS.filter((x) => x.version <= 8)) {
        m.up(db);
        db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, '2026-01-01T00:00:00Z');
      }
      db.exec(`INSERT INTO tenants VALUES ('t1', 'old', '2026-01-01T00:00:00Z');
        INSERT INTO facilities VALUES ('t1', 'live', '011300', NULL, NULL, NULL, NULL, 1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');`);
      db.close();
      const up = new SqliteStateStore(file, clock.now);
      try {
        expect(await up.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
        const live = up.forTenant('t1', 'live');
        expect(await live.facilities.lookup('011300')).toMatchObject({ ccn: '011300', cah_method_ii: false, is_active: true });
        await live.facilities.register('011300', { ...NO_FIELDS, cah_method_ii: true }, clock.now());
        expect((await live.facilities.lookup('011300'))!.cah_method_ii).toBe(true);
      } finally {
        await up.close();
      }
    });
  });

  describe('migration 5: test and live apart', () => {
    it('assigns rows written before it to live, and jobs to the key type they recorded', async () => {
      const file = join(dir, 'v4.sqlite');
      const db = new Database(file);
      db.pragma('foreign_keys = ON');
      db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
      for (const m of MIGRATIONS.filter((x) => x.version <= 4)) {
        m.up(db);
        db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, '2026-01-01T00:00:00Z');
      }
      db.exec(`INSERT INTO tenants VALUES ('t1', 'old', '2026-01-01T00:00:00Z');
        INSERT INTO tenant_state VALUES ('t1', 7);
        INSERT INTO facilities VALUES ('t1', '050454', 'Old Hospital', NULL, NULL, 'CA', 1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
        INSERT INTO facility_payers VALUES ('r1', 't1', '050454', 'cigna', 'Cigna', 'in_network', NULL, NULL, 1, 'note', '[]', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
        INSERT INTO pa_overrides (id, tenant_id, ccn, code, pa_required, is_active, created_at) VALUES ('o1', 't1', '050454', '64490', 0, 1, '2026-01-01T00:00:00Z');
        INSERT INTO pa_determinations VALUES ('d1', 't1', '2026-01-01T00:00:00Z', NULL, 'medicare_ffs', '64490', '{}', '{}', 's', '{}');
        INSERT INTO agent_jobs (id, tenant_id, agent_type, status, input, key_type, request_hash, created_at, callback_state)
          VALUES ('j1', 't1', 'code_research', 'accepted', '{}', 'test', 'h', '2026-01-01T00:00:00Z', 'none');`);
      db.close();
      const up = new SqliteStateStore(file, clock.now);
      try {
        const live = up.forTenant('t1', 'live');
        const test = up.forTenant('t1', 'test');
        expect((await live.facilities.list()).map((f) => f.ccn)).toEqual(['050454']);
        expect(await test.facilities.list()).toEqual([]);
        expect((await live.rosters.list('050454')).map((r) => r.notes)).toEqual(['note']);
        expect((await live.overrides.list('050454')).map((o) => o.id)).toEqual(['o1']);
        expect((await live.determinations.get('d1')).id).toBe('d1');
        await expect(test.determinations.get('d1')).rejects.toBeInstanceOf(NotFoundError);
        expect((await test.jobs.get('j1')).id).toBe('j1');
        await expect(live.jobs.get('j1')).rejects.toBeInstanceOf(NotFoundError);
        expect(await live.generation()).toBe(7);
      } finally {
        await up.close();
      }
    });
  });
});

describe('group commit', () => {
  let dir: string;
  let sq: SqliteStateStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rcm-group-'));
    store = sq = new SqliteStateStore(join(dir, 'state.sqlite'), clock.now);
  });
  afterEach(async () => {
    await sq.close();
    await rm(dir, { recursive: true, force: true });
  });
  const reader = () => new Database(join(dir, 'state.sqlite'), { readonly: true });

  it('commits concurrent writes of several tenants in one transaction, and answers none before that commit is visible to another connection', async () => {
    const { a, b } = await twoTenants();
    const before = { ...sq.commits.stats };
    const other = reader();
    try {
      const ids = Array.from({ length: 20 }, (_, i) => `d0000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
      const seenAtFirstAnswer: number[] = [];
      const writes = ids.map((id, i) => {
        const w = (i % 2 ? a : b).determinations.create(determination(id));
        // When the first write answers, every write of its batch is already committed.
        if (i === 0) void w.then(() => seenAtFirstAnswer.push((other.prepare('SELECT count(*) AS n FROM pa_determinations').get() as { n: number }).n));
        return w;
      });
      // Queued, not yet written: nothing is visible before the batch commits.
      expect((other.prepare('SELECT count(*) AS n FROM pa_determinations').get() as { n: number }).n).toBe(0);
      await Promise.all(writes);
      expect(seenAtFirstAnswer).toEqual([20]);
      expect(sq.commits.stats.batches - before.batches).toBe(1);
      expect(sq.commits.stats.writes - before.writes).toBe(20);
    } finally {
      other.close();
    }
  });

  it('gathers writes that keep arriving over the next turns of the event loop into the same batch, and commits once they stop', async () => {
    const { a, b } = await twoTenants();
    const before = { ...sq.commits.stats };
    const turn = () => new Promise<void>((r) => setImmediate(r));
    // One write now, one a turn later, one two turns later: requests a few awaits apart.
    const writes = [a.determinations.create(determination('d0000000-0000-4000-8000-00000000a001'))];
    await turn();
    writes.push(b.determinations.create(determination('d0000000-0000-4000-8000-00000000a002')));
    await turn();
    writes.push(a.determinations.create(determination('d0000000-0000-4000-8000-00000000a003')));
    await Promise.all(writes);
    expect(sq.commits.stats.batches - before.batches).toBe(1);
    expect(sq.commits.stats.writes - before.writes).toBe(3);
    // A lone write still commits by itself, without waiting for company that never comes.
    await a.determinations.create(determination('d0000000-0000-4000-8000-00000000a004'));
    expect(sq.commits.stats.batches - before.batches).toBe(2);
  });

  it("stops gathering at the job runner's write: it batches its own claims and completions, and waits for no request's", async () => {
    const { a } = await twoTenants();
    const before = { ...sq.commits.stats };
    const turn = () => new Promise<void>((r) => setImmediate(r));
    const writes: Promise<unknown>[] = [a.determinations.create(determination('d0000000-0000-4000-8000-00000000b001'))];
    await turn();
    writes.push(sq.jobs.claim('runner', clock.now(), 10_000)); // the runner's: commits at the next turn, with what is queued
    await turn();
    writes.push(a.determinations.create(determination('d0000000-0000-4000-8000-00000000b002')));
    await Promise.all(writes);
    expect(sq.commits.stats.batches - before.batches).toBe(2);
    expect(sq.commits.stats.writes - before.writes).toBe(3);
  });

  it('rolls back a failing write alone: the other writes of its batch commit, and only the failing one rejects', async () => {
    const { a, b } = await twoTenants();
    const before = sq.commits.stats.batches;
    const [first, bad, last] = await Promise.allSettled([
      a.rosters.upsert(CCN, roster('aetna'), clock.now()),
      a.rosters.upsert('330101', { ...roster('cigna'), notes: 'x'.repeat(2001) }, clock.now()), // CHECK constraint, after registering 330101
      b.overrides.create(CCN, override(true), clock.now()),
    ]);
    expect(sq.commits.stats.batches - before).toBe(1);
    expect(first.status).toBe('fulfilled');
    expect(bad).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ message: expect.stringMatching(/CHECK constraint/) }) });
    expect(last.status).toBe('fulfilled');
    expect(await a.rosters.list(CCN)).toHaveLength(1);
    expect(await b.overrides.list(CCN)).toHaveLength(1);
    // The failed write's own implicit registration went with it.
    expect(await a.facilities.lookup('330101')).toBeNull();
  });

  it('rejects every write of a batch whose COMMIT fails, and leaves none of them', async () => {
    const { a } = await twoTenants();
    const writes = [
      a.determinations.create(determination('d0000000-0000-4000-8000-00000000c001')),
      // A foreign key checked only at COMMIT (deferred) and broken: the COMMIT itself fails.
      sq.commits.write(() => {
        sq.db.pragma('defer_foreign_keys = ON');
        sq.db.prepare("INSERT INTO tenant_state (tenant_id, mode, generation) VALUES ('no-such-tenant', 'test', 1)").run();
      }, false),
      a.determinations.create(determination('d0000000-0000-4000-8000-00000000c002')),
    ];
    const settled = await Promise.allSettled(writes);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((settled[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    await expect(a.determinations.get('d0000000-0000-4000-8000-00000000c001')).rejects.toThrow(NotFoundError);
    expect(sq.db.inTransaction).toBe(false);
    // The store goes on: the next write commits.
    await a.determinations.create(determination('d0000000-0000-4000-8000-00000000c003'));
    expect((await a.determinations.get('d0000000-0000-4000-8000-00000000c003')).id).toBe('d0000000-0000-4000-8000-00000000c003');
  });

  it('runs the batch again without a write under which SQLite rolled the whole transaction back, so the others still commit', async () => {
    const { a } = await twoTenants();
    const settled = await Promise.allSettled([
      a.determinations.create(determination('d0000000-0000-4000-8000-00000000e001')),
      sq.commits.write(() => {
        // What SQLite does on some SQLITE_FULL and I/O errors: the transaction is gone, not just this write.
        sq.db.exec('ROLLBACK');
        throw new Error('transaction rolled back under this write');
      }, false),
      a.determinations.create(determination('d0000000-0000-4000-8000-00000000e002')),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await a.determinations.get('d0000000-0000-4000-8000-00000000e001')).id).toBe('d0000000-0000-4000-8000-00000000e001');
    expect((await a.determinations.get('d0000000-0000-4000-8000-00000000e002')).id).toBe('d0000000-0000-4000-8000-00000000e002');
  });

  it('writes queued when the store closes are committed before it closes', async () => {
    const { a } = await twoTenants();
    const w = a.determinations.create(determination('d0000000-0000-4000-8000-00000000f001'));
    await store.close();
    await w;
    store = sq = new SqliteStateStore(join(dir, 'state.sqlite'), clock.now);
    expect((await store.forTenant(a.tenantId, 'test').determinations.get('d0000000-0000-4000-8000-00000000f001')).ccn).toBe(CCN);
  });

  it('fsyncs every commit by default (synchronous=FULL) and only at checkpoints with RCM_STATE_SYNC=normal', async () => {
    expect(sq.db.pragma('synchronous', { simple: true })).toBe(2);
    const normal = new SqliteStateStore(join(dir, 'normal.sqlite'), clock.now, { sync: 'normal' });
    try {
      expect(normal.db.pragma('synchronous', { simple: true })).toBe(1);
    } finally {
      await normal.close();
    }
  });
});
