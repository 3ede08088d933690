import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { openTestSnapshot, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { oppsAddendumB } from '../opps_addendum_b/dataset.js';
import { oppsAddendumA } from './dataset.js';
import { findApcRowsIn, oppsApcVersionForYear } from './queries.js';

// The seed is 24 APC lines of CMS's January 2025 Addendum A (508 CSV) with its title, note and
// header, byte for byte (shared/data/opps-addendum-b).
const seed = join(REPO_ROOT, 'seeds', oppsAddendumA.id, 'Section 508 version of January 2025 Web Addendum A.12.31.24.excerpt.csv');
const TOP = ',Addendum A.- OPPS APCs for CY 2025,,,,,,,,,,\r\nAPC,Group Title,SI,Relative Weight,Payment Rate,National Unadjusted Copayment,Minimum Unadjusted Copayment,IRA Coinsurance percentage,Adjusted Beneficiary Copayment,Drug and Device Pass-Through Expiration during Calendar Year,Note,\r\n';

describe('opps_addendum_a parser (seed)', () => {
  it('detects the seed by its header, reads the release from the name and the year from the title, and is not Addendum B', async () => {
    const s = await sampleFile(await toSourceFile(seed));
    expect(oppsAddendumA.detect(s)).toBe(true);
    expect(oppsAddendumB.detect(s)).toBe(false);
    expect(oppsAddendumA.version([s])).toEqual({ label: '2025-01', effective_date: '2025-01-01' });
  });

  it('reads every seed row: 3-decimal rates, `.` copays as null, percent, notes, no weight for drug APCs', async () => {
    const { rows, rejects } = await parseAll(oppsAddendumA, seed);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(24);
    // `0701,Sr89 strontium,K,,"$4,146.335",.,$829.27,,$829.27,,,`
    expect(rows[0]).toEqual({ apc: '0701', group_title: 'Sr89 strontium', status_indicator: 'K', relative_weight: null, payment_rate: 4146.335, national_unadjusted_copayment: null, minimum_unadjusted_copayment: 829.27, ira_coinsurance_pct: null, adjusted_copayment: 829.27, drug_device_passthrough_expiry: null, note: null, year: 2025 });
    // `0706,…,G,,$69.972,.,$14.00,19.787%,$13.85,,Inflation-adjusted coinsurance,`
    expect(rows.find((r) => r.apc === '0706')).toMatchObject({ payment_rate: 69.972, ira_coinsurance_pct: 19.787, adjusted_copayment: 13.85, note: 'Inflation-adjusted coinsurance' });
    // `0795,…,$0.003,$0.00,$0.01,…`: a printed $0.00 national copay is 0, not null.
    expect(rows.find((r) => r.apc === '0795')).toMatchObject({ payment_rate: 0.003, national_unadjusted_copayment: 0 });
    // `1491,New Technology  - Level 1A ($0-$10),S,,$5.000,.,$1.00,,,,,`: double space collapsed, no adjusted copay.
    expect(rows.find((r) => r.apc === '1491')).toMatchObject({ group_title: 'New Technology - Level 1A ($0-$10)', status_indicator: 'S', payment_rate: 5, adjusted_copayment: null });
  });

  it('rejects a bad SI, a bad rate and a repeated APC, naming line and column; pads a short APC', async () => {
    const p = await writeTempFile('Section 508 version of April 2025 Web Addendum A.csv', `${TOP}701,Sr89 strontium,K,,"$4,146.335",.,$829.27,,$829.27,,,\r\n0702,x,kk,,$1.801,.,$0.37,,$0.37,,,\r\n0703,y,G,,$abc,.,$0.63,,$0.63,,,\r\n0701,z,G,,$1.000,.,$0.20,,$0.20,,,\r\n`);
    const { rows, rejects } = await parseAll(oppsAddendumA, p);
    expect(rows.map((r) => [r.apc, r.year])).toEqual([['0701', 2025]]);
    expect(rejects.map((r) => [r.line, r.issues[0]!.loc[2], r.issues[0]!.type])).toEqual([
      [4, 'SI', 'string_pattern_mismatch'],
      [5, 'Payment Rate', 'float_parsing'],
      [6, 'APC', 'duplicate_key'],
    ]);
  });
});

describe('opps_addendum_a queries', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: oppsAddendumA, files: [seed] }]);
  });
  afterAll(() => snap?.close());

  it('finds an APC in the release of its year only', async () => {
    expect(oppsApcVersionForYear(snap, 2025)).toBe('2025-01');
    expect(oppsApcVersionForYear(snap, 2026)).toBeUndefined();
    expect(await findApcRowsIn(snap, '2025-01', '706')).toEqual([expect.objectContaining({ apc: '0706', group_title: 'Inj talquetamab-tgvs 0.25 mg', version: '2025-01' })]);
    expect(await findApcRowsIn(snap, '2025-01', '5012')).toEqual([]);
  });
});
