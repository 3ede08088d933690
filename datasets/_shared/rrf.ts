import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ParseContext } from '../types.js';
import { IngestError } from './issue.js';
import type { SourceFile } from './source.js';
import type { Issue } from '../../warehouse/errors.js';

/**
 * NLM's Rich Release Format files of 18 fields (UMLS MRCONSO, RxNorm RXNCONSO): pipe-delimited,
 * no header, a trailing `|`. Streams `file` line by line (a release is millions of lines, more
 * than one string holds), refuses a file whose first line is not `firstLine` (`name` is the
 * file's, `start` how its lines begin), and yields each line's 18 fields or the issue of a line of
 * another shape.
 */
export async function* rrfLines(
  file: SourceFile,
  ctx: ParseContext,
  firstLine: RegExp,
  name: string,
  start: string,
): AsyncIterable<{ line: number; fields: string[]; issue?: undefined } | { line: number; fields?: undefined; issue: Issue }> {
  const input = createReadStream(file.path, { encoding: 'utf8', highWaterMark: 1 << 20 });
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  for await (const raw of lines) {
    line++;
    if (line % 65536 === 0) ctx.onBytes(input.bytesRead);
    if (raw === '') continue;
    if (line === 1 && !firstLine.test(raw)) {
      input.destroy();
      throw new IngestError(`not an ${name}.RRF file: the first line is not ${start}`, file.name, 1);
    }
    const f = raw.split('|');
    // 18 fields and the trailing | leave 19 parts, the last empty.
    if (f.length !== 19 || f[18] !== '') {
      yield { line, issue: { loc: ['row', line, 'row'], msg: `an ${name} line has 18 fields and a trailing | (found ${f.length - 1} separators)`, type: 'value_error', input: raw.slice(0, 200) } };
      continue;
    }
    yield { line, fields: f.slice(0, 18) };
  }
}
