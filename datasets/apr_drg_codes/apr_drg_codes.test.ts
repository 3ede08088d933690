import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { openTestSnapshot, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { aprDrgCodes } from './dataset.js';
import { aprDrgCodeList, findAprDrgCodes } from './queries.js';

// The seed is 8 lines of the Tuva Project's 2024 list (terminology__apr_drg.csv @ 296f4dc), byte
// for byte. The 2023 layout below is lines of the 2023 list (@ 31cd028) as they are, TABs included.
const seed = join(REPO_ROOT, 'seeds', aprDrgCodes.id, 'apr_drg_codes_tuva-296f4dc_2024-01-02.csv');
const LIST_2023 = [
  'apr_drg_code,severity,apr_drg_description',
  '041,1,"Nervous system malignancy\t"',
  '041,2,"Nervous system malignancy\t"',
  '041,3,"Nervous system malignancy\t"',
  '041,4,"Nervous system malignancy\t"',
  '181,1,"Lower extremity arterial procedures #"',
  '181,2,"Lower extremity arterial procedures #"',
  '181,3,"Lower extremity arterial procedures #"',
  '181,4,"Lower extremity arterial procedures #"',
  '262,1,"Cholecystectomy except laparoscopic\t1.3137"',
  '262,2,"Cholecystectomy except laparoscopic\t1.6055"',
  '262,3,"Cholecystectomy except laparoscopic\t2.7370"',
  '262,4,"Cholecystectomy except laparoscopic\t6.0536"',
].join('\n');

describe('apr_drg_codes parser', () => {
  it('detects the seed by its header and reads the label and effective date the file name gives', async () => {
    const s = await sampleFile(await toSourceFile(seed));
    expect(aprDrgCodes.detect(s)).toBe(true);
    expect(aprDrgCodes.version([s])).toEqual({ label: 'tuva-296f4dc', effective_date: '2024-01-02' });
    expect(aprDrgCodes.version([{ ...s, name: 'apr_drg_codes_v41.csv' }])).toEqual({ label: 'v41' });
  });

  it('finds no version in a list named as Tuva names it: the operator gives one', async () => {
    const p = await writeTempFile('terminology__apr_drg.csv', LIST_2023);
    const s = await sampleFile(await toSourceFile(p));
    expect(aprDrgCodes.detect(s)).toBe(true);
    expect(aprDrgCodes.version([s])).toBeUndefined();
  });

  it('reads the 2024 layout: quoted cells, P/M, the misspelt mdc_cdoe column, an empty MDC as null', async () => {
    const { rows, rejects } = await parseAll(aprDrgCodes, seed);
    expect(rejects).toEqual([]);
    expect(rows.map((r) => r.drg)).toEqual(['001', '139', '194', '302', '560', '640', '720', '956']);
    expect(rows[0]).toEqual({ drg: '001', description: 'LIVER TRANSPLANT &/OR INTESTINAL TRANSPLANT', severities: [], medical_surgical: 'P', mdc: null, marker: null });
    expect(rows.find((r) => r.drg === '139')).toEqual({ drg: '139', description: 'OTHER PNEUMONIA', severities: [], medical_surgical: 'M', mdc: '04', marker: null });
  });

  it('collapses the 2023 layout\'s four SOI rows, dropping a trailing TAB (and the figure after it) and keeping the # marker apart', async () => {
    const { rows, rejects } = await parseAll(aprDrgCodes, await writeTempFile('apr_drg_codes_tuva-31cd028.csv', LIST_2023));
    expect(rejects).toEqual([]);
    expect(rows).toEqual([
      { drg: '041', description: 'Nervous system malignancy', severities: [1, 2, 3, 4], medical_surgical: null, mdc: null, marker: null },
      { drg: '181', description: 'Lower extremity arterial procedures', severities: [1, 2, 3, 4], medical_surgical: null, mdc: null, marker: '#' },
      { drg: '262', description: 'Cholecystectomy except laparoscopic', severities: [1, 2, 3, 4], medical_surgical: null, mdc: null, marker: null },
    ]);
  });

  it('rejects a bad SOI, a description that differs between SOIs, a repeated SOI and a DRG listed again later', async () => {
    const text = ['apr_drg_code,severity,apr_drg_description', '139,1,"Other pneumonia"', '139,5,"Other pneumonia"', '139,2,"Other pneumonias"', '139,1,"Other pneumonia"', '140,1,"Chronic obstructive pulmonary disease"', '139,3,"Other pneumonia"'].join('\n');
    const { rows, rejects } = await parseAll(aprDrgCodes, await writeTempFile('apr_drg_codes_x.csv', text));
    expect(rows.map((r) => [r.drg, r.severities])).toEqual([['139', [1]], ['140', [1]]]);
    expect(rejects.map((r) => [r.line, r.issues[0]!.loc[2], r.issues[0]!.type])).toEqual([
      [3, 'severity', 'less_than_equal'],
      [4, 'apr_drg_description', 'value_error'],
      [5, 'severity', 'duplicate_key'],
      [7, 'apr_drg_code', 'duplicate_key'],
    ]);
  });
});

describe('apr_drg_codes queries', () => {
  let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
  beforeAll(async () => {
    snap = await openTestSnapshot([{ dataset: aprDrgCodes, files: [seed] }]);
  });
  afterAll(() => snap?.close());

  it('finds a DRG (padded to three digits) in the list, and nothing for one it lacks', async () => {
    expect(await findAprDrgCodes(snap, '640', '2026-01-10')).toEqual([expect.objectContaining({ drg: '640', mdc: '15', version: 'tuva-296f4dc' })]);
    expect(await findAprDrgCodes(snap, '1')).toEqual([expect.objectContaining({ drg: '001', medical_surgical: 'P' })]);
    expect(await findAprDrgCodes(snap, '775')).toEqual([]);
    // Before the list's effective date it still answers, but says it does not cover the date.
    expect(await aprDrgCodeList(snap, '2023-06-30')).toMatchObject({ version: 'tuva-296f4dc', covered: false, warning: expect.stringMatching(/no apr_drg_codes release loaded is effective on 2023-06-30/) });
    expect(await aprDrgCodeList(snap, '2024-01-02')).toMatchObject({ covered: true });
  });
});
