import { describe, expect, it } from 'vitest';
import { MULTIPART_LIMITS, multipartFile } from './multipart.js';

const BOUNDARY = 'xYzzY';
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const part = (headers: string, body: string | Buffer) => Buffer.concat([Buffer.from(`--${BOUNDARY}\r\n${headers}\r\n\r\n`), Buffer.isBuffer(body) ? body : Buffer.from(body), Buffer.from('\r\n')]);
const close = Buffer.from(`--${BOUNDARY}--\r\n`);

describe('multipart/form-data bodies (busboy, with part and header limits)', () => {
  it('returns the file part named by the route, with its type and name', async () => {
    const pdf = Buffer.from('%PDF-1.7 a policy');
    const body = Buffer.concat([part('Content-Disposition: form-data; name="note"', 'hello'), part('Content-Disposition: form-data; name="file"; filename="policy.pdf"\r\nContent-Type: application/pdf', pdf), close]);
    expect(await multipartFile(body, TYPE, 'file')).toEqual({ bytes: pdf, contentType: 'application/pdf', filename: 'policy.pdf', parts: {} });
  });

  it('refuses a body of 2.9 million empty parts (25 MB), or of a million named ones, at once with a 422', async () => {
    const empty = `--${BOUNDARY}\r\n\r\n\r\n`;
    const emptyParts = Buffer.concat([Buffer.from(empty.repeat(2_900_000), 'latin1'), close]);
    expect(emptyParts.length).toBeGreaterThan(25_000_000);
    await expect(multipartFile(emptyParts, TYPE, 'file')).rejects.toMatchObject({ code: 'validation_error', issues: [expect.objectContaining({ loc: ['body', 'file'] })] });
    // Well-formed parts: refused after the 16th, not walked to the end.
    const named = Buffer.concat([Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="n"\r\n\r\n\r\n`.repeat(1_000_000), 'latin1'), close]);
    await expect(multipartFile(named, TYPE, 'file')).rejects.toMatchObject({ issues: [expect.objectContaining({ msg: expect.stringContaining(`more than ${MULTIPART_LIMITS.parts} parts`) })] });
  });

  it('refuses a part of more header lines than the limit, a body without the file, and a type without a boundary', async () => {
    const manyHeaders = Array.from({ length: 500 }, (_, i) => `X-H${i}: v`).join('\r\n');
    const body = Buffer.concat([part(`Content-Disposition: form-data; name="file"; filename="a.pdf"\r\n${manyHeaders}`, '%PDF-1.7'), close]);
    // Header pairs past the limit are dropped, never collected; the part still parses.
    expect((await multipartFile(body, TYPE, 'file')).bytes.toString()).toBe('%PDF-1.7');
    await expect(multipartFile(Buffer.concat([part('Content-Disposition: form-data; name="note"', 'x'), close]), TYPE, 'file')).rejects.toMatchObject({ issues: [expect.objectContaining({ type: 'missing' })] });
    await expect(multipartFile(Buffer.from('x'), 'multipart/form-data', 'file')).rejects.toMatchObject({ code: 'unsupported_media_type' });
  });
});

describe('multipart/form-data with the other parts a route takes', () => {
  it('returns them by name, in the order sent, and refuses an empty one naming it', async () => {
    const part = (name: string, text: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}.txt"\r\nContent-Type: text/plain\r\n\r\n${text}\r\n`;
    const body = Buffer.from(part('claims', 'A') + part('remittance', 'R') + part('claims', 'B') + `--${BOUNDARY}--\r\n`);
    const r = await multipartFile(body, TYPE, 'remittance', ['claims']);
    expect(r.bytes.toString()).toBe('R');
    expect(Object.fromEntries(Object.entries(r.parts).map(([k, v]) => [k, v.map((b) => b.toString())]))).toEqual({ claims: ['A', 'B'] });
    const empty = Buffer.from(part('remittance', 'R') + part('claims', '') + `--${BOUNDARY}--\r\n`);
    await expect(multipartFile(empty, TYPE, 'remittance', ['claims'])).rejects.toMatchObject({ issues: [{ loc: ['body', 'claims'], type: 'missing' }] });
  });
});
