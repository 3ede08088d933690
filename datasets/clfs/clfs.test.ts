import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseItems, writeTempFile } from '../../testing/datasets.js';
import { sampleFile, toSourceFile } from '../_shared/source.js';
import { clfs, clfsVersionOf, type ClfsRow } from './dataset.js';

const SEED = resolve(import.meta.dirname, '../../seeds/clfs/PUF_CLFS_CY2026_Q3V1.csv');

const PREAMBLE_2026 = '2026 Clinical Diagnostic Laboratory Fee Schedule\nCPT codes, descriptions and other data only are copyright 2026 American Medical Association. All rights reserved.\n\n';
const HEADER_2026 = 'YEAR,HCPCS,MOD,EFF_DATE,INDICATOR,RATE,SHORTDESC,LONGDESC,EXTENDEDLONGDESC\r\n';

describe('clfs seed (2026 layout, LF preamble + CRLF data)', () => {
  it('detects the file, reads 2026Q3V1 from the name and keeps QW rows apart', async () => {
    const s = await sampleFile(await toSourceFile(SEED));
    expect(clfs.detect(s)).toBe(true);
    expect(clfs.version([s])).toEqual({ label: '2026Q3V1', effective_date: '2026-07-01' });
    const items = await parseItems(clfs, SEED);
    expect(items.filter((i) => i.issues)).toEqual([]);
    const rows = items.map((i) => i.row!) as ClfsRow[];
    expect(rows).toHaveLength(20);
    expect(rows.filter((r) => r.hcpcs_code === '80053').map((r) => [r.modifier, r.rate])).toEqual([
      ['', 10.56],
      ['QW', 10.56],
    ]);
    expect(rows.find((r) => r.hcpcs_code === '81416')?.rate).toBe(12000);
    expect(rows.find((r) => r.hcpcs_code === '0526U')).toMatchObject({ indicator: 'L', rate: null });
    expect(rows.find((r) => r.hcpcs_code === '0631U')?.effective_date).toBe('2026-07-01');
    expect(rows[0]!.extended_long_descriptor).toMatch(/^Red blood cell antigen typing, dna/);
  });
});

describe('clfs layouts', () => {
  it('reads the old header (EXTENDED LONGDESC), a comma-padded preamble and unpadded rates', async () => {
    const text =
      '2025 Clinical Diagnostic Laboratory Fee Schedule ,,,,,,,,\r\n"CPT codes, descriptions \xa0and other data",,,,,,,,\r\n,,,,,,,,\r\n' +
      'YEAR,HCPCS,MOD,EFF_DATE,INDICATOR,RATE,SHORTDESC,LONGDESC,EXTENDED LONGDESC\r\n' +
      '2025,87391,,20250101,N,21.9,Assay of infectious agent,"Detection, antigen","Infectious agent antigen detection"\r\n';
    const items = await parseItems(clfs, await writeTempFile('CLFS 2025 Q2V1.csv', Buffer.from(text, 'latin1')));
    expect(items).toEqual([
      {
        line: 5,
        row: {
          hcpcs_code: '87391', modifier: '', year: 2025, effective_date: '2025-01-01', indicator: 'N', rate: 21.9,
          short_descriptor: 'Assay of infectious agent', long_descriptor: 'Detection, antigen', extended_long_descriptor: 'Infectious agent antigen detection',
        },
      },
    ]);
  });

  it('reads the ~ delimited .txt with a two-space MOD and quotes as data', async () => {
    const text = '2026 Clinical Diagnostic Laboratory Fee Schedule\r\n\r\nYEAR~HCPCS~MOD~EFF_DATE~INDICATOR~RATE~SHORTDESC\n2026~0001U~  ~20260101~N~00720.00~Rbc "dna" hea\n2026~80053~QW~20260101~N~00010.56~Comprehen metabolic panel\n';
    const p = await writeTempFile('PUF_CLFS_CY2026_Q3V1.txt', text);
    expect(clfs.detect(await sampleFile(await toSourceFile(p)))).toBe(true);
    const rows = (await parseItems(clfs, p)).map((i) => i.row);
    expect(rows.map((r) => [r?.hcpcs_code, r?.modifier, r?.rate, r?.short_descriptor, r?.long_descriptor])).toEqual([
      ['0001U', '', 720, 'Rbc "dna" hea', null],
      ['80053', 'QW', 10.56, 'Comprehen metabolic panel', null],
    ]);
  });

  it('names versions from CMS file names and falls back to the title year', () => {
    expect(clfsVersionOf({ name: 'CLFS 2025 Q2V1.csv', text: '', lines: [] })?.label).toBe('2025Q2V1');
    expect(clfsVersionOf({ name: '25CLABQ1.csv', text: '', lines: [] })).toEqual({ label: '2025Q1V1', effective_date: '2025-01-01' });
    expect(clfsVersionOf({ name: 'lab.csv', text: '', lines: ['2026 Clinical Diagnostic Laboratory Fee Schedule'] })?.label).toBe('2026');
  });
});

describe('clfs bad input', () => {
  it('throws on an empty file and yields nothing for a header-only file', async () => {
    await expect(parseItems(clfs, await writeTempFile('PUF_CLFS_CY2026_Q3V1.csv', ''))).rejects.toThrow(/empty/);
    expect(await parseItems(clfs, await writeTempFile('PUF_CLFS_CY2026_Q3V1.csv', PREAMBLE_2026 + HEADER_2026))).toEqual([]);
  });

  it('refuses the ASP pricing file', async () => {
    const p = await writeTempFile('asp.csv', 'Payment Allowance Limits,,\nHCPCS Code,Short Description,HCPCS Code Dosage,Payment Limit\nJ9035,Bevacizumab,10 MG,73.190\n');
    expect(clfs.detect(await sampleFile(await toSourceFile(p)))).toBe(false);
    await expect(parseItems(clfs, p)).rejects.toThrow(/no header row/);
  });

  it('rejects a corrupted row with each bad field, and a repeated key', async () => {
    const p = await writeTempFile(
      'PUF_CLFS_CY2026_Q3V1.csv',
      PREAMBLE_2026 + HEADER_2026 + '2026,80053,,20261301,X,ten,Panel,,\r\n2026,85025,,20260101,N,00007.77,Cbc,,\r\n2026,85025,,20260101,N,00007.77,Cbc,,\r\n',
    );
    const items = await parseItems(clfs, p);
    expect(items[0]!.issues!.map((i) => [i.loc[2], i.type])).toEqual([
      ['EFF_DATE', 'date_parsing'],
      ['INDICATOR', 'string_pattern_mismatch'],
      ['RATE', 'float_parsing'],
    ]);
    expect(items[0]!.line).toBe(5);
    expect(items[1]!.row?.rate).toBe(7.77);
    expect(items[2]!.issues![0]).toMatchObject({ loc: ['row', 7, 'HCPCS'], type: 'duplicate_key' });
  });
});
