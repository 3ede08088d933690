import { isAscii } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * The layout every sidecar of a version file shares (`record_file.ts`, `range_file.ts`): a header
 * naming the kind and how blocks are kept (`<kind>1\n` deflated, `<kind>0\n` stored as they are,
 * each followed by the CRC-32 of its bytes: a damaged stored block would otherwise read as other
 * rows, where a damaged deflated one fails to inflate), the blocks of text lines in key order, an
 * index (the kind's own encoding of each block's first key and offset), the block count (uint32
 * LE), the index's offset (float64 LE) and a tail naming the kind again. Written once with the
 * version file, synced, never changed; a reader that finds a file missing, cut short or of another
 * kind answers from DuckDB.
 */

/** Closes the descriptor of a sidecar no snapshot holds any more. */
const descriptors = new FinalizationRegistry<number>((fd) => closeSync(fd));

/** Streams blocks to a new sidecar (`writeBlockFile`). */
export class BlockWriter {
  private at = 0;
  /** Blocks not yet written, and their bytes. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Each block's byte offset, in order. */
  private readonly offsets: number[] = [];

  private constructor(
    private readonly fh: FileHandle,
    readonly path: string,
    private readonly deflate: boolean,
  ) {}

  static async create(path: string, kind: string, deflate: boolean): Promise<BlockWriter> {
    const w = new BlockWriter(await open(path, 'w'), path, deflate);
    await w.write(headOf(kind, deflate));
    return w;
  }

  private async write(b: Buffer): Promise<void> {
    await this.fh.write(b, 0, b.length, this.at);
    this.at += b.length;
  }

  /**
   * Deflates (or checksums) and appends one block of lines, here, gathered and written a megabyte
   * at a time: a hop to the thread pool per block (twice, deflate and write) cost more than the work
   * for blocks of a few kilobytes (12 s against 3 s for 1.5 M rows in blocks of 16).
   */
  async block(data: string | Buffer): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    // Stored blocks are copied: the caller's buffer may be reused before it is written.
    let b: Buffer;
    if (this.deflate) b = deflateRawSync(bytes, { level: 1 });
    else {
      b = Buffer.allocUnsafe(bytes.length + 4);
      bytes.copy(b);
      b.writeUInt32LE(crc32(bytes), bytes.length);
    }
    this.offsets.push(this.at + this.pendingBytes);
    this.pending.push(b);
    this.pendingBytes += b.length;
    if (this.pendingBytes >= 1 << 20) await this.drain();
  }

  private async drain(): Promise<void> {
    const { pending, pendingBytes } = this;
    this.pending = [];
    this.pendingBytes = 0;
    const { bytesWritten } = await this.fh.writev(pending, this.at);
    // A short write (allowed, rare for files) is finished from where it stopped.
    if (bytesWritten < pendingBytes) {
      const rest = Buffer.concat(pending).subarray(bytesWritten);
      await this.fh.write(rest, 0, rest.length, this.at + bytesWritten);
    }
    this.at += pendingBytes;
  }

  /** Writes the index (`indexOf` the blocks' offsets: the kind's encoding), the trailer and `tail`, then syncs and closes. */
  async finish(indexOf: (offsets: number[]) => Buffer, tail: Buffer): Promise<void> {
    await this.drain();
    const index = indexOf(this.offsets);
    const trailer = Buffer.alloc(12);
    trailer.writeUInt32LE(this.offsets.length, 0);
    trailer.writeDoubleLE(this.at, 4);
    await this.write(index);
    await this.write(trailer);
    await this.write(tail);
    await this.fh.sync();
    await this.fh.close();
  }

  /** Closes and removes a file that was not finished. */
  async abort(): Promise<void> {
    await this.fh.close().catch(() => undefined);
    await rm(this.path, { force: true });
  }
}

/**
 * Writes a sidecar at `path`: `fill` appends the blocks and returns the row count and the kind's
 * index of the blocks' offsets. A failure removes the file.
 */
export async function writeBlockFile(
  path: string,
  kind: string,
  tail: Buffer,
  fill: (w: BlockWriter) => Promise<{ count: number; index: (offsets: number[]) => Buffer }>,
  deflate = true,
): Promise<number> {
  const w = await BlockWriter.create(path, kind, deflate);
  try {
    const { count, index } = await fill(w);
    await w.finish(index, tail);
    return count;
  } catch (e) {
    await w.abort();
    throw e;
  }
}

