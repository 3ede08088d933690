import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';
import { IngestError } from '../datasets/_shared/issue.js';
import { SAMPLE_BYTES, sampleOf, type FileSample } from '../datasets/_shared/source.js';

/** A file taken out of a publisher's zip, under its own member name (version labels live in names). */
export interface ZipMember {
  path: string;
  name: string;
  /** The archive it came from (`RVU26A.zip`, or `outer.zip/inner.zip` for a nested one). */
  archive: string;
}

export interface Skipped {
  member: string;
  reason: string;
}

export interface ExtractOptions {
  /** `RCM_ZIP_MAX_MB` in bytes: what the archive unpacks to at most, nested archives and their members counted. */
  maxBytes: number;
  /** How errors and skipped members name the archive (default: its file name). */
  label?: string;
  /**
   * Why a member is not taken, judged on its first bytes (the header a dataset detects) before
   * any byte of it is written: a reason skips it, null takes it. Unset: every member is taken.
   */
  refuse?: (sample: FileSample) => string | null;
}

export const isZip = (name: string) => extname(name).toLowerCase() === '.zip';

/**
 * The central directory of a nested archive is at its end: while the archive is inflated from
 * its parent (and checked), this many last bytes are kept to read it. A directory this large
 * lists about 150,000 members.
 */
const NESTED_DIRECTORY_MAX = 16 * 1024 * 1024;

const YAUZL_OPTIONS = { lazyEntries: true, autoClose: false, strictFileNames: false, decodeStrings: true } as const;

/**
 * Extracts the files of a publisher's zip into `dest` (one sub-folder per member, so two members
 * with the same base name keep it, and a `../` path can never escape), nested zips one level deep.
 * Everything is checked before a byte is written: every member's declared size, and their total,
 * against `maxBytes` (`RCM_ZIP_MAX_MB`), nested archives' members included (a nested archive is
 * inflated once, in memory only its directory kept, to read them); a deeper nested zip is skipped.
 * Then each member's first bytes decide (`refuse`) before the rest is written, and while it is
 * inflated a member that exceeds its declared size is stopped and refused, as is one whose CRC-32
 * differs. A nested-zip bomb (a small archive whose member declares a gigabyte) is refused with
 * nothing written; errors name the archive and the member. Directories and hidden members are
 * listed as skipped.
 */
export async function extractZip(zipPath: string, dest: string, o: ExtractOptions): Promise<{ members: ZipMember[]; skipped: Skipped[] }> {
  const label = o.label ?? basename(zipPath);
  const zf = await open(() => openFile(zipPath), label);
  try {
    const run: Run = { o, written: 0, n: 0, dest, members: [], skipped: [] };
    const plan = planOf(await entriesOf(zf, label), label, 0, run.skipped);
    let declared = 0;
    const count = (member: string, size: number) => {
      declared += size;
      if (declared > o.maxBytes) throw new IngestError(`the archive declares more than ${o.maxBytes} bytes unpacked (RCM_ZIP_MAX_MB) by this member; nothing was extracted`, member);
    };
    // Phase 1: sizes and nesting, before anything is written.
    const nested = new Map<yauzl.Entry, Planned[]>();
    for (const p of plan) {
      count(`${label}/${p.entry.fileName}`, p.entry.uncompressedSize);
      if (!p.zip) continue;
      const inner = await directoryOfNested(zf, p, label, o.maxBytes);
      const innerLabel = `${label}/${p.base}`;
      const innerPlan = planOf(inner, innerLabel, 1, []);
      for (const q of innerPlan) count(`${innerLabel}/${q.entry.fileName}`, q.entry.uncompressedSize);
      nested.set(p.entry, innerPlan);
    }
    // Phase 2: each member written once its header is taken; nested archives through a file of their own.
    for (const p of plan) {
      if (!p.zip) {
        await extractMember(zf, p, label, run);
        continue;
      }
      const dir = join(dest, String(run.n++));
      const file = join(dir, p.base);
      await mkdir(dir, { recursive: true });
      await writeChecked(await streamOf(zf, p.entry, `${label}/${p.entry.fileName}`), p, `${label}/${p.entry.fileName}`, run, createWriteStream(file));
      const innerLabel = `${label}/${p.base}`;
      const inner = await open(() => openFile(file), innerLabel);
      try {
        // The same directory phase 1 read (the bytes passed the same CRC-32): planned again for its entries.
        const innerPlan = planOf(await entriesOf(inner, innerLabel), innerLabel, 1, run.skipped);
        if (innerPlan.length !== nested.get(p.entry)!.length) throw new IngestError('the nested archive changed while it was read', innerLabel);
        for (const q of innerPlan) await extractMember(inner, q, innerLabel, run);
      } finally {
        inner.close();
      }
      // The nested archive is a container: only its members are inputs.
      await rm(dir, { recursive: true, force: true });
    }
    return { members: run.members, skipped: run.skipped };
  } finally {
    zf.close();
  }
}

