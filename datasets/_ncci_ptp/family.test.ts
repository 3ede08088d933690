import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestError } from '../_shared/issue.js';
import { sampleFile, toSourceFile, type SourceFile } from '../_shared/source.js';
import type { Dataset, ParsedItem } from '../types.js';
import { ncciPtpPrac } from '../ncci_ptp_prac/dataset.js';
import { ncciPtpHosp } from '../ncci_ptp_hosp/dataset.js';
import { medicaidPtpPrac } from '../medicaid_ptp_prac/dataset.js';
import { medicaidPtpHosp } from '../medicaid_ptp_hosp/dataset.js';
import { locatePtpLayout } from './layout.js';
import { nextQuarterStart } from '../_shared/dates.js';
import { ncciVersionQuarter, parseMedicarePtpName } from './names.js';
import type { PtpRow } from './row.js';
import { PTP_HEAD, ptpTableSql } from '../../testing/ptp.js';

const SEEDS = resolve(__dirname, '../../seeds');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptp-unit-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeLatin1(name: string, lines: string[]): Promise<SourceFile> {
  const p = join(dir, name);
  await writeFile(p, Buffer.from(`${lines.join('\r\n')}\r\n`, 'latin1'));
  return toSourceFile(p);
}

async function collect<R>(ds: Dataset<any>, f: SourceFile): Promise<ParsedItem<R>[]> {
  const out: ParsedItem<R>[] = [];
  for await (const it of ds.parse(f, { onBytes: () => {} })) out.push(it as ParsedItem<R>);
  return out;
}

