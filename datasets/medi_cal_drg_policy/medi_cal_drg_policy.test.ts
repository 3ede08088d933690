import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { buildXlsx } from '../../testing/xlsx.js';
import { mediCalDrgPolicy, POLICY_PARAMETERS } from './dataset.js';

const DIR = join(REPO_ROOT, 'seeds/medi_cal_drg_policy');

describe('medi_cal_drg_policy parser', () => {
  it('reads the three seed sheets: every parameter with its source, the adjustor table and the transfer codes', async () => {
    const files = (await readdir(DIR)).map((f) => join(DIR, f));
    for (const f of files) expect(await detectFile(mediCalDrgPolicy, f)).toEqual({ detected: true, version: { label: '2025-26', effective_date: '2025-07-01' } });
    const { rows, rejects } = await parseAll(mediCalDrgPolicy, files);
    expect(rejects).toEqual([]);
    const params = Object.fromEntries(rows.filter((r) => 'parameter' in r).map((r) => [r.parameter, r.value]));
    expect(Object.keys(params).sort()).toEqual(Object.keys(POLICY_PARAMETERS).sort());
    // "62%" and "68.3%" are fractions; "$60,000.00" is dollars
    expect(params).toMatchObject({ labor_share_low: 0.62, labor_share_high: 0.683, marginal_cost_percentage: 0.6, cost_outlier_threshold: 60000, pediatric_age_cutoff: 21 });
    expect(rows.filter((r) => 'policy_adjustor_code' in r).map((r) => r.policy_adjustor_code)).toEqual(['A', 'B', 'C', 'D']);
    expect(rows.filter((r) => 'patient_status_code' in r).map((r) => r.patient_status_code)).toEqual(['02', '05', '66', '82', '85', '94']);
    expect(rows.every((r) => r.illustrative === true)).toBe(true);
  });

  it('reads a workbook holding the three sheets', async () => {
    const params = Object.values(POLICY_PARAMETERS).map((p) => [p.label, p.label.includes('Share') ? '50%' : 1, 'DHCS policy letter']);
    const xlsx = await buildXlsx([
      { name: 'Parameters', rows: [['State Fiscal Year 2025-26'], ['Parameter', 'Value', 'Source'], ...params] },
      { name: 'Policy Adjustors', rows: [['Policy Adjustor Code', 'Age Group', 'Care Category', 'Designated NICU', 'Description', 'Source'], ['C', 'adult', '*', '*', 'Adult', 'DHCS']] },
      { name: 'Transfers', rows: [['Patient Status Code', 'Description', 'Source'], ['02', 'Short-term hospital', 'NUBC']] },
    ]);
    const path = await writeTempFile('DRG Policy SFY 2025-26.xlsx', xlsx);
    const { rows, rejects } = await parseAll(mediCalDrgPolicy, path);
    expect(rejects).toEqual([]);
    expect(rows.find((r) => r.parameter === 'labor_share_low')).toMatchObject({ value: 0.5, illustrative: false });
    expect(rows).toHaveLength(Object.keys(POLICY_PARAMETERS).length + 2);
  });

  it('rejects an unknown parameter and a share above 100%, and refuses a sheet missing a parameter', async () => {
    const csv = 'State Fiscal Year 2025-26\nParameter,Value,Source\nMarginal Cost Percentage,160%,x\nMystery Factor,1,x\nStatewide Base Price,7000,x\n';
    await expect(parseAll(mediCalDrgPolicy, await writeTempFile('params.csv', csv))).rejects.toThrow(/params\.csv.*the parameters sheet lacks "Remote Rural Base Price"/);
    const items: { line: number; issues?: { loc: unknown[] }[] }[] = [];
    try {
      for await (const item of mediCalDrgPolicy.parse({ path: await writeTempFile('params.csv', csv), name: 'params.csv', size: csv.length }, { onBytes: () => {} })) items.push(item);
    } catch {
      // the missing parameters end the file, after its rows
    }
    expect(items.filter((i) => i.issues).map((i) => i.issues![0]!.loc)).toEqual([
      ['row', 3, 'Value'],
      ['row', 4, 'Parameter'],
    ]);
  });
});
