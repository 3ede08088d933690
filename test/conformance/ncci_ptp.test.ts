import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { sampleFile, toSourceFile } from '../../datasets/_shared/source.js';
import { ncciPtpPrac } from '../../datasets/ncci_ptp_prac/dataset.js';
import { ncciPtpHosp } from '../../datasets/ncci_ptp_hosp/dataset.js';
import { locatePtpLayout } from '../../datasets/_ncci_ptp/layout.js';
import { PTP_COLUMNS, type PtpRow } from '../../datasets/_ncci_ptp/row.js';
import { medicaidPtpPrac } from '../../datasets/medicaid_ptp_prac/dataset.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

const present = requireShared('ncci-ptp/ccipra-v322r0-f1.excerpt.txt');
const file = join(sharedDataDir(), 'ncci-ptp', 'ccipra-v322r0-f1.excerpt.txt');

async function parseExcerpt() {
  const rows: (PtpRow & { line: number })[] = [];
  const rejects: unknown[] = [];
  for await (const it of ncciPtpPrac.parse(await toSourceFile(file), { onBytes: () => {} })) {
    if (it.row) rows.push({ ...it.row, line: it.line });
    else rejects.push(it);
  }
  return { rows, rejects };
}

describe.skipIf(!present)('ncci_ptp_prac on the real CMS ccipra-v322r0-f1 excerpt (154 rows)', () => {
  it('is detected as practitioner PTP v32.2 = 2026 Q3, header found below 2 title lines', async () => {
    const s = await sampleFile(await toSourceFile(file));
    expect(ncciPtpPrac.detect(s)).toBe(true);
    expect(ncciPtpHosp.detect(s)).toBe(false);
    expect(medicaidPtpPrac.detect(s)).toBe(false);
    expect(ncciPtpPrac.version([s])).toEqual({ label: '32.2', effective_date: '2026-07-01' });
    expect(locatePtpLayout(s.lines, s.name, 'medicare')).toMatchObject({ headerLine: 3, skip: 6, prior1996: 2, effective: 3, deletion: 4, modifier: 5, rationale: 6 });
  });

  it('reads all 154 rows with no rejects, deleted edits kept', async () => {
    const { rows, rejects } = await parseExcerpt();
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(154);
    const by = (c1: string, c2: string) => rows.find((r) => r.column1 === c1 && r.column2 === c2);
    expect(rows[0]).toEqual({
      line: 7,
      column1: '0001A',
      column2: '0591T',
      in_existence_prior_1996: false,
      effective_date: '2022-01-01',
      deletion_date: '2023-12-31',
      modifier_indicator: '1',
      rationale: 'CPT Manual or CMS manual coding instruction',
    });
    expect(by('0001M', '36591')).toMatchObject({ line: 69, effective_date: '2015-10-01', deletion_date: '2015-10-01', modifier_indicator: '9' });
    expect(by('0001T', '0002T')).toMatchObject({ line: 81, effective_date: '2003-01-01', deletion_date: '2004-03-31', rationale: 'Mutually exclusive procedures' });
    expect(by('0001U', '0029U')).toMatchObject({ line: 89, effective_date: '2018-07-01', deletion_date: '2026-06-30', modifier_indicator: '1' });
    expect(by('0001U', '0030U')).toMatchObject({ line: 90, deletion_date: null, modifier_indicator: '1', rationale: 'Misuse of Column Two code with Column One code' });
    expect(rows.filter((r) => r.deletion_date === null)).toHaveLength(66);
    expect(rows.filter((r) => r.modifier_indicator === '9')).toHaveLength(6);
    const per = (c: string) => rows.filter((r) => r.column1 === c).length;
    expect([per('0001A'), per('0001M'), per('0001T'), per('0001U')]).toEqual([62, 12, 7, 73]);
    const rationale = new Map<string, number>();
    for (const r of rows) rationale.set(r.rationale, (rationale.get(r.rationale) ?? 0) + 1);
    expect(Object.fromEntries(rationale)).toEqual({
      'CPT Manual or CMS manual coding instruction': 66,
      'Misuse of Column Two code with Column One code': 78,
      'Mutually exclusive procedures': 7,
      'Standards of medical/surgical practice': 3,
    });
    // Every deletion date is a quarter's last day or (indicator 9) equal to the effective date.
    for (const r of rows.filter((x) => x.deletion_date)) {
      expect(r.modifier_indicator === '9' ? r.deletion_date === r.effective_date : /-(03-31|06-30|09-30|12-31)$/.test(r.deletion_date!)).toBe(true);
    }
  });

  it('loads the same rows through DuckDB read_csv (loadNative)', async () => {
    const { rows } = await parseExcerpt();
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    try {
      await conn.run(`CREATE TABLE t (${[...PTP_COLUMNS, { name: 'version', type: 'VARCHAR' }].map((c) => `"${c.name}" ${c.type}`).join(', ')})`);
      const src = await toSourceFile(file);
      const res = await ncciPtpPrac.loadNative!([src], [await sampleFile(src)], async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS(), 't', '32.2');
      expect(res).toEqual({ rows: 154, rejects: [] });
      const loaded = (await conn.runAndReadAll('SELECT * EXCLUDE (version) FROM t')).getRowObjectsJS();
      expect(loaded).toEqual(rows.map(({ line: _line, ...r }) => r));
    } finally {
      conn.closeSync();
      inst.closeSync();
    }
  });

  it('refuses the excerpt alone as a release: parts f2..f4 are missing', async () => {
    const src = await toSourceFile(file);
    expect(() => ncciPtpPrac.checkFiles!([src], [])).toThrow(/missing part f2, f3, f4/);
  });
});