/** One extraction's state: options, bytes written so far, member folders, results. */
interface Run {
  o: ExtractOptions;
  written: number;
  n: number;
  dest: string;
  members: ZipMember[];
  skipped: Skipped[];
}

/** A member to extract: a data file, or (`zip`) a nested archive. */
interface Planned {
  entry: yauzl.Entry;
  base: string;
  zip: boolean;
}

function openFile(path: string): Promise<yauzl.ZipFile> {
  return new Promise((res, rej) => yauzl.open(path, { ...YAUZL_OPTIONS, validateEntrySizes: false }, (err, zf) => (err ? rej(err) : res(zf))));
}

async function open(how: () => Promise<yauzl.ZipFile>, label: string): Promise<yauzl.ZipFile> {
  try {
    return await how();
  } catch (e) {
    throw new IngestError(`not a readable zip archive: ${(e as Error).message}`, label);
  }
}

/** Every entry of the central directory (nothing inflated). */
function entriesOf(zf: yauzl.ZipFile, label: string): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const out: yauzl.Entry[] = [];
    zf.on('error', (e: Error) => reject(new IngestError(`broken zip archive: ${e.message}`, label)));
    zf.on('entry', (entry: yauzl.Entry) => {
      out.push(entry);
      zf.readEntry();
    });
    zf.on('end', () => resolve(out));
    zf.readEntry();
  });
}

/**
 * The members worth extracting, in archive order: directories, hidden and empty members and (at
 * `depth` 1) zips nested deeper are listed as skipped; a member declaring more than the cap
 * refuses the archive.
 */
function planOf(entries: yauzl.Entry[], label: string, depth: number, skipped: Skipped[]): Planned[] {
  const out: Planned[] = [];
  for (const entry of entries) {
    const name = entry.fileName;
    if (name.endsWith('/')) {
      skipped.push({ member: name, reason: 'directory' });
      continue;
    }
    const base = basename(name.replace(/\\/g, '/'));
    if (!base || base.startsWith('.') || name.includes('\0')) {
      skipped.push({ member: name, reason: 'not a data file (hidden or unnamed member)' });
      continue;
    }
    if (isZip(base) && depth >= 1) {
      skipped.push({ member: `${label}/${base}`, reason: 'zip nested more than one level deep' });
      continue;
    }
    if (entry.uncompressedSize === 0) {
      skipped.push({ member: `${label}/${base}`, reason: 'empty file' });
      continue;
    }
    out.push({ entry, base, zip: isZip(base) });
  }
  return out;
}

function streamOf(zf: yauzl.ZipFile, entry: yauzl.Entry, member: string): Promise<Readable> {
  return new Promise((resolve, reject) => zf.openReadStream(entry, (err, s) => (err ? reject(new IngestError(`cannot read member: ${err.message}`, member)) : resolve(s))));
}

/**
 * Counts a member's inflated bytes: past its declared size, or the archive's past `maxBytes`, the
 * stream stops with an error naming the member; at its end the size and the CRC-32 the archive
 * records must match (yauzl checks neither once `validateEntrySizes` is off: this does both).
 */
function checker(entry: yauzl.Entry, member: string, run: Run): Transform {
  let bytes = 0;
  let crc = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      run.written += chunk.length;
      if (bytes > entry.uncompressedSize) return cb(new IngestError(`inflates to more than the ${entry.uncompressedSize} bytes its header declares: refused, nothing more extracted (a zip bomb or a damaged archive)`, member));
      if (run.written > run.o.maxBytes) return cb(new IngestError(`the archive unpacks to more than ${run.o.maxBytes} bytes (RCM_ZIP_MAX_MB)`, member));
      crc = crc32(chunk, crc);
      cb(null, chunk);
    },
    flush(cb) {
      if (bytes !== entry.uncompressedSize) cb(new IngestError(`inflates to ${bytes} bytes, not the ${entry.uncompressedSize} its header declares: the archive is damaged`, member));
      else if (crc >>> 0 !== entry.crc32 >>> 0) cb(new IngestError(`CRC-32 mismatch (archive records ${entry.crc32.toString(16)}, data is ${(crc >>> 0).toString(16)}): the archive is damaged`, member));
      else cb();
    },
  });
}

