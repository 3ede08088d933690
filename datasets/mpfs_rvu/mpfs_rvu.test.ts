import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectFile, parseAll, REPO_ROOT } from '../../testing/datasets.js';
import { compareLoads } from '../../testing/native.js';
import { nativeCsvCheck } from '../_shared/native_csv.js';
import { toSourceFile } from '../_shared/source.js';
import { mpfsRvu } from './dataset.js';

const SEED = resolve(import.meta.dirname, '../../seeds/mpfs_rvu/PPRRVU2025_Oct.csv');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcm-rvu-native-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
const both = (files: string[]) => compareLoads(mpfsRvu, files, join(dir, `wh${++n}`), 'hcpcs, modifier, cf_variant');

const seedText = () => readFile(SEED, 'latin1');

/** The seed with `edit` applied to its data lines (after the 10 preamble and header lines). */
async function variant(name: string, edit: (rows: string[]) => string[], encoding: BufferEncoding = 'latin1'): Promise<string> {
  const lines = (await seedText()).split('\r\n');
  const out = [...lines.slice(0, 10), ...edit(lines.slice(10).filter((l) => l !== ''))].join('\r\n') + '\r\n';
  const p = join(dir, `v${++n}`, name);
  await import('node:fs/promises').then((fs) => fs.mkdir(join(p, '..'), { recursive: true }));
  await writeFile(p, Buffer.from(out, encoding));
  return p;
}

const setCell = (row: string, k: number, v: string) => {
  const f = row.split(',');
  f[k] = v;
  return f.join(',');
};

describe('mpfs_rvu parser (seed PPRRVU2025_Oct.csv, RVU25D)', () => {
  it('detects the RVU file below its 9-line preamble and labels it 2025D', async () => {
    expect(await detectFile(mpfsRvu, SEED)).toEqual({ detected: true, version: { label: '2025D', effective_date: '2025-10-01' } });
  });

  it('reads every row, the code and modifier as keys and the RVUs as published', async () => {
    const { rows, rejects } = await parseAll(mpfsRvu, SEED);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(59);
    // 99213,,Office o/p est low 20 min,A,,1.30,1.35,,0.57,,0.10,2.75,1.97,0,XXX,...,32.3465
    expect(rows.find((r) => r.hcpcs === '99213' && r.modifier === '')).toMatchObject({ status_code: 'A', work_rvu: 1.3, non_fac_pe_rvu: 1.35, facility_pe_rvu: 0.57, mp_rvu: 0.1, non_facility_total: 2.75, facility_total: 1.97, global_days: 'XXX', conv_factor: 32.3465 });
    expect(rows.filter((r) => r.hcpcs === '71046').map((r) => r.modifier)).toEqual(['', '26', 'TC']);
  });

  it('rejects a mistyped RVU, a short row and a 4-character code by line and field', async () => {
    const { rejects } = await parseAll(mpfsRvu, join(REPO_ROOT, 'test/fixtures/mpfs_rvu/PPRRVU2026_Jul_nonQPP.csv'));
    expect(rejects.map((r) => [r.line, r.issues.map((i) => [i.loc[2] ?? null, i.type])])).toEqual([
      [17, [['work_rvu', 'float_parsing']]],
      [18, [[null, 'row_length']]],
      [19, [['hcpcs', 'string_pattern_mismatch']]],
    ]);
  });
});

