import { closeSync, openSync, readSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
import { deflateRaw as deflateRawCb, inflateRawSync } from 'node:zlib';

const deflateRaw = promisify(deflateRawCb);

/**
 * A version file's record sidecar (`<version file>.records`): one JSON record per numeric key,
 * sorted by key, in deflated blocks, with an index of each block's first key at the end. A point
 * lookup reads one block (a few kilobytes) and inflates it, where the same answer from DuckDB
 * costs a query per table (about 2 ms each at a million rows through an index). Written once with
 * the version file, never changed; a version without one is answered from DuckDB.
 *
 * Layout: `RCMREC1\n`, the blocks (each the deflated lines `<key>\t<record>\n`), then the index
 * (per block: first key and byte offset, float64 little-endian), the block count (uint32) and the
 * index's offset (float64), and `RCMRECIX`.
 */
export const RECORDS_SUFFIX = '.records';

const HEAD = Buffer.from('RCMREC1\n');
const TAIL = Buffer.from('RCMRECIX');
/**
 * Records per block: a lookup inflates one block (about 16 KB of JSON at NPPES's record size; 64
 * records per block made a first NPI lookup 20% slower, the index a quarter the size).
 */
const BLOCK = 16;

/** Closes the descriptor of a record file no snapshot holds any more. */
const descriptors = new FinalizationRegistry<number>((fd) => closeSync(fd));

/** Writes `rows` (key and record text, in ascending key order, a chunk at a time) to `path`, synced. */
export async function writeRecordFile(path: string, rows: AsyncIterable<[number, string][]>): Promise<number> {
  const fh = await open(path, 'w');
  try {
    let at = 0;
    const write = async (b: Buffer) => {
      await fh.write(b, 0, b.length, at);
      at += b.length;
    };
    await write(HEAD);
    const firstKeys: number[] = [];
    const offsets: number[] = [];
    let lines: string[] = [];
    let first = 0;
    let last = -Infinity;
    let count = 0;
    const flush = async () => {
      if (!lines.length) return;
      firstKeys.push(first);
      offsets.push(at);
      await write(await deflateRaw(Buffer.from(lines.join(''), 'utf8'), { level: 1 }));
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
    const index = Buffer.alloc(firstKeys.length * 16 + 12);
    firstKeys.forEach((k, i) => {
      index.writeDoubleLE(k, i * 16);
      index.writeDoubleLE(offsets[i]!, i * 16 + 8);
    });
    index.writeUInt32LE(firstKeys.length, firstKeys.length * 16);
    index.writeDoubleLE(at, firstKeys.length * 16 + 4);
    await write(index);
    await write(TAIL);
    await fh.sync();
    return count;
  } catch (e) {
    await fh.close();
    await rm(path, { force: true });
    throw e;
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/**
 * A record sidecar opened for lookups: its index in memory, its blocks read on demand through a
 * descriptor kept open (closed when the object is collected). A block is read and inflated
 * synchronously: a few kilobytes from the page cache take microseconds, less than a hop to the
 * thread pool and back.
 */
export class RecordFile {
  private constructor(
    private readonly fd: number,
    private readonly firstKeys: Float64Array,
    /** Block i's bytes are offsets[i] .. offsets[i + 1] (the last entry: where the index starts). */
    private readonly offsets: Float64Array,
  ) {
    descriptors.register(this, fd);
  }

  /** Reads the index of `path`; null when there is no such file or it is not a whole record file. */
  static async open(path: string): Promise<RecordFile | null> {
    let fh: FileHandle;
    try {
      fh = await open(path, 'r');
    } catch {
      return null;
    }
    try {
      const { size } = await fh.stat();
      if (size < HEAD.length + 12 + TAIL.length) return null;
      const trailer = Buffer.alloc(12 + TAIL.length);
      await fh.read(trailer, 0, trailer.length, size - trailer.length);
      if (!trailer.subarray(12).equals(TAIL)) return null;
      const n = trailer.readUInt32LE(0);
      const indexAt = trailer.readDoubleLE(4);
      if (indexAt + n * 16 + trailer.length !== size) return null;
      const index = Buffer.alloc(n * 16);
      await fh.read(index, 0, index.length, indexAt);
      const firstKeys = new Float64Array(n);
      const offsets = new Float64Array(n + 1);
      for (let i = 0; i < n; i++) {
        firstKeys[i] = index.readDoubleLE(i * 16);
        offsets[i] = index.readDoubleLE(i * 16 + 8);
      }
      offsets[n] = indexAt;
      return new RecordFile(openSync(path, 'r'), firstKeys, offsets);
    } finally {
      await fh.close();
    }
  }

  /** Every record in key order, a block at a time (what a delta's fold copies). */
  *entries(): Generator<[number, string][]> {
    for (let block = 0; block < this.firstKeys.length; block++) {
      const lines = this.block(block).split('\n');
      lines.pop();
      yield lines.map((l) => {
        const tab = l.indexOf('\t');
        return [Number(l.slice(0, tab)), l.slice(tab + 1)];
      });
    }
  }

  /** Block `i`'s text: its lines `<key>\t<record>\n`. */
  private block(i: number): string {
    const start = this.offsets[i]!;
    const bytes = Buffer.alloc(this.offsets[i + 1]! - start);
    readSync(this.fd, bytes, 0, bytes.length, start);
    return inflateRawSync(bytes).toString('utf8');
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
    const text = this.block(lo - 1);
    const prefix = `${key}\t`;
    const at = text.startsWith(prefix) ? 0 : text.indexOf(`\n${prefix}`) + 1;
    if (at === 0 && !text.startsWith(prefix)) return null;
    const from = at + prefix.length;
    return text.slice(from, text.indexOf('\n', from));
  }
}
