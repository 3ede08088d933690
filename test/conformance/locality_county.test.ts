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

  it('reads 25LOCCO.txt, rejecting the California block (no state name) and the 9 cut county lists', async () => {
    const f = join(dir, '25LOCCO.txt');
    const { rows, rejects } = await parseAll(localityCounty, [f]);
    const ca = Array.from({ length: 29 }, (_, i) => 13 + i);
    expect(rejects.map((r) => r.line)).toEqual([...ca, 49, 51, 55, 63, 81, 107, 113, 114, 157]);
    expect(rejects[0]!.issues).toEqual([expect.objectContaining({ loc: ['row', 13, 'state'], type: 'missing' })]);
    expect(rejects.find((r) => r.line === 113)!.issues[0]).toMatchObject({ type: 'truncated', input: 'BRONX, KINGS, NASSAU, RICHMOND, ROCKLAND, SUFFOLK AND WEST' });
    expect(rows).toHaveLength(96);
    const csv = await parseAll(localityCounty, [join(dir, '25LOCCO.csv')]);
    // Every .txt row also comes out of the CSV (same locality, state and county).
    const csvKeys = new Set(csv.rows.map((r) => `${r.locality}|${r.county_state}|${r.county}`));
    expect(rows.filter((r) => !csvKeys.has(`${r.locality}|${r.county_state}|${r.county}`))).toEqual([]);
  });
});
