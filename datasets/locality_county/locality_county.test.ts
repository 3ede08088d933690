import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestError } from '../_shared/issue.js';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { openTestSnapshot, parseAll, writeTempFile } from '../../testing/datasets.js';
import { expandCounties, localityCounty } from './dataset.js';
import { findLocalityForCounty } from './queries.js';
import { normCounty } from './states.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const seed = join(repoRoot, 'seeds/locality_county/25LOCCO.csv');

describe('locality_county parser (seed 25LOCCO.csv excerpt)', () => {
  it('detects the file and reads the year from the title line', async () => {
    const s = await sampleFile(await toSourceFile(seed));
    expect(localityCounty.detect(s)).toBe(true);
    expect(localityCounty.version([s])).toEqual({ label: '2025', effective_date: '2025-01-01' });
  });

  it('restores leading zeros, fills the state down and splits quoted county lists', async () => {
    const { rows, rejects } = await parseAll(localityCounty, [seed]);
    expect(rejects).toEqual([]);
    const ak = rows.find((r) => r.state === 'AK')!;
    expect(ak).toMatchObject({ locality: '0210201', mac: '02102', locality_number: '01', county: 'ALL COUNTIES' });
    const sf = rows.filter((r) => r.locality === '0111205').map((r) => r.county);
    expect(sf).toEqual(['SAN FRANCISCO', 'ALAMEDA', 'CONTRA COSTA', 'SAN MATEO']);
    // Marin sits on a row whose State cell is empty: filled down from CALIFORNIA.
    expect(rows.find((r) => r.county === 'MARIN')).toMatchObject({ state: 'CA', locality: '0111252' });
    // `13202,3, ,POUGHKPSIE...` has a single space in the state cell.
    expect(rows.find((r) => r.locality === '1320203' && r.county === 'DUTCHESS')?.state).toBe('NY');
  });

  it('fixes the ORAGNGE typo and drops CNTY suffixes', async () => {
    const { rows } = await parseAll(localityCounty, [seed]);
    expect(rows.filter((r) => r.locality === '0118218').map((r) => r.county)).toEqual(['LOS ANGELES', 'ORANGE']);
  });

  it('keeps catch-alls with their EXCEPT lists and cross-state suburbs of DC', async () => {
    const { rows } = await parseAll(localityCounty, [seed]);
    expect(rows.find((r) => r.locality === '1130200')).toMatchObject({
      county: 'ALL COUNTIES',
      county_state: 'VA',
      excluded_counties: 'ALEXANDRIA CITY;ARLINGTON;FAIRFAX;FAIRFAX CITY;FALLS CHURCH CITY',
    });
    expect(rows.find((r) => r.locality === '1230299')?.excluded_counties).toBe("MONTGOMERY;PRINCE GEORGE'S");
    const dc = rows.filter((r) => r.locality === '1220201');
    expect(dc.map((r) => `${r.county_state}:${r.county}`)).toEqual([
      'DC:DISTRICT OF COLUMBIA',
      'VA:ALEXANDRIA CITY',
      'VA:ARLINGTON',
      'VA:FAIRFAX',
      'VA:FAIRFAX CITY',
      'VA:FALLS CHURCH CITY',
      'MD:MONTGOMERY',
      "MD:PRINCE GEORGE'S",
    ]);
    expect(dc.every((r) => r.state === 'DC')).toBe(true);
  });

  it('marks two-carrier areas and keeps the repeated Missouri row once', async () => {
    const { rows } = await parseAll(localityCounty, [seed]);
    const mo = rows.filter((r) => r.locality === '0530299');
    expect(mo).toHaveLength(1);
    expect(mo[0]).toMatchObject({ fee_schedule_area: 'REST OF STATE', two_carriers: true });
    expect(rows.find((r) => r.state === 'KS')?.two_carriers).toBe(true);
    expect(rows.find((r) => r.locality === '0910204' && r.county === 'DADE')).toBeDefined();
  });

  it('every key is unique', async () => {
    const { rows } = await parseAll(localityCounty, [seed]);
    const keys = rows.map((r) => localityCounty.key.map((k) => r[k as keyof typeof r]).join('|'));
    expect(new Set(keys).size).toBe(keys.length);
    expect(rows).toHaveLength(66);
  });

  it('keeps the HAWAII/GUAM catch-all for both states', async () => {
    const p = await writeTempFile('25LOCCO.csv', 'COUNTIES INCLUDED IN 2025 LOCALITIES.,,,,\r\n,,,,\r\nMedicare Adminstrative Contractor,Locality Number,State ,Fee Schedule Area ,Counties\r\n1212,1,HAWAII/GUAM,STATEWIDE ,ALL COUNTIES \r\n');
    const { rows } = await parseAll(localityCounty, [p]);
    expect(rows.map((r) => [r.locality, r.state, r.county_state, r.county])).toEqual([
      ['0121201', 'HI', 'HI', 'ALL COUNTIES'],
      ['0121201', 'HI', 'GU', 'ALL COUNTIES'],
    ]);
  });

  it('reduces county names to one key across publishers', () => {
    expect(normCounty('De Kalb')).toBe(normCounty('DEKALB'));
    expect(normCounty('DU PAGE')).toBe(normCounty('DUPAGE'));
    expect(normCounty('PRINCE GEORGES')).toBe(normCounty("PRINCE GEORGE'S"));
    expect(normCounty('Saint Louis County')).toBe(normCounty('ST. LOUIS'));
    expect(normCounty('THE DISTRICT')).toBe(normCounty('DISTRICT OF COLUMBIA'));
    expect(normCounty('MIAMI-DADE')).toBe(normCounty('DADE'));
    expect(normCounty('ST. LOUIS CITY')).not.toBe(normCounty('ST. LOUIS'));
  });

  it('splits county lists with AND, ", AND" and slashes', () => {
    expect(expandCounties('BROWARD, LEE, AND ST. LUCIE', 'FL').map((c) => c.county)).toEqual(['BROWARD', 'LEE', 'ST. LUCIE']);
    expect(expandCounties('SAN FRANCISCO/ALAMEDA', 'CA').map((c) => c.county)).toEqual(['SAN FRANCISCO', 'ALAMEDA']);
    expect(expandCounties('ALL OTHER COUNTIES ', 'NY')).toEqual([{ county: 'ALL OTHER COUNTIES', county_state: 'NY', excluded: null }]);
  });
});

