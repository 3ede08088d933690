import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../../datasets/_shared/source.js';
import { parseAll } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';
import { anesthesiaCf } from '../../datasets/anesthesia_cf/dataset.js';

const present = requireShared('mpfs-rvu/ANES2025.csv');
const FILE = join(sharedDataDir(), 'mpfs-rvu/ANES2025.csv');

describe.skipIf(!present)('anesthesia_cf on the real ANES2025.csv', () => {
  it('reads all 109 localities with the national factor 20.3178, no rejects', async () => {
    const s = await sampleFile(await toSourceFile(FILE));
    expect(anesthesiaCf.detect(s)).toBe(true);
    expect(anesthesiaCf.version([s])).toEqual({ label: '2025', effective_date: '2025-01-01' });
    const { rows, rejects } = await parseAll(anesthesiaCf, FILE);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(109);
    expect(new Set(rows.map((r) => r.national_anes_cf))).toEqual(new Set([20.3178]));
    expect(rows.find((r) => r.contractor === '13202' && r.locality === '01')).toMatchObject({ locality_name: 'MANHATTAN', anes_cf: 22.76 });
  });
});
