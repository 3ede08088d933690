import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { writeRanges } from './stage/records.js';
import { RangeFile } from '../lib/sidecar/range.js';

// The ingest's range sidecar writer (DuckDB writes the lines, `lib/sidecar/range.ts` cuts them
// into blocks) against the reader.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcm-range-sql-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('range sidecars written by DuckDB', () => {
  it('escape in SQL what the reader unescapes: tabs, newlines, backslashes, NULL and UTF-8 round-trip through COPY', async () => {
    const inst = await DuckDBInstance.create(':memory:');
    const values = [['a\tb', 'line\nbreak'], ['a\\b', null], ['b', 'Gm\u00fcnd \u{1F600} \\n literal'], ['c', '']];
    const c = await inst.connect();
    await c.run('CREATE TABLE t (k VARCHAR, v VARCHAR, n INTEGER)');
    for (const [i, [k, v]] of values.entries()) await c.run('INSERT INTO t VALUES ($1, $2, $3)', [k!, v ?? null, i]);
    const path = join(dir, 'copied.ranges');
    try {
      const n = await writeRanges(async () => inst.connect(), { name: 'x', columns: ['k', 'v', 'n'], from: 't', order: 'k', blockRows: 2, deflate: true }, path);
      expect(n).toBe(4);
      expect((await RangeFile.open(path))!.rows('', '\u{10FFFF}')).toEqual(values.map(([k, v], i) => [k, v ?? '', String(i)]));
      expect(existsSync(`${path}.lines`)).toBe(false);
    } finally {
      c.closeSync();
      inst.closeSync();
    }
  });
});
