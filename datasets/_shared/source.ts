import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { isUtf8 } from 'node:buffer';
import { parse as parseSync } from 'csv-parse/sync';
import { IngestError } from './issue.js';

/** A source file handed to `rcm ingest`. */
export interface SourceFile {
  path: string;
  /** File name without directories; many publishers put the version only here. */
  name: string;
  size: number;
}

/** The first bytes of a file, decoded, used to detect its dataset and version by content. */
export interface FileSample {
  name: string;
  /** Up to 64 KiB of decoded text with line ends normalised to `\n`. */
  text: string;
  /** The same text split into lines (the last one may be cut). */
  lines: string[];
}

export type Encoding = 'utf-8' | 'windows-1252';

export async function toSourceFile(path: string): Promise<SourceFile> {
  let st;
  try {
    st = await stat(path);
  } catch {
    throw new IngestError('file not found', path);
  }
  if (!st.isFile()) throw new IngestError('not a regular file', path);
  return { path, name: basename(path), size: st.size };
}

/**
 * Decodes publisher bytes. CMS files are CP1252 more often than they admit (`CPT®` as 0xAE in the
 * MUE notice, 0xFF in the ASC addendum), so anything that is not valid UTF-8 is read as CP1252.
 */
export function decode(buf: Buffer): { text: string; encoding: Encoding } {
  const body = withoutBom(buf);
  if (isUtf8(body)) return { text: body.toString('utf8'), encoding: 'utf-8' };
  return { text: cp1252(body), encoding: 'windows-1252' };
}

/** `buf` without a leading UTF-8 byte order mark. */
const withoutBom = (buf: Buffer): Buffer => (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? buf.subarray(3) : buf);

/** CP1252's characters for 0x80-0x9F (the five unassigned bytes stay as their C1 code points). */
export const CP1252_80_9F = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * Decodes CP1252 by hand: Node 20's `TextDecoder('windows-1252')` decodes as Latin-1 (0x96 came
 * out as U+0096, not an en dash), which garbles the smart quotes and dashes of CMS descriptions.
 */
export function cp1252(buf: Buffer): string {
  const text = buf.toString('latin1');
  return /[\x80-\x9f]/.test(text) ? text.replace(/[\x80-\x9f]/g, (c) => CP1252_80_9F[c.charCodeAt(0) - 0x80]!) : text;
}

/** Normalises CRLF and bare CR to LF (CLFS 2026 mixes LF preamble lines with CRLF data rows). */
export function normalizeNewlines(text: string): string {
  return text.indexOf('\r') === -1 ? text : text.replace(/\r\n?/g, '\n');
}

/** How many first bytes of a file its sample holds. */
export const SAMPLE_BYTES = 65536;

export async function sampleFile(file: SourceFile, bytes = SAMPLE_BYTES): Promise<FileSample> {
  const fh = await open(file.path, 'r');
  try {
    const buf = Buffer.alloc(Math.min(bytes, file.size));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return sampleOf(file.name, buf.subarray(0, bytesRead), bytesRead === bytes);
  } finally {
    await fh.close();
  }
}

/**
 * The sample of a file named `name` from its first bytes (`cut`: the file goes on after them), as
 * `sampleFile` reads it from disk; a zip member's is taken from its stream before it is written.
 */
export function sampleOf(name: string, head: Buffer, cut: boolean): FileSample {
  let slice = head;
  // A cut multi-byte UTF-8 sequence at the end must not flip the guess to CP1252.
  const whole = slice.subarray(0, wholeUtf8(slice));
  if (cut && !isUtf8(slice) && isUtf8(whole)) slice = whole;
  const text = normalizeNewlines(decode(slice).text);
  return { name, text, lines: text.split('\n') };
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  const fh = await open(path, 'r');
  try {
    for await (const chunk of fh.createReadStream()) hash.update(chunk as Buffer);
  } finally {
    await fh.close();
  }
  return hash.digest('hex');
}

/** Reads and decodes a whole file with normalised line ends. */
export async function readText(file: SourceFile): Promise<{ text: string; encoding: Encoding }> {
  const { text, encoding } = decode(await readFile(file.path));
  return { text: normalizeNewlines(text), encoding };
}

export interface SourceRecord {
  /** 1-based physical line where the record ends (what an editor shows for one-line records). */
  line: number;
  fields: string[];
}

