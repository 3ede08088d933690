import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../../datasets/_shared/source.js';
import { icd10cm, type Icd10cmRow } from '../../datasets/icd10cm/dataset.js';
import { parseAll, REPO_ROOT } from '../../testing/datasets.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

// The real FY2026 files: an excerpt of the CDC order file (orders 00001-00060 and 20055-20094)
// and the codes-only derivative of all billable codes (../shared/data/icd10cm/SOURCE.md).
const FILES = ['icd10cm/icd10cm_order_2026.excerpt.txt', 'icd10cm/icd10cm_codes_2026.CODES_ONLY_derivative.txt'];
const present = requireShared(...FILES);
const [ORDER, CODES] = FILES.map((f) => join(sharedDataDir(), f)) as [string, string];

describe.skipIf(!present)('icd10cm on the real FY2026 files', () => {
  it('reads the order-file excerpt: 100 lines, header flags, short and long descriptions, FY2026 from 2025-10-01', async () => {
    const s = await sampleFile(await toSourceFile(ORDER));
    expect(icd10cm.detect(s)).toBe(true);
    expect(icd10cm.version([s])).toEqual({ label: 'FY2026', effective_date: '2025-10-01' });
    const { rows, rejects } = await parseAll<Icd10cmRow>(icd10cm, ORDER);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(100);
    expect(rows[1]).toEqual({ code: 'A000', code_dotted: 'A00.0', billable: true, short_description: 'Cholera due to Vibrio cholerae 01, biovar cholerae', long_description: 'Cholera due to Vibrio cholerae 01, biovar cholerae', order_number: 2 });
    const m = rows.find((r) => r.code === 'M5400')!;
    expect(m).toMatchObject({ code_dotted: 'M54.00', billable: true, short_description: 'Panniculitis affecting regions of neck and back, site unsp', long_description: 'Panniculitis affecting regions of neck and back, site unspecified', order_number: 20057 });
    expect(rows.find((r) => r.code === 'M54')).toMatchObject({ billable: false, long_description: 'Dorsalgia' });
  });

  it('reads all 74,719 billable codes of the codes-only list, every one a valid code', async () => {
    const { rows, rejects } = await parseAll<Icd10cmRow>(icd10cm, CODES);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(74719);
    expect(new Set(rows.map((r) => r.code)).size).toBe(74719);
    expect(rows.every((r) => r.billable && r.long_description === null)).toBe(true);
    expect(rows.find((r) => r.code === 'M5450')?.code_dotted).toBe('M54.50');
  });

  it('seeds an excerpt of real rows: every line of seeds/icd10cm is a line of the CDC order file excerpt, byte for byte', async () => {
    const seed = await readFile(join(REPO_ROOT, 'seeds/icd10cm/icd10cm_order_2026.txt'), 'latin1');
    const real = new Set((await readFile(ORDER, 'latin1')).split('\r\n'));
    const lines = seed.split('\r\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => !real.has(l))).toEqual([]);
  });
});
