import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFiles } from '../ingest/pipeline.js';
import { startTestServer, type TestServer } from '../testing/harness.js';

const ROOT = resolve(import.meta.dirname, '..');
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ pollMs: 200 });
});
afterAll(async () => {
  await t.close();
});

describe('hot swap', () => {
  it('serves a newly published snapshot with no restart and no failed request', async () => {
    const before = (await t.request('/v1/meta')).body.snapshot_id;
    const statuses: number[] = [];
    let stop = false;
    const load = (async () => {
      while (!stop) {
        const rs = await Promise.all([t.request('/v1/codes/99213'), t.request('/v1/meta'), t.request('/v1/data/changes?dataset=gpci')]);
        statuses.push(...rs.map((r) => r.status));
      }
    })();
    const seed = await readFile(join(ROOT, 'seeds/gpci/GPCI2026.csv'), 'latin1');
    const file = join(t.dataDir, 'GPCI2025.csv');
    await writeFile(file, seed.replace(/2026/g, '2025'), 'latin1');
    const s = await ingestFiles(t.wh, { dataset: 'gpci', files: [file] });
    const published = Date.now();
    let seenAt = 0;
    while (Date.now() - published < 5000) {
      if ((await t.request('/v1/meta')).body.snapshot_id === s.snapshot_id) {
        seenAt = Date.now();
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    stop = true;
    await load;
    expect(s.snapshot_id).not.toBe(before);
    expect(seenAt).toBeGreaterThan(0);
    expect(statuses.length).toBeGreaterThan(10);
    expect(statuses.filter((x) => x !== 200)).toEqual([]);
    const changes = await t.request('/v1/data/changes?dataset=gpci');
    expect(changes.body.changes[0]).toMatchObject({ from_version: null, to_version: '2025' });
  });

  it('rolls back when CURRENT points at an older snapshot again', async () => {
    const all = await t.wh.listSnapshots();
    const older = all[0]!.id;
    await t.wh.setCurrent(older);
    let id = '';
    for (let i = 0; i < 100 && id !== older; i++) {
      id = (await t.request('/v1/meta')).body.snapshot_id;
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(id).toBe(older);
  });
});
