import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { buildXlsx } from '../../testing/xlsx.js';
import { HOSPITAL_SHEET, mediCalHospitals } from './dataset.js';

const SEED = join(REPO_ROOT, 'seeds/medi_cal_hospitals/SFY 2025-26 DRG Hospital List.csv');

describe('medi_cal_hospitals parser', () => {
  it('reads the seed sheet: SFY from the title, every row marked illustrative', async () => {
    expect(await detectFile(mediCalHospitals, SEED)).toEqual({ detected: true, version: { label: '2025-26', effective_date: '2025-07-01' } });
    const { rows, rejects } = await parseAll(mediCalHospitals, SEED);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(5);
    expect(rows.every((r) => r.illustrative === true)).toBe(true);
    // 106999001,...,Y,N,N,N,N,0.2500,1.4000,1.3679,"$7,000.00","$8,758.93",1200.00,700.00,850.00,900.00
    expect(rows[0]).toMatchObject({ oshpd_id: '106999001', designated_nicu: true, dph: false, cost_to_charge_ratio: 0.25, ca_neutrality_adjusted_wage_index: 1.3679, wage_adjusted_base_rate: 8758.93, admin2_level_199_rate: 900 });
  });

  it('reads a workbook built in the documented layout: columns by header in any order, aliases, instruction sheets skipped, not illustrative', async () => {
    const header = ['Provider Name', 'HCAI ID', ...HOSPITAL_SHEET.columns.slice(2).map((c) => c.header)];
    const row = ['Workbook General', '106000123', true, 'N', 'N', 'N', 'N', 0.3125, 1.1, 1.0748, 7000, 7817.25, null, 700, 850, 900];
    const xlsx = await buildXlsx([
      { name: 'Instructions', rows: [['How to use this workbook'], ['Select a hospital on the next sheet']] },
      { name: 'Hospitals', rows: [['Medi-Cal DRG Hospital List, State Fiscal Year 2026-27'], header, row] },
    ]);
    const path = await writeTempFile('SFY 2026-27 DRG Hospital List.xlsx', xlsx);
    expect(await detectFile(mediCalHospitals, path)).toEqual({ detected: true, version: { label: '2026-27', effective_date: '2026-07-01' } });
    const { rows, rejects } = await parseAll(mediCalHospitals, path);
    expect(rejects).toEqual([]);
    expect(rows).toEqual([
      {
        oshpd_id: '106000123', provider_name: 'Workbook General', designated_nicu: true, dph: false, ndph: false, oshpd_rural_hospital: false, dhcs_designated_remote_rural: false,
        cost_to_charge_ratio: 0.3125, wage_index: 1.1, ca_neutrality_adjusted_wage_index: 1.0748, unadjusted_base_rate: 7000, wage_adjusted_base_rate: 7817.25,
        rehab_rate: null, admin1_rate: 700, admin2_level_190_rate: 850, admin2_level_199_rate: 900, illustrative: false,
      },
    ]);
  });

  it('rejects bad cells naming line and header, every issue of a row at once', async () => {
    const header = HOSPITAL_SHEET.columns.map((c) => c.header).join(',');
    const csv = `State Fiscal Year 2025-26\n${header}\n10699,Short Id,Maybe,N,N,N,N,abc,1.0,0.9771,7000,6900.61,,,,\n106999005,Good,N,N,N,Y,N,0.45,1.0,0.9771,7000,6900.61,,,,\n`;
    const { rows, rejects } = await parseAll(mediCalHospitals, await writeTempFile('hospitals.csv', csv));
    expect(rows.map((r) => r.oshpd_id)).toEqual(['106999005']);
    expect(rejects).toHaveLength(1);
    expect(rejects[0]!.issues.map((i) => i.loc)).toEqual([
      ['row', 3, 'OSHPD ID'],
      ['row', 3, 'Designated NICU'],
      ['row', 3, 'Cost-to-Charge Ratio'],
    ]);
  });

  it('refuses a sheet without the documented header, naming the file', async () => {
    const path = await writeTempFile('hospitals.csv', 'State Fiscal Year 2025-26\nId,Name\n1,A\n');
    await expect(parseAll(mediCalHospitals, path)).rejects.toThrow(/hospitals\.csv, line 1: no sheet with the expected header \(OSHPD ID/);
  });
});