export interface RecordOptions {
  delimiter?: string;
  /** Called with the number of source bytes consumed so far (for progress). */
  onBytes?: (bytes: number) => void;
  /** Tab files have no quoting at all (NCCI, NDC): a `"` is data there. */
  quote?: string | false;
}

/** True when `line` ends inside a quoted field that was opened at a field start. */
function endsInsideQuotes(line: string, delimiter: string, quote: string, startInside: boolean): boolean {
  let inside = startInside;
  let fieldStart = !startInside;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (inside) {
      if (ch === quote) {
        if (line[i + 1] === quote) i++;
        else inside = false;
      }
    } else if (fieldStart && ch === quote) {
      inside = true;
      fieldStart = false;
    } else {
      fieldStart = ch === delimiter;
    }
  }
  return inside;
}

/**
 * Yields the records of a delimited file as it is read, never holding more than a chunk of it:
 * decoded (UTF-8, or CP1252 when any byte is not UTF-8: a first pass over the bytes decides, as
 * `decode` does for a whole buffer), newlines normalised, quoted cells with embedded newlines
 * honoured, ragged rows allowed (preambles are never padded the same way as data). Lines without a
 * quote character are split directly (about ten times faster than a general parser on the RVU
 * file); records with quotes go through csv-parse once their closing quote is read. A broken quote
 * becomes an IngestError naming file and line.
 */
export async function* readRecords(file: SourceFile, opts: RecordOptions = {}): AsyncGenerator<SourceRecord> {
  const delimiter = opts.delimiter ?? ',';
  const quote = opts.quote === undefined ? '"' : opts.quote;
  const read = { bytes: 0 };
  const pieces = decodedPieces(file.path, await fileEncoding(file.path), read)[Symbol.asyncIterator]();
  // Complete lines of the pieces read so far; `rest` is the start of a line whose end is not read yet.
  let lines: string[] = [];
  let at = 0;
  let rest = '';
  let ended = false;
  const next = async (): Promise<string | undefined> => {
    while (at >= lines.length) {
      if (ended) return undefined;
      const r = await pieces.next();
      if (r.done) {
        ended = true;
        lines = rest.length ? [rest] : [];
      } else {
        lines = (rest + r.value).split('\n');
        rest = lines.pop()!;
      }
      at = 0;
    }
    return lines[at++];
  };
  let line = 0;
  let nextReport = 1 << 20;
  for (let raw = await next(); raw !== undefined; raw = at < lines.length ? lines[at++] : await next()) {
    line++;
    if (quote && raw.includes(quote)) {
      const startLine = line;
      while (endsInsideQuotes(raw, delimiter, quote, false)) {
        const more = at < lines.length ? lines[at++] : await next();
        if (more === undefined) throw new IngestError(`the file is truncated or malformed: a quoted field opened on line ${startLine} is never closed`, file.name, startLine);
        raw = `${raw}\n${more}`;
        line++;
      }
      yield { line, fields: quotedRecord(raw, delimiter, quote, file.name, startLine) };
    } else {
      yield { line, fields: raw.split(delimiter) };
    }
    if (opts.onBytes && read.bytes > nextReport) {
      opts.onBytes(Math.min(file.size, read.bytes));
      nextReport = read.bytes + (1 << 20);
    }
  }
  opts.onBytes?.(file.size);
}

/**
 * Yields a file's lines as it is read (decoded and newline-normalised as `readRecords` reads; no
 * quoting, no splitting: the fixed-width files).
 */
export async function* readLines(file: SourceFile, opts: Pick<RecordOptions, 'onBytes'> = {}): AsyncGenerator<{ line: number; text: string }> {
  for await (const r of readRecords(file, { ...opts, delimiter: '\n', quote: false })) yield { line: r.line, text: r.fields[0]! };
}

/**
 * A file's decoded text a piece (about 1 MiB) at a time, newlines normalised, decoded as
 * `readRecords` decodes: for formats that are not lines (a JSON export).
 */
export async function* readPieces(file: SourceFile, opts: Pick<RecordOptions, 'onBytes'> = {}): AsyncGenerator<string> {
  const read = { bytes: 0 };
  for await (const piece of decodedPieces(file.path, await fileEncoding(file.path), read)) {
    yield piece;
    opts.onBytes?.(Math.min(file.size, read.bytes));
  }
}

