import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { dotted, icd10cm, undotted } from './dataset.js';

const SEED = join(REPO_ROOT, 'seeds/icd10cm/icd10cm_order_2026.txt');
/** Order-file lines with a code that starts with a digit and a line outside the layout. */
const UGLY = join(REPO_ROOT, 'test/fixtures/icd10cm/icd10cm_order_2026_ugly.txt');

describe('icd10cm parser (seed order file)', () => {
  it('detects the order layout and takes FY2026 (from 2025-10-01) from the file name', async () => {
    expect(await detectFile(icd10cm, SEED)).toEqual({ detected: true, version: { label: 'FY2026', effective_date: '2025-10-01' } });
  });

  it('reads every line of the real excerpt: the code dotted, the header flag as billable, both descriptions', async () => {
    const { rows, rejects } = await parseAll(icd10cm, SEED);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(20);
    // 20087 M5450   1 Low back pain, unspecified ...
    expect(rows.find((r) => r.code === 'M5450')).toEqual({ code: 'M5450', code_dotted: 'M54.50', billable: true, short_description: 'Low back pain, unspecified', long_description: 'Low back pain, unspecified', order_number: 20087 });
    // 20055 M54     0 Dorsalgia: a category header, not billable.
    expect(rows.find((r) => r.code === 'M54')).toMatchObject({ code_dotted: 'M54', billable: false, order_number: 20055 });
    // The order file abbreviates short descriptions, never the long one.
    expect(rows.find((r) => r.code === 'A0472')).toMatchObject({ short_description: 'Enterocolitis d/t Clostridium difficile, not spcf as recur', long_description: 'Enterocolitis due to Clostridium difficile, not specified as recurrent' });
  });

  it('converts between the dotted and file forms', () => {
    expect(dotted('E119')).toBe('E11.9');
    expect(undotted(' m54.50 ')).toBe('M5450');
  });
});

describe('icd10cm bad input', () => {
  it('rejects a malformed code and a line outside the layout, naming the line', async () => {
    const { rows, rejects } = await parseAll(icd10cm, UGLY);
    expect(rows.map((r) => r.code)).toEqual(['M54', 'M5450', 'M5451']);
    expect(rejects).toEqual([
      { line: 3, issues: [{ loc: ['row', 3, 'code'], msg: "'1M545' is not an ICD-10-CM code", type: 'value_error', input: '1M545' }] },
      { line: 5, issues: [expect.objectContaining({ loc: ['row', 5, 'row'], input: 'this line is not in the layout' })] },
    ]);
  });

  it('refuses a file in no ICD-10-CM layout', async () => {
    const p = await writeTempFile('icd10cm_order_2026.txt', 'Code,Description\nM5450,Low back pain\n');
    expect((await detectFile(icd10cm, p)).detected).toBe(false);
    await expect(parseAll(icd10cm, p)).rejects.toThrow(/not an ICD-10-CM order, codes or codes-only file/);
  });
});
