import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { buildXlsx } from '../../testing/xlsx.js';
import { APR_DRG_SHEET, mediCalAprDrg } from './dataset.js';

const SEED = join(REPO_ROOT, 'seeds/medi_cal_apr_drg/SFY 2025-26 APR-DRG Table.csv');
const HEADER = APR_DRG_SHEET.columns.map((c) => c.header);

describe('medi_cal_apr_drg parser', () => {
  it('reads the seed table, splitting DRG-SOI into the DRG and its SOI', async () => {
    expect(await detectFile(mediCalAprDrg, SEED)).toEqual({ detected: true, version: { label: '2025-26', effective_date: '2025-07-01' } });
    const { rows, rejects } = await parseAll(mediCalAprDrg, SEED);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(18);
    // 640-4,"Neonate birthwt >2499g, normal newborn or neonate w other problem",2.3456,9.80,Neonate,Neonate,2.45,1.75,1.00,1.75
    expect(rows.find((r) => r.drg_soi === '640-4')).toEqual({
      drg_soi: '640-4', apr_drg: '640', soi: 4, description: 'Neonate birthwt >2499g, normal newborn or neonate w other problem', hsrv_casemix_relative_weight: 2.3456,
      national_average_los: 9.8, medicaid_care_category_adult: 'Neonate', medicaid_care_category_pediatric: 'Neonate', policy_adjustor_a: 2.45, policy_adjustor_b: 1.75, policy_adjustor_c: 1, policy_adjustor_d: 1.75, illustrative: true,
    });
  });

  it('reads a workbook sheet in the documented layout, padding a short DRG number', async () => {
    const xlsx = await buildXlsx([{ name: 'APR-DRG SFY 2025-26', rows: [['State Fiscal Year 2025-26'], HEADER, ['54-1', 'Other vascular procedures', 1.2345, 3.1, 'Circulatory', 'Misc Pediatric', 1, 1.25, 1, 1]] }]);
    const path = await writeTempFile('APR-DRG Table SFY 2025-26.xlsx', xlsx);
    expect((await detectFile(mediCalAprDrg, path)).detected).toBe(true);
    const { rows, rejects } = await parseAll(mediCalAprDrg, path);
    expect(rejects).toEqual([]);
    expect(rows[0]).toMatchObject({ drg_soi: '054-1', apr_drg: '054', soi: 1, illustrative: false });
  });

  it('rejects a bad DRG-SOI, a zero weight and a zero length of stay, naming line and header', async () => {
    const csv = `State Fiscal Year 2025-26\n${HEADER.join(',')}\n139-5,Other pneumonia,0,0,Respiratory,Misc Pediatric,1,1.25,1,1\n`;
    const { rows, rejects } = await parseAll(mediCalAprDrg, await writeTempFile('drg.csv', csv));
    expect(rows).toEqual([]);
    expect(rejects[0]!.issues.map((i) => i.loc)).toEqual([
      ['row', 3, 'DRG-SOI'],
      ['row', 3, 'HSRV Casemix Relative Weight'],
      ['row', 3, 'National Average Length of Stay'],
    ]);
  });
});
