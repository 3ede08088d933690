import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../warehouse/errors.js';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { cbsaCounty } from '../cbsa_county/dataset.js';
import { gpci } from '../gpci/dataset.js';
import { localityCounty } from '../locality_county/dataset.js';
import { wageIndex } from '../wage_index/dataset.js';
import { zipLocality } from '../zip_locality/dataset.js';
import { careCompareType, facilities, posType } from './dataset.js';
import { getFacilityReference } from '../../server/facilities/geography.js';
import { openTestSnapshot, parseAll, writeTempFile } from '../../testing/datasets.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const seeds = join(repoRoot, 'seeds');
const posSeed = join(repoRoot, 'test/fixtures/facilities/Hospital_and_other.DATA.Q3_2025.csv');

/** The real Care Compare header (Hospital_General_Information.csv, 38 quoted columns). */
const CC_HEADER =
  '"Facility ID","Facility Name","Address","City/Town","State","ZIP Code","County/Parish","Telephone Number","Hospital Type","Hospital Ownership","Emergency Services","Meets criteria for birthing friendly designation","Hospital overall rating","Hospital overall rating footnote","MORT Group Measure Count","Count of Facility MORT Measures","Count of MORT Measures Better","Count of MORT Measures No Different","Count of MORT Measures Worse","MORT Group Footnote","Safety Group Measure Count","Count of Facility Safety Measures","Count of Safety Measures Better","Count of Safety Measures No Different","Count of Safety Measures Worse","Safety Group Footnote","READM Group Measure Count","Count of Facility READM Measures","Count of READM Measures Better","Count of READM Measures No Different","Count of READM Measures Worse","READM Group Footnote","Pt Exp Group Measure Count","Count of Facility Pt Exp Measures","Pt Exp Group Footnote","TE Group Measure Count","Count of Facility TE Measures","TE Group Footnote"';
const tail = (n: number) => ','.repeat(n);
/** Rows shaped like the real file (values of those CCNs in the 2025 release; measure columns left empty). */
const ccRow = (cells: string[]) => `${cells.join(',')}${tail(38 - cells.length)}`;
const CC_ROWS = [
  ccRow(['331316', '"COMMUNITY MEMORIAL HOSPITAL, INC"', '150 BROAD STREET', 'HAMILTON', 'NY', '13346', 'MADISON', '(315) 824-1100', 'Critical Access Hospitals', 'Voluntary non-profit - Private', 'Yes']),
  ccRow(['330101', 'NEW YORK-PRESBYTERIAN HOSPITAL', '525 EAST 68TH STREET', 'NEW YORK', 'NY', '10065', 'NEW YORK', '(212) 746-5454', 'Acute Care Hospitals', 'Voluntary non-profit - Private', 'Yes']),
  ccRow(['330799', 'CLIFTON-FINE HOSPITAL', '1014 OSWEGATCHIE TRAIL', 'STAR LAKE', 'NY', '13690', 'ST. LAWRENCE', '(315) 848-4205', 'Rural Emergency Hospital', 'Voluntary non-profit - Other', 'Yes']),
  ccRow(['01019F', 'VA CENTRAL ALABAMA HEALTHCARE SYSTEM - MONTGOMERY', '215 PERRY HILL ROAD', 'MONTGOMERY', 'AL', '36109', 'MONTGOMERY', '(334) 260-4100', 'Acute Care - Veterans Administration', 'Veterans Health Administration', 'Yes']),
];
const careCompare = () => writeTempFile('Hospital_General_Information.csv', `${CC_HEADER}\n${CC_ROWS.join('\n')}\n`);

describe('facilities parser: Provider of Services layout (seed)', () => {
  it('detects the POS header and takes 2025Q3 from the file name', async () => {
    const s = await sampleFile(await toSourceFile(posSeed));
    expect(facilities.detect(s)).toBe(true);
    expect(facilities.version([s])).toEqual({ label: '2025Q3', effective_date: '2025-07-01' });
  });

  it('reads CCN, FIPS county, CBSA, rural flag and type from POS codes', async () => {
    const { rows, rejects } = await parseAll(facilities, [posSeed]);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(8);
    expect(rows.find((r) => r.ccn === '011300')).toEqual({
      ccn: '011300',
      name: 'WASHINGTON COUNTY HOSPITAL',
      address: '14600 ST. STEPHENS AVENUE',
      city: 'CHATOM',
      state: 'AL',
      zip: '36518',
      county_name: null,
      county_fips: '01129',
      cbsa: '01',
      is_rural: true,
      facility_type: 'critical_access_hospital',
      facility_type_label: 'Critical Access Hospital',
      active: true,
      source_layout: 'pos',
    });
    expect(rows.find((r) => r.ccn === '050454')).toMatchObject({ address: '505 PARNASSUS AVE, BOX 0296', cbsa: '41884', is_rural: false, county_fips: '06075' });
    expect(rows.filter((r) => r.facility_type === 'childrens_hospital').map((r) => r.ccn)).toEqual(['013300', '053301']);
  });

  it('maps POS categories and subtypes to readable types', () => {
    expect(posType('01', '11')).toEqual(['critical_access_hospital', 'Critical Access Hospital']);
    expect(posType('01', '99')).toEqual(['hospital', 'Hospital (subtype 99)']);
    expect(posType('02', '')).toEqual(['pos_category_02', 'POS provider category 02']);
  });
});

