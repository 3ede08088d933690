import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { openTestSnapshot, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { anesthesiaBaseUnits } from './dataset.js';
import { findAnesthesiaBaseUnits } from './queries.js';

const seed = join(REPO_ROOT, 'seeds', anesthesiaBaseUnits.id, `${anesthesiaBaseUnits.id}_2025.csv`);

describe('anesthesia_base_units parser (seed)', () => {
  it('detects the seed by its header and reads the version from the file name', async () => {
    const s = await sampleFile(await toSourceFile(seed));
    expect(anesthesiaBaseUnits.detect(s)).toBe(true);
    expect(anesthesiaBaseUnits.version([s])).toEqual({ label: '2025', effective_date: '2025-01-01' });
  });

  it('reads every seed row', async () => {
    const { rows, rejects } = await parseAll(anesthesiaBaseUnits, seed);
    expect(rejects).toEqual([]);
    expect(rows).toEqual([
      { code: '00100', base_units: 5 },
      { code: '00142', base_units: 4 },
      { code: '01402', base_units: 7 },
    ]);
  });

  it('finds the header below a title, whatever its case, and rejects a row without units', async () => {
    const p = await writeTempFile('base_units_2025.csv', 'CY 2025 Anesthesia Base Units\nCPT CODE,BASE UNITS\n00100,5\n00142,n/a\n');
    const { rows, rejects } = await parseAll(anesthesiaBaseUnits, p);
    expect(rows).toEqual([{ code: '00100', base_units: 5 }]);
    expect(rejects).toEqual([{ line: 4, issues: [expect.objectContaining({ loc: ['row', 4, 'Base Units'], input: 'n/a' })] }]);
  });
});

describe('anesthesia_base_units queries', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  let release: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: anesthesiaBaseUnits, files: [seed], seed: true }]);
    release = await openTestSnapshot([{ dataset: anesthesiaBaseUnits, files: [seed] }]);
  });
  afterAll(() => {
    snap?.close();
    release?.close();
  });

  it('finds a code in the loaded version, says the seed is illustrative, and nothing for an absent code', async () => {
    expect(await findAnesthesiaBaseUnits(snap, '00142')).toEqual({ version: '2025', row: { code: '00142', base_units: 4, version: '2025' }, illustrative: true });
    expect((await findAnesthesiaBaseUnits(snap, '99213')).row).toBeNull();
  });

  it('is not illustrative when the same layout is loaded as a release (rcm ingest), whatever its file name', async () => {
    expect((await findAnesthesiaBaseUnits(release, '00142')).illustrative).toBe(false);
  });
});
