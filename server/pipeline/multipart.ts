import busboy from 'busboy';
import { DomainError, ValidationError } from '../../warehouse/errors.js';

/**
 * What a `multipart/form-data` body (RFC 7578) may hold: one upload needs a handful of parts, so
 * a body of thousands (2.9 million empty parts fit in 25 MB) is refused after the 16th instead of
 * being walked; a part's header lines are bounded the same way.
 */
export const MULTIPART_LIMITS = { parts: 16, headerPairs: 16 } as const;

/** Bytes handed to the parser at a time. */
const SLICE = 64 * 1024;

/**
 * The file of a `multipart/form-data` body, already read and size-capped: the part named `field`,
 * else the only part that carries a filename. Parsed by busboy (streaming, so its work stops at
 * the first limit passed); a body with no such part, too many parts, or that is not well-formed,
 * is a 422 naming what is wrong.
 */
export function multipartFile(body: Buffer, contentTypeHeader: string, field: string, extra: readonly string[] = []): Promise<{ bytes: Buffer; contentType: string | null; filename: string | null; parts: Record<string, Buffer[]> }> {
  if (!/boundary=/i.test(contentTypeHeader)) return Promise.reject(new DomainError('unsupported_media_type', 'multipart/form-data needs a boundary parameter'));
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { 'content-type': contentTypeHeader }, limits: { ...MULTIPART_LIMITS, fieldSize: 64 * 1024 } });
    } catch (e) {
      reject(new DomainError('unsupported_media_type', `multipart/form-data: ${(e as Error).message}`));
      return;
    }
    const files: { name: string; filename: string | null; contentType: string | null; bytes: Buffer }[] = [];
    let failed = false;
    const fail = (msg: string) => {
      if (failed) return;
      failed = true;
      parser.removeAllListeners();
      parser.on('error', () => undefined);
      reject(new ValidationError([{ loc: ['body', field], msg, type: 'value_error' }]));
    };
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => files.push({ name, filename: info.filename ?? null, contentType: info.mimeType?.toLowerCase() ?? null, bytes: Buffer.concat(chunks) }));
    });
    parser.on('partsLimit', () => fail(`a multipart body of more than ${MULTIPART_LIMITS.parts} parts is refused: send the document as the form field '${field}'`));
    parser.on('error', (e: Error) => fail(`the multipart body is not well formed (${e.message})`));
    parser.on('close', () => {
      if (failed) return;
      const named = files.filter((p) => !extra.includes(p.name));
      const part = named.find((p) => p.name === field) ?? (named.filter((p) => p.filename !== null).length === 1 ? named.find((p) => p.filename !== null) : undefined);
      if (!part || part.bytes.length === 0) {
        reject(new ValidationError([{ loc: ['body', field], msg: `send the document as the form field '${field}' (a file part)`, type: 'missing' }]));
        return;
      }
      // The other parts the route takes, by name, in the order sent (an empty one is a mistake: 422).
      const parts: Record<string, Buffer[]> = {};
      for (const p of files) {
        if (!extra.includes(p.name)) continue;
        if (p.bytes.length === 0) return reject(new ValidationError([{ loc: ['body', p.name], msg: `the part '${p.name}' is empty`, type: 'missing' }]));
        (parts[p.name] ??= []).push(p.bytes);
      }
      resolve({ bytes: part.bytes, contentType: part.contentType, filename: part.filename, parts });
    });
    // Fed in slices, so parsing stops at the first limit passed instead of scanning the rest of the
    // body for boundaries it would ignore (busboy keeps scanning a single buffer to its end).
    for (let at = 0; at < body.length && !failed; at += SLICE) parser.write(body.subarray(at, at + SLICE));
    if (!failed) parser.end();
  });
}
