import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseItems, writeTempFile } from '../../testing/datasets.js';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { aspCrosswalk, type AspCrosswalkRow } from './dataset.js';

const SEED = resolve(import.meta.dirname, '../../seeds/asp_crosswalk/section 508 version of Jan 2025 ASP NDC-HCPCS Crosswalk.csv');

const HEADER = '_2025_CODE,Short Description,LABELER NAME,NDC2,Drug Name,HCPCS dosage,PKG SIZE,PKG QTY,BILLUNITS,BILLUNITSPKG\r\n';

describe('asp_crosswalk seed', () => {
  it('detects the layout, reads 2025Q1 and normalises NDC2 to 11 digits', async () => {
    const s = await sampleFile(await toSourceFile(SEED));
    expect(aspCrosswalk.detect(s)).toBe(true);
    expect(aspCrosswalk.version([s])).toEqual({ label: '2025Q1', effective_date: '2025-01-01' });
    const items = await parseItems(aspCrosswalk, SEED);
    expect(items.filter((i) => i.issues)).toEqual([]);
    const rows = items.map((i) => i.row!) as AspCrosswalkRow[];
    expect(rows.filter((r) => r.hcpcs_code === 'J9035').map((r) => [r.ndc, r.pkg_size, r.bill_units_pkg])).toEqual([
      ['50242006001', 4, 10],
      ['50242006101', 16, 40],
    ]);
    expect(rows.find((r) => r.hcpcs_code === 'J1745')?.labeler_name).toBe('Janssen Biotech, Inc.');
    // CP1252 0xAE decodes to the registered sign.
    expect(rows.find((r) => r.hcpcs_code === 'J7170')?.drug_name).toBe('HEMLIBRA\u00ae');
  });
});

describe('asp_crosswalk bad input', () => {
  it('throws on an empty file and yields nothing for a header-only file', async () => {
    await expect(parseItems(aspCrosswalk, await writeTempFile('xw.csv', ''))).rejects.toThrow(/empty/);
    expect(await parseItems(aspCrosswalk, await writeTempFile('xw.csv', HEADER))).toEqual([]);
  });

  it('refuses the ASP pricing file', async () => {
    const p = await writeTempFile('asp.csv', 'HCPCS Code,Short Description,HCPCS Code Dosage,Payment Limit,Co-insurance Percentage\r\nJ9035,Bevacizumab,10 MG,73.190,20.000\r\n');
    expect(aspCrosswalk.detect(await sampleFile(await toSourceFile(p)))).toBe(false);
    await expect(parseItems(aspCrosswalk, p)).rejects.toThrow(/no header row/);
  });

  it('rejects a 10-digit NDC and a non-numeric package size with their fields', async () => {
    const items = await parseItems(aspCrosswalk, await writeTempFile('xw.csv', HEADER + 'J9035,Bevacizumab injection,Genentech Inc,50242-060-01,AVASTIN,10 MG,four,1,2.5,10\r\n'));
    expect(items).toEqual([
      {
        line: 2,
        issues: [
          { loc: ['row', 2, 'NDC2'], msg: 'NDC2 should be an 11-digit NDC in 5-4-2 form', type: 'string_pattern_mismatch', input: '50242-060-01' },
          { loc: ['row', 2, 'PKG SIZE'], msg: 'Input should be a valid number', type: 'float_parsing', input: 'four' },
        ],
      },
    ]);
  });
});