/** Pipes a member's checked bytes to `sink`; an error that is not already the member's is named for it. */
async function writeChecked(stream: Readable, p: Planned, member: string, run: Run, sink: Writable): Promise<void> {
  try {
    await pipeline(stream, checker(p.entry, member, run), sink);
  } catch (e) {
    throw e instanceof IngestError ? e : new IngestError(`cannot extract member (${(e as Error).message})`, member);
  }
}

/** One data member: its first bytes read and judged (`refuse`), then, when taken, written with the rest. */
async function extractMember(zf: yauzl.ZipFile, p: Planned, label: string, run: Run): Promise<void> {
  const member = `${label}/${p.entry.fileName}`;
  const source = await streamOf(zf, p.entry, member);
  const checked = checker(p.entry, member, run);
  // Stopping the checker stops the inflating too; an inflate error reaches the reader of the checker.
  source.on('error', (e) => checked.destroy(e));
  checked.on('close', () => source.destroy());
  source.pipe(checked);
  const chunks = checked[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let held = 0;
  let ended = false;
  try {
    while (held < SAMPLE_BYTES) {
      const r = await chunks.next();
      if (r.done) {
        ended = true;
        break;
      }
      head.push(r.value);
      held += r.value.length;
    }
  } catch (e) {
    checked.destroy();
    throw e instanceof IngestError ? e : new IngestError(`cannot extract member (${(e as Error).message})`, member);
  }
  const first = Buffer.concat(head);
  const why = run.o.refuse?.(sampleOf(p.base, first.subarray(0, SAMPLE_BYTES), first.length >= SAMPLE_BYTES)) ?? null;
  if (why !== null) {
    // Not this dataset's: stop inflating it, write nothing.
    checked.destroy();
    run.skipped.push({ member: `${label}/${p.base}`, reason: why });
    return;
  }
  const dir = join(run.dest, String(run.n++));
  const out = join(dir, p.base);
  await mkdir(dir, { recursive: true });
  try {
    await pipeline(async function* () {
      yield first;
      if (!ended) for (let r = await chunks.next(); !r.done; r = await chunks.next()) yield r.value;
    }, createWriteStream(out));
  } catch (e) {
    checked.destroy();
    throw e instanceof IngestError ? e : new IngestError(`cannot extract member (${(e as Error).message})`, member);
  }
  run.members.push({ path: out, name: p.base, archive: label });
}

/**
 * The entries of a nested archive, read without writing it: the member is inflated (checked
 * against its declared size and CRC-32) while only its last `NESTED_DIRECTORY_MAX` bytes are kept,
 * and yauzl reads the directory from them.
 */
async function directoryOfNested(zf: yauzl.ZipFile, p: Planned, label: string, maxBytes: number): Promise<yauzl.Entry[]> {
  const member = `${label}/${p.entry.fileName}`;
  const size = p.entry.uncompressedSize;
  const keep = Math.min(size, NESTED_DIRECTORY_MAX);
  const tail = Buffer.alloc(keep);
  let at = 0;
  const keeper = new Writable({
    write(chunk: Buffer, _enc, cb) {
      // Bytes at or past size - keep land in the tail (the checker stops anything past size).
      const end = at + chunk.length;
      const from = Math.max(at, size - keep);
      if (end > from) chunk.copy(tail, from - (size - keep), from - at);
      at = end;
      cb();
    },
  });
  // A run of its own: the nested archive's bytes are checked, not counted as written.
  await writeChecked(await streamOf(zf, p.entry, member), p, member, { o: { maxBytes }, written: 0, n: 0, dest: '', members: [], skipped: [] }, keeper);
  const reader = new TailReader(tail, size - keep, member);
  const inner = await open(() => new Promise((res, rej) => yauzl.fromRandomAccessReader(reader, size, { ...YAUZL_OPTIONS, validateEntrySizes: false }, (err, z) => (err ? rej(err) : res(z)))), `${label}/${p.base}`);
  try {
    return await entriesOf(inner, `${label}/${p.base}`);
  } finally {
    inner.close();
  }
}

/** The last bytes of an archive as yauzl reads them: its directory; anything before them is out of reach. */
class TailReader extends yauzl.RandomAccessReader {
  constructor(
    private readonly tail: Buffer,
    private readonly start: number,
    private readonly member: string,
  ) {
    super();
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null, bytesRead?: number) => void): void {
    if (position < this.start) {
      setImmediate(() => callback(new Error(`${this.member}: its central directory is more than ${NESTED_DIRECTORY_MAX} bytes`)));
      return;
    }
    const n = this.tail.copy(buffer, offset, position - this.start, position - this.start + length);
    setImmediate(() => callback(null, n));
  }

  override _readStreamForRange(): Readable {
    throw new Error('a nested archive is only listed here, never read from its tail');
  }
}
