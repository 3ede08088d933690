import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SidecarVersionError } from './block.js';
import { RECORD_FORMAT_VERSION, RecordFile, writeRecordFile } from './record.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcm-records-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function* chunks<T>(items: T[], size: number): AsyncGenerator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

describe('record sidecar files', () => {
  it('gives back every record by its key across many blocks, and null for keys it does not hold', async () => {
    // Odd keys only, 1,000 of them (63 blocks of 16), records with tabs, quotes and non-ASCII text escaped as JSON.
    const rows = Array.from({ length: 1000 }, (_, i): [number, string] => [1000000001 + 2 * i, JSON.stringify({ i, name: `Gmünd\t"${i}"`, pad: 'x'.repeat(i % 300) })]);
    const path = join(dir, 'a.records');
    expect(await writeRecordFile(path, chunks(rows, 333))).toBe(1000);
    const file = (await RecordFile.open(path))!;
    for (const [key, record] of rows) expect(file.get(key)).toBe(record);
    for (const key of [1000000000, 1000000002, 1000001000, 1000001998, 1000002001, 9999999999, 0]) expect(file.get(key), String(key)).toBeNull();
  });

  it('gives back records from blocks larger than zlib\'s 16 KB output buffer, small blocks first, keys that are prefixes of others beside them', async () => {
    // Blocks of 16 grow from about 1 KB to about 64 KB (the reader's inflate buffer grows with them); keys 12, 120..127, 1200.. share digits.
    const keys = [12, ...Array.from({ length: 8 }, (_, i) => 120 + i), ...Array.from({ length: 200 }, (_, i) => 1200 + i)];
    const rows = keys.map((k, i): [number, string] => [k, JSON.stringify({ k, text: `${i % 3 ? 'plain' : 'Gmünd ✓'} ${'y'.repeat(i * 20)}` })]);
    const path = join(dir, 'large.records');
    await writeRecordFile(path, chunks(rows, 50));
    const file = (await RecordFile.open(path))!;
    for (const [key, record] of [...rows].reverse()) expect(file.get(key), String(key)).toBe(record);
    for (const [key, record] of rows) expect(file.get(key), String(key)).toBe(record);
    for (const key of [1, 2, 13, 119, 128, 1199, 1400, 20]) expect(file.get(key), String(key)).toBeNull();
  });

  it('holds no block for no rows, and refuses keys out of order (no file is left)', async () => {
    const empty = join(dir, 'empty.records');
    await writeRecordFile(empty, chunks([], 1));
    expect((await RecordFile.open(empty))!.get(5)).toBeNull();
    const bad = join(dir, 'bad.records');
    await expect(writeRecordFile(bad, chunks<[number, string]>([[2, 'a'], [2, 'b']], 1))).rejects.toThrow(/key 2 after 2/);
    expect(existsSync(bad)).toBe(false);
  });

  it('is not opened when missing, cut short or not a record file (the reader answers from DuckDB instead)', async () => {
    const path = join(dir, 'b.records');
    await writeRecordFile(path, chunks<[number, string]>([[1, '{}'], [3, '[]']], 2));
    const bytes = await readFile(path);
    await writeFile(join(dir, 'cut.records'), bytes.subarray(0, bytes.length - 3));
    await writeFile(join(dir, 'other.records'), 'not a record file at all, long enough to have a tail');
    expect(await RecordFile.open(join(dir, 'missing.records'))).toBeNull();
    expect(await RecordFile.open(join(dir, 'cut.records'))).toBeNull();
    expect(await RecordFile.open(join(dir, 'other.records'))).toBeNull();
    expect((await RecordFile.open(path))!.get(3)).toBe('[]');
  });
});

describe('record file format versions', () => {
  it(`writes format version ${RECORD_FORMAT_VERSION} in the header`, async () => {
    const path = join(dir, 'v.records');
    await writeRecordFile(path, chunks<[number, string]>([[1, '{}']], 1));
    expect((await readFile(path)).toString('latin1', 0, 11)).toBe('RCMREC1 v1\n');
  });

  it('reads a file written before format versions (version 0: no version in the header)', async () => {
    // 40 records, keys 10, 13, .. 127 (blocks of 16), each {i, s: i x's}, written by the writer before versions.
    const path = join(import.meta.dirname, 'fixtures', 'v0.records');
    expect((await readFile(path)).toString('latin1', 0, 8)).toBe('RCMREC1\n');
    const file = (await RecordFile.open(path))!;
    for (let i = 0; i < 40; i++) expect(file.get(10 + 3 * i)).toBe(JSON.stringify({ i, s: 'x'.repeat(i) }));
    expect(file.get(11)).toBeNull();
    expect([...file.entries()].flat()).toHaveLength(40);
  });

  it('refuses a record file of a version it does not read, naming the file and both versions', async () => {
    const path = join(dir, 'v.records');
    await writeRecordFile(path, chunks<[number, string]>([[1, '{}']], 1));
    const newer = join(dir, 'v2.records');
    await writeFile(newer, Buffer.concat([Buffer.from('RCMREC1 v2\n'), (await readFile(path)).subarray(11)]));
    const refused = RecordFile.open(newer);
    await expect(refused).rejects.toThrow(SidecarVersionError);
    await expect(refused).rejects.toThrow(`${newer}: record file format version 2, this build reads versions 0 to 1`);
  });
});
