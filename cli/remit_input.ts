import { open, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DomainError } from '../warehouse/errors.js';
import { HEAD_BYTES, looksLikeX12 } from '../lib/x12/sniff.js';

/**
 * The files `rcm remit explain` is given: each path a file, or a folder whose X12 files are read.
 * A file given by name that is no X12 is refused; a folder's other files (a README, a CSV export
 * beside the 835s) are skipped, each named once.
 */

/** One file to explain: the path as given (or its folder's path joined with its name), and its bytes. */
export interface RemitInput {
  path: string;
  bytes: Buffer;
}

/** Why an argument could not be read, as the one line the CLI prints (never the system's ENOENT text). */
function unreadable(path: string, e: NodeJS.ErrnoException): DomainError {
  if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return new DomainError('not_found', `${path}: file not found`);
  if (e.code === 'EACCES' || e.code === 'EPERM') return new DomainError('validation_error', `${path}: permission denied`);
  return new DomainError('validation_error', `${path}: cannot be read (${e.code ?? 'error'})`);
}

/** The first `HEAD_BYTES` of a file: enough to tell X12 from anything else without reading a large file whole. */
async function headOf(path: string): Promise<Buffer> {
  const fh = await open(path, 'r').catch((e: NodeJS.ErrnoException) => {
    throw unreadable(path, e);
  });
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** A whole file, its read error said in one line. */
const whole = (path: string) =>
  readFile(path).catch((e: NodeJS.ErrnoException) => {
    throw unreadable(path, e);
  });

/** The regular files of a folder, by name (not its subfolders), each X12 one read and the others skipped. */
async function folder(dir: string, out: RemitInput[], skipped: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((e: NodeJS.ErrnoException) => {
    throw unreadable(dir, e);
  });
  const names = entries.filter((e) => e.isFile()).map((e) => e.name).sort();
  let found = 0;
  for (const name of names) {
    const path = join(dir, name);
    if (!looksLikeX12(await headOf(path))) {
      skipped.push(path);
      continue;
    }
    out.push({ path, bytes: await whole(path) });
    found++;
  }
  if (found === 0) throw new DomainError('validation_error', `${dir}: no X12 file in this folder${skipped.length ? ` (${skipped.length} other ${skipped.length === 1 ? 'file' : 'files'} skipped)` : ''}`);
}

/**
 * A file's work with its errors naming the file (a reader's 422 names the segment; never the
 * file's contents, an X12 file carries PHI).
 */
export async function naming<T>(path: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (e) {
    if (e instanceof DomainError) throw new DomainError(e.code, `${path}: ${e.message}`, { issues: e.issues });
    throw e;
  }
}

/**
 * The files the arguments name, read, in order: a file as it is (refused, naming it, when it is
 * missing or no X12), a folder as its regular files sorted by name, not recursively, each that is
 * no X12 skipped and listed in `skipped` (the CLI says "skipped FILE: not an X12 file").
 */
export async function remitInputs(args: readonly string[]): Promise<{ files: RemitInput[]; skipped: string[] }> {
  const files: RemitInput[] = [];
  const skipped: string[] = [];
  for (const path of args) {
    const st = await stat(path).catch((e: NodeJS.ErrnoException) => {
      throw unreadable(path, e);
    });
    if (st.isDirectory()) {
      await folder(path, files, skipped);
      continue;
    }
    // A pipe (`<(zcat x.835.gz)`) is read once, whole; a regular file's head first.
    const bytes = st.isFile() ? null : await whole(path);
    if (!looksLikeX12(bytes ?? (await headOf(path)))) throw new DomainError('validation_error', `${path}: not an X12 file (it does not start with ISA, ST or a known X12 segment)`);
    files.push({ path, bytes: bytes ?? (await whole(path)) });
  }
  return { files, skipped };
}
