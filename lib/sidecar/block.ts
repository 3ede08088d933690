import { isAscii } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * The layout every block sidecar shares (`record.ts`, `range.ts`): a header line naming the kind,
 * how blocks are kept and the kind's format version (`<kind>1 v<N>\n` deflated, `<kind>0 v<N>\n`
 * stored as they are, each followed by the CRC-32 of its bytes: a damaged stored block would
 * otherwise read as other rows, where a damaged deflated one fails to inflate), the blocks of text
 * lines in key order, an index (the kind's own encoding of each block's first key and offset), the
 * block count (uint32 LE), the index's offset (float64 LE) and a tail naming the kind again.
 * Written once, synced, never changed.
 *
 * A file written before format versions has the header without ` v<N>` (`<kind>1\n`): it is
 * version 0, laid out as version 1 after its shorter header (the index's offsets are
 * absolute), and read as such. A reader refuses a file
 * of a version it does not read (`SidecarVersionError`, naming the file and both versions) before
 * reading anything else of it; a file missing, cut short or of another kind opens as null.
 */

/** How one kind of block sidecar is named and versioned (`range.ts`, `record.ts`). */
export interface BlockFormat {
  /** Six capitals naming the kind at the head of a file (`RCMRNG`). */
  kind: string;
  /** What the kind is called in errors (`range file`). */
  name: string;
  /** The format version this build writes. */
  version: number;
  /** The oldest version this build reads: it reads every one from there up to `version`. */
  oldest: number;
  /** The tails of the kind's index layouts, all one length. */
  tails: Buffer[];
}

/** A sidecar of a format version this build does not read: refused, never read as another. */
export class SidecarVersionError extends Error {
  constructor(
    readonly path: string,
    readonly format: string,
    /** The version the file says it is (its text when that is not a number). */
    readonly found: number | string,
    /** The versions this build reads, oldest first. */
    readonly reads: readonly number[],
  ) {
    super(
      `${path}: ${format} format version ${found}, this build reads ${reads.length > 1 ? `versions ${reads[0]} to ${reads.at(-1)}` : `version ${reads[0]}`}; ` +
        `${typeof found === 'number' && found > reads.at(-1)! ? 'it was written by a newer build: run that build, or re-ingest the dataset with this one' : 're-ingest the dataset to rewrite it'}`,
    );
    this.name = 'SidecarVersionError';
  }
}

/** The versions a format reads, oldest first. */
const readable = (f: { version: number; oldest: number }): number[] => Array.from({ length: f.version - f.oldest + 1 }, (_, i) => f.oldest + i);

/** Refuses `found` unless `format` reads it (`SidecarVersionError`). */
export function checkVersion(path: string, format: { name: string; version: number; oldest: number }, found: number | string): void {
  if (typeof found !== 'number' || found < format.oldest || found > format.version) throw new SidecarVersionError(path, format.name, found, readable(format));
}

/** The header of a sidecar of `kind`, its blocks deflated or stored, at format `version` (0: none written). */
const headOf = (kind: string, deflated: boolean, version: number) => Buffer.from(`${kind}${deflated ? 1 : 0}${version > 0 ? ` v${version}` : ''}\n`);

/** The longest header read: the kind, the flag, ` v` and a version of up to 9 digits, the newline. */
const HEAD_MAX = 6 + 1 + 2 + 9 + 1;

/** A header's kind, flag and version: null when `start` (a file's first bytes) does not begin with a header of `kind`. */
function parseHead(start: Buffer, kind: string): { deflated: boolean; version: number; length: number } | null {
  const nl = start.indexOf(10);
  if (nl < 0) return null;
  const m = /^([A-Z]{6})([01])(?: v(\d{1,9}))?$/.exec(start.toString('latin1', 0, nl));
  if (!m || m[1] !== kind) return null;
  return { deflated: m[2] === '1', version: m[3] === undefined ? 0 : Number(m[3]), length: nl + 1 };
}

/** Closes the descriptor of a sidecar no reader holds any more. */
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

  static async create(path: string, format: BlockFormat, deflate: boolean): Promise<BlockWriter> {
    const w = new BlockWriter(await open(path, 'w'), path, deflate);
    await w.write(headOf(format.kind, deflate, format.version));
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
 * Writes a sidecar of `format` at `path`, at the format's version, ending with `tail` (one of its
 * tails): `fill` appends the blocks and returns the row count and the kind's index of the blocks'
 * offsets. A failure removes the file.
 */
export async function writeBlockFile(
  path: string,
  format: BlockFormat,
  tail: Buffer,
  fill: (w: BlockWriter) => Promise<{ count: number; index: (offsets: number[]) => Buffer }>,
  deflate = true,
): Promise<number> {
  const w = await BlockWriter.create(path, format, deflate);
  try {
    const { count, index } = await fill(w);
    await w.finish(index, tail);
    return count;
  } catch (e) {
    await w.abort();
    throw e;
  }
}

/**
 * A finished sidecar's index bytes, block count, where its blocks end, whether they are deflated,
 * its format version and which of the format's tails it ends with; null when missing, cut short
 * or of another kind. Throws `SidecarVersionError` for a version `format` does not read.
 */
export async function readBlockIndex(
  path: string,
  format: BlockFormat,
): Promise<{ blocks: number; index: Buffer; indexAt: number; deflated: boolean; version: number; tail: number } | null> {
  const tailLength = format.tails[0]!.length;
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch {
    return null;
  }
  try {
    const { size } = await fh.stat();
    const start = Buffer.alloc(Math.min(HEAD_MAX, size));
    await fh.read(start, 0, start.length, 0);
    const head = parseHead(start, format.kind);
    if (!head) return null;
    // The version first: a file of another version may differ in any byte after its header.
    checkVersion(path, format, head.version);
    if (size < head.length + 12 + tailLength) return null;
    const trailer = Buffer.alloc(12 + tailLength);
    await fh.read(trailer, 0, trailer.length, size - trailer.length);
    const tail = format.tails.findIndex((t) => trailer.subarray(12).equals(t));
    if (tail < 0) return null;
    const blocks = trailer.readUInt32LE(0);
    const indexAt = trailer.readDoubleLE(4);
    if (!(indexAt >= head.length && indexAt <= size - trailer.length)) return null;
    const index = Buffer.alloc(size - trailer.length - indexAt);
    await fh.read(index, 0, index.length, indexAt);
    return { blocks, index, indexAt, deflated: head.deflated, version: head.version, tail };
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
