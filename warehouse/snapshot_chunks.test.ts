import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { icd10cm } from '../datasets/icd10cm/dataset.js';
import { readInChunks, type SnapshotReader } from './snapshot.js';
import { openTestSnapshot, REPO_ROOT } from '../testing/datasets.js';

let snap: Awaited<ReturnType<typeof openTestSnapshot>>;
beforeAll(async () => {
  snap = await openTestSnapshot([{ dataset: icd10cm, files: [join(REPO_ROOT, 'seeds/icd10cm/icd10cm_order_2026.txt')] }]);
});
afterAll(() => snap.close());

const SQL = "SELECT range AS i, range * 2 AS twice, 'x' || range AS s FROM range($1)";

describe('reading a result a chunk at a time', () => {
  it('hands every row in chunks of at most 2,048, values in column order, BIGINTs as numbers', async () => {
    const sizes: number[] = [];
    const rows: unknown[][] = [];
    let names: string[] = [];
    await snap.eachChunk(SQL, [5000], (chunk, columns) => {
      sizes.push(chunk.length);
      rows.push(...chunk);
      names = columns;
    });
    expect(names).toEqual(['i', 'twice', 's']);
    expect(sizes.length).toBeGreaterThan(2);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2048);
    expect(rows.length).toBe(5000);
    expect(rows[4321]).toEqual([4321, 8642, 'x4321']);
  });

  it('falls back to one chunk from `all` for a reader without it, with the same rows', async () => {
    const plain = Object.create(snap) as SnapshotReader;
    plain.eachChunk = undefined;
    const got: unknown[][] = [];
    await readInChunks(plain, SQL, [300], (chunk, columns) => {
      expect(columns).toEqual(['i', 'twice', 's']);
      got.push(...chunk);
    });
    const streamed: unknown[][] = [];
    await readInChunks(snap, SQL, [300], (chunk) => streamed.push(...chunk));
    expect(got).toEqual(streamed);
    expect(got.length).toBe(300);
  });
});