describe('mpfs_rvu fixed-width twin (PPRRVU2025_Oct.txt)', () => {
  // Its first HDR line and two rows of RVU25D's PPRRVU2025_Oct.txt (CRLF), and one cut short.
  const TXT = [
    'HDR CPT CODES AND DESCRIPTIONS ONLY ARE COPYRIGHT ',
    '0001F  Heart failure composite                           I   0.00   0.00     0.00    0.00   0.00  0.009XXX.00.00.0099999             32.3465 090 99      0.00   0.00   0.00',
    '99213  Office o/p est low 20 min                         A   1.30   1.35     0.57    0.10   2.75  1.970XXX.00.00.0000000             32.3465 090 99      0.00   0.00   0.00',
    '99214  Office o/p est mod 30 min                         A   1.92',
  ].join('\r\n');

  it('reads each line at the layout\'s columns as the CSV twin reads its fields; a line of another width is a reject naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcm-rvu-txt-'));
    try {
      const f = join(dir, 'PPRRVU2025_Oct.txt');
      await writeFile(f, TXT, 'latin1');
      expect(await detectFile(mpfsRvu, f)).toEqual({ detected: true, version: { label: '2025D', effective_date: '2025-10-01' } });
      const { rows, rejects } = await parseAll(mpfsRvu, f);
      const csv = (await parseAll(mpfsRvu, SEED)).rows.find((r) => r.hcpcs === '99213' && r.modifier === '');
      expect(rows.find((r) => r.hcpcs === '99213')).toEqual(csv);
      expect(rows.find((r) => r.hcpcs === '0001F')).toMatchObject({ status_code: 'I', mult_proc: '9', team_surg: '9', pre_op: 0, phys_supervision: '09', calculation_flag: '0', diag_imaging_family: '99' });
      expect(rejects).toMatchObject([{ line: 4, issues: [{ type: 'row_length', msg: expect.stringMatching(/^a line of 65 characters: the 2025 fixed-width layout has 171/) }] }]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('mpfs_rvu native load (DuckDB read_csv with the row rules in SQL)', () => {
  it('loads the seed natively, row for row and value for value what the row parser loads', async () => {
    const r = await both([SEED]);
    expect(r.tookNative).toBe(true);
    expect(r.native.rows.length).toBeGreaterThan(40);
    expect(r.native.rows).toEqual(r.js.rows);
    expect(r.native.summary.rows).toBe(r.js.summary.rows);
  });

  it('cells with spaces, NBSP or tabs at their edges are cleaned exactly as the parser cleans them', async () => {
    const p = await variant('PPRRVU2025_Oct.csv', (rows) => [
      setCell(rows[0]!, 0, ' 0001F'),
      setCell(rows[1]!, 2, 'Anesth salivary gland\u00a0'),
      setCell(rows[2]!, 5, '\t0.60'),
      ...rows.slice(3),
    ]);
    const r = await both([p]);
    expect(r.native.rows).toEqual(r.js.rows);
    expect(r.native.rows.find((x) => x.hcpcs === '0001F')).toBeTruthy();
    expect(r.native.rows.find((x) => x.hcpcs === '00100')!.description).toBe('Anesth salivary gland');
  });

  it('a quoted description spanning two lines, blank separator rows and a row one field short load as the parser loads them', async () => {
    const p = await variant('PPRRVU2025_Oct.csv', (rows) => [
      setCell(rows[0]!, 2, '"Heart failure, composite\r\nsecond line"'),
      ',,,,,,,,,,,,,,,,,,,,,,,,,,,,,,',
      rows[1]!.split(',').slice(0, -1).join(','),
      '',
      ...rows.slice(2),
    ]);
    const r = await both([p]);
    expect(r.native.rows).toEqual(r.js.rows);
    expect(r.native.summary.rejects).toBe(0);
  });

  it('a bad row hands the file to the row parser: the same reject, line and field, nothing half-loaded', async () => {
    const p = await variant('PPRRVU2025_Oct.csv', (rows) => [rows[0]!, setCell(rows[1]!, 5, '1.2.3'), ...rows.slice(2)]);
    const r = await both([p]);
    expect(r.tookNative).toBe(false);
    expect(r.native.summary.rejects).toBe(1);
    expect(r.native.rejects).toBe(r.js.rejects);
    expect(r.native.rejects).toContain('"line":12');
    expect(r.native.rejects).toContain('work_rvu');
    expect(r.native.rows).toEqual(r.js.rows);
  });

  it('rows the parser rejects for shape (short row, lower-case code, negative RVU, extra field) reject the same way', async () => {
    const p = await variant('PPRRVU2025_Oct.csv', (rows) => [
      rows[0]!.split(',').slice(0, 5).join(','),
      setCell(rows[1]!, 0, '0010a'),
      setCell(rows[2]!, 5, '-1.00'),
      `${rows[3]!},extra`,
      ...rows.slice(4),
    ]);
    const r = await both([p]);
    expect(r.tookNative).toBe(false);
    expect(r.native.rejects).toBe(r.js.rejects);
    expect(r.native.rows).toEqual(r.js.rows);
  });

  it('numbers outside the plain form (1., .5, NA) load as the parser reads them', async () => {
    const p = await variant('PPRRVU2025_Oct.csv', (rows) => [setCell(rows[0]!, 5, '1.'), setCell(rows[1]!, 6, '.5'), setCell(rows[2]!, 7, 'NA'), ...rows.slice(3)]);
    const r = await both([p]);
    expect(r.native.rows).toEqual(r.js.rows);
    expect(r.native.rows.find((x) => x.hcpcs === '0001F')!.work_rvu).toBe(1);
  });

  it('Latin-1 text loads natively; a CP1252-only byte (0x96) goes to the parser; both decode as the parser does', async () => {
    const latin = await variant('PPRRVU2025_Oct.csv', (rows) => [setCell(rows[0]!, 2, 'Caf\u00e9 composite'), ...rows.slice(1)]);
    const a = await both([latin]);
    expect(a.tookNative).toBe(true);
    expect(a.native.rows).toEqual(a.js.rows);
    expect(a.native.rows.find((x) => x.hcpcs === '0001F')!.description).toBe('Caf\u00e9 composite');
    const cp = await variant('PPRRVU2025_Oct.csv', (rows) => [setCell(rows[0]!, 2, 'A\u2013B'), ...rows.slice(1)], 'latin1');
    const buf = await readFile(cp);
    buf[buf.indexOf('A\u0013B', 0, 'latin1') + 1] = 0x96; // the en dash as CP1252 writes it
    await writeFile(cp, buf);
    const b = await both([cp]);
    expect(b.tookNative).toBe(false);
    expect(b.native.rows).toEqual(b.js.rows);
    expect(b.native.rows.find((x) => x.hcpcs === '0001F')!.description).toBe('A\u2013B');
    const utf = await variant('PPRRVU2025_Oct.csv', (rows) => [setCell(rows[0]!, 2, 'A\u2013B \u00e9'), ...rows.slice(1)], 'utf8');
    const c = await both([utf]);
    expect(c.tookNative).toBe(true);
    expect(c.native.rows).toEqual(c.js.rows);
  });
});

describe('nativeCsvCheck', () => {
  const check = async (text: string, skip = 0) => {
    const p = join(dir, `c${++n}.csv`);
    await writeFile(p, text, 'latin1');
    return nativeCsvCheck(await toSourceFile(p), skip, ',');
  };

  it('finds cells that may need cleaning, only past the skipped lines', async () => {
    expect((await check('a,b\r\n1,2\r\n'))!.edgeFree).toBe(true);
    expect((await check('a, b\r\n1,2\r\n', 1))!.edgeFree).toBe(true);
    for (const t of ['1, 2\r\n', '1 ,2\r\n', '1,2 \r\n', ' 1,2\r\n', '"1 ",2\r\n', '1,\t2\r\n', '1,2\u00a0\r\n']) expect((await check(t))!.edgeFree, JSON.stringify(t)).toBe(false);
  });

  it('finds records that may span lines', async () => {
    expect((await check('"a,b",c\r\n"d""e",f\r\n'))!.singleLineRecords).toBe(true);
    expect((await check('"a\r\nb",c\r\n'))!.singleLineRecords).toBe(false);
    expect((await check('a\rb,c\r\n'))!.singleLineRecords).toBe(false);
  });

  it('refuses files holding U+0001 or CP1252-only bytes', async () => {
    expect(await check('a\u0001,b\r\n')).toBeNull();
    expect(await check('a\u0096,b\r\n')).toBeNull();
    expect((await check('caf\u00e9,b\r\n'))!.encoding).toBe('latin-1');
  });
});