/** The header of a sidecar of `kind` (six letters), its blocks deflated or stored. */
const headOf = (kind: string, deflated: boolean) => Buffer.from(`${kind}${deflated ? 1 : 0}\n`);

/**
 * A finished sidecar's index bytes, block count, where its blocks end, whether they are deflated
 * and which of `tails` (the kind's index layouts, all one length) it ends with; null when missing,
 * cut short or of another kind.
 */
export async function readBlockIndex(path: string, kind: string, tails: Buffer[]): Promise<{ blocks: number; index: Buffer; indexAt: number; deflated: boolean; tail: number } | null> {
  const tailLength = tails[0]!.length;
  const head = headOf(kind, true);
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch {
    return null;
  }
  try {
    const { size } = await fh.stat();
    if (size < head.length + 12 + tailLength) return null;
    const start = Buffer.alloc(head.length);
    await fh.read(start, 0, start.length, 0);
    const trailer = Buffer.alloc(12 + tailLength);
    await fh.read(trailer, 0, trailer.length, size - trailer.length);
    const deflated = start.equals(head);
    const tail = tails.findIndex((t) => trailer.subarray(12).equals(t));
    if ((!deflated && !start.equals(headOf(kind, false))) || tail < 0) return null;
    const blocks = trailer.readUInt32LE(0);
    const indexAt = trailer.readDoubleLE(4);
    if (!(indexAt >= head.length && indexAt <= size - trailer.length)) return null;
    const index = Buffer.alloc(size - trailer.length - indexAt);
    await fh.read(index, 0, index.length, indexAt);
    return { blocks, index, indexAt, deflated, tail };
  } finally {
    await fh.close();
  }
}

/**
 * Blocks of a finished sidecar read on demand through a descriptor kept open (closed when the
 * object is collected). A block is read and inflated synchronously: a few kilobytes from the page
 * cache take microseconds, less than a hop to the thread pool and back.
 */
export class BlockReader {
  private readonly fd: number;
  /**
   * zlib's output buffer for an inflate: the largest block inflated so far, rounded up to 4 KB, at
   * least zlib's 16 KB default. A block larger than the buffer is inflated a buffer at a time and
   * joined: an NPPES block of 16 records (about 26 KB) took 91 us so, 29 us in one buffer.
   */
  private chunkSize = 16 * 1024;

  /** `offsets[i] .. offsets[i + 1]` are block i's bytes (the last entry: where the index starts). */
  constructor(
    path: string,
    private readonly offsets: Float64Array,
    private readonly deflated: boolean,
  ) {
    this.fd = openSync(path, 'r');
    descriptors.register(this, this.fd);
  }

  get count(): number {
    return this.offsets.length - 1;
  }

  /** Block `i`'s bytes, inflated; throws when it cannot be read or inflated (a damaged file). */
  bytes(i: number): Buffer {
    const start = this.offsets[i]!;
    const bytes = Buffer.allocUnsafe(this.offsets[i + 1]! - start);
    readSync(this.fd, bytes, 0, bytes.length, start);
    // A stored block costs no inflate (about 17 us a call for zlib's setup alone), only its check.
    if (this.deflated) {
      const out = inflateRawSync(bytes, { chunkSize: this.chunkSize });
      if (out.length > this.chunkSize) this.chunkSize = Math.ceil(out.length / 4096) * 4096;
      return out;
    }
    const body = bytes.subarray(0, bytes.length - 4);
    if (bytes.length < 4 || crc32(body) !== bytes.readUInt32LE(bytes.length - 4)) throw new Error(`block ${i} of a sidecar fails its check (damaged)`);
    return body;
  }

  /** Block `i`'s text (`bytes` decoded). */
  text(i: number): string {
    return decodeText(this.bytes(i));
  }
}

/** UTF-8 bytes as text; ASCII decodes as Latin-1, about three times faster than UTF-8. */
export const decodeText = (bytes: Buffer, from = 0, to = bytes.length): string => {
  const part = from === 0 && to === bytes.length ? bytes : bytes.subarray(from, to);
  return part.toString(isAscii(part) ? 'latin1' : 'utf8');
};
