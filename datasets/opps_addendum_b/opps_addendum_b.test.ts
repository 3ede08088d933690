import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseItems, writeTempFile } from '../../testing/datasets.js';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { oppsAddendumB, oppsLayout, oppsVersionOf, type OppsAddendumBRow } from './dataset.js';

const SEED = resolve(import.meta.dirname, '../../seeds/opps_addendum_b/January 2026 Web Addendum B.12.29.25.csv');

const TITLE = ',Addendum B.- OPPS Payment by HCPCS Code for CY 2026,,,,,,,,,,\r\n';
const HEADER =
  'HCPCS Code,Short Descriptor, SI,APC ,Relative Weight ,Payment Rate,National Unadjusted Copayment ,Minimum Unadjusted Copayment ,' +
  '"Note: Actual copayments would be lower due to the cap on copayments at the Inpatient Deductible of $1,736.00",IRA Coinsurance percentage,Adjusted Beneficiary Copayment,Drug and Device Pass-Through Expiration during Calendar Year,* Indicates a Change \r\n';

describe('opps_addendum_b seed (508 CSV, CP1252, padded headers and codes)', () => {
  it('detects the file, reads 2026-01 and parses every row', async () => {
    const s = await sampleFile(await toSourceFile(SEED));
    expect(oppsAddendumB.detect(s)).toBe(true);
    expect(oppsAddendumB.version([s])).toEqual({ label: '2026-01', effective_date: '2026-01-01' });
    const items = await parseItems(oppsAddendumB, SEED);
    expect(items.filter((i) => i.issues)).toEqual([]);
    const rows = items.map((i) => i.row!) as OppsAddendumBRow[];
    expect(rows).toHaveLength(30);
    const by = new Map(rows.map((r) => [r.hcpcs_code, r]));
    // The one comprehensive APC line (J1) the remittance packaging rule is tested with.
    expect(by.get('27447')).toMatchObject({ status_indicator: 'J1', apc_code: '5115' });
    expect(by.get('G0463')).toEqual({
      hcpcs_code: 'G0463', short_descriptor: 'Hospital outpt clinic visit', status_indicator: 'J2', apc_code: '5012',
      relative_weight: 1.6072, payment_rate: 146.92, national_unadjusted_copayment: null, minimum_unadjusted_copayment: 29.38,
      ira_coinsurance_pct: null, adjusted_copayment: null, drug_device_passthrough_expiry: null, note: null, changed: true, year: 2026,
    });
    // NBSP-padded code, quoted "$2,022.41", trailing-space SI and APC.
    expect(by.get('G0465')?.payment_rate).toBe(2022.41);
    expect(by.get('70450')?.status_indicator).toBe('Q3');
    expect(by.get('93005')?.apc_code).toBe('5734');
    expect(by.get('C9399')?.status_indicator).toBe('A');
    expect(by.get('J1426')).toMatchObject({ payment_rate: 7895.78, minimum_unadjusted_copayment: 1579.16, adjusted_copayment: 1736, note: '*' });
    expect(by.get('J3055')).toMatchObject({ apc_code: '0706', ira_coinsurance_pct: 19.787, drug_device_passthrough_expiry: '*' });
  });
});

describe('opps_addendum_b bad input', () => {
  it('throws on an empty file and yields nothing for a header-only file', async () => {
    await expect(parseItems(oppsAddendumB, await writeTempFile('January 2026 Web Addendum B.csv', ''))).rejects.toThrow(/empty/);
    expect(await parseItems(oppsAddendumB, await writeTempFile('January 2026 Web Addendum B.csv', TITLE + HEADER))).toEqual([]);
  });

  it('refuses Addendum A (APC table), which shares the title style', async () => {
    const p = await writeTempFile(
      'January 2025 Web Addendum A.csv',
      ',Addendum A.- OPPS APCs for CY 2025,,,,\r\nAPC,Group Title,SI,Relative Weight,Payment Rate,National Unadjusted Copayment,Minimum Unadjusted Copayment\r\n5012,Clinic Visits,J2,1.6,$146.92,.,$29.38\r\n',
    );
    expect(oppsAddendumB.detect(await sampleFile(await toSourceFile(p)))).toBe(false);
    await expect(parseItems(oppsAddendumB, p)).rejects.toThrow(/no header row/);
  });

  it('rejects a corrupted row with each bad field and a repeated code', async () => {
    const p = await writeTempFile(
      'January 2026 Web Addendum B.csv',
      TITLE + HEADER + 'G0463,Clinic visit,J22,50X2,1.6072,$14x6.92,.,$29.38,,,,,\r\n71046,X-ray,Q3,5521,1.0376,$94.85,.,$18.97,,,,,\r\n71046,X-ray,Q3,5521,1.0376,$94.85,.,$18.97,,,,,\r\n',
    );
    const items = await parseItems(oppsAddendumB, p);
    expect(items[0]).toMatchObject({ line: 3 });
    expect(items[0]!.issues!.map((i) => i.loc[2])).toEqual(['APC', 'SI', 'Payment Rate']);
    expect(items[1]!.row?.payment_rate).toBe(94.85);
    expect(items[2]!.issues![0]).toMatchObject({ loc: ['row', 5, 'HCPCS Code'], type: 'duplicate_key' });
  });

  it('admits a workbook only by zip signature plus an Addendum B name, and fails a broken one', async () => {
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('not really a workbook')]);
    const sample = async (name: string) => sampleFile(await toSourceFile(await writeTempFile(name, zip)));
    expect(oppsAddendumB.detect(await sample('2026_January_Web_Addendum_B.12292025.xlsx'))).toBe(true);
    expect(oppsAddendumB.detect(await sample('2026_January_Web_Addendum_A.12292025.xlsx'))).toBe(false);
    expect(oppsAddendumB.detect(await sample('Addendum B.zip'))).toBe(false);
    await expect(parseItems(oppsAddendumB, await writeTempFile('2026_January_Web_Addendum_B.xlsx', zip))).rejects.toThrow(/unreadable workbook/);
  });

  it('throws when a required column is missing', () => {
    expect(() => oppsLayout(['HCPCS Code', 'Short Descriptor', 'SI', 'APC', 'Payment Rate'])).toThrow(/no Relative Weight column/);
  });

  it('takes the month from the file name and the year from the title', () => {
    expect(oppsVersionOf({ name: 'April 2026 Web Addendum B.csv', text: '', lines: [TITLE] })?.label).toBe('2026-04');
    expect(oppsVersionOf({ name: 'addb.csv', text: '', lines: [TITLE] })).toEqual({ label: '2026', effective_date: '2026-01-01' });
  });
});
