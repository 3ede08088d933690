import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { openTestSnapshot, parseAll, writeTempFile } from '../../testing/datasets.js';
import { cbsaCounty } from './dataset.js';
import { findCbsaForCounty } from './queries.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const seed = join(repoRoot, 'seeds/cbsa_county/FY2026 CBSA to County Crosswalk.csv');
const HEADER = 'FIPS State County Code,SSA State County Code,County Name,State,CBSA,CBSA Name';

describe('cbsa_county parser (seed crosswalk)', () => {
  it('detects the crosswalk and labels it FY2026', async () => {
    const s = await sampleFile(await toSourceFile(seed));
    expect(cbsaCounty.detect(s)).toBe(true);
    expect(cbsaCounty.version([s])).toEqual({ label: 'FY2026', effective_date: '2025-10-01' });
  });

  it('reads counties with FIPS/SSA codes and marks 2-digit CBSAs rural', async () => {
    const { rows, rejects } = await parseAll(cbsaCounty, [seed]);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(17);
    expect(rows.find((r) => r.fips_county === '06075')).toEqual({
      fips_county: '06075',
      ssa_county: '05480',
      county_name: 'SAN FRANCISCO',
      state: 'CA',
      cbsa: '41884',
      cbsa_name: 'San Francisco-San Mateo-Redwood City, CA',
      is_rural: false,
      fiscal_year: 2026,
    });
    expect(rows.find((r) => r.fips_county === '36089')).toMatchObject({ county_name: 'ST. LAWRENCE', cbsa: '33', is_rural: true });
  });

  it('pads codes whose leading zeros an Excel export dropped', async () => {
    const p = await writeTempFile('FY2026 xw.csv', `${HEADER}\r\n6075,5480,San Francisco,California,41884,"San Francisco-San Mateo-Redwood City, CA"\r\n1129,1640,Washington,AL,1,ALABAMA\r\n`);
    const { rows } = await parseAll(cbsaCounty, [p]);
    expect(rows.map((r) => [r.fips_county, r.ssa_county, r.state, r.cbsa, r.is_rural])).toEqual([
      ['06075', '05480', 'CA', '41884', false],
      ['01129', '01640', 'AL', '01', true],
    ]);
  });
});

describe('cbsa_county bad input', () => {
  it('throws "file is empty" for an empty file', async () => {
    await expect(parseAll(cbsaCounty, [await writeTempFile('empty.csv', '')])).rejects.toThrow(/file is empty/);
  });

  it('yields nothing for a header-only file', async () => {
    expect(await parseAll(cbsaCounty, [await writeTempFile('FY2026 x.csv', `${HEADER}\r\n`)])).toEqual({ rows: [], rejects: [] });
  });

  it('does not claim Table 3', async () => {
    const p = await writeTempFile('FY2026 t3.csv', 'CBSA,Area Name,State,Wage Index,GAF\r\n10180,"Abilene, TX",TX,0.8315,0.8813\r\n');
    expect(cbsaCounty.detect(await sampleFile(await toSourceFile(p)))).toBe(false);
    await expect(parseAll(cbsaCounty, [p])).rejects.toThrow(/no header row found/);
  });

  it('rejects a row with a bad FIPS code and an unknown state', async () => {
    const p = await writeTempFile('FY2026 x.csv', `${HEADER}\r\n06O75,05480,SAN FRANCISCO,ZZ,41884,SF\r\n`);
    const { rejects } = await parseAll(cbsaCounty, [p]);
    expect(rejects).toEqual([
      {
        line: 2,
        issues: [
          expect.objectContaining({ loc: ['row', 2, 'fips_county'], input: '06O75' }),
          expect.objectContaining({ loc: ['row', 2, 'state'], type: 'value_error', input: 'ZZ' }),
        ],
      },
    ]);
  });
});

describe('findCbsaForCounty', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: cbsaCounty, files: [seed] }]);
  });
  afterAll(() => snap.close());

  it('finds by FIPS code, or by state and county name', async () => {
    expect((await findCbsaForCounty(snap, { fips: '36061' })).map((r) => r.cbsa)).toEqual(['35614']);
    expect(await findCbsaForCounty(snap, { state: 'New York', county: 'Saint Lawrence County' })).toEqual([
      expect.objectContaining({ fips_county: '36089', cbsa: '33', is_rural: true, version: 'FY2026' }),
    ]);
  });

  it('returns an empty list when nothing matches', async () => {
    expect(await findCbsaForCounty(snap, { state: 'TX', county: 'HARRIS' })).toEqual([]);
  });
});