describe('facilities parser: Care Compare Hospital General Information layout', () => {
  it('detects the quoted header; the plain file name carries no version', async () => {
    const s = await sampleFile(await toSourceFile(await careCompare()));
    expect(facilities.detect(s)).toBe(true);
    expect(facilities.version([s])).toBeUndefined();
    expect(facilities.version([{ ...s, name: 'Hospital_General_Information_2025-10.csv' }])).toEqual({ label: '2025-10', effective_date: '2025-10-01' });
  });

  it('keeps CCNs as text (VA F suffix) and maps Hospital Type; no CBSA or rural flag', async () => {
    const { rows, rejects } = await parseAll(facilities, [await careCompare()]);
    expect(rejects).toEqual([]);
    expect(rows.map((r) => [r.ccn, r.facility_type, r.county_name, r.cbsa, r.is_rural])).toEqual([
      ['331316', 'critical_access_hospital', 'MADISON', null, null],
      ['330101', 'acute_care_hospital', 'NEW YORK', null, null],
      ['330799', 'rural_emergency_hospital', 'ST. LAWRENCE', null, null],
      ['01019F', 'va_acute_care_hospital', 'MONTGOMERY', null, null],
    ]);
    expect(rows[0]).toMatchObject({ name: 'COMMUNITY MEMORIAL HOSPITAL, INC', source_layout: 'care_compare', active: null });
    expect(careCompareType('Long-term')?.[0]).toBe('long_term_care_hospital');
  });
});

