import { BlockReader, readBlockIndex, writeBlockFile, type BlockFormat } from './block.js';

/**
 * A range sidecar (`<version file>.<name>.ranges`): rows of text fields sorted by their first
 * field (the key, in code point order: DuckDB's order of VARCHAR), in blocks (deflated, or stored
 * as they are where a lookup reads one block for one row: zlib's setup per call costs more than
 * the read), with each block's first key in an index held in memory. A key range is a binary
 * search in the index and a read of the blocks it spans: no scan of a table's row groups, whose
 * zone-map checks alone cost DuckDB about a millisecond a query at 7 M rows and grow with the
 * table. Written once beside its version file, never changed; a version without one is answered
 * from DuckDB.
 *
 * Layout (`block.ts`), format version 1: `RCMRNG1 v1\n` (or `RCMRNG0 v1\n`), the blocks (each
 * the lines of tab-separated fields, a tab, newline or backslash in a field written `\t`, `\n`,
 * `\\`), then the index (per block: byte offset as float64, first key's UTF-8 length as uint32
 * and its bytes), the trailer and `RCMRNGIX`. A file written with block summaries
 * (`writeRangeFile`'s `summary`: a few bytes per block the writer defines, e.g. counts and
 * bounds that spare a reader the block) ends `RCMRNGI2` instead, its index led by the summaries'
 * width (uint32) and each block's entry followed by its summary. Version 0 (`RCMRNG1\n`, files
 * written before versions) is laid out the same after its shorter header, and is read too.
 */
export const RANGES_SUFFIX = '.ranges';

/** Where a version file's range sidecar `name` lives. */
export const rangesPath = (versionFile: string, name: string): string => `${versionFile}.${name}${RANGES_SUFFIX}`;

/** The range file format version this build writes (it reads 0 and 1). */
export const RANGE_FORMAT_VERSION = 1;
const TAIL = Buffer.from('RCMRNGIX');
/** The tail of a file whose index carries a summary per block. */
const TAIL_SUMMARISED = Buffer.from('RCMRNGI2');
const FORMAT: BlockFormat = { kind: 'RCMRNG', name: 'range file', version: RANGE_FORMAT_VERSION, oldest: 0, tails: [TAIL, TAIL_SUMMARISED] };
/** Rows per block (at about 100 bytes a row, a 10-15 KB block; a range of a few hundred rows reads a handful). */
const BLOCK = 128;

/**
 * Code point order of two strings (UTF-8 byte order, DuckDB's order of VARCHAR), where `<` compares
 * UTF-16 code units and puts U+E000..U+FFFF after the surrogates of astral characters.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x += x >= 0xe000 ? -0x800 : 0x2000;
    if (y >= 0xd800) y += y >= 0xe000 ? -0x800 : 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

const escapeField = (s: string) => (/[\t\n\\]/.test(s) ? s.replace(/[\t\n\\]/g, (c) => (c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\\\')) : s);
const unescapeField = (s: string) => (s.includes('\\') ? s.replace(/\\([tn\\])/g, (_, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : '\\')) : s);

/** One row as a range file's line: its fields escaped and tab-separated, newline-terminated (`RANGE_FIELD_SQL` writes the same from SQL). */
export const rangeLine = (fields: string[]): string => `${fields.map(escapeField).join('\t')}\n`;

/** A column as a range file's field, in DuckDB SQL: text, NULL as empty, backslash, tab and newline escaped. */
export const RANGE_FIELD_SQL = (col: string): string => `replace(replace(replace(coalesce(CAST(${col} AS VARCHAR), ''), '\\', '\\\\'), chr(9), '\\t'), chr(10), '\\n')`;

/** The value of the escaped text in `bytes` from `start` to `end`. */
const value = (bytes: Buffer, start: number, end: number) => unescapeField(bytes.toString('utf8', start, end));

/** A block's summary in the index (`writeRangeFile`): `bytes` wide for every block, `of` its lines' text. */
export interface BlockSummary {
  bytes: number;
  of(block: string): Buffer;
}

/**
 * Writes the range file `path` from `lines`: the bytes of newline-terminated rows as `rangeLine`
 * writes them, in ascending key order (a DuckDB `COPY` of `RANGE_FIELD_SQL` columns streams in
 * as it is), `blockRows` rows a block, deflated unless `deflate` is false, each block's `summary`
 * in the index when given; synced. A key below the one before it is refused, and nothing is left.
 * Returns the row count.
 */
