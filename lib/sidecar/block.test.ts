import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockReader, checkVersion, readBlockIndex, SidecarVersionError, writeBlockFile, type BlockFormat } from './block.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcm-blocks-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A kind of block file for these tests: its index is the blocks' offsets, float64 each. */
const format = (version: number, oldest = 0): BlockFormat => ({ kind: 'RCMTST', name: 'test file', version, oldest, tails: [Buffer.from('RCMTSTIX')] });

async function write(path: string, f: BlockFormat, blocks: string[], deflate = true): Promise<void> {
  await writeBlockFile(
    path,
    f,
    f.tails[0]!,
    async (w) => {
      for (const b of blocks) await w.block(b);
      return { count: blocks.length, index: (offsets) => Buffer.from(new Float64Array(offsets).buffer) };
    },
    deflate,
  );
}

describe('block sidecar layout and format versions', () => {
  it('writes the header line of the kind, the flag and the version, and reads the blocks back', async () => {
    for (const deflate of [true, false]) {
      const path = join(dir, `a${deflate ? 1 : 0}.tst`);
      await write(path, format(3, 1), ['one\n', 'two\ntwo\n', 'Gm\u00fcnd\n'], deflate);
      expect((await readFile(path)).toString('latin1', 0, 11)).toBe(`RCMTST${deflate ? 1 : 0} v3\n`);
      const found = (await readBlockIndex(path, format(3, 1)))!;
      expect({ blocks: found.blocks, deflated: found.deflated, version: found.version }).toEqual({ blocks: 3, deflated: deflate, version: 3 });
      const offsets = new Float64Array([0, 1, 2].map((i) => found.index.readDoubleLE(8 * i)).concat(found.indexAt));
      const r = new BlockReader(path, offsets, found.deflated);
      expect([0, 1, 2].map((i) => r.text(i))).toEqual(['one\n', 'two\ntwo\n', 'Gm\u00fcnd\n']);
    }
  });

  it('reads every version from the oldest it keeps to its own, and refuses the others before reading further', async () => {
    const path = join(dir, 'v2.tst');
    await write(path, format(2), ['x\n']);
    expect((await readBlockIndex(path, format(2)))!.version).toBe(2);
    expect((await readBlockIndex(path, format(3, 2)))!.version).toBe(2);
    await expect(readBlockIndex(path, format(1))).rejects.toThrow(`${path}: test file format version 2, this build reads versions 0 to 1; it was written by a newer build`);
    await expect(readBlockIndex(path, format(4, 3))).rejects.toThrow(`${path}: test file format version 2, this build reads versions 3 to 4; re-ingest the dataset to rewrite it`);
    await expect(readBlockIndex(path, format(5, 5))).rejects.toThrow(/this build reads version 5;/);
    // Another kind, or a header that is no header: not this format (null), never refused.
    expect(await readBlockIndex(path, { ...format(2), kind: 'RCMOTH' })).toBeNull();
    expect(await readBlockIndex(join(dir, 'missing.tst'), format(2))).toBeNull();
  });

  it('names a version that is not a number as it found it', () => {
    const e = (() => {
      try {
        checkVersion('/data/x.parquet', { name: 'column file', version: 1, oldest: 0 }, 'beta');
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(SidecarVersionError);
    expect((e as SidecarVersionError).message).toBe('/data/x.parquet: column file format version beta, this build reads versions 0 to 1; re-ingest the dataset to rewrite it');
  });
});