describe('facilities bad input', () => {
  it('throws "file is empty" for an empty file', async () => {
    await expect(parseAll(facilities, [await writeTempFile('empty.csv', '')])).rejects.toThrow(/file is empty/);
  });

  it('yields nothing for a header-only file', async () => {
    expect(await parseAll(facilities, [await writeTempFile('Hospital_General_Information.csv', `${CC_HEADER}\n`)])).toEqual({ rows: [], rejects: [] });
  });

  it('does not claim another dataset file and reports the missing header', async () => {
    const p = await writeTempFile('25LOCCO.csv', 'COUNTIES INCLUDED IN 2025 LOCALITIES.,,,,\r\n,,,,\r\nMedicare Adminstrative Contractor,Locality Number,State ,Fee Schedule Area ,Counties\r\n10112,0,ALABAMA ,STATEWIDE ,ALL COUNTIES \r\n');
    expect(facilities.detect(await sampleFile(await toSourceFile(p)))).toBe(false);
    await expect(parseAll(facilities, [p])).rejects.toThrow(/no header row found/);
  });

  it('rejects corrupted rows with every bad field located, and duplicate CCNs', async () => {
    const bad = ccRow(['33-101', 'X', '1 MAIN', 'NEW YORK', 'New York', '100656', 'NEW YORK', '', 'Hospice', '', '']);
    const p = await writeTempFile('Hospital_General_Information.csv', `${CC_HEADER}\n${CC_ROWS[1]}\n${bad}\n${CC_ROWS[1]}\n`);
    const { rows, rejects } = await parseAll(facilities, [p]);
    expect(rows).toHaveLength(1);
    expect(rejects[0]).toEqual({
      line: 3,
      issues: [
        expect.objectContaining({ loc: ['row', 3, 'ccn'], type: 'string_pattern_mismatch', input: '33-101' }),
        expect.objectContaining({ loc: ['row', 3, 'state'], input: 'New York' }),
        expect.objectContaining({ loc: ['row', 3, 'zip'], input: '100656' }),
        expect.objectContaining({ loc: ['row', 3, 'facility_type'], type: 'enum', input: 'Hospice' }),
      ],
    });
    expect(rejects[1]).toEqual({ line: 4, issues: [expect.objectContaining({ loc: ['row', 4, 'ccn'], type: 'duplicate' })] });
  });

  it('restores leading zeros an Excel round-trip stripped from CCN and ZIP', async () => {
    const p = await writeTempFile('Hospital_General_Information.csv', `${CC_HEADER}\n${ccRow(['10001', 'SOUTHEAST HEALTH MEDICAL CENTER', '1108 ROSS CLARK CIRCLE', 'DOTHAN', 'AL', '36301', 'HOUSTON', '', 'Acute Care Hospitals'])}\n${ccRow(['1014F', 'BIRMINGHAM VA MEDICAL CENTER', '700 SOUTH 19TH STREET', 'BIRMINGHAM', 'AL', '35233', 'JEFFERSON', '', 'Acute Care - Veterans Administration'])}\n${ccRow(['220071', 'MASSACHUSETTS GENERAL HOSPITAL', '55 FRUIT STREET', 'BOSTON', 'MA', '2114', 'SUFFOLK', '', 'Acute Care Hospitals'])}\n`);
    const { rows, rejects } = await parseAll(facilities, [p]);
    expect(rejects).toEqual([]);
    expect(rows.map((r) => [r.ccn, r.zip])).toEqual([
      ['010001', '36301'],
      ['01014F', '35233'],
      ['220071', '02114'],
    ]);
  });

  it('rejects a POS row with a bad category code and urban/rural flag', async () => {
    const p = await writeTempFile('POS_Q3_2025.csv', 'PRVDR_CTGRY_SBTYP_CD,PRVDR_CTGRY_CD,FAC_NAME,PRVDR_NUM,STATE_CD,ZIP_CD,CBSA_URBN_RRL_IND,CBSA_CD\r\n01,1,X HOSPITAL,010001,AL,36301,X,20020\r\n');
    const { rejects } = await parseAll(facilities, [p]);
    expect(rejects[0]!.issues.map((i) => i.loc)).toEqual([
      ['row', 2, 'category'],
      ['row', 2, 'urban_rural'],
    ]);
  });
});

const geography = [
  { dataset: zipLocality, files: [join(seeds, 'zip_locality/ZIP5_OCT2025.txt')] },
  { dataset: localityCounty, files: [join(seeds, 'locality_county/25LOCCO.csv')] },
  { dataset: cbsaCounty, files: [join(seeds, 'cbsa_county/FY2026 CBSA to County Crosswalk.csv')] },
  { dataset: wageIndex, files: [join(seeds, 'wage_index/FY2026 IPPS Final Rule Table 3.csv')] },
  { dataset: gpci, files: [join(seeds, 'gpci/GPCI2026.csv')] },
];

describe('getFacilityReference over the seeds (POS layout)', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: facilities, files: [posSeed] }, ...geography]);
  });
  afterAll(() => snap.close());

  it('resolves UCSF to San Francisco: locality 0111205 by ZIP, CBSA 41884, FY2026 wage index', async () => {
    const p = await getFacilityReference(snap, '050454');
    expect(p).toMatchObject({
      ccn: '050454',
      state: 'CA',
      county: 'SAN FRANCISCO',
      county_fips: '06075',
      zip: '94143',
      cbsa: '41884',
      cbsa_name: 'San Francisco-San Mateo-Redwood City, CA',
      locality: '0111205',
      mac: '01112',
      locality_number: '05',
      locality_source: 'zip',
      wage_index: 1.9315,
      is_rural: false,
      rural_source: 'facility_file',
      facility_type: 'acute_care_hospital',
    });
    expect(p.locality_name).toMatch(/^SAN FRANCISCO-OAKLAND-BERKELEY/);
    expect(p.versions).toEqual({ facilities: '2025Q3', zip_locality: '2025Q4', gpci: '2026', cbsa_county: 'FY2026', wage_index: 'FY2026' });
    expect(p.warnings).toEqual([]);
  });

  it('resolves the rural critical access hospital in Chatom AL to the statewide locality and rural CBSA 01', async () => {
    const p = await getFacilityReference(snap, '011300');
    expect(p).toMatchObject({ locality: '1011200', cbsa: '01', wage_index: 0.7555, is_rural: true, facility_type: 'critical_access_hospital', county: 'WASHINGTON' });
  });

  it('warns when the POS urban flag and the ZIP5 rural indicator disagree (Hamilton NY)', async () => {
    const p = await getFacilityReference(snap, '331316');
    expect(p).toMatchObject({ locality: '1328299', cbsa: '45060', is_rural: false, rural_source: 'facility_file' });
    expect(p.warnings).toEqual([expect.stringMatching(/marks the facility urban .* ZIP 13346 is rural/)]);
  });

  it('throws NotFoundError naming the CCN and version for an unknown CCN', async () => {
    await expect(getFacilityReference(snap, '999999')).rejects.toThrow(new NotFoundError('CCN 999999 is not in facilities 2025Q3'));
  });
});

