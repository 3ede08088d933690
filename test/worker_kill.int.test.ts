import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { openStateStore, stateLocationOf } from '../warehouse/open_state.js';
import { startReceiver } from '../testing/receiver.js';
import { PG_URL, pgDatabase } from '../testing/state_stores.js';

const ROOT = resolve(import.meta.dirname, '..');
let dir: string;
let hanging: Server;
let llmUrl: string;
/** The workers' RCM_STATE_URL (PostgreSQL), or none (SQLite in the data dir). */
let stateEnv: Record<string, string> = {};
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcm-kill-'));
  await cp(inject('seededDir'), dir, { recursive: true });
  // An LLM endpoint that never answers: the first worker's job stays running until it is killed.
  hanging = createServer(() => {});
  await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
  llmUrl = `http://127.0.0.1:${(hanging.address() as { port: number }).port}/v1`;
});
afterAll(async () => {
  hanging.closeAllConnections();
  await new Promise<void>((r) => hanging.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

function worker(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [join(ROOT, 'bin/rcm.js'), 'worker'], {
    env: { ...process.env, RCM_DATA_DIR: dir, RCM_LOG: 'silent', RCM_AGENT_LEASE_MS: '1000', ...stateEnv, ...env },
    stdio: 'ignore',
    detached: true, // its own process group: the kill reaches the re-executed child too
  });
}

/** Polls the state store until `ok` holds (bounded: a process test waits for real time, never forever). */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe.skipIf(engine === 'postgres' && !PG_URL)(`a worker killed mid-job (state on ${engine})`, () => {
    it('leaves the job to the next worker after its lease: it completes once and its callback is sent once', async () => {
      const rx = await startReceiver('kill-test-secret');
      const db = engine === 'postgres' ? await pgDatabase('worker_kill') : null;
      stateEnv = db ? { RCM_STATE_URL: db.url } : {};
      const store = await openStateStore(stateLocationOf(dir, db?.url));
      try {
        const tenant = await store.admin.createTenant('kill');
        const jobs = store.forTenant(tenant.id, 'test').jobs;
        const { job } = await jobs.create(
          { id: '1b4e28ba-2fa1-41d2-883f-0016d3cca427', agent_type: 'code_research', input: { code: '99213' }, request_hash: 'h', callback_url: rx.url, callback_secret: 'kill-test-secret' },
          new Date(),
          86_400_000,
        );
        const first = worker({ RCM_LLM_URL: llmUrl, RCM_LLM_MODEL: 'hang', RCM_LLM_ALLOW_TEST: '1', RCM_LLM_TIMEOUT_MS: '300000' });
        const running = await until(() => jobs.get(job.id), (j) => j.status === 'running');
        expect(running.status).toBe('running');
        process.kill(-first.pid!, 'SIGKILL');
        await new Promise((r) => first.once('exit', r));
        expect((await jobs.get(job.id)).status).toBe('running'); // left behind by the dead worker

        const second = worker({});
        try {
          const done = await until(() => jobs.get(job.id), (j) => j.callback_state === 'delivered');
          expect(done).toMatchObject({ status: 'completed', runs: 2, callback_state: 'delivered' });
          expect(rx.received).toHaveLength(1);
          expect(rx.received[0]!.signatureValid).toBe(true);
        } finally {
          process.kill(-second.pid!, 'SIGTERM');
          await new Promise((r) => second.once('exit', r));
        }
        // A restart sends nothing again.
        const third = worker({});
        await new Promise((r) => setTimeout(r, 1500));
        process.kill(-third.pid!, 'SIGTERM');
        await new Promise((r) => third.once('exit', r));
        expect(rx.received).toHaveLength(1);
      } finally {
        await store.close();
        await rx.close();
        await db?.drop();
      }
    });
  });
}
