import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { capRelease, oppsCap } from './dataset.js';

/*
 * No seed (README: invented cap amounts would mislead); the fixture is an excerpt of CMS's
 * OPPSCAP_Oct.csv (RVU25D) with two broken rows added. The full file is checked by
 * test/conformance/payment_fidelity.test.ts.
 */
const FIXTURE = join(REPO_ROOT, 'test/fixtures/opps_cap/RVU25D_OPPSCAP_Oct.csv');

describe('opps_cap parser (RVU25D excerpt)', () => {
  it('detects the header CMS misspells (NON-FACILTY) and takes 2025D from the RVU zip name', async () => {
    expect(await detectFile(oppsCap, FIXTURE)).toEqual({ detected: true, version: { label: '2025D', effective_date: '2025-10-01' } });
  });

  it('reads caps per carrier and locality, and rejects a bad modifier and a row with every field broken', async () => {
    const { rows, rejects } = await parseAll(oppsCap, FIXTURE);
    // 70496,,A,01112,05,343.62,343.62 (the issue's example: 70496 in San Francisco capped at $343.62)
    expect(rows).toEqual([
      { hcpcs: '70496', modifier: '', procstat: 'A', carrier: '01112', locality_number: '05', locality: '0111205', facility_price: 343.62, non_facility_price: 343.62 },
      expect.objectContaining({ hcpcs: '70496', modifier: '26', facility_price: 60.1, non_facility_price: 60.1 }),
    ]);
    expect(rejects.map((r) => [r.line, r.issues.map((i) => i.loc[2])])).toEqual([
      [4, ['modifier']],
      [5, ['carrier', 'locality_number', 'procstat', 'facility_price']],
    ]);
  });

  it('names the release from OPPSCAP_<year>_<Mon> or RVU<yy><A-D>, and nothing from a bare name', () => {
    expect(capRelease('OPPSCAP_2026_Jan.csv')).toEqual({ label: '2026A', effective_date: '2026-01-01' });
    expect(capRelease('RVU26C.zip')).toEqual({ label: '2026C', effective_date: '2026-07-01' });
    expect(capRelease('OPPSCAP_Oct.csv')).toBeUndefined();
  });

  it('throws on a file without the cap header', async () => {
    await expect(parseAll(oppsCap, await writeTempFile('OPPSCAP_Oct.csv', 'HCPCS,MOD,PRICE\r\n70496,,343.62\r\n'))).rejects.toThrow(/no header row found/);
  });
});
