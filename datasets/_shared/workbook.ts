import { open } from 'node:fs/promises';
import type { SourceFile, SourceRecord } from './source.js';
import { IngestError } from './issue.js';
import { isoDateOf } from './dates.js';

/** True when a file starts with the zip signature: an `.xlsx` workbook rather than a CSV export. */
export async function isWorkbook(file: SourceFile): Promise<boolean> {
  const fh = await open(file.path, 'r');
  try {
    const buf = Buffer.alloc(4);
    const { bytesRead } = await fh.read(buf, 0, 4, 0);
    return bytesRead === 4 && buf.readUInt32LE(0) === 0x04034b50;
  } finally {
    await fh.close();
  }
}

/** A workbook cell as the text its CSV export would hold: numbers in shortest round-trip form, dates ISO, booleans Y/N. */
export function xlsxCellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return isoDateOf(v);
  if (typeof v === 'boolean') return v ? 'Y' : 'N';
  return String(v);
}

/**
 * The first sheet of a workbook as records (`line`: the spreadsheet row), so a dataset's CSV row
 * mapping applies unchanged; `read-excel-file` is loaded only for workbooks.
 */
export async function* workbookRecords(file: SourceFile, onBytes: (bytes: number) => void): AsyncGenerator<SourceRecord> {
  const { readSheet } = await import('read-excel-file/node');
  let data: unknown[][];
  try {
    data = (await readSheet(file.path)) as unknown[][];
  } catch (e) {
    throw new IngestError(`unreadable workbook: ${(e as Error).message}`, file.name);
  }
  onBytes(file.size);
  for (const [i, row] of data.entries()) yield { line: i + 1, fields: row.map(xlsxCellText) };
}
