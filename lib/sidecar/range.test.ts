import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SidecarVersionError } from './block.js';
import { compareKeys, RANGE_FORMAT_VERSION, RangeFile, rangeFields, rangeLine, writeRangeFile } from './range.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcm-ranges-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The rows as a range file's lines, handed over in pieces of `size` bytes (cut anywhere, inside a line or a character). */
async function* chunks(rows: string[][], size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(rows.map(rangeLine).join(''), 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('range sidecar files', () => {
  it('orders keys by code point, as DuckDB orders VARCHAR (UTF-8 bytes)', () => {
    const keys = ['a', 'ab', 'b', '\u00e9', '\uffee', '\u{1F600}', '\u{10000}', '', 'Z', '#E119', '\ud7ff'];
    const bytes = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect([...keys].sort(compareKeys)).toEqual(bytes);
    // JavaScript's own order differs for a BMP character above the surrogates.
    expect([...keys].sort()).not.toEqual(bytes);
  });

  it('gives back every row of a key range across many blocks, with a key repeated over block boundaries', async () => {
    // 2,000 rows over 300 keys (some keys hold 40 rows: more than one block of 128), fields with tabs, newlines and backslashes.
    const rows: string[][] = [];
    for (let k = 0; k < 300; k++) {
      const key = `w${String(k).padStart(3, '0')}`;
      const n = k % 50 === 7 ? 300 : 1 + (k % 6);
      for (let i = 0; i < n; i++) rows.push([key, `${i}`, i % 5 === 0 ? `tab\there\nline\\end ${k}` : `plain ${k} Gm\u00fcnd \u{1F600}`, '']);
    }
    const path = join(dir, 'a.ranges');
    expect(await writeRangeFile(path, chunks(rows, 777))).toBe(rows.length);
    const file = (await RangeFile.open(path))!;
    const between = (from: string, to: string) => rows.filter((r) => compareKeys(r[0]!, from) >= 0 && compareKeys(r[0]!, to) < 0);
    for (const [from, to] of [
      ['w007', 'w007\u0000'],
      ['w05', 'w05\u007f'],
      ['w1', 'w1\u007f'],
      ['a', 'w000\u0000'],
      ['w299', 'zzz'],
      ['w0071', 'w008'],
      ['x', 'y'],
      ['', '\u{10FFFF}'],
    ] as const) {
      expect(file.rows(from, to), `${from}..${to}`).toEqual(between(from, to));
    }
    // Every line in key order, and the rows of one key.
    const every: string[][] = [];
    file.everyLine((line) => every.push(rangeFields(line)));
    expect(every).toEqual(rows);
    expect(file.rowsOf('w057')).toEqual(between('w057', 'w057\u0000'));
    expect(file.rowsOf('w0575')).toEqual([]);
    // A range over more blocks than asked: null (the caller asks DuckDB).
    expect(file.rows('w', 'x', 3)).toBeNull();
    expect(file.rows('w007', 'w007\u0000', 3)).toEqual(between('w007', 'w007\u0000'));
    // A key of a few rows is within two blocks wherever it falls (the first row of a block included).
    for (const key of new Set(rows.map((r) => r[0]!))) if (!key.startsWith('w007') && Number(key.slice(1)) % 50 !== 7) expect(file.rows(key, `${key}\u0000`, 2), key).toEqual(between(key, `${key}\u0000`));
  });

  it('finds ranges of keys whose code point order is not JavaScript\'s (a BMP character above the surrogates, an astral one) across block boundaries', async () => {
    // 600 keys of a base character and a number, in UTF-8 byte order: each base's keys span several blocks of 16 rows.
    const bases = ['a', '\u00e9', '\ud7ff', '\u{1F600}', '\uffee', '\u{10000}'];
    const keys = bases.flatMap((c) => Array.from({ length: 100 }, (_, i) => `${c}${String(i).padStart(3, '0')}`)).sort(compareKeys);
    const rows = keys.map((k, i) => [k, String(i)]);
    const path = join(dir, 'astral.ranges');
    await writeRangeFile(path, chunks(rows, 500), 16);
    const file = (await RangeFile.open(path))!;
    const between = (from: string, to: string) => rows.filter((r) => compareKeys(r[0]!, from) >= 0 && compareKeys(r[0]!, to) < 0);
    for (const c of bases) {
      expect(file.rows(c, `${c}\u{10FFFF}`), c).toEqual(between(c, `${c}\u{10FFFF}`));
      expect(file.rows(`${c}05`, `${c}06`), c).toHaveLength(10);
      expect(file.rowsOf(`${c}042`), c).toEqual([[`${c}042`, String(keys.indexOf(`${c}042`))]]);
    }
    expect(file.rows('\uffee', '\u{10FFFF}')).toEqual(between('\uffee', '\u{10FFFF}'));
  });

  it('reads the same from stored blocks, and refuses a stored block whose bytes changed', async () => {
    const rows = Array.from({ length: 500 }, (_, i) => [`k${String(i).padStart(4, '0')}`, `row ${i} Gm\u00fcnd \t tab`, String(i % 7)]);
    const deflated = join(dir, 'deflated.ranges');
    const stored = join(dir, 'stored.ranges');
    await writeRangeFile(deflated, chunks(rows, 999), 16);
    await writeRangeFile(stored, chunks(rows, 999), 16, false);
    const [d, st] = [(await RangeFile.open(deflated))!, (await RangeFile.open(stored))!];
    for (const [from, to] of [['k0100', 'k0100\u0000'], ['k02', 'k03'], ['', 'z']]) expect(st.rows(from!, to!), from).toEqual(d.rows(from!, to!));
    expect((await readFile(stored)).length).toBeGreaterThan((await readFile(deflated)).length);
    // One byte of one row changed in place: that block fails its check, the others still read.
    const bytes = await readFile(stored);
    const at = bytes.indexOf('row 250 ');
    bytes[at + 4] = '9'.charCodeAt(0);
    await writeFile(stored, bytes);
    const damaged = (await RangeFile.open(stored))!;
    expect(() => damaged.rows('k0250', 'k0250\u0000')).toThrow(/fails its check/);
    expect(damaged.rows('k0100', 'k0100\u0000')).toEqual(d.rows('k0100', 'k0100\u0000'));
  });

  it('holds no block for no rows, and refuses keys that descend (no file is left)', async () => {
    const empty = join(dir, 'empty.ranges');
    await writeRangeFile(empty, chunks([], 1));
    expect((await RangeFile.open(empty))!.rows('', 'z')).toEqual([]);
    const bad = join(dir, 'bad.ranges');
    await expect(writeRangeFile(bad, chunks([['b'], ['a']], 1), 1)).rejects.toThrow(/key 'a' after 'b'/);
    await expect(writeRangeFile(bad, chunks([['a'], ['c'], ['b'], ['d']], 100))).rejects.toThrow(/key 'b' after 'c'/);
    await expect(writeRangeFile(bad, (async function* () { yield 'a\tno newline'; })())).rejects.toThrow(/no newline/);
    expect(existsSync(bad)).toBe(false);
  });

  it('orders and finds escaped keys by their values', async () => {
    // Code point order of the values: tab (9) < backslash (92); their escapes would sort the other way.
    const rows = [['k\tb', '1'], ['k\\b', '2'], ['k\\c', '3'], ['l', '4']];
    const path = join(dir, 'escaped.ranges');
    expect(await writeRangeFile(path, chunks(rows, 5), 1)).toBe(4);
    const file = (await RangeFile.open(path))!;
    expect(file.rows('k\\', 'k\\\u007f')).toEqual(rows.slice(1, 3));
    expect(file.rows('k\t', 'k\t\u007f')).toEqual(rows.slice(0, 1));
    expect(file.rows('k', 'l')).toEqual(rows.slice(0, 3));
  });

  it("keeps each block's summary in the index, read back by block, beside the same rows", async () => {
    const rows = Array.from({ length: 300 }, (_, i) => [`k${String(i).padStart(4, '0')}`, `v${i}\twith tab`]);
    // The summary of a block: its row count and its first row's number, two bytes.
    const summary = { bytes: 2, of: (block: string) => Buffer.from([block.split('\n').length - 1, Number(block.slice(1, 5)) % 256]) };
    const path = join(dir, 'summarised.ranges');
    await writeRangeFile(path, chunks(rows, 333), 32, true, summary);
    const file = (await RangeFile.open(path))!;
    expect(file.summaryBytes).toBe(2);
    expect(file.rows('', 'z')).toEqual(rows);
    const { first, end } = file.span('', 'z');
    expect([first, end]).toEqual([0, 10]);
    expect(Array.from({ length: end }, (_, b) => [...file.summaries.subarray(b * 2, b * 2 + 2)])).toEqual(Array.from({ length: 10 }, (_, b) => [b < 9 ? 32 : 12, (b * 32) % 256]));
    // Rows of one block, and which blocks lie wholly in a range.
    const some: string[][] = [];
    file.blockLines(3, 'k0100', 'k0110', (line) => some.push(rangeFields(line)));
    expect(some).toEqual(rows.slice(100, 110));
    expect([2, 3, 4].map((b) => file.within(b, 'k0064', 'k0160'))).toEqual([true, true, false]);
    // A file written without: no summaries, the same rows.
    const plain = join(dir, 'plain.ranges');
    await writeRangeFile(plain, chunks(rows, 333), 32);
    expect((await RangeFile.open(plain))!.summaryBytes).toBe(0);
    expect((await RangeFile.open(plain))!.rows('k01', 'k02')).toEqual(file.rows('k01', 'k02'));
    await expect(writeRangeFile(join(dir, 'wide.ranges'), chunks(rows, 333), 32, true, { bytes: 3, of: summary.of })).rejects.toThrow(/summary of 2 bytes \(3 expected\)/);
  });

  it('is not opened when missing, cut short or another kind of file (the reader asks DuckDB instead)', async () => {
    const path = join(dir, 'b.ranges');
    await writeRangeFile(path, chunks([['a', '1'], ['b', '2']], 2));
    const bytes = await readFile(path);
    await writeFile(join(dir, 'cut.ranges'), bytes.subarray(0, bytes.length - 3));
    await writeFile(join(dir, 'other.ranges'), 'not a range file at all, long enough to have a tail');
    await writeFile(join(dir, 'records.ranges'), Buffer.concat([Buffer.from('RCMREC'), bytes.subarray(6)]));
    for (const name of ['missing', 'cut', 'other', 'records']) expect(await RangeFile.open(join(dir, `${name}.ranges`)), name).toBeNull();
    expect((await RangeFile.open(path))!.rows('b', 'c')).toEqual([['b', '2']]);
  });
});

describe('range file format versions', () => {
  const fixture = (name: string) => join(import.meta.dirname, 'fixtures', name);
  /** The rows the version-0 fixtures hold (written by the writer before versions, blocks of 4). */
  const V0_ROWS = [['a', '1'], ['b', '2'], ['b', '3'], ['b', '4'], ['b', '5'], ['c', 'tab\there'], ['d', 'Gm\u00fcnd'], ['e', ''], ['f', '9'], ['g', '10']];

  it(`writes format version ${RANGE_FORMAT_VERSION} in the header, deflated or stored`, async () => {
    const rows = [['a', '1'], ['b', '2']];
    await writeRangeFile(join(dir, 'v-deflated.ranges'), chunks(rows, 3));
    await writeRangeFile(join(dir, 'v-stored.ranges'), chunks(rows, 3), 128, false);
    expect((await readFile(join(dir, 'v-deflated.ranges'))).toString('latin1', 0, 11)).toBe('RCMRNG1 v1\n');
    expect((await readFile(join(dir, 'v-stored.ranges'))).toString('latin1', 0, 11)).toBe('RCMRNG0 v1\n');
  });

  it('reads files written before format versions (version 0: no version in the header), deflated, and stored with summaries', async () => {
    for (const name of ['v0-deflated.ranges', 'v0-stored.ranges']) {
      expect((await readFile(fixture(name))).toString('latin1', 0, 8), name).toMatch(/^RCMRNG[01]\n$/);
      const file = (await RangeFile.open(fixture(name)))!;
      expect(file.rows('', 'z'), name).toEqual(V0_ROWS);
      expect(file.rowsOf('b'), name).toEqual(V0_ROWS.slice(1, 5));
      expect(file.rows('c', 'e'), name).toEqual(V0_ROWS.slice(5, 7));
    }
    const summarised = (await RangeFile.open(fixture('v0-stored.ranges')))!;
    expect([summarised.summaryBytes, ...summarised.summaries]).toEqual([1, 4, 4, 2]);
  });

  it('refuses a range file of a version it does not read, naming the file and both versions, and reads nothing of it', async () => {
    const path = join(dir, 'v.ranges');
    await writeRangeFile(path, chunks([['a', '1'], ['b', '2']], 3));
    const bytes = await readFile(path);
    for (const v of ['2', '13']) {
      const newer = join(dir, `v${v}.ranges`);
      await writeFile(newer, Buffer.concat([Buffer.from(`RCMRNG1 v${v}\n`), bytes.subarray(11)]));
      const refused = RangeFile.open(newer);
      await expect(refused).rejects.toThrow(SidecarVersionError);
      await expect(refused).rejects.toThrow(`${newer}: range file format version ${v}, this build reads versions 0 to 1; it was written by a newer build`);
    }
    // Refused before its length is looked at: a newer file may be laid out otherwise after its header.
    await writeFile(join(dir, 'short.ranges'), 'RCMRNG1 v7\n');
    await expect(RangeFile.open(join(dir, 'short.ranges'))).rejects.toThrow(/format version 7/);
  });
});
