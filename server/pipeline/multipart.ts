import { DomainError, ValidationError } from '../../warehouse/errors.js';

/**
 * The file of a `multipart/form-data` body (RFC 7578), already read and size-capped: the part
 * named `field`, else the only part that carries a filename. Enough for one uploaded document;
 * a body with no such part, or that is not well-formed, is a 422 naming what is missing.
 */
export function multipartFile(body: Buffer, contentTypeHeader: string, field: string): { bytes: Buffer; contentType: string | null; filename: string | null } {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentTypeHeader);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary) throw new DomainError('unsupported_media_type', 'multipart/form-data needs a boundary parameter');
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: { name: string | null; filename: string | null; contentType: string | null; bytes: Buffer }[] = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const afterDelim = at + delimiter.length;
    // "--" after a delimiter closes the body.
    if (body[afterDelim] === 0x2d && body[afterDelim + 1] === 0x2d) break;
    const headStart = body.indexOf('\r\n', afterDelim);
    if (headStart < 0) break;
    const headEnd = body.indexOf('\r\n\r\n', headStart);
    if (headEnd < 0) break;
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), headEnd + 4);
    if (next < 0) break;
    const head = body.subarray(headStart + 2, headEnd).toString('latin1');
    const disposition = /^content-disposition:(.*)$/im.exec(head)?.[1] ?? '';
    const param = (n: string) => new RegExp(`;\\s*${n}="([^"]*)"`, 'i').exec(disposition)?.[1] ?? new RegExp(`;\\s*${n}=([^;\\s]+)`, 'i').exec(disposition)?.[1] ?? null;
    parts.push({
      name: param('name'),
      filename: param('filename'),
      contentType: /^content-type:\s*([^;\r\n]+)/im.exec(head)?.[1]?.trim().toLowerCase() ?? null,
      bytes: body.subarray(headEnd + 4, next),
    });
    at = next + 2;
  }
  const files = parts.filter((p) => p.filename !== null);
  const part = parts.find((p) => p.name === field) ?? (files.length === 1 ? files[0] : undefined);
  if (!part || part.bytes.length === 0) {
    throw new ValidationError([{ loc: ['body', field], msg: `send the document as the form field '${field}' (a file part)`, type: 'missing' }]);
  }
  return { bytes: part.bytes, contentType: part.contentType, filename: part.filename };
}
