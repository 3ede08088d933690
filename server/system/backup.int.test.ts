import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { tempDir } from '../../testing/temp_dirs.js';
import { backupDataDir } from '../../warehouse/backup.js';

/** Answers that carry no per-request field, compared whole between the served dir and its restored copy. */
const PATHS = ['/v1/codes/99213/payment?ccn=011300&date_of_service=2026-03-02', '/v1/facilities/011300', '/v1/codes/27447/payment?locality=1320201&place_of_service=22&date_of_service=2025-11-03'];

/** An answer without what differs by request or process (ids, timings). */
function stable(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (k, v) => (['request_id', 'elapsed_ms', 'served_at', 'generated_at'].includes(k) ? undefined : v));
}

describe('backup and restore of a data dir while it is served', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('copies RCM_DATA_DIR under a running server; the copy, served elsewhere, answers the same, tenant state included', async () => {
    const live = await startTestServer();
    servers.push(live);
    // Tenant state the copy must carry: a registration written just before the backup.
    expect((await live.request('/v1/facilities/011300', { method: 'PUT', body: { cah_method_ii: true } })).status).toBeLessThan(300);
    const before = await Promise.all(PATHS.map((p) => live.request(p)));
    for (const r of before) expect(r.status).toBe(200);

    // Requests keep arriving while the copy is taken.
    let stop = false;
    const traffic = (async () => {
      for (let i = 0; i < 200 && !stop; i++) await live.request(PATHS[i % PATHS.length]!);
    })();
    const dest = join(await tempDir('rcm-backup-'), 'copy');
    let r: Awaited<ReturnType<typeof backupDataDir>>;
    try {
      r = await backupDataDir(live.wh, dest);
    } finally {
      // The traffic ends before any assertion can fail, so no request outlives the server.
      stop = true;
      await traffic;
    }
    expect(r).toMatchObject({ current: await live.wh.currentId(), state: 'sqlite' });
    expect((await readFile(join(dest, 'CURRENT'), 'utf8')).trim()).toBe(r.current);

    const restored = await startTestServer({ dataDir: dest });
    servers.push(restored);
    expect(restored.srv.snapshots.snapshot?.id).toBe(r.current);
    // The live server's key (in the copied state store) works on the restored one.
    const after = await Promise.all(PATHS.map((p) => restored.request(p, { key: live.key })));
    expect(after.map((a) => a.status)).toEqual(before.map((b) => b.status));
    expect(after.map((a) => stable(a.body))).toEqual(before.map((b) => stable(b.body)));
    expect(after[1]!.body).toMatchObject({ cah_method_ii: true });
  });

  it('each server records the snapshot it serves in the state store (what a prune keeps)', async () => {
    const t = servers[0]!;
    const beats = await t.srv.state.replicas.since(new Date(Date.now() - 60_000));
    expect(beats).toEqual([expect.objectContaining({ snapshot_id: await t.wh.currentId(), replica: expect.stringMatching(/^.+\/\d+\/[0-9a-f]{4}$/) })]);
  });

  it('refuses a folder that is not empty, copying nothing', async () => {
    const t = servers[0]!;
    const dest = await tempDir('rcm-backup-full-');
    await (await import('node:fs/promises')).writeFile(join(dest, 'x'), 'x');
    await expect(backupDataDir(t.wh, dest)).rejects.toThrow(/is not empty/);
  });
});