describe('locality_county fixed-width .txt', () => {
  const pad = (s: string, n: number) => s.padEnd(n, ' ');
  const row = (mac: string, num: string, state: string, area: string, counties: string) =>
    `${pad(`    ${mac}`, 12)}${pad(`       ${num}`, 10)}${pad(state, 23)}${pad(area, 98)}${counties}`;
  const txt = [
    'COUNTIES INCLUDED IN 2025 LOCALITIES. (ALPHABETICALLY BY STATE AND LOCALITY NAME WITHIN STATE)',
    '',
    'Medicare AdmiLocality         State                                                  Fee Schedule Area                                                                  Counties',
    '',
    row('10112', '00', 'ALABAMA', 'STATEWIDE', 'ALL COUNTIES'),
    '',
    row('13202', '01', 'NEW YORK', 'MANHATTAN', 'NEW YORK'),
    row('13202', '02', '', 'NYC SUBURBS/LONG ISLAND', 'BRONX, KINGS, NASSAU, RICHMOND, ROCKLAND, SUFFOLK AND WEST'),
    '',
    '*  Payment locality is serviced by two carriers.',
  ].join('\r\n');

  it('keeps the zeros and fills the state down; a county list cut at column 201 refuses the edition, naming the CSV to load', async () => {
    const whole = await writeTempFile('25LOCCO.txt', txt.split('\r\n').filter((l) => !l.includes('NYC SUBURBS')).join('\r\n'));
    expect(localityCounty.detect(await sampleFile(await toSourceFile(whole)))).toBe(true);
    const { rows, rejects } = await parseAll(localityCounty, [whole]);
    expect(rows.map((r) => `${r.locality}:${r.state}:${r.county}`)).toEqual(['1011200:AL:ALL COUNTIES', '1320201:NY:NEW YORK']);
    expect(rejects).toEqual([]);
    const cut = await writeTempFile('25LOCCO.txt', txt);
    await expect(parseAll(localityCounty, [cut])).rejects.toThrow(/25LOCCO\.txt, line 8, field counties: the fixed-width edition cuts this county list .* rcm ingest locality_county 25LOCCO\.csv$/);
  });
});

