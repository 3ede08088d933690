import { createHash } from 'node:crypto';
import { open, readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { isUtf8 } from 'node:buffer';
import { parse } from 'csv-parse';
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
  let start = 0;
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) start = 3;
  const body = start ? buf.subarray(start) : buf;
  if (isUtf8(body)) return { text: body.toString('utf8'), encoding: 'utf-8' };
  return { text: new TextDecoder('windows-1252').decode(body), encoding: 'windows-1252' };
}

/** Normalises CRLF and bare CR to LF (CLFS 2026 mixes LF preamble lines with CRLF data rows). */
export function normalizeNewlines(text: string): string {
  return text.indexOf('\r') === -1 ? text : text.replace(/\r\n?/g, '\n');
}

export async function sampleFile(file: SourceFile, bytes = 65536): Promise<FileSample> {
  const fh = await open(file.path, 'r');
  try {
    const buf = Buffer.alloc(Math.min(bytes, file.size));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    let slice = buf.subarray(0, bytesRead);
    // A cut multi-byte UTF-8 sequence at the end must not flip the guess to CP1252.
    if (!isUtf8(slice) && bytesRead === bytes) {
      for (let cut = 1; cut <= 3 && !isUtf8(slice); cut++) slice = buf.subarray(0, bytesRead - cut);
      if (!isUtf8(slice)) slice = buf.subarray(0, bytesRead);
    }
    const text = normalizeNewlines(decode(slice).text);
    return { name: file.name, text, lines: text.split('\n') };
  } finally {
    await fh.close();
  }
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

/**
 * Yields the records of a delimited file: decoded (UTF-8 or CP1252), newlines normalised, quoted
 * cells with embedded newlines honoured, ragged rows allowed (preambles are never padded the same
 * way as data). A broken quote becomes an IngestError naming the file and line.
 */
export async function* readRecords(file: SourceFile, opts: RecordOptions = {}): AsyncGenerator<SourceRecord> {
  const { text } = await readText(file);
  const parser = parse({
    delimiter: opts.delimiter ?? ',',
    quote: opts.quote === undefined ? '"' : opts.quote === false ? null : opts.quote,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: false,
    record_delimiter: '\n',
    info: true,
  });
  const CHUNK = 1 << 20;
  const ratio = text.length > 0 ? file.size / text.length : 1;
  const feed = (async () => {
    try {
      for (let i = 0; i < text.length; i += CHUNK) {
        const ok = parser.write(text.slice(i, i + CHUNK));
        opts.onBytes?.(Math.min(file.size, Math.round((i + CHUNK) * ratio)));
        if (!ok) await new Promise((r) => parser.once('drain', r));
      }
      parser.end();
    } catch (e) {
      parser.destroy(e as Error);
    }
  })();
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      yield { line: item.info.lines, fields: item.record };
    }
  } catch (e) {
    const err = e as { message?: string; lines?: number };
    throw new IngestError(`malformed CSV: ${err.message ?? String(e)}`, file.name, err.lines);
  } finally {
    await feed;
  }
}
