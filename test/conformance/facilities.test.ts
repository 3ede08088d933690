import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../../datasets/_shared/source.js';
import { cbsaCounty } from '../../datasets/cbsa_county/dataset.js';
import { facilities } from '../../datasets/facilities/dataset.js';
import { getFacilityReference } from '../../server/facilities/geography.js';
import { openTestSnapshot, parseAll, REPO_ROOT } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';
import { localityCounty } from '../../datasets/locality_county/dataset.js';
import { findLocalityForCounty } from '../../datasets/locality_county/queries.js';
import { findLocalityForZip } from '../../datasets/zip_locality/queries.js';
import { wageIndex } from '../../datasets/wage_index/dataset.js';
import { zipLocality } from '../../datasets/zip_locality/dataset.js';

const repoRoot = REPO_ROOT;
const present = requireShared('pos-facilities/Hospital_General_Information.csv', 'gpci/ZIP5_OCT2025.txt', 'gpci/25LOCCO.csv');
const shared = sharedDataDir();
const hgi = join(shared, 'pos-facilities/Hospital_General_Information.csv');
const zip5 = join(shared, 'gpci/ZIP5_OCT2025.txt');
const locco = join(shared, 'gpci/25LOCCO.csv');

describe.skipIf(!present)('facilities on the real Care Compare Hospital_General_Information.csv', () => {
  it('reads all 5,421 hospitals with the published type counts', async () => {
    const s = await sampleFile(await toSourceFile(hgi));
    expect(facilities.detect(s)).toBe(true);
    expect(facilities.version([s])).toBeUndefined(); // the file carries no date
    const { rows, rejects } = await parseAll(facilities, [hgi]);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(5_421);
    const count = (t: string) => rows.filter((r) => r.facility_type === t).length;
    expect(count('acute_care_hospital')).toBe(3_120);
    expect(count('critical_access_hospital')).toBe(1_375);
    expect(count('psychiatric_hospital')).toBe(626);
    expect(count('va_acute_care_hospital')).toBe(132);
    expect(count('childrens_hospital')).toBe(94);
    expect(count('rural_emergency_hospital')).toBe(38);
    expect(count('dod_acute_care_hospital')).toBe(32);
    expect(count('long_term_care_hospital')).toBe(4);
    expect(rows.find((r) => r.ccn === '050454')).toMatchObject({ name: 'UCSF MEDICAL CENTER', address: '505 PARNASSUS AVE, BOX 0296', zip: '94143', county_name: 'SAN FRANCISCO' });
    expect(rows.find((r) => r.ccn === '01014F')?.name).toBe('BIRMINGHAM VA MEDICAL CENTER');
  });

  describe('resolved against the real ZIP5 and LOCCO files (CBSA/wage index from the seeds)', () => {
    let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
    beforeAll(async () => {
      snap = await openTestSnapshot([
        { dataset: facilities, files: [hgi], version: '2025-care-compare', effectiveDate: '2025-10-01' },
        { dataset: zipLocality, files: [zip5] },
        { dataset: localityCounty, files: [locco] },
        { dataset: cbsaCounty, files: [join(repoRoot, 'seeds/cbsa_county/FY2026 CBSA to County Crosswalk.csv')] },
        { dataset: wageIndex, files: [join(repoRoot, 'seeds/wage_index/FY2026 IPPS Final Rule Table 3.csv')] },
      ]);
    });
    afterAll(() => snap.close());

    it('puts UCSF in 0111205 and NY Presbyterian in 1320201 by ZIP', async () => {
      expect(await getFacilityReference(snap, '050454')).toMatchObject({ locality: '0111205', locality_source: 'zip', locality_name: 'SAN FRANCISCO-OAKLAND-BERKELEY (SAN FRANCISCO CNTY/ALAMEDA/CONTR COSTA CNTY/SAN MATEO)', cbsa: '41884' });
      expect(await getFacilityReference(snap, '330101')).toMatchObject({ locality: '1320201', locality_name: 'MANHATTAN', cbsa: '35614', wage_index: 1.3456 });
    });

    it('agrees with the ZIP rule for 5,416 of 5,421 hospitals when the locality is taken from the county instead', async () => {
      const { rows } = await parseAll(facilities, [hgi]);
      const disagree: string[] = [];
      const unmatched: string[] = [];
      for (const r of rows) {
        const byZip = (await findLocalityForZip(snap, r.zip!))[0]!.locality;
        const byCounty = await findLocalityForCounty(snap, r.state, r.county_name!);
        if (byCounty.length === 0) unmatched.push(`${r.state} ${r.county_name}`);
        else if (!byCounty.some((m) => m.locality === byZip)) disagree.push(`${r.ccn} ${r.state} ${r.county_name}`);
      }
      // American Samoa and the Northern Mariana Islands are not in 25LOCCO at all.
      expect(unmatched).toEqual(['AS EASTERN DISTRICT', 'MP SAIPAN']);
      // Hospitals whose ZIP is priced in another locality than their county's (the ZIP rule wins).
      expect(disagree).toHaveLength(3);
      expect(disagree.map((d) => d.split(' ').slice(1).join(' ')).sort()).toEqual(['MA WORCESTER', 'MI WAYNE', 'TX COLLIN']);
    });

    it('finds every hospital ZIP in ZIP5 (no county fallback needed) and 1,294 of 1,375 CAHs rural by ZIP', async () => {
      const { rows } = await parseAll(facilities, [hgi]);
      const profiles = await Promise.all(rows.filter((r) => r.facility_type === 'critical_access_hospital').map((r) => getFacilityReference(snap, r.ccn)));
      expect(profiles.every((p) => p.locality_source === 'zip')).toBe(true);
      expect(profiles.filter((p) => p.is_rural && p.rural_source === 'zip_locality')).toHaveLength(1_294);
    });
  });
});
