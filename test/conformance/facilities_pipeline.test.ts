import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getFacilityReference } from '../../server/facilities/geography.js';
import { REPO_ROOT } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';
import { ingestFiles, type IngestSummary } from '../../ingest/pipeline.js';
import { MountedSnapshot } from '../../warehouse/snapshot.js';
import { Warehouse } from '../../warehouse/store.js';

const ROOT = REPO_ROOT;
const present = requireShared('pos-facilities/Hospital_General_Information.csv', 'gpci/ZIP5_OCT2025.txt', 'gpci/25LOCCO.csv', 'gpci/25LOCCO.txt', 'gpci/GPCI2026.csv');
const SHARED = sharedDataDir();
const HGI = join(SHARED, 'pos-facilities/Hospital_General_Information.csv');

let dir: string;
let wh: Warehouse;
const loaded: Record<string, IngestSummary> = {};

describe.skipIf(!present)('geography datasets ingested through the pipeline from the real CMS files', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rcm-geo-'));
    wh = new Warehouse(dir);
    const now = () => new Date('2026-11-01T00:00:00Z');
    loaded.zip = await ingestFiles(wh, { dataset: 'zip_locality', files: [join(SHARED, 'gpci/ZIP5_OCT2025.txt')], now });
    loaded.locco = await ingestFiles(wh, { dataset: 'locality_county', files: [join(SHARED, 'gpci/25LOCCO.csv')], now });
    loaded.gpci = await ingestFiles(wh, { dataset: 'gpci', files: [join(SHARED, 'gpci/GPCI2026.csv')], now });
    loaded.xwalk = await ingestFiles(wh, { dataset: 'cbsa_county', files: [join(ROOT, 'seeds/cbsa_county/FY2026 CBSA to County Crosswalk.csv')], now });
    loaded.wi = await ingestFiles(wh, { dataset: 'wage_index', files: [join(ROOT, 'seeds/wage_index/FY2026 IPPS Final Rule Table 3.csv')], now });
    loaded.hgi = await ingestFiles(wh, { dataset: 'facilities', files: [HGI], version: '2025-care-compare', effectiveDate: '2025-10-01', now });
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('loads every ZIP, county and hospital with no rejects and the versions found in the files', () => {
    expect(loaded.zip).toMatchObject({ version: '2025Q4', effective_date: '2025-10-01', rows: 42_956, rejects: 0 });
    expect(loaded.locco).toMatchObject({ version: '2025', rows: 208, rejects: 0 });
    expect(loaded.hgi).toMatchObject({ version: '2025-care-compare', rows: 5_421, rejects: 0 });
  });

  it('refuses the Care Compare file without --version, since it carries no date', async () => {
    await expect(ingestFiles(wh, { dataset: 'facilities', files: [HGI], dryRun: true })).rejects.toThrow(/pass --version/);
  });

  it('refuses 25LOCCO.txt at its first cut county list, naming the CSV edition to load', async () => {
    await expect(ingestFiles(wh, { dataset: 'locality_county', files: [join(SHARED, 'gpci/25LOCCO.txt')], dryRun: true, replace: true })).rejects.toThrow(/line 49, field counties: .*rcm ingest locality_county 25LOCCO\.csv$/);
  });

  it('serves facility profiles from the mounted snapshot', async () => {
    const snap = await MountedSnapshot.open(wh, (await wh.current())!);
    try {
      const ucsf = await getFacilityReference(snap, '050454');
      expect(ucsf).toMatchObject({ locality: '0111205', cbsa: '41884', wage_index: 1.9315, is_rural: false, rural_source: 'zip_locality' });
      expect(ucsf.versions).toEqual({ facilities: '2025-care-compare', zip_locality: '2025Q4', gpci: '2026', cbsa_county: 'FY2026', wage_index: 'FY2026' });
      const cah = await getFacilityReference(snap, '011300');
      expect(cah).toMatchObject({ locality: '1011200', locality_name: 'ALABAMA', cbsa: '01', is_rural: true, facility_type: 'critical_access_hospital' });
      await expect(getFacilityReference(snap, '000000')).rejects.toThrow('CCN 000000 is not in facilities 2025-care-compare');
    } finally {
      snap.close();
    }
  });
});
