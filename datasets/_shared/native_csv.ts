import { open, readFile } from 'node:fs/promises';
import { isAscii, isUtf8 } from 'node:buffer';
import { quoteString } from '../../warehouse/sql_quote.js';
import type { SourceFile } from './source.js';

/**
 * Helpers for loaders that hand a delimited file to DuckDB's own `read_csv` and check the row
 * rules in SQL, falling back to the JS parser whenever the file holds anything the two readers
 * could see differently. The fallback keeps rejects exact (file, line, field); the fast path only
 * ever accepts what the JS path would accept, value for value.
 */

/** Every character JS's `\s` matches, plus U+00A0: what `clean()` trims from both ends. */
const JS_WHITESPACE = '\t\n\u000b\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';

/**
 * The same characters as an RE2 class body. (`trim(x, chars)` with this set costs ~20 ms per
 * column on 19k rows here, so loaders test for edge spaces instead of trimming every cell.)
 */
export const WHITESPACE_CLASS = [...JS_WHITESPACE].map((ch) => `\\x{${ch.codePointAt(0)!.toString(16)}}`).join('');

/**
 * The null string given to `read_csv`: U+0001, so an empty field reads as '' and only a field a
 * short row lacks reads as NULL (`null_padding`). Files holding the byte never take the fast path.
 */
export const NATIVE_NULLSTR = '\u0001';

export interface NativeCsvCheck {
  /** DuckDB's reader encoding that decodes the bytes as `decode()` does. */
  encoding: 'utf-8' | 'latin-1';
  /**
   * True when no data cell can start or end with what `clean()` trims: the bytes after the skipped
   * lines hold no tab, vertical tab, form feed or non-ASCII space, no space beside a delimiter,
   * quote or line end. (Conservative: a false only costs an exact per-row test in SQL.)
   */
  edgeFree: boolean;
  /**
   * True when no record can span lines: no bare CR, and every data line holds an even number of
   * quote characters (a quoted field left open at a line end leaves an odd count).
   */
  singleLineRecords: boolean;
}

/** UTF-8 of the non-ASCII characters JS's `\\s` matches: U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF. */
const NON_ASCII_SPACES_UTF8 = ['c2a0', 'e19a80', ...Array.from({ length: 11 }, (_, k) => `e280${(0x80 + k).toString(16)}`), 'e280a8', 'e280a9', 'e280af', 'e2819f', 'e38080', 'efbbbf'].map((h) =>
  Buffer.from(h, 'hex'),
);

/**
 * Reads the file once to decide how DuckDB may read it. Null (use the JS parser) when U+0001
 * occurs (the null string below), or when a non-UTF-8 file holds 0x80-0x9F (Latin-1 and CP1252
 * differ there). `skip` lines are left out of the edge check (preambles are not data).
 */
export async function nativeCsvCheck(file: SourceFile, skip: number, delim: string): Promise<NativeCsvCheck | null> {
  const buf = await readFile(file.path);
  const encoding = duckdbEncoding(buf);
  if (!encoding) return null;
  const utf8 = encoding === 'utf-8';
  let start = 0;
  for (let k = 0; k < skip && start < buf.length; k++) {
    const nl = buf.indexOf(10, start);
    start = nl < 0 ? buf.length : nl + 1;
  }
  const data = buf.subarray(start);
  const has = (s: string) => data.includes(s, 0, 'latin1');
  let edgeFree = ![9, 11, 12].some((b) => data.includes(b));
  for (const edge of [delim, '"', '\r', '\n']) if (edgeFree && (has(` ${edge}`) || has(`${edge} `))) edgeFree = false;
  if (edgeFree && (data[0] === 32 || data[data.length - 1] === 32)) edgeFree = false;
  if (edgeFree) edgeFree = utf8 ? !NON_ASCII_SPACES_UTF8.some((seq) => data.includes(seq)) : !data.includes(0xa0);
  let singleLineRecords = true;
  for (let cr = data.indexOf(13); cr >= 0 && singleLineRecords; cr = data.indexOf(13, cr + 1)) if (data[cr + 1] !== 10) singleLineRecords = false;
  for (let q = data.indexOf(34); q >= 0 && singleLineRecords; q = data.indexOf(34, q + 1)) {
    const nl = data.indexOf(10, q);
    let n = 0;
    const end = nl < 0 ? data.length : nl;
    for (let k = q; k < end; k++) if (data[k] === 34) n++;
    if (n % 2 === 1) singleLineRecords = false;
    q = end;
  }
  return { encoding, edgeFree, singleLineRecords };
}

/**
 * DuckDB's reader encoding that decodes a whole file's bytes as `decode()` does: UTF-8 when they
 * are valid UTF-8, else Latin-1, which equals CP1252 except at 0x80-0x9F. Null (only the row
 * parser reads it right) when a non-UTF-8 file holds those bytes, or when it holds U+0001 (the
 * null string given to `read_csv`).
 */
export function duckdbEncoding(buf: Buffer): 'utf-8' | 'latin-1' | null {
  if (buf.includes(1)) return null;
  if (isAscii(buf)) return 'utf-8';
  const bom = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
  if (isUtf8(bom ? buf.subarray(3) : buf)) return 'utf-8';
  return /[\x80-\x9f]/.test(buf.toString('latin1')) ? null : 'latin-1';
}

/**
 * `duckdbEncoding` of a file too large to hold: read in chunks while they are ASCII (every real
 * NCCI part), and whole only when one is not.
 */
export async function fileDuckdbEncoding(file: SourceFile): Promise<'utf-8' | 'latin-1' | null> {
  const fh = await open(file.path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(Math.min(16 << 20, Math.max(1, file.size)));
    for (let pos = 0; pos < file.size; ) {
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, pos);
      if (bytesRead === 0) break;
      const part = chunk.subarray(0, bytesRead);
      if (!isAscii(part) || part.includes(1)) return duckdbEncoding(await readFile(file.path));
      pos += bytesRead;
    }
    return 'utf-8';
  } finally {
    await fh.close();
  }
}

/** `read_csv` of every field as VARCHAR `c0..c{width-1}` after `skip` lines. */
export function readCsvSql(file: SourceFile, o: { skip: number; width: number; delim: string; encoding: 'utf-8' | 'latin-1' }): string {
  const cols = Array.from({ length: o.width }, (_, k) => `'c${k}': 'VARCHAR'`).join(', ');
  return (
    `read_csv(${quoteString(file.path)}, delim=${quoteString(o.delim)}, header=false, skip=${o.skip}, quote='"', escape='"', auto_detect=false, ` +
    `null_padding=true, nullstr=${quoteString(NATIVE_NULLSTR)}, encoding='${o.encoding}', columns={${cols}})`
  );
}
