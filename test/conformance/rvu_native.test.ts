import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mpfsRvu } from '../../datasets/mpfs_rvu/dataset.js';
import { compareLoads } from '../../testing/native.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

/*
 * The native RVU loader (DuckDB read_csv, row rules in SQL) on CMS's real releases:
 *   ../shared/data/mpfs-rvu/PPRRVU2025_Oct.csv (19,090 rows, 31 columns)
 *   ../shared/data/mpfs-rvu/PPRRVU2026_Jul_nonQPP.excerpt.redacted.csv (2026 layout, 32 columns)
 * Each must load natively (no hand-over to the parser) and hold exactly the parser's rows.
 */
const REL = ['mpfs-rvu/PPRRVU2025_Oct.csv', 'mpfs-rvu/PPRRVU2026_Jul_nonQPP.excerpt.redacted.csv'];
const present = requireShared(...REL);
const FILES = REL.map((f) => join(sharedDataDir(), f));

describe.skipIf(!present)('mpfs_rvu native load on the real PPRRVU files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rcm-conf-rvu-native-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const [k, file] of FILES.entries()) {
    it(`${file.split('/').pop()}: native, and row for row what the parser loads`, async () => {
      const r = await compareLoads(mpfsRvu, [file], join(dir, String(k)), 'hcpcs, modifier, cf_variant');
      expect(r.js.summary.rejects).toBe(0);
      expect(r.tookNative).toBe(true);
      expect(r.native.rows.length).toBe(r.js.rows.length);
      expect(r.native.rows).toEqual(r.js.rows);
    });
  }
});