describe('locality_county bad input', () => {
  it('throws "file is empty" for an empty file', async () => {
    const p = await writeTempFile('empty.csv', '');
    await expect(parseAll(localityCounty, [p])).rejects.toThrow(/file is empty/);
  });

  it('yields nothing for a header-only file', async () => {
    const p = await writeTempFile('26LOCCO.csv', 'COUNTIES INCLUDED IN 2026 LOCALITIES.,,,,\r\n,,,,\r\nMedicare Adminstrative Contractor,Locality Number,State ,Fee Schedule Area ,Counties\r\n');
    const { rows, rejects } = await parseAll(localityCounty, [p]);
    expect(rows).toEqual([]);
    expect(rejects).toEqual([]);
  });

  it('does not claim a GPCI file and fails to find its header', async () => {
    const p = await writeTempFile('GPCI2025.csv', 'ADDENDUM E. FINAL CY 2025 GEOGRAPHIC PRACTICE COST INDICES,,,,,,\r\n,,,,,,\r\nMedicare Administrative Contractor (MAC),State,Locality Number,Locality Name,2025 PW GPCI (with 1.0 Floor),2025 PE GPCI,2025 MP GPCI\r\n10112,AL,00,ALABAMA,1,0.869,0.575\r\n');
    expect(localityCounty.detect(await sampleFile(await toSourceFile(p)))).toBe(false);
    await expect(parseAll(localityCounty, [p])).rejects.toThrow(IngestError);
  });

  it('rejects a row with a bad MAC and an unknown state, naming both fields', async () => {
    const p = await writeTempFile(
      '25LOCCO.csv',
      'COUNTIES INCLUDED IN 2025 LOCALITIES.,,,,\r\n,,,,\r\nMedicare Adminstrative Contractor,Locality Number,State ,Fee Schedule Area ,Counties\r\n1O112,0,ATLANTIS ,STATEWIDE ,ALL COUNTIES \r\n10112,0,ALABAMA ,STATEWIDE ,ALL COUNTIES \r\n',
    );
    const { rows, rejects } = await parseAll(localityCounty, [p]);
    expect(rows).toHaveLength(1);
    expect(rejects).toHaveLength(1);
    expect(rejects[0]!.issues.map((i) => i.loc)).toEqual([
      ['row', 4, 'mac'],
      ['row', 4, 'state'],
    ]);
    expect(rejects[0]!.issues[0]).toMatchObject({ type: 'string_pattern_mismatch', input: '1O112' });
  });
});

describe('findLocalityForCounty', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: localityCounty, files: [seed] }]);
  });
  afterAll(() => snap.close());

  it('matches a named county, ignoring the COUNTY suffix and case', async () => {
    const m = await findLocalityForCounty(snap, 'NY', 'New York County');
    expect(m).toEqual([{ locality: '1320201', mac: '13202', locality_number: '01', fee_schedule_area: 'MANHATTAN', matched_by: 'county', version: '2025' }]);
  });

  it('falls back to ALL OTHER COUNTIES, then to a statewide row', async () => {
    expect((await findLocalityForCounty(snap, 'NY', 'MADISON'))[0]).toMatchObject({ locality: '1328299', matched_by: 'all_other' });
    expect((await findLocalityForCounty(snap, 'ALABAMA', 'HOUSTON'))[0]).toMatchObject({ locality: '1011200', matched_by: 'all' });
  });

  it('sends Arlington VA to the DC locality, not the Virginia statewide row that excludes it', async () => {
    expect((await findLocalityForCounty(snap, 'VA', 'ARLINGTON')).map((m) => m.locality)).toEqual(['1220201']);
    expect((await findLocalityForCounty(snap, 'VA', 'ROANOKE')).map((m) => m.locality)).toEqual(['1130200']);
    expect((await findLocalityForCounty(snap, 'MD', "PRINCE GEORGE'S")).map((m) => m.locality)).toEqual(['1220201']);
  });

  it('matches Care Compare spellings: MIAMI-DADE to DADE, PRINCE GEORGES to PRINCE GEORGE\'S, THE DISTRICT', async () => {
    expect((await findLocalityForCounty(snap, 'FL', 'MIAMI-DADE'))[0]?.locality).toBe('0910204');
    expect((await findLocalityForCounty(snap, 'MD', 'PRINCE GEORGES'))[0]?.locality).toBe('1220201');
    expect((await findLocalityForCounty(snap, 'DC', 'THE DISTRICT'))[0]?.locality).toBe('1220201');
  });

  it('returns an empty list for a state the file does not cover', async () => {
    expect(await findLocalityForCounty(snap, 'TX', 'HARRIS')).toEqual([]);
  });
});