export async function writeRangeFile(path: string, lines: AsyncIterable<Buffer | string>, blockRows = BLOCK, deflate = true, summary?: BlockSummary): Promise<number> {
  return writeBlockFile(path, FORMAT, summary ? TAIL_SUMMARISED : TAIL, async (w) => {
    // The index's entries as the blocks go by, each as it is stored but for its offset: the first
    // key's length and UTF-8 bytes, then the block's summary.
    const entries = new GrowingBytes();
    const width = summary?.bytes ?? 0;
    let blocks = 0;
    const block = async (bytes: Buffer) => {
      if (summary) {
        const s = summary.of(bytes.toString('utf8'));
        if (s.length !== width) throw new Error(`range file ${path}: a block summary of ${s.length} bytes (${width} expected)`);
        entries.append(s);
      }
      blocks++;
      await w.block(bytes);
    };
    let carry = Buffer.alloc(0);
    /** Where the carried bytes' counted lines end (the rest: a line not yet complete). */
    let counted = 0;
    let count = 0;
    let rowsIn = 0;
    /** The key of the row before: its bytes (UTF-8 order is code point order), and whether it holds an escape. */
    let prev = Buffer.alloc(64);
    let prevLen = 0;
    let prevEscaped = false;
    for await (const piece of lines) {
      const next = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
      const bytes = carry.length ? Buffer.concat([carry, next]) : next;
      let blockStart = 0;
      let at = counted;
      for (let nl = bytes.indexOf(10, at); nl >= 0; nl = bytes.indexOf(10, at)) {
        // The key's bytes against the previous key's, byte by byte (keys are short).
        let end = at;
        let cmp = 0;
        let escaped = false;
        for (let b = bytes[end]!; b !== 9 && b !== 10; b = bytes[++end]!) {
          if (b === 92) escaped = true;
          if (cmp === 0) cmp = end - at < prevLen ? b - prev[end - at]! : 1;
        }
        if (cmp === 0 && end - at < prevLen) cmp = -1;
        // An escaped key is compared and indexed as its value.
        if (escaped || prevEscaped) cmp = compareKeys(value(bytes, at, end), value(prev, 0, prevLen));
        if (count > 0 && cmp < 0) throw new Error(`range file ${path}: key '${value(bytes, at, end)}' after '${value(prev, 0, prevLen)}' (keys must not descend)`);
        if (end - at > prev.length) prev = Buffer.alloc(2 * (end - at));
        prevLen = bytes.copy(prev, 0, at, end);
        prevEscaped = escaped;
        if (rowsIn === 0) entries.appendKey(escaped ? Buffer.from(value(bytes, at, end), 'utf8') : bytes.subarray(at, end));
        at = nl + 1;
        count++;
        if (++rowsIn === blockRows) {
          await block(bytes.subarray(blockStart, at));
          blockStart = at;
          rowsIn = 0;
        }
      }
      // Copied: a stream may reuse the buffer it handed over.
      carry = Buffer.from(bytes.subarray(blockStart));
      counted = at - blockStart;
    }
    if (counted !== carry.length) throw new Error(`range file ${path}: the last row has no newline`);
    if (carry.length) await block(carry);
    return {
      count,
      index: (offsets) => {
        const e = entries.bytes;
        const index = Buffer.alloc((summary ? 4 : 0) + e.length + 8 * blocks);
        let at = summary ? index.writeUInt32LE(width, 0) : 0;
        for (let i = 0, from = 0; i < blocks; i++) {
          at = index.writeDoubleLE(offsets[i]!, at);
          const size = 4 + e.readUInt32LE(from) + width;
          at += e.copy(index, at, from, from + size);
          from += size;
        }
        return index;
      },
    };
  }, deflate);
}

/**
 * Bytes appended into one buffer that doubles as it fills: a range file's index entries while its
 * blocks are written (a key string and a summary buffer a block held about 250 bytes: some 200 MB
 * of a 16 M-atom words sidecar's ingest).
 */
class GrowingBytes {
  private buf = Buffer.allocUnsafe(1 << 16);
  private length = 0;

  append(piece: Buffer): void {
    if (this.length + piece.length > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.length + piece.length));
      this.buf.copy(next, 0, 0, this.length);
      this.buf = next;
    }
    this.length += piece.copy(this.buf, this.length);
  }

  /** A key's length (uint32 little-endian) and then its bytes. */
  appendKey(key: Buffer): void {
    const n = Buffer.allocUnsafe(4);
    n.writeUInt32LE(key.length);
    this.append(n);
    this.append(key);
  }

  get bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

/** A range sidecar opened for reading: its index (and block summaries) in memory, its blocks read on demand. */
export class RangeFile {
  private constructor(
    /** The index as read: block b's first key is its UTF-8 bytes `keyStart[b]` up to `keyEnd[b]`, decoded only when compared as text. */
    private readonly index: Buffer,
    private readonly keyStart: Uint32Array,
    private readonly keyEnd: Uint32Array,
    private readonly blocks: BlockReader,
    /** Every block's summary, `summaryBytes` apiece, block b's at b * `summaryBytes` (empty for a file written without). */
    readonly summaries: Buffer,
    readonly summaryBytes: number,
  ) {}