/** The fields of one record that holds a quote character (csv-parse, relaxed as publishers need). */
function quotedRecord(raw: string, delimiter: string, quote: string, name: string, startLine: number): string[] {
  try {
    return (parseSync(raw, { delimiter, quote, relax_column_count: true, relax_quotes: true, record_delimiter: '\n' }) as string[][])[0] ?? [''];
  } catch (e) {
    throw new IngestError(`malformed CSV: ${(e as Error).message}`, name, startLine);
  }
}

/** Bytes read at a time by the streaming readers. */
const CHUNK = 1 << 20;

/**
 * The length of `buf`'s prefix that ends on a whole UTF-8 character (a multi-byte sequence cut by
 * the chunk's end is left for the next chunk).
 */
function wholeUtf8(buf: Buffer): number {
  let i = buf.length - 1;
  let cont = 0;
  while (i >= 0 && cont < 3 && (buf[i]! & 0xc0) === 0x80) {
    i--;
    cont++;
  }
  if (i < 0) return buf.length;
  const lead = buf[i]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need > cont + 1 ? i : buf.length;
}

/** A file's encoding, read in chunks: UTF-8 when every byte (after a BOM) is, else CP1252 (see `decode`). */
async function fileEncoding(path: string): Promise<Encoding> {
  let carry: Buffer = Buffer.alloc(0);
  let first = true;
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK })) {
    let buf: Buffer = carry.length ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
    if (first) buf = withoutBom(buf);
    first = false;
    const cut = wholeUtf8(buf);
    if (!isUtf8(buf.subarray(0, cut))) return 'windows-1252';
    carry = Buffer.from(buf.subarray(cut));
  }
  return carry.length ? 'windows-1252' : 'utf-8';
}

/** A file's text in decoded pieces with newlines normalised (a CR at a piece's end waits for the next piece). */
async function* decodedPieces(path: string, encoding: Encoding, read: { bytes: number }): AsyncGenerator<string> {
  const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
  let first = true;
  let cr = '';
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK })) {
    let buf = chunk as Buffer;
    read.bytes += buf.length;
    if (first) buf = withoutBom(buf);
    first = false;
    let text = cr + (encoding === 'utf-8' ? utf8.decode(buf, { stream: true }) : cp1252(buf));
    cr = text.endsWith('\r') ? '\r' : '';
    if (cr) text = text.slice(0, -1);
    yield normalizeNewlines(text);
  }
  const tail = cr + (encoding === 'utf-8' ? utf8.decode() : '');
  if (tail) yield normalizeNewlines(tail);
}

/**
 * The records of decoded text (what `readRecords` yields, for text already in memory): also what a native loader uses to
 * find a header in a file's sample. `file.size` scales `onBytes` from characters to bytes.
 */
export function* textRecords(text: string, file: Pick<SourceFile, 'name' | 'size'>, opts: RecordOptions = {}): Generator<SourceRecord> {
  const delimiter = opts.delimiter ?? ',';
  const quote = opts.quote === undefined ? '"' : opts.quote;
  const ratio = text.length > 0 ? file.size / text.length : 1;
  let pos = 0;
  let line = 0;
  let nextReport = 1 << 20;
  while (pos < text.length) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    let raw = text.slice(pos, nl);
    line++;
    if (quote && raw.includes(quote)) {
      const startLine = line;
      while (endsInsideQuotes(raw, delimiter, quote, false)) {
        if (nl >= text.length) throw new IngestError(`the file is truncated or malformed: a quoted field opened on line ${startLine} is never closed`, file.name, startLine);
        let next = text.indexOf('\n', nl + 1);
        if (next < 0) next = text.length;
        raw = `${raw}\n${text.slice(nl + 1, next)}`;
        nl = next;
        line++;
      }
      yield { line, fields: quotedRecord(raw, delimiter, quote, file.name, startLine) };
    } else {
      yield { line, fields: raw.split(delimiter) };
    }
    pos = nl + 1;
    if (opts.onBytes && pos > nextReport) {
      opts.onBytes(Math.min(file.size, Math.round(pos * ratio)));
      nextReport = pos + (1 << 20);
    }
  }
  opts.onBytes?.(file.size);
}
