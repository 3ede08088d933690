import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { splitDescription, x12Codes } from './dataset.js';
import { x12StatusOn } from './queries.js';

const SEEDS = join(REPO_ROOT, 'seeds/x12_codes');
const CARC = join(SEEDS, 'claim-adjustment-reason-codes_2026-08-17.csv');
const RARC = join(SEEDS, 'remittance-advice-remark-codes_2026-08-17.csv');
const GROUP = join(SEEDS, 'claim-adjustment-group-codes_2026-08-17.csv');
/** The CARC list page's HTML rows, with a stopped code, an impossible code and an empty description. */
const UGLY = join(REPO_ROOT, 'test/fixtures/x12_codes/claim-adjustment-reason-codes_2026-07-01.html');

describe('x12_codes parser (seed lists)', () => {
  it('detects each list by name and content and dates the release from the file name', async () => {
    expect(await detectFile(x12Codes, CARC)).toEqual({ detected: true, version: { label: '2026-08-17', effective_date: '2026-08-17' } });
  });

  it('reads CARC, RARC and group codes, splitting the Start date out of the description', async () => {
    const carc = await parseAll(x12Codes, CARC);
    expect(carc.rejects).toEqual([]);
    expect(carc.rows).toHaveLength(41);
    // 1,"Deductible Amount\nStart: 01/01/1995"
    expect(carc.rows[0]).toEqual({ list: 'carc', code: '1', description: 'Deductible Amount', start_date: '1995-01-01', last_modified: null, stop_date: null, notes: null });
    const rarc = await parseAll(x12Codes, RARC);
    expect(rarc.rows).toHaveLength(28);
    expect(rarc.rows.find((r) => r.code === 'M20')).toEqual({ list: 'rarc', code: 'M20', description: 'Missing/incomplete/invalid HCPCS.', start_date: '1997-01-01', last_modified: '2003-02-28', stop_date: null, notes: '(Modified 2/28/03)' });
    // Deactivated codes keep their dates: CARC 42 stopped 2007-06-01, RARC N14 2007-10-01 with X12's note.
    expect(carc.rows.find((r) => r.code === '42')).toMatchObject({ start_date: '1995-01-01', last_modified: '2006-10-31', stop_date: '2007-06-01', notes: null });
    expect(rarc.rows.find((r) => r.code === 'N14')).toMatchObject({ stop_date: '2007-10-01', notes: 'Consider using Reason Code 45' });
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

  it('keeps a "Note:" that is part of X12\'s own wording in the description (CARC 156, D22)', () => {
    // The 2026-08-17 list's cells, as the loader-format CSV holds them.
    expect(splitDescription('Flexible spending account payments. Note: Use code 187.\nStart: 09/30/2003 | Last Modified: 01/25/2009 | Stop: 10/01/2009')).toEqual({
      description: 'Flexible spending account payments. Note: Use code 187.',
      start_date: '2003-09-30',
      last_modified: '2009-01-25',
      stop_date: '2009-10-01',
      notes: null,
    });
    const d22 = splitDescription("Reimbursement was adjusted for the reasons to be provided in separate correspondence. (Note: To be used for Workers' Compensation only) - Temporary code to be added for timeframe only until 01/01/2009.\nStart: 01/27/2008 | Stop: 01/01/2009");
    expect(d22.description).toMatch(/\(Note: To be used for Workers' Compensation only\) - Temporary code to be added for timeframe only until 01\/01\/2009\.$/);
    expect(d22).toMatchObject({ start_date: '2008-01-27', stop_date: '2009-01-01', notes: null });
  });

  it('reads the one-column-per-field layout by header name: no column glued into the description, ISO dates kept, X12 notes from x12_notes', async () => {
    const file = await writeTempFile(
      'claim-adjustment-reason-codes.csv',
      [
        'code,description,start_date,last_modified,stop_date,status,x12_notes,source,description_source,dates_source,also_in,notes',
        '42,Charges exceed our fee schedule or maximum allowable amount. (Use CARC 45),1995-01-01,2006-10-31,2007-06-01,deactivated,,bsparkma;northstar;vista,bsparkma,northstar+vista,hippo2012,',
        '"156","Flexible spending account payments. Note: Use code 187.",2003-09-30,2009-01-25,2009-10-01,deactivated,,a,b,c,d,the merger\'s own note',
        '308,Payment is adjusted due to contracted funding agreement between the payer and provider.,,,,current,,bsparkma,bsparkma,,,no start date recorded',
        '23,The impact of prior payer(s) adjudication including payments and/or adjustments.,01/01/1995,,,current,,a,b,c,d,',
        '',
      ].join('\r\n'),
    );
    const { rows, rejects } = await parseAll(x12Codes, file);
    expect(rows).toEqual([
      { list: 'carc', code: '42', description: 'Charges exceed our fee schedule or maximum allowable amount. (Use CARC 45)', start_date: '1995-01-01', last_modified: '2006-10-31', stop_date: '2007-06-01', notes: null },
      { list: 'carc', code: '156', description: 'Flexible spending account payments. Note: Use code 187.', start_date: '2003-09-30', last_modified: '2009-01-25', stop_date: '2009-10-01', notes: null },
      { list: 'carc', code: '308', description: 'Payment is adjusted due to contracted funding agreement between the payer and provider.', start_date: null, last_modified: null, stop_date: null, notes: null },
    ]);
    expect(rejects).toEqual([{ line: 5, issues: [{ loc: ['start_date'], msg: 'a date as YYYY-MM-DD', type: 'value_error', input: '01/01/1995' }] }]);
    // An undated name is still detected (its version comes from --version).
    expect(await detectFile(x12Codes, file)).toEqual({ detected: true, version: null });
  });
});

describe('x12StatusOn: a code as of a remittance date', () => {
  const carc42 = { list: 'carc' as const, code: '42', start_date: '1995-01-01', stop_date: '2007-06-01' };
  it('a deactivated code is valid before its stop date and deactivated from it, naming the date', () => {
    expect(x12StatusOn(carc42, '2007-05-31')).toMatchObject({ status: 'active' });
    expect(x12StatusOn(carc42, '2007-05-31').note).toMatch(/deactivated from 2007-06-01/);
    expect(x12StatusOn(carc42, '2007-06-01')).toMatchObject({ status: 'deactivated' });
    expect(x12StatusOn(carc42, '2026-01-01').note).toBe('CARC 42 was deactivated on 2007-06-01 (its stop date): a remittance dated 2026-01-01 should not use it; it was valid from 1995-01-01 until then');
  });

  it('a code whose start date is after the date did not exist yet; an undated code is in use', () => {
    expect(x12StatusOn({ list: 'carc', code: '251', start_date: '2012-09-30', stop_date: null }, '2012-09-29')).toEqual({ status: 'not_yet_active', note: 'CARC 251 starts on 2012-09-30, after 2012-09-29: it did not exist on that date' });
    expect(x12StatusOn({ list: 'carc', code: '251', start_date: '2012-09-30', stop_date: null }, '2012-09-30').status).toBe('active');
    expect(x12StatusOn({ list: 'group', code: 'CO', start_date: null, stop_date: null }, '1990-01-01')).toEqual({ status: 'active', note: 'group code CO is in use on 1990-01-01 (start not recorded)' });
  });
});
