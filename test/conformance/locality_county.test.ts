import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../../datasets/_shared/source.js';
import { parseAll } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';
import { localityCounty } from '../../datasets/locality_county/dataset.js';

const present = requireShared('gpci/25LOCCO.csv', 'gpci/25LOCCO.txt');
const dir = join(sharedDataDir(), 'gpci');

describe.skipIf(!present)('locality_county on the real CMS 25LOCCO files', () => {
  it('reads every county of 25LOCCO.csv with no rejects', async () => {
    const f = join(dir, '25LOCCO.csv');
    const s = await sampleFile(await toSourceFile(f));
    expect(localityCounty.detect(s)).toBe(true);
    expect(localityCounty.version([s])?.label).toBe('2025');
    const { rows, rejects } = await parseAll(localityCounty, [f]);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(208);
    expect(new Set(rows.map((r) => r.locality)).size).toBe(109);
    // HAWAII/GUAM is one locality for two states.
    expect(rows.filter((r) => r.locality === '0121201').map((r) => `${r.state}:${r.county_state}:${r.county}`)).toEqual(['HI:HI:ALL COUNTIES', 'HI:GU:ALL COUNTIES']);
    expect(rows.find((r) => r.county === 'NEW YORK' && r.county_state === 'NY')?.locality).toBe('1320201');
    expect(rows.filter((r) => r.locality === '1021201')).toHaveLength(15); // Atlanta: BUTTS ... ROCKDALE AND WALTON
    expect(rows.filter((r) => r.locality === '0612012' || r.locality === '0610212').map((r) => r.county)).toContain('ST. CLAIR');
    const keys = rows.map((r) => `${r.locality}|${r.county_state}|${r.county}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('refuses 25LOCCO.txt at its first cut county list (9 are cut at column 201), naming the CSV edition to load', async () => {
    const f = join(dir, '25LOCCO.txt');
    await expect(parseAll(localityCounty, [f])).rejects.toThrow(/^25LOCCO\.txt, line 49, field counties: the fixed-width edition cuts this county list .*load the CSV edition of the same release: rcm ingest locality_county 25LOCCO\.csv$/);
  });
});
