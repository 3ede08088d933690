import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ncciPtpPrac } from '../ncci_ptp_prac/dataset.js';
import { buildPtpIndex, codeKey, decodeKey, PAIRS_SIDECAR } from './pair_index.js';
import { getColumn1Codes, getColumn1Groups, lookupPtpEdit, ptpIndexes, sharedPtpIndexKeys } from './queries.js';
import { ingestFiles } from '../../ingest/pipeline.js';
import { MountedSnapshot, sidecarFallbacks } from '../../warehouse/snapshot.js';
import { columnsPath } from '../../lib/sidecar/column.js';
import { Warehouse } from '../../warehouse/store.js';
import { medicaidPtpPrac } from '../medicaid_ptp_prac/dataset.js';
import { openTestSnapshot, REPO_ROOT, withoutIndex } from '../../testing/datasets.js';

// The in-memory PTP index must answer exactly as the per-code DuckDB query did: every column-1
// group of the seeded practitioner releases (32.1 and 32.2: deleted, re-added and indicator-9
// edits) and the Medicaid seed, compared through both paths.
let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
beforeAll(async () => {
  const dir = (p: string) => join(REPO_ROOT, 'seeds', p);
  const files = async (p: string) => (await readdir(dir(p))).map((f) => join(dir(p), f));
  snap = await openTestSnapshot([
    { dataset: ncciPtpPrac, files: await files('ncci_ptp_prac/32.1') },
    { dataset: ncciPtpPrac, files: await files('ncci_ptp_prac/32.2') },
    { dataset: medicaidPtpPrac, files: await files('medicaid_ptp_prac') },
  ]);
});
afterAll(() => snap?.close());

describe('PTP in-memory index', () => {
  it("reads each version's index from its pairs sidecar as computed from its rows, and computes it again for a sidecar missing or damaged", async () => {
    const noSidecar = Object.create(snap, { location: { value: undefined } }) as typeof snap;
    const fallbacks = (reason: string) => sidecarFallbacks().find((f) => f.dataset === 'ncci_ptp_prac' && f.sidecar === PAIRS_SIDECAR && f.reason === reason)?.count ?? 0;
    const damagedBefore = fallbacks('damaged');
    for (const v of snap.versions('ncci_ptp_prac')) {
      const file = columnsPath(join(snap.location!, v.file), PAIRS_SIDECAR);
      expect(existsSync(file), file).toBe(true);
      const asked: string[] = [];
      const spied = Object.create(snap) as typeof snap;
      spied.int32Columns = (sql, params) => (asked.push(sql), snap.int32Columns(sql, params));
      const fromFile = await buildPtpIndex(spied, 'ncci_ptp_prac', v.version);
      expect(asked).toEqual([expect.stringContaining('read_parquet')]);
      const computed = await buildPtpIndex(noSidecar, 'ncci_ptp_prac', v.version);
      expect(fromFile!.rows).toBeGreaterThan(0);
      expect(fromFile).toEqual(computed);
      // The file cut short: it does not read, and the index is computed from the rows again.
      const bytes = await readFile(file);
      await writeFile(file, bytes.subarray(0, bytes.length >> 1));
      const unmemoised = Object.create(snap) as typeof snap;
      unmemoised.memo = <T>(_key: string, compute: () => Promise<T>) => compute();
      expect(await buildPtpIndex(unmemoised, 'ncci_ptp_prac', v.version)).toEqual(computed);
      await writeFile(file, bytes);
    }
    expect(fallbacks('damaged') - damagedBefore).toBe(snap.versions('ncci_ptp_prac').length);
  });

  it('codes round-trip through their keys', () => {
    for (const c of ['00001', '99213', 'G0463', 'ZZZZZ', '0001U', 'A4636']) expect(decodeKey(codeKey(c))).toBe(c);
    expect(codeKey('9921')).toBe(-1);
    // Only digits and capitals: a lower-case letter or a character just outside either range is no code.
    for (const c of ['g0463', '9921/', '9921:', '9921@', '9921[', '9921 ']) expect(codeKey(c)).toBe(-1);
    expect(codeKey('00000')).toBe(0);
    expect(codeKey('0000Z')).toBe(35);
  });

  for (const dataset of ['ncci_ptp_prac', 'medicaid_ptp_prac'] as const) {
    it(`${dataset}: every column-1 group and every pair on several dates equal the DuckDB path`, async () => {
      const idx = await ptpIndexes(snap, dataset);
      expect(idx).not.toBeNull();
      const plain = withoutIndex(snap);
      const heads = await getColumn1Codes(snap, dataset);
      expect([...heads].sort()).toEqual([...(await getColumn1Codes(plain, dataset))].sort());
      const all = (await snap.all<{ c: string }>(`SELECT column1 AS c FROM ${dataset} UNION SELECT column2 FROM ${dataset}`)).map((r) => r.c);
      let pairs = 0;
      for (const c of heads) {
        const a = await getColumn1Groups(snap, dataset, c);
        const b = await getColumn1Groups(plain, dataset, c);
        const norm = (m: Map<string, Map<string, unknown[]>>) => Object.fromEntries([...m].map(([v, g]) => [v, Object.fromEntries([...g].sort(([x], [y]) => (x < y ? -1 : 1)))]));
        expect(norm(a)).toEqual(norm(b));
        for (const d of all) {
          for (const dos of ['2022-01-01', '2023-12-31', '2026-06-30', '2026-08-01']) {
            expect(await lookupPtpEdit(snap, dataset, c, d, dos)).toEqual(await lookupPtpEdit(plain, dataset, c, d, dos));
            pairs++;
          }
        }
      }
      expect(pairs).toBeGreaterThan(100);
    });
  }

  it('snapshots mounting the same version file share its index; a replaced file gets a new one and the old is let go', async () => {
    const wh = new Warehouse(snap.location);
    const first = (await ptpIndexes(snap, 'ncci_ptp_prac'))!;
    const again = await MountedSnapshot.open(wh, (await wh.current())!, { connections: 1, threads: 1 });
    try {
      const second = (await ptpIndexes(again, 'ncci_ptp_prac'))!;
      expect(second.get('32.1')).toBe(first.get('32.1'));
      expect(second.get('32.2')).toBe(first.get('32.2'));
    } finally {
      again.close();
    }
    const dir = join(REPO_ROOT, 'seeds', 'ncci_ptp_prac/32.2');
    await ingestFiles(wh, { dataset: ncciPtpPrac, files: (await readdir(dir)).map((f) => join(dir, f)), replace: true });
    const next = await MountedSnapshot.open(wh, (await wh.current())!, { connections: 1, threads: 1 });
    try {
      const third = (await ptpIndexes(next, 'ncci_ptp_prac'))!;
      expect(third.get('32.1')).toBe(first.get('32.1'));
      expect(third.get('32.2')).not.toBe(first.get('32.2'));
      expect(third.get('32.2')!.rows).toBe(first.get('32.2')!.rows);
      const mine = sharedPtpIndexKeys().filter((k) => k.startsWith(`${snap.location}\u0000ncci_ptp_prac\u0000`));
      expect(mine.map((k) => k.split('\u0000')[2]).sort()).toEqual(next.versions('ncci_ptp_prac').map((v) => v.file).sort());
    } finally {
      next.close();
    }
  });
});