/** Runs loadNative into an in-memory DuckDB table, as the pipeline does, and returns its rows. */
async function loadNative(ds: Dataset<any>, files: SourceFile[], version: string) {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  try {
    await conn.run(ptpTableSql(`"${ds.id}"`));
    const samples = await Promise.all(files.map((f) => sampleFile(f)));
    const res = await ds.loadNative!(files, samples, async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS(), `"${ds.id}"`, version);
    const rows = (await conn.runAndReadAll(`SELECT * EXCLUDE (version) FROM "${ds.id}"`)).getRowObjectsJS() as unknown as PtpRow[];
    const versions = (await conn.runAndReadAll(`SELECT DISTINCT version FROM "${ds.id}"`)).getRowObjectsJS();
    return { res, rows, versions };
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

describe('NCCI version numbers', () => {
  it('maps 32.2 to 2026 Q3 (SOURCE.md: ccipra-v322r0 is the 2026q3 practitioner file)', () => {
    expect(ncciVersionQuarter(32, 2)).toEqual({ year: 2026, quarter: 3 });
    expect(ncciVersionQuarter(32, 0)).toEqual({ year: 2026, quarter: 1 });
    expect(ncciVersionQuarter(26, 0)).toEqual({ year: 2020, quarter: 1 });
    expect(ncciVersionQuarter(32, 4)).toBeUndefined();
  });

  it('reads version, revision and part from CMS file names', () => {
    expect(parseMedicarePtpName('ccipra-v322r0-f1.txt')).toEqual({ family: 'pra', major: 32, minor: 2, revision: 0, part: 1 });
    expect(parseMedicarePtpName('CCIOPH-V321R1-F4.TXT')).toEqual({ family: 'oph', major: 32, minor: 1, revision: 1, part: 4 });
    expect(parseMedicarePtpName('ccipra-v322r0-f1.excerpt.txt')?.part).toBe(1);
    expect(parseMedicarePtpName('MCR_MUE_PractitionerServices.csv')).toBeUndefined();
  });

  it('gives the label and quarter-start effective date from the sample names', async () => {
    const f = await toSourceFile(join(SEEDS, 'ncci_ptp_prac/32.2/ccipra-v322r0-f1.txt'));
    expect(ncciPtpPrac.version([await sampleFile(f)])).toEqual({ label: '32.2', effective_date: '2026-07-01' });
    const r1 = await writeLatin1('ccipra-v322r1-f1.txt', [...PTP_HEAD, '0001A\t0591T\t\t20220101\t*\t1\tx']);
    expect(ncciPtpPrac.version([await sampleFile(r1)])?.label).toBe('32.2r1');
  });

  it('reads the Medicaid quarter from the file name or title', async () => {
    const f = await toSourceFile(join(SEEDS, 'medicaid_ptp_prac/medicaid-ncci-q3-2026-ptp-edits-practitioner-services.txt'));
    expect(medicaidPtpPrac.version([await sampleFile(f)])).toEqual({ label: '2026Q3', effective_date: '2026-07-01' });
    expect(nextQuarterStart('2026-10-01')).toBe('2027-01-01');
  });
});

describe('detection', () => {
  it('tells practitioner, hospital and Medicaid PTP files apart by name and content', async () => {
    const prac = await sampleFile(await toSourceFile(join(SEEDS, 'ncci_ptp_prac/32.2/ccipra-v322r0-f2.txt')));
    const hosp = await sampleFile(await toSourceFile(join(SEEDS, 'ncci_ptp_hosp/32.2/ccioph-v322r0-f2.txt')));
    const mprac = await sampleFile(await toSourceFile(join(SEEDS, 'medicaid_ptp_prac/medicaid-ncci-q3-2026-ptp-edits-practitioner-services.txt')));
    const mhosp = await sampleFile(await toSourceFile(join(SEEDS, 'medicaid_ptp_hosp/medicaid-ncci-q3-2026-ptp-edits-outpatient-hospital-services.txt')));
    const all = [ncciPtpPrac, ncciPtpHosp, medicaidPtpPrac, medicaidPtpHosp];
    expect(all.filter((d) => d.detect(prac)).map((d) => d.id)).toEqual(['ncci_ptp_prac']);
    expect(all.filter((d) => d.detect(hosp)).map((d) => d.id)).toEqual(['ncci_ptp_hosp']);
    expect(all.filter((d) => d.detect(mprac)).map((d) => d.id)).toEqual(['medicaid_ptp_prac']);
    expect(all.filter((d) => d.detect(mhosp)).map((d) => d.id)).toEqual(['medicaid_ptp_hosp']);
  });
});

describe('parse (JS path)', () => {
  it('reads active, deleted and never-applied edits with ISO dates', async () => {
    const f = await toSourceFile(join(SEEDS, 'ncci_ptp_prac/32.2/ccipra-v322r0-f1.txt'));
    const items = await collect<PtpRow>(ncciPtpPrac, f);
    expect(items.every((i) => i.row)).toBe(true);
    expect(items[0]).toEqual({
      line: 7,
      row: {
        column1: '0001A',
        column2: '0591T',
        in_existence_prior_1996: false,
        effective_date: '2022-01-01',
        deletion_date: '2023-12-31',
        modifier_indicator: '1',
        rationale: 'CPT Manual or CMS manual coding instruction',
      },
    });
    const active = items.find((i) => i.row?.column2 === '0030U')!.row!;
    expect(active.deletion_date).toBeNull();
    expect(items.find((i) => i.row?.column2 === '90473')!.row!.modifier_indicator).toBe('9');
  });

  it('rejects bad rows with every issue and keeps going', async () => {
    const f = await writeLatin1('ccipra-v322r0-f1.txt', [
      ...PTP_HEAD,
      '0001A\t0591T\t\t20220101\t20231231\t1\tok',
      '1234\t0591t\tX\t20260230\t\t7\tbad',
      '',
      '99214\t99213\t\t20230101\t*\t0\tCaf\u00e9 au lait',
    ]);
    const items = await collect<PtpRow>(ncciPtpPrac, f);
    expect(items.map((i) => i.line)).toEqual([7, 8, 10]);
    const bad = items[1]!;
    expect(bad.issues?.map((i) => i.loc[2])).toEqual(['column1', 'column2', 'in_existence_prior_1996', 'effective_date', 'deletion_date', 'modifier_indicator']);
    expect(bad.issues?.every((i) => i.loc[0] === 'row' && i.loc[1] === 8)).toBe(true);
    expect(items[2]!.row?.rationale).toBe('Café au lait');
  });

  it('fails the file when the wrapped header is broken', async () => {
    const broken = await writeLatin1('ccipra-v322r0-f2.txt', [PTP_HEAD[0]!, PTP_HEAD[1]!, 'Column 1\tColumn 2\t*=in existence\tEffective\tDate', '0001A\t0591T\t\t20220101\t*']);
    await expect(collect(ncciPtpPrac, broken)).rejects.toThrow(/broken PTP header: no deletion, modifier, rationale column/);
    const none = await writeLatin1('ccipra-v322r0-f3.txt', ['just text', 'more text']);
    await expect(collect(ncciPtpPrac, none)).rejects.toThrow(IngestError);
  });

  it('reads the Medicaid variant without effective/deletion columns', async () => {
    const f = await toSourceFile(join(SEEDS, 'medicaid_ptp_hosp/medicaid-ncci-q3-2026-ptp-edits-outpatient-hospital-services.txt'));
    const items = await collect<PtpRow>(medicaidPtpHosp, f);
    expect(items.length).toBeGreaterThan(5);
    expect(items.every((i) => i.row && i.row.effective_date === null && i.row.deletion_date === null)).toBe(true);
  });

  it('finds the header by content, wherever it starts', () => {
    const layout = locatePtpLayout(['title', 'more title', 'again', ...PTP_HEAD.slice(2), '0001A\t0591T\t\t20220101\t*\t1\tx'], 'x.txt', 'medicare');
    expect(layout).toMatchObject({ skip: 7, headerLine: 4, prior1996: 2, effective: 3, deletion: 4, modifier: 5, rationale: 6 });
  });
});

describe('checkFiles', () => {
  async function set(names: string[]) {
    const files = await Promise.all(names.map((n) => writeLatin1(n, [...PTP_HEAD, '0001A\t0591T\t\t20220101\t*\t1\tx'])));
    const samples = await Promise.all(files.map((f) => sampleFile(f)));
    return () => ncciPtpPrac.checkFiles!(files, samples);
  }

  it('accepts all four parts of one release', async () => {
    expect(await set(['ccipra-v322r0-f1.txt', 'ccipra-v322r0-f2.txt', 'ccipra-v322r0-f3.txt', 'ccipra-v322r0-f4.txt'])).not.toThrow();
  });

  it('rejects a set with a missing part', async () => {
    expect(await set(['ccipra-v322r0-f1.txt', 'ccipra-v322r0-f2.txt', 'ccipra-v322r0-f4.txt'])).toThrow(/missing part f3/);
  });

  it('rejects parts of different versions', async () => {
    expect(await set(['ccipra-v322r0-f1.txt', 'ccipra-v322r0-f2.txt', 'ccipra-v321r0-f3.txt', 'ccipra-v322r0-f4.txt'])).toThrow(/different versions in one set: 32\.1, 32\.2/);
  });

  it('rejects hospital parts given to the practitioner dataset', async () => {
    expect(await set(['ccioph-v322r0-f1.txt'])).toThrow(/ccioph file/);
  });
});

describe('checkFiles (Medicaid)', () => {
  const MHEAD = ['Medicaid NCCI PTP Edits - Practitioner Services\t\t\t\t\t\t', ...PTP_HEAD.slice(2)];
  async function mset(names: string[]) {
    const files = await Promise.all(names.map((n) => writeLatin1(n, [...MHEAD, '0001A\t0591T\t\t20220101\t*\t1\tx'])));
    const samples = await Promise.all(files.map((f) => sampleFile(f)));
    return () => medicaidPtpPrac.checkFiles!(files, samples);
  }

  it('accepts one file, or contiguous parts of one quarter', async () => {
    expect(await mset(['medicaid-ncci-q3-2026-ptp-edits-practitioner-services.txt'])).not.toThrow();
    expect(await mset(['medicaid-ncci-q3-2026-ptp-practitioner-f1.txt', 'medicaid-ncci-q3-2026-ptp-practitioner-f2.txt'])).not.toThrow();
  });

  it('rejects files of two quarters and a gap in the parts', async () => {
    expect(await mset(['medicaid-ncci-q3-2026-ptp-practitioner-f1.txt', 'medicaid-ncci-q2-2026-ptp-practitioner-f2.txt'])).toThrow(/different quarters in one set: 2026Q2, 2026Q3/);
    expect(await mset(['medicaid-ncci-q3-2026-ptp-practitioner-f1.txt', 'medicaid-ncci-q3-2026-ptp-practitioner-f3.txt'])).toThrow(/missing part f2/);
  });
});

describe('loadNative (DuckDB read_csv)', () => {
  it('loads the same rows the JS parser reads, in file part order', async () => {
    const files = await Promise.all(
      [4, 2, 3, 1].map((p) => toSourceFile(join(SEEDS, `ncci_ptp_prac/32.2/ccipra-v322r0-f${p}.txt`))),
    );
    const { res, rows, versions } = await loadNative(ncciPtpPrac, files, '32.2');
    const js: PtpRow[] = [];
    for (const p of [1, 2, 3, 4]) {
      for (const it of await collect<PtpRow>(ncciPtpPrac, await toSourceFile(join(SEEDS, `ncci_ptp_prac/32.2/ccipra-v322r0-f${p}.txt`)))) js.push(it.row!);
    }
    expect(res).toEqual({ rows: js.length, rejects: [] });
    expect(rows).toEqual(js);
    expect(versions).toEqual([{ version: '32.2' }]);
  });

  it('reports rejected lines with their issues and decodes CP1252 text', async () => {
    const f = await writeLatin1('ccipra-v329r0-f1.txt', [
      ...PTP_HEAD,
      '0001A\t0591T\t\t20220101\t20231231\t1\tok',
      '0001A\tBAD\t\t20220101\t*\t1\tbad code',
      '0001A\t0592T\t\t20220101\t*\t5\tbad modifier',
      '0001A\t0593T\t\t20220101\t*\t0\tCaf\u00e9',
      '0001A\t0594T\t\t20220101\t*\t1\tx\textra field',
      'SHORT',
      '\t\t\t\t\t\t',
      '',
      '0001A\t0595T\t\t20260230\t*\t1\tno such day',
      '0001A\t0596T\t\t20220101\t20231231\t9\tlast',
    ]);
    const { res, rows } = await loadNative(ncciPtpPrac, [f], '32.9');
    expect(res!.rows).toBe(3);
    expect(res!.rejects.map((r) => [r.line, r.issues.map((i) => i.loc[2])])).toEqual([
      [8, ['column2']],
      [9, ['modifier_indicator']],
      [11, ['row']],
      [12, ['column2', 'effective_date', 'deletion_date', 'modifier_indicator']],
      [15, ['effective_date']],
    ]);
    expect(res!.rejects[0]!.issues[0]!.ctx).toEqual({ file: 'ccipra-v329r0-f1.txt' });
    expect(rows.map((r) => r.rationale)).toEqual(['ok', 'Café', 'last']);
  });

  it('hands a part with CP1252 dashes and quotes (0x80-0x9F) to the parser, which decodes them', async () => {
    // writeLatin1 keeps the low byte: 0x96, 0x93 and 0x94 are CP1252's en dash and curly quotes.
    const f = await writeLatin1('ccipra-v328r0-f1.txt', [...PTP_HEAD, '0001A\t0591T\t\t20220101\t*\t1\tA\u0096B \u0093q\u0094 caf\u00e9']);
    expect((await readFile(f.path)).includes(0x96)).toBe(true);
    const { res, rows } = await loadNative(ncciPtpPrac, [f], '32.8');
    expect(res).toBeNull();
    expect(rows).toEqual([]);
    const js = await collect<PtpRow>(ncciPtpPrac, f);
    expect(js.map((i) => i.row?.rationale)).toEqual(['A\u2013B \u201cq\u201d caf\u00e9']);
  });

  it('reads a part as UTF-8 when its non-ASCII text comes after the first 64 KiB (no Latin-1 mojibake)', async () => {
    const filler = Array.from({ length: 1500 }, (_, i) => `0001A\t${String(10000 + i)}\t\t20220101\t*\t1\tStandards of medical/surgical practice`);
    const p = join(dir, 'ccipra-v327r0-f1.txt');
    await writeFile(p, Buffer.from(`${[...PTP_HEAD, ...filler, '0001B\t0591T\t\t20220101\t*\t1\tCaf\u00e9 \u2013 dash'].join('\r\n')}\r\n`, 'utf8'));
    const f = await toSourceFile(p);
    expect(f.size).toBeGreaterThan(65536);
    const { res, rows } = await loadNative(ncciPtpPrac, [f], '32.7');
    expect(res!.rows).toBe(1501);
    expect(rows.find((r) => r.column1 === '0001B')!.rationale).toBe('Caf\u00e9 \u2013 dash');
  });

  it('loads the Medicaid no-dates layout with null dates', async () => {
    const f = await toSourceFile(join(SEEDS, 'medicaid_ptp_hosp/medicaid-ncci-q3-2026-ptp-edits-outpatient-hospital-services.txt'));
    const { res, rows } = await loadNative(medicaidPtpHosp, [f], '2026Q3');
    expect(res!.rejects).toEqual([]);
    expect(rows.length).toBe(res!.rows);
    expect(rows.every((r) => r.effective_date === null && r.deletion_date === null)).toBe(true);
  });
});