  /**
   * Reads the index of `path`; null when there is no such file or it is not a whole range file.
   * Throws `SidecarVersionError` for a range file of a format version this build does not read.
   */
  static async open(path: string): Promise<RangeFile | null> {
    const found = await readBlockIndex(path, FORMAT);
    if (!found) return null;
    const { index, blocks } = found;
    const summarised = found.tail === 1;
    const width = summarised ? (index.length >= 4 ? index.readUInt32LE(0) : -1) : 0;
    if (width < 0) return null;
    // The keys stay bytes in the index (a string each cost 0.4 s and tens of MB at 436,000 blocks).
    const keyStart = new Uint32Array(blocks);
    const keyEnd = new Uint32Array(blocks);
    const offsets = new Float64Array(blocks + 1);
    const summaries = Buffer.alloc(blocks * width);
    let at = summarised ? 4 : 0;
    for (let i = 0; i < blocks; i++) {
      if (at + 12 > index.length) return null;
      offsets[i] = index.readDoubleLE(at);
      const n = index.readUInt32LE(at + 8);
      if (at + 12 + n + width > index.length) return null;
      keyStart[i] = at + 12;
      keyEnd[i] = at + 12 + n;
      at += 12 + n;
      at += index.copy(summaries, i * width, at, at + width);
    }
    if (at !== index.length) return null;
    offsets[blocks] = found.indexAt;
    return new RangeFile(index, keyStart, keyEnd, new BlockReader(path, offsets, found.deflated), summaries, width);
  }

  /** The first block whose first key is >= `key` (the blocks before it start below `key`). */
  private firstBlockFrom(key: string): number {
    // UTF-8 byte order is `compareKeys`' order: the key is encoded once, the index's keys compared as bytes.
    const probe = Buffer.from(key, 'utf8');
    let lo = 0;
    let hi = this.keyStart.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.index.compare(probe, 0, probe.length, this.keyStart[mid], this.keyEnd[mid]) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The blocks that may hold keys k with `from` <= k < `to`: `first` up to, not including, `end`. */
  span(from: string, to: string): { first: number; end: number } {
    // Rows of `from` may begin in the block before the first one starting at or after it.
    return { first: Math.max(0, this.firstBlockFrom(from) - 1), end: this.firstBlockFrom(to) };
  }

  /**
   * Whether every row of block `b` of `span(from, to)` lies in the range: all but its first and
   * last blocks (the others start at or after `from`, and the block after them starts below `to`).
   */
  within(b: number, from: string, to: string): boolean {
    return compareKeys(this.firstKey(b), from) >= 0 && b + 1 < this.keyStart.length && compareKeys(this.firstKey(b + 1), to) < 0;
  }

  private firstKey(b: number): string {
    return this.index.toString('utf8', this.keyStart[b], this.keyEnd[b]);
  }

  /**
   * Calls `each` with every line of block `b` (its fields tab-separated and escaped, no newline)
   * whose key k is `from` <= k < `to`, in key order. Throws when the block cannot be read.
   */
  blockLines(b: number, from: string, to: string, each: (line: string) => void): void {
    const text = this.blocks.text(b);
    const inside = this.within(b, from, to);
    for (let at = 0, nl = text.indexOf('\n'); nl >= 0; at = nl + 1, nl = text.indexOf('\n', at)) {
      const line = text.slice(at, nl);
      if (!inside) {
        const tab = line.indexOf('\t');
        const key = unescapeField(tab < 0 ? line : line.slice(0, tab));
        if (compareKeys(key, from) < 0) continue;
        if (compareKeys(key, to) >= 0) return;
      }
      each(line);
    }
  }

  /**
   * Calls `each` with every line whose key k is `from` <= k < `to`, in key order (`blockLines`
   * over `span`); false, calling nothing, when they span more than `maxBlocks` blocks (the caller
   * asks DuckDB instead). Throws when a block cannot be read.
   */
  lines(from: string, to: string, maxBlocks: number, each: (line: string) => void): boolean {
    const { first, end } = this.span(from, to);
    if (end - first > maxBlocks) return false;
    for (let b = first; b < end; b++) this.blockLines(b, from, to, each);
    return true;
  }

  /** Calls `each` with every line of the file, in key order. Throws when a block cannot be read. */
  everyLine(each: (line: string) => void): void {
    for (let b = 0; b < this.keyStart.length; b++) {
      const text = this.blocks.text(b);
      for (let at = 0, nl = text.indexOf('\n'); nl >= 0; at = nl + 1, nl = text.indexOf('\n', at)) each(text.slice(at, nl));
    }
  }

  /** The rows whose key is `key`, each its fields unescaped. Throws when a block cannot be read. */
  rowsOf(key: string): string[][] {
    return this.rows(key, `${key}\u0000`)!;
  }

  /** The rows of `lines`' range, each its fields unescaped; null when they span more than `maxBlocks` blocks. */
  rows(from: string, to: string, maxBlocks = Infinity): string[][] | null {
    const out: string[][] = [];
    return this.lines(from, to, maxBlocks, (line) => out.push(rangeFields(line))) ? out : null;
  }
}

/** A line's fields, unescaped. */
export const rangeFields = (line: string): string[] => line.split('\t').map(unescapeField);
