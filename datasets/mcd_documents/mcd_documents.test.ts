import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { mcdDocuments, parseContractors } from './dataset.js';
import { versionInForce } from './queries.js';

const SEED = join(REPO_ROOT, 'seeds/mcd_documents/documents_latest.csv');
const UGLY = join(REPO_ROOT, 'test/fixtures/mcd_documents/documents_ugly.csv');

describe('mcd_documents parser (the MCD LCD/article listing)', () => {
  it('claims the listing and labels it with its latest updated_on date', async () => {
    expect(await detectFile(mcdDocuments, SEED)).toEqual({ detected: true, version: { label: '2025-08-06', effective_date: '2025-08-06' } });
  });

  it('reads multi-line contractor cells, MM/DD/YYYY dates and N/A retirement dates', async () => {
    const { rows, rejects } = await parseAll(mcdDocuments, SEED);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(15);
    expect(rows[0]).toEqual({
      document_display_id: 'L36668',
      document_id: 36668,
      document_type: 'lcd',
      document_version: 45,
      contractors: [{ name: 'Noridian Healthcare Solutions, LLC', types: ['MAC - Part A', 'MAC - Part B'] }],
      effective_date: '2025-08-14',
      retirement_date: null,
      note: null,
      title: 'Urine Drug Testing',
      updated_on: '2025-08-06',
      url: 'https://www.cms.gov/medicare-coverage-database/view/lcd.aspx?lcdid=36668&ver=45',
    });
    expect(rows.find((r) => r.document_display_id === 'L34011')).toMatchObject({ retirement_date: '2025-06-26', note: 'Retired' });
  });

  it('keeps both contractors of a DME LCD (one cell, blocks separated by a blank line)', async () => {
    const { rows } = await parseAll(mcdDocuments, SEED);
    expect(rows.find((r) => r.document_display_id === 'L33824')!.contractors).toEqual([
      { name: 'CGS Administrators, LLC', types: ['DME MAC'] },
      { name: 'Noridian Healthcare Solutions, LLC', types: ['DME MAC'] },
    ]);
  });

  it('keeps a future version beside the current one, and picks the one in force on a date', async () => {
    const { rows } = await parseAll(mcdDocuments, SEED);
    const versions = rows.filter((r) => r.document_display_id === 'L39297');
    expect(versions.map((v) => [v.document_version, v.effective_date, v.note])).toEqual([
      [3, '2022-11-01', null],
      [6, '2025-09-07', 'Future(Notice Ends 09/06/2025)'],
    ]);
    expect(versionInForce(versions, '2025-09-06').document_version).toBe(3);
    expect(versionInForce(versions, '2025-09-07').document_version).toBe(6);
    expect(versionInForce(versions, '2020-01-01').document_version).toBe(3);
  });

  it('reads a contractor cell only in its published shape', () => {
    expect(parseContractors('Palmetto GBA\n(HHH MAC, MAC - Part A)')).toEqual([{ name: 'Palmetto GBA', types: ['HHH MAC', 'MAC - Part A'] }]);
    expect(parseContractors('Palmetto GBA')).toBeUndefined();
    expect(parseContractors('Palmetto GBA\n(Part C)')).toBeUndefined();
  });
});

describe('mcd_documents bad input', () => {
  it('rejects (at the last line of a multi-line record) an unknown contract type, an impossible date, a non-integer version and ids that disagree, keeping the good row', async () => {
    const { rows, rejects } = await parseAll(mcdDocuments, UGLY);
    expect(rows.map((r) => r.document_display_id)).toEqual(['L38765']);
    expect(rejects.map((r) => [r.line, r.issues.map((i) => i.loc[2])])).toEqual([
      [5, ['effective_date', 'contractor_name_type']],
      [7, ['document_version', 'url', 'document_display_id', 'document_type']],
    ]);
  });

  it('throws on a CSV that is not the listing', async () => {
    await expect(parseAll(mcdDocuments, await writeTempFile('documents.csv', 'id,title\n1,x\n'))).rejects.toThrow(/no header row found/);
  });
});
