import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';
import { IngestError } from '../datasets/_shared/issue.js';

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

export const isZip = (name: string) => extname(name).toLowerCase() === '.zip';

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((res, rej) =>
    yauzl.open(path, { lazyEntries: true, autoClose: true, validateEntrySizes: true, strictFileNames: false }, (err, zf) => (err ? rej(err) : res(zf))),
  );
}

/**
 * Extracts every file of a zip into `dest` (one sub-folder per member, so two members with the
 * same base name keep it, and a `../` path can never escape), nested zips one level deep.
 * Total uncompressed bytes are capped against zip bombs; a broken archive or member names the
 * archive and the member. Directories are listed as skipped.
 */
export async function extractZip(zipPath: string, dest: string, o: { maxBytes: number; label?: string; depth?: number }): Promise<{ members: ZipMember[]; skipped: Skipped[] }> {
  const label = o.label ?? basename(zipPath);
  let zf: yauzl.ZipFile;
  try {
    zf = await openZip(zipPath);
  } catch (e) {
    throw new IngestError(`not a readable zip archive: ${(e as Error).message}`, label);
  }
  const members: ZipMember[] = [];
  const skipped: Skipped[] = [];
  let total = 0;
  let n = 0;
  await new Promise<void>((resolve, reject) => {
    const fail = (e: unknown) => {
      zf.close();
      reject(e);
    };
    zf.on('error', (e: Error) => fail(new IngestError(`broken zip archive: ${e.message}`, label)));
    zf.on('end', () => resolve());
    zf.on('entry', (entry: yauzl.Entry) => {
      const name = entry.fileName;
      if (name.endsWith('/')) {
        skipped.push({ member: name, reason: 'directory' });
        zf.readEntry();
        return;
      }
      const base = basename(name.replace(/\\/g, '/'));
      if (!base || base.startsWith('.') || name.includes('\0')) {
        skipped.push({ member: name, reason: 'not a data file (hidden or unnamed member)' });
        zf.readEntry();
        return;
      }
      const dir = join(dest, String(n++));
      const out = join(dir, base);
      zf.openReadStream(entry, (err, stream) => {
        if (err) return fail(new IngestError(`cannot read member: ${err.message}`, `${label}/${name}`));
        // yauzl checks sizes but not the CRC-32 the archive records: check it, or a damaged
        // download would load as data.
        let crc = 0;
        const counter = new Transform({
          transform(chunk: Buffer, _enc, cb) {
            total += chunk.length;
            if (total > o.maxBytes) return cb(new IngestError(`the archive unpacks to more than ${o.maxBytes} bytes (RCM_ZIP_MAX_MB)`, label));
            crc = crc32(chunk, crc);
            cb(null, chunk);
          },
          flush(cb) {
            if (crc >>> 0 !== entry.crc32 >>> 0) cb(new IngestError(`CRC-32 mismatch (archive records ${entry.crc32.toString(16)}, data is ${(crc >>> 0).toString(16)}): the archive is damaged`, `${label}/${name}`));
            else cb();
          },
        });
        mkdir(dir, { recursive: true })
          .then(() => pipeline(stream, counter, createWriteStream(out)))
          .then(() => {
            members.push({ path: out, name: base, archive: label });
            zf.readEntry();
          })
          .catch((e: unknown) => fail(e instanceof IngestError ? e : new IngestError(`cannot extract member (${(e as Error).message})`, `${label}/${name}`)));
      });
    });
    zf.readEntry();
  });
  // Nested zips (CMS wraps some releases in an outer zip): one level deep.
  const out: ZipMember[] = [];
  for (const m of members) {
    if (!isZip(m.name)) {
      out.push(m);
      continue;
    }
    if ((o.depth ?? 0) >= 1) {
      skipped.push({ member: `${m.archive}/${m.name}`, reason: 'zip nested more than one level deep' });
      continue;
    }
    const inner = await extractZip(m.path, `${m.path}.d`, { maxBytes: o.maxBytes - total, label: `${label}/${m.name}`, depth: (o.depth ?? 0) + 1 });
    out.push(...inner.members);
    skipped.push(...inner.skipped);
  }
  return { members: out, skipped };
}
