import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, parseAll, REPO_ROOT, writeTempFile } from '../../testing/datasets.js';
import { gpci } from './dataset.js';

const SEED = join(REPO_ROOT, 'seeds/gpci/GPCI2026.csv');
/** GPCI2025.csv rows with a mistyped MAC and a non-numeric PE GPCI among good ones. */
const UGLY = join(REPO_ROOT, 'test/fixtures/gpci/GPCI2025.csv');

describe('gpci parser (seed GPCI2026.csv)', () => {
  it('detects Addendum E and takes 2026 from the header', async () => {
    expect(await detectFile(gpci, SEED)).toEqual({ detected: true, version: { label: '2026', effective_date: '2026-01-01' } });
  });

  it('reads every locality row, skipping the footnotes, with MAC and locality number kept as text', async () => {
    const { rows, rejects } = await parseAll(gpci, SEED);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(63);
    // GPCI2026.csv line 48: 13202,NY,01,MANHATTAN,1.064,1.162,1.586
    expect(rows.find((r) => r.locality === '1320201')).toEqual({ locality: '1320201', mac: '13202', locality_number: '01', state: 'NY', locality_name: 'MANHATTAN', pw_gpci: 1.064, pe_gpci: 1.162, mp_gpci: 1.586, year: 2026 });
    // `ALASKA*` (the footnote mark for the 1.5 work floor) is not part of the name.
    expect(rows.find((r) => r.locality === '0210201')).toMatchObject({ locality_name: 'ALASKA', pw_gpci: 1.5 });
  });
});

describe('gpci bad input', () => {
  it('rejects a mistyped MAC and a non-numeric GPCI by line and field, keeping the good rows', async () => {
    const { rows, rejects } = await parseAll(gpci, UGLY);
    expect(rows).toHaveLength(8);
    expect(rows.find((r) => r.locality === '1011200')).toMatchObject({ pw_gpci: 1, pe_gpci: 0.869, mp_gpci: 0.575, year: 2025 });
    expect(rejects.map((r) => r.issues.map((i) => [i.loc, i.type, i.input]))).toEqual([
      [[['row', 9, 'mac'], 'string_pattern_mismatch', '1O112']],
      [[['row', 10, 'pe_gpci'], 'float_parsing', 'abc']],
    ]);
  });

  it('throws on a file without the GPCI header', async () => {
    await expect(parseAll(gpci, await writeTempFile('GPCI2026.csv', 'MAC,State,Locality\r\n10112,AL,00\r\n'))).rejects.toThrow(/no header row found/);
  });

  it('reads the fixed-width twin (GPCI2025.txt) as the CSV: leading zeros kept, trailing zeros read, footnotes skipped', async () => {
    // The first lines of CMS's GPCI2025.txt (RVU25D), CRLF as shipped.
    const text = [
      'ADDENDUM E. FINAL CY 2025 GEOGRAPHIC PRACTICE COST INDICES (GPCIs) BY STATE AND MEDICARE LOCALITY',
      '',
      'Medicare Admi State  Locality                                      Locality Name                                      2025 PW GPCI2025 PE GPCI2025 MP GPCI',
      '10112           AL      00   ALABAMA                                                                                     1.000       0.869       0.575',
      '02102           AK      01   ALASKA*                                                                                     1.500       1.081       0.592',
      '',
      '* Payment locality is serviced by two MACs',
    ].join('\r\n');
    const f = await writeTempFile('GPCI2025.txt', text);
    expect(await detectFile(gpci, f)).toEqual({ detected: true, version: { label: '2025', effective_date: '2025-01-01' } });
    const { rows, rejects } = await parseAll(gpci, f);
    expect(rejects).toEqual([]);
    expect(rows).toEqual([
      { locality: '1011200', mac: '10112', locality_number: '00', state: 'AL', locality_name: 'ALABAMA', pw_gpci: 1, pe_gpci: 0.869, mp_gpci: 0.575, year: 2025 },
      { locality: '0210201', mac: '02102', locality_number: '01', state: 'AK', locality_name: 'ALASKA', pw_gpci: 1.5, pe_gpci: 1.081, mp_gpci: 0.592, year: 2025 },
    ]);
  });
});
