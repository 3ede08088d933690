import { BlockReader, decodeText, readBlockIndex, writeBlockFile, type BlockFormat } from './block.js';

/**
 * A record sidecar (`<version file>.records`): one JSON record per numeric key, sorted by key, in
 * deflated blocks, with an index of each block's first key at the end. A point lookup reads one
 * block (a few kilobytes) and inflates it, where the same answer from DuckDB costs a query per
 * table (about 2 ms each at a million rows through an index). Written once beside its version
 * file, never changed; a version without one is answered from DuckDB.
 *
 * Layout (`block.ts`), format version 1: `RCMREC1 v1\n`, the blocks (each the deflated lines
 * `<key>\t<record>\n`), then the index (per block: first key and byte offset, float64
 * little-endian), the block count (uint32) and the index's offset (float64), and `RCMRECIX`.
 * Version 0 (`RCMREC1\n`, files written before versions) is laid out the same after its shorter
 * header, and is read too.
 */
export const RECORDS_SUFFIX = '.records';

/** The record file format version this build writes (it reads 0 and 1). */
export const RECORD_FORMAT_VERSION = 1;
const TAIL = Buffer.from('RCMRECIX');
const FORMAT: BlockFormat = { kind: 'RCMREC', name: 'record file', version: RECORD_FORMAT_VERSION, oldest: 0, tails: [TAIL] };
/**
 * Records per block: a lookup inflates one block (about 16 KB of JSON at NPPES's record size; 64
 * records per block made a first NPI lookup 20% slower, the index a quarter the size).
 */
const BLOCK = 16;

/** Writes `rows` (key and record text, in ascending key order, a chunk at a time) to `path`, synced. */
export async function writeRecordFile(path: string, rows: AsyncIterable<[number, string][]>): Promise<number> {
  return writeBlockFile(path, FORMAT, TAIL, async (w) => {
    const firstKeys: number[] = [];
    let lines: string[] = [];
    let first = 0;
    let last = -Infinity;
    let count = 0;
    const flush = async () => {
      if (!lines.length) return;
      firstKeys.push(first);
      await w.block(lines.join(''));
      lines = [];
    };
    for await (const chunk of rows) {
      for (const [key, record] of chunk) {
        if (!(key > last)) throw new Error(`record file ${path}: key ${key} after ${last} (keys must ascend)`);
        last = key;
        if (!lines.length) first = key;
        lines.push(`${key}\t${record}\n`);
        count++;
        if (lines.length === BLOCK) await flush();
      }
    }
    await flush();
    return {
      count,
      index: (offsets) => {
        const index = Buffer.alloc(firstKeys.length * 16);
        firstKeys.forEach((k, i) => {
          index.writeDoubleLE(k, i * 16);
          index.writeDoubleLE(offsets[i]!, i * 16 + 8);
        });
        return index;
      },
    };
  });
}

/**
 * A record sidecar opened for lookups: its index in memory, its blocks read on demand through a
 * descriptor kept open (closed when the object is collected). A block is read and inflated
 * synchronously: a few kilobytes from the page cache take microseconds, less than a hop to the
 * thread pool and back.
 */
export class RecordFile {
  private constructor(
    private readonly firstKeys: Float64Array,
    private readonly blocks: BlockReader,
  ) {}

  /**
   * Reads the index of `path`; null when there is no such file or it is not a whole record file.
   * Throws `SidecarVersionError` for a record file of a format version this build does not read.
   */
  static async open(path: string): Promise<RecordFile | null> {
    const found = await readBlockIndex(path, FORMAT);
    if (!found || found.index.length !== found.blocks * 16) return null;
    const n = found.blocks;
    const firstKeys = new Float64Array(n);
    const offsets = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) {
      firstKeys[i] = found.index.readDoubleLE(i * 16);
      offsets[i] = found.index.readDoubleLE(i * 16 + 8);
    }
    offsets[n] = found.indexAt;
    return new RecordFile(firstKeys, new BlockReader(path, offsets, found.deflated));
  }

  /** Every record in key order, a block at a time (what a delta's fold copies). */
  *entries(): Generator<[number, string][]> {
    for (let block = 0; block < this.firstKeys.length; block++) {
      const lines = this.blocks.text(block).split('\n');
      lines.pop();
      yield lines.map((l) => {
        const tab = l.indexOf('\t');
        return [Number(l.slice(0, tab)), l.slice(tab + 1)];
      });
    }
  }

  /** The record of `key`, or null when the file has none; throws when its block cannot be read. */
  get(key: number): string | null {
    // The last block whose first key is <= key.
    let lo = 0;
    let hi = this.firstKeys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.firstKeys[mid]! <= key) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) return null;
    // The key is found in the block's bytes and only its record decoded (a block is about 26 KB of
    // JSON at NPPES's record size, a record 1.6 KB).
    const bytes = this.blocks.bytes(lo - 1);
    const prefix = `${key}\t`;
    const head = bytes.toString('latin1', 0, prefix.length) === prefix;
    const nl = head ? -1 : bytes.indexOf(`\n${prefix}`, 0, 'latin1');
    if (!head && nl < 0) return null;
    const from = nl + 1 + prefix.length;
    return decodeText(bytes, from, bytes.indexOf(10, from));
  }
}
