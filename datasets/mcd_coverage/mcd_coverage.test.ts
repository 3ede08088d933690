import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, parseAll, parseItems, REPO_ROOT, writeTempFile } from '../../test/helpers/datasets.js';
import { mcdCoverage } from './dataset.js';

const SEEDS = join(REPO_ROOT, 'seeds/mcd_coverage');
/** article_x_icd10_covered rows with an undotted, too-long code and a non-numeric article id. */
const UGLY = join(REPO_ROOT, 'test/fixtures/mcd_coverage/article_x_icd10_covered.csv');

describe('mcd_coverage parser (seed MCD export tables)', () => {
  it('finds each table from its header and labels the release with the latest date in the files', async () => {
    expect(await detectFile(mcdCoverage, join(SEEDS, 'article.csv'))).toEqual({ detected: true, version: { label: '2025-10-01', effective_date: '2025-10-01' } });
    const tables = await Promise.all(['lcd.csv', 'article.csv', 'lcd_related_documents.csv', 'article_x_hcpc_code.csv', 'article_x_icd10_covered.csv', 'ncd.csv'].map(async (f) => (await parseItems(mcdCoverage, join(SEEDS, f)))[0]?.table));
    expect(tables).toEqual(['lcd', 'article', 'lcd_related_documents', 'article_x_hcpc_code', 'article_x_icd10_covered', 'ncd']);
  });

  it('reads articles with integer ids, ISO dates and an empty retirement date as null', async () => {
    const { rows, rejects } = await parseAll(mcdCoverage, join(SEEDS, 'article.csv'));
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({ article_id: 99001, article_version: 4, display_id: 'A99001', article_eff_date: '2025-10-01', date_retired: null });
  });

  it('keeps covered ICD-10-CM codes in the dotted form the MCD prints', async () => {
    const { rows } = await parseAll(mcdCoverage, join(SEEDS, 'article_x_icd10_covered.csv'));
    expect(rows.filter((r) => r.article_id === 99001).map((r) => r.icd10_code_id)).toEqual(['M47.812', 'M47.816']);
  });
});

describe('mcd_coverage bad input', () => {
  it('rejects an undotted code and a non-numeric article id, keeping the good row', async () => {
    const { rows, rejects } = await parseAll(mcdCoverage, UGLY);
    expect(rows).toEqual([{ article_id: 1, article_version: 1, icd10_code_id: 'M47.816', icd10_code_group: 1, description: 'ok' }]);
    expect(rejects).toEqual([
      { line: 3, issues: [{ loc: ['row', 3, 'icd10_code_id'], msg: 'not an ICD-10-CM code (A00.0 form)', type: 'value_error', input: 'M47816X' }] },
      { line: 4, issues: [expect.objectContaining({ loc: ['row', 4, 'article_id'], type: 'float_parsing', input: 'x' })] },
    ]);
  });

  it('throws on a CSV that is no MCD table', async () => {
    await expect(parseAll(mcdCoverage, await writeTempFile('lcd.csv', 'id,title\r\n1,x\r\n'))).rejects.toThrow(/no header row found/);
  });
});
