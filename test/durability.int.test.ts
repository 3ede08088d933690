import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStateStore } from '../warehouse/state.js';
import { freePort, useSeededDir } from '../testing/harness.js';

const ROOT = resolve(import.meta.dirname, '..');
const seeded = useSeededDir('rcm-durable-');

const CCNS = ['010001', '011300', '013300', '050454', '051300', '053301', '330101'];
const PAYERS = ['aetna', 'anthem', 'bcbs_il', 'bcbs_ma', 'bcbs_tx', 'cigna', 'humana', 'masshealth', 'medi_cal', 'medicaid', 'medicare_ffs', 'uhc'];

/** What a 2xx acknowledged: the row it names must be in the state file after the kill. */
interface Ack {
  table: 'agent_jobs' | 'pa_overrides' | 'pa_determinations' | 'facility_payers';
  id: string;
  /** A roster upsert's notes (each pair is written once, so the row must hold exactly these). */
  notes?: string;
}

describe('durable writes: a server killed during a burst of writes', () => {
  it('loses no acknowledged write: every 2xx agent submit, roster upsert, override and persisted check is in the state file after SIGKILL', async () => {
    const dir = seeded();
    const store = new SqliteStateStore(join(dir, 'state.sqlite'));
    const tenant = await store.admin.createTenant('durable');
    const { secret } = await store.admin.createKey({ tenant: tenant.id, type: 'test', scopes: ['knowledge', 'agents'] });
    await store.close();
    const port = await freePort();
    const server = spawn(process.execPath, [join(ROOT, 'bin/rcm.js'), 'serve', '--port', String(port)], {
      env: { ...process.env, RCM_DATA_DIR: dir, RCM_LOG: 'silent', RCM_AGENT_RUNNER: '0', RCM_RATE_LIMIT_PER_MIN: '1000000', RCM_JOBS_QUEUED_PER_TENANT: '100000' },
      stdio: 'ignore',
      detached: true, // its own process group: the kill reaches the re-executed server too
    });
    const exited = new Promise((r) => server.once('exit', r));
    const base = `http://127.0.0.1:${port}`;
    const headers = { 'X-API-Key': secret, 'Content-Type': 'application/json' };
    try {
      const deadline = Date.now() + 30_000;
      while (!(await fetch(`${base}/v1/health`).then((r) => r.ok, () => false))) {
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((r) => setTimeout(r, 100));
      }
      const pairs = CCNS.flatMap((ccn) => PAYERS.map((payer) => ({ ccn, payer })));
      const acks: Ack[] = [];
      let inFlight = 0;
      let stop = false;
      let n = 0;
      /** One write of the four kinds in turn; its acknowledged row, or null. */
      const write = async (i: number): Promise<Ack | null> => {
        const kind = i % 4;
        const ccn = CCNS[i % CCNS.length]!;
        if (kind === 0) {
          const r = await fetch(`${base}/v1/agents/code-research`, { method: 'POST', headers, body: JSON.stringify({ code: '99213', query: `burst ${i}` }) });
          return r.status === 202 ? { table: 'agent_jobs', id: ((await r.json()) as { job_id: string }).job_id } : null;
        }
        if (kind === 1) {
          const r = await fetch(`${base}/v1/facilities/${ccn}/pa-overrides`, { method: 'POST', headers, body: JSON.stringify({ code: '70553', pa_required: i % 2 === 0, reason: `burst ${i}` }) });
          return r.status === 201 ? { table: 'pa_overrides', id: ((await r.json()) as { id: string }).id } : null;
        }
        if (kind === 2) {
          const r = await fetch(`${base}/v1/prior-auth/check?payer=aetna&code=70553&ccn=${ccn}&date_of_service=2026-03-02`, { headers });
          return r.status === 200 ? { table: 'pa_determinations', id: ((await r.json()) as { determination_id: string }).determination_id } : null;
        }
        const pair = pairs.pop();
        if (!pair) return null;
        const notes = `burst ${i}`;
        const r = await fetch(`${base}/v1/facilities/${pair.ccn}/payers`, { method: 'POST', headers, body: JSON.stringify({ payer_slug: pair.payer, notes }) });
        return r.status === 201 ? { table: 'facility_payers', id: ((await r.json()) as { id: string }).id, notes } : null;
      };
      const client = async () => {
        while (!stop) {
          inFlight++;
          const ack = await write(n++).catch(() => null); // a request cut by the kill is no acknowledgement
          inFlight--;
          if (ack) acks.push(ack); // a 2xx read even after the kill was sent before the process died
        }
      };
      const clients = Array.from({ length: 16 }, client);
      // Bounded: kill once 400 writes were acknowledged, or after 20 s.
      const until = Date.now() + 20_000;
      while (acks.length < 400 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      const ackedBeforeKill = acks.length;
      const cut = inFlight;
      process.kill(-server.pid!, 'SIGKILL');
      stop = true;
      await exited;
      await Promise.all(clients);
      expect(ackedBeforeKill).toBeGreaterThanOrEqual(100);
      expect(cut).toBeGreaterThan(0); // the kill landed mid-burst, with writes in flight

      const db = new Database(join(dir, 'state.sqlite'), { readonly: false });
      try {
        const missing = acks.filter((a) => {
          const row = db.prepare(`SELECT * FROM ${a.table} WHERE id = ?`).get(a.id) as { notes?: string } | undefined;
          return !row || (a.notes !== undefined && row.notes !== a.notes);
        });
        expect(missing).toEqual([]);
        expect(new Set(acks.map((a) => a.table)).size).toBe(4);
      } finally {
        db.close();
      }
    } finally {
      try {
        process.kill(-server.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }, 60_000);
});
