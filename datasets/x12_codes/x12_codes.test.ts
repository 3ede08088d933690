import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, parseAll, REPO_ROOT, writeTempFile } from '../../test/helpers/datasets.js';
import { splitDescription, x12Codes } from './dataset.js';

const SEEDS = join(REPO_ROOT, 'seeds/x12_codes');
const CARC = join(SEEDS, 'claim-adjustment-reason-codes_2026-07-01.csv');
const RARC = join(SEEDS, 'remittance-advice-remark-codes_2026-07-01.csv');
const GROUP = join(SEEDS, 'claim-adjustment-group-codes_2026-07-01.csv');
/** The CARC list page's HTML rows, with a stopped code, an impossible code and an empty description. */
const UGLY = join(REPO_ROOT, 'test/fixtures/x12_codes/claim-adjustment-reason-codes_2026-07-01.html');

describe('x12_codes parser (seed lists)', () => {
  it('detects each list by name and content and dates the release from the file name', async () => {
    expect(await detectFile(x12Codes, CARC)).toEqual({ detected: true, version: { label: '2026-07-01', effective_date: '2026-07-01' } });
  });

  it('reads CARC, RARC and group codes, splitting the Start date out of the description', async () => {
    const carc = await parseAll(x12Codes, CARC);
    expect(carc.rejects).toEqual([]);
    expect(carc.rows).toHaveLength(30);
    // 1,"Deductible Amount\nStart: 01/01/1995"
    expect(carc.rows[0]).toEqual({ list: 'carc', code: '1', description: 'Deductible Amount', start_date: '1995-01-01', last_modified: null, stop_date: null, notes: null });
    const rarc = await parseAll(x12Codes, RARC);
    expect(rarc.rows).toHaveLength(22);
    expect(rarc.rows.find((r) => r.code === 'M20')).toMatchObject({ list: 'rarc', description: 'Missing/incomplete/invalid HCPCS.' });
    const group = await parseAll(x12Codes, GROUP);
    expect(group.rows.map((r) => r.code)).toEqual(['CO', 'CR', 'OA', 'PI', 'PR']);
  });
});

describe('x12_codes bad input', () => {
  it('reads the HTML list page: dates, Last Modified, Stop and Notes; rejects a bad code and an empty description', async () => {
    const { rows, rejects } = await parseAll(x12Codes, UGLY);
    expect(rows.find((r) => r.code === 'D22')).toEqual({ list: 'carc', code: 'D22', description: 'Illustrative stopped code & its notes.', start_date: '2000-01-01', last_modified: null, stop_date: '2008-01-01', notes: 'Use code 45.' });
    expect(rows.find((r) => r.code === 'B7')).toMatchObject({ start_date: '1997-01-01', last_modified: '2017-07-01', notes: 'illustrative fixture row' });
    expect(rejects).toEqual([
      { line: 7, issues: [{ loc: ['code'], msg: 'not a CARC code', type: 'value_error', input: '9999' }] },
      { line: 8, issues: [{ loc: ['description'], msg: 'description is empty', type: 'missing' }] },
    ]);
  });

  it('refuses a file whose name names no list, and a CSV without its header', async () => {
    await expect(parseAll(x12Codes, await writeTempFile('codes.csv', 'Code,Description\r\n1,Deductible Amount\r\n'))).rejects.toThrow(/file name must say which list it is/);
    await expect(parseAll(x12Codes, await writeTempFile('claim-adjustment-group-codes.csv', 'CO,Contractual Obligations\r\n'))).rejects.toThrow(/no `Code,Description` header row/);
  });

  it('splits Notes written before the dates', () => {
    expect(splitDescription('Payment adjusted. Notes: Use with group PR. Start: 01/01/2008')).toEqual({ description: 'Payment adjusted.', start_date: '2008-01-01', last_modified: null, stop_date: null, notes: 'Use with group PR.' });
  });
});