describe('getFacilityReference over a Care Compare file (no CBSA, no rural flag)', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: facilities, files: [await careCompare()], version: '2025-10', effectiveDate: '2025-10-01' }, ...geography]);
  });
  afterAll(() => snap.close());

  it('derives CBSA from the county crosswalk and is_rural from the ZIP, saying so', async () => {
    const p = await getFacilityReference(snap, '330101');
    expect(p).toMatchObject({ locality: '1320201', cbsa: '35614', wage_index: 1.3456, is_rural: false, rural_source: 'zip_locality', source_layout: 'care_compare' });
    expect(p.warnings).toEqual([
      'CBSA 35614 derived from county NEW YORK, NY via cbsa_county FY2026 (the Care Compare file has no CBSA)',
      'is_rural derived from the zip_locality rural indicator of ZIP 10065 (the Care Compare file has no rural flag)',
    ]);
  });

  it('finds the rural emergency hospital in St. Lawrence County via ST. LAWRENCE -> rural CBSA 33', async () => {
    const p = await getFacilityReference(snap, '330799');
    expect(p).toMatchObject({ locality: '1328299', cbsa: '33', wage_index: 0.8954, is_rural: true, facility_type: 'rural_emergency_hospital' });
  });

  it('falls back to the county locality when the ZIP is not in zip_locality, and reports what is missing', async () => {
    const p = await getFacilityReference(snap, '01019F');
    expect(p).toMatchObject({ locality: '1011200', locality_source: 'county', cbsa: null, wage_index: null, is_rural: false, rural_source: null });
    expect(p.warnings).toEqual([
      'locality 1011200 derived from county MONTGOMERY, AL via locality_county (all match) because ZIP 36109 is not in zip_locality 2025Q4',
      'CBSA unknown: the Care Compare file has none and county MONTGOMERY, AL is not in cbsa_county',
      'is_rural unknown (no facility flag, ZIP rural indicator or CBSA); reported as false',
    ]);
    expect(p.versions).toMatchObject({ facilities: '2025-10', locality_county: '2025', gpci: '2026' });
  });

  it('accepts a lower-case CCN', async () => {
    expect((await getFacilityReference(snap, '01019f')).ccn).toBe('01019F');
  });
});

describe('getFacilityReference with a POS CBSA that Table 3 does not list', () => {
  it('falls back to the county crosswalk CBSA (statewide rural area) for the wage index, with a warning', async () => {
    const p = await writeTempFile('POS_Q3_2025.csv', 'PRVDR_CTGRY_SBTYP_CD,PRVDR_CTGRY_CD,FAC_NAME,PRVDR_NUM,STATE_CD,ZIP_CD,FIPS_STATE_CD,FIPS_CNTY_CD,CBSA_URBN_RRL_IND,CBSA_CD\r\n01,01,CLIFTON-FINE HOSPITAL,330799,NY,13690,36,089,R,36300\r\n');
    const snap = await openTestSnapshot([{ dataset: facilities, files: [p] }, ...geography]);
    try {
      const f = await getFacilityReference(snap, '330799');
      expect(f).toMatchObject({ cbsa: '36300', wage_index: 0.8954, is_rural: true, county: 'ST. LAWRENCE', locality: '1328299' });
      expect(f.warnings).toEqual([
        'the Provider of Services file gives CBSA 36300 but cbsa_county FY2026 maps county ST. LAWRENCE to 33; using the facility file',
        "CBSA 36300 is not in wage_index FY2026; wage index of the county's crosswalk CBSA 33 (NEW YORK) used instead",
      ]);
    } finally {
      snap.close();
    }
  });
});

describe('getFacilityReference without the facilities dataset', () => {
  it('throws NotFoundError saying facilities is not loaded', async () => {
    const snap = await openTestSnapshot(geography.slice(0, 1));
    try {
      await expect(getFacilityReference(snap, '050454')).rejects.toThrow(/facilities is not loaded/);
    } finally {
      snap.close();
    }
  });
});
