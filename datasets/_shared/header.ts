import { IngestError } from './issue.js';
import type { SourceFile, SourceRecord } from './source.js';
import { clean } from './values.js';

/** True when every cell of a record is blank (separator rows like `,,,,,,`). */
export function isBlankRecord(fields: string[]): boolean {
  return fields.every((f) => clean(f) === '');
}

/**
 * Pulls records until `isHeader` matches, so preambles of any length (title lines, copyright
 * notices, stacked caption rows) are skipped by content, never by a fixed count. Returns the
 * header and the caption rows above it.
 */
export async function findHeader(
  records: AsyncIterator<SourceRecord>,
  file: SourceFile,
  isHeader: (fields: string[]) => boolean,
  expected: string,
  maxLines = 200,
): Promise<{ header: SourceRecord; above: SourceRecord[] }> {
  const above: SourceRecord[] = [];
  for (;;) {
    const next = await records.next();
    if (next.done) {
      if (above.length === 0) throw new IngestError('file is empty', file.name, 1);
      throw new IngestError(`no header row found (expected ${expected})`, file.name, above[above.length - 1]!.line);
    }
    const rec = next.value;
    if (isHeader(rec.fields.map(clean))) return { header: rec, above };
    above.push(rec);
    if (rec.line > maxLines) throw new IngestError(`no header row in the first ${maxLines} lines (expected ${expected})`, file.name, rec.line);
  }
}

/**
 * The records `records` has left (those after the header `findHeader` found, or all of them),
 * blank ones (`isBlankRecord`) skipped unless `keepBlank`: the loop every row parser runs, as
 * `for await (const { line, fields } of dataRecords(records))`. It pulls one record per step and
 * never closes `records`, so an error or an early stop leaves the reader where the loop left it.
 */
export function dataRecords(records: AsyncIterator<SourceRecord>, opts: { keepBlank?: boolean } = {}): AsyncIterable<SourceRecord> {
  return {
    [Symbol.asyncIterator]: () => ({
      async next(): Promise<IteratorResult<SourceRecord>> {
        for (;;) {
          const n = await records.next();
          if (n.done || opts.keepBlank || !isBlankRecord(n.value.fields)) return n;
        }
      },
    }),
  };
}

/** Normalises a header cell for matching: upper case, single spaces, no footnote stars. */
export function normHeader(s: string): string {
  return clean(s).replace(/\*+/g, '').replace(/\s+/g, ' ').toUpperCase();
}

/**
 * Column positions of a header found by name: `need` one (its absence refuses the file, naming the
 * column, file and line), or `find` an optional one (-1 when absent). `names` are the header cells
 * as the caller normalised them.
 */
export function columnsOf(names: readonly string[], file: string, line?: number) {
  const find = (pred: (s: string) => boolean): number => names.findIndex(pred);
  const need = (name: string, pred: (s: string) => boolean): number => {
    const i = find(pred);
    if (i < 0) throw new IngestError(`header has no ${name} column`, file, line, name);
    return i;
  };
  return { find, need };
}
