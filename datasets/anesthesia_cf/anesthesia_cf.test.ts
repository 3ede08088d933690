import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { openTestSnapshot, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { anesthesiaCf } from './dataset.js';
import { lookupAnesCf } from './queries.js';

// Seed: five real rows of ANES2025.csv (RVU25D), header, trailing spaces and the closing `,,,` row kept.
const seed = join(REPO_ROOT, 'seeds', anesthesiaCf.id, 'ANES2025.csv');

describe('anesthesia_cf parser (seed)', () => {
  it('detects the file by its header and reads the year from its name', async () => {
    const s = await sampleFile(await toSourceFile(seed));
    expect(anesthesiaCf.detect(s)).toBe(true);
    expect(anesthesiaCf.version([s])).toEqual({ label: '2025', effective_date: '2025-01-01' });
  });

  it('reads every locality, trimming the trailing spaces, with the national factor of the header', async () => {
    const { rows, rejects } = await parseAll(anesthesiaCf, seed);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(4);
    expect(rows[0]).toEqual({ contractor: '10112', locality: '00', locality_name: 'ALABAMA', anes_cf: 19.31, national_anes_cf: 20.3178 });
    expect(rows[1]!.locality_name).toBe('ALASKA*');
  });

  it('rejects a row whose factor is not a number, naming its line and column', async () => {
    const p = await writeTempFile('ANES2025.csv', 'Contractor,Locality,Locality Name,National Anes CF of 20.3178\n10112 ,00 ,ALABAMA,n/a \n');
    const { rows, rejects } = await parseAll(anesthesiaCf, p);
    expect(rows).toEqual([]);
    expect(rejects).toEqual([{ line: 2, issues: [expect.objectContaining({ loc: ['row', 2, 'Anes CF'], input: 'n/a' })] }]);
  });
});

describe('lookupAnesCf', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: anesthesiaCf, files: [seed] }]);
  });
  afterAll(() => snap?.close());

  it("finds a locality's factor in its year, the nearest year otherwise, and the national factor", async () => {
    expect(await lookupAnesCf(snap, '1320201', 2025)).toMatchObject({ version: '2025', other_year: false, national_anes_cf: 20.3178, row: { anes_cf: 22.76, locality_name: 'MANHATTAN' } });
    expect(await lookupAnesCf(snap, '1320201', 2026)).toMatchObject({ version: '2025', other_year: true });
    expect((await lookupAnesCf(snap, '9999999', 2025))!.row).toBeNull();
  });
});
