import { rangeFields, type BlockSummary } from '../../lib/sidecar/range.js';

/**
 * The summary of each block of a version's `words` sidecar (`RangeFile.summaries`): what a
 * one-word search (`server/concepts/search.ts`) needs from a block it does not read.
 *
 * - the least `ord` of the block's rows, and the least of its head rows (a row whose word is the
 *   first word of its atom's string): a bound on the rank of every atom the block could add;
 * - for each prefix length L up to `WORD_SUMMARY_PREFIX`, how many rows share fewer than L
 *   characters with their atom's previous word (`prev`). Within the range of a prefix of length
 *   L, exactly those are the rows the search counts, one per atom: a row's word starts with the
 *   prefix, and its previous word (sorted before it) is outside the range when it does not.
 *
 * 24 bytes: the two ords (uint32 LE, 0xffffffff for none) and the 16 counts (a byte each; a block
 * holds at most 255 rows).
 */
export const WORD_SUMMARY_PREFIX = 16;
const NONE = 0xffffffff;
/** A summary's bytes: the two ords, then the counts. */
const WIDTH = 8 + WORD_SUMMARY_PREFIX;

/** A words sidecar line's fields, in `UMLS_WORD_FIELDS` order: word, prev, nrm, sab, ord. */
const wordFields = (line: string): string[] => (line.includes('\\') ? rangeFields(line) : line.split('\t'));

/** Characters `a` and `b` share from their start. */
function sharedPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Whether `word` is the first word of the normalised string `nrm`. */
const isHead = (word: string, nrm: string): boolean => nrm.startsWith(word) && (nrm.length === word.length || nrm.charCodeAt(word.length) === 32);

export const WORD_SUMMARY: BlockSummary = {
  bytes: WIDTH,
  of(block: string): Buffer {
    const out = Buffer.alloc(WIDTH);
    let minOrd = NONE;
    let minHead = NONE;
    /** Rows by characters shared with their previous word (the last entry: that many or more). */
    const shared = new Array<number>(WORD_SUMMARY_PREFIX + 1).fill(0);
    let rows = 0;
    for (let at = 0, nl = block.indexOf('\n'); nl >= 0; at = nl + 1, nl = block.indexOf('\n', at)) {
      const [word = '', prev = '', nrm = '', , ord = ''] = wordFields(block.slice(at, nl));
      const n = Number(ord);
      if (!Number.isInteger(n) || n < 0 || n >= NONE) throw new Error(`words sidecar: ord '${ord}' of word '${word}' is not a whole number below 2^32-1`);
      minOrd = Math.min(minOrd, n);
      if (isHead(word, nrm)) minHead = Math.min(minHead, n);
      shared[Math.min(sharedPrefix(prev, word), WORD_SUMMARY_PREFIX)]!++;
      rows++;
    }
    if (rows > 255) throw new Error(`words sidecar: a block of ${rows} rows (a summary counts at most 255)`);
    out.writeUInt32LE(minOrd, 0);
    out.writeUInt32LE(minHead, 4);
    // Rows sharing fewer than L characters, L = 1 .. WORD_SUMMARY_PREFIX.
    let below = 0;
    for (let l = 1; l <= WORD_SUMMARY_PREFIX; l++) {
      below += shared[l - 1]!;
      out[8 + l - 1] = below;
    }
    return out;
  },
};

/** The summaries of a words sidecar's blocks (`RangeFile.summaries`), read in place. */
export class WordSummaries {
  constructor(private readonly data: Buffer) {}

  private ord(b: number, at: number): number {
    const n = this.data.readUInt32LE(b * WIDTH + at);
    return n === NONE ? Infinity : n;
  }

  /** The least ord of block `b`'s rows. */
  minOrd(b: number): number {
    return this.ord(b, 0);
  }

  /** The least ord of block `b`'s head rows (Infinity for none). */
  minHeadOrd(b: number): number {
    return this.ord(b, 4);
  }

  /** The rows of block `b` a prefix of `length` (1 .. `WORD_SUMMARY_PREFIX`) counts, when every row of the block is in its range. */
  counted(b: number, length: number): number {
    return this.data[b * WIDTH + 8 + length - 1]!;
  }
}
