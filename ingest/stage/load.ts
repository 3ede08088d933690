import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import { open } from 'node:fs/promises';
import { IngestError } from '../../datasets/_shared/issue.js';
import type { FileSample, SourceFile } from '../../datasets/_shared/source.js';
import { createTableSql, type TableSpec } from '../../datasets/_shared/table.js';
import type { Column, Dataset } from '../../datasets/types.js';
import { quoteIdent } from '../../warehouse/sql_quote.js';
import type { IngestProgress } from '../pipeline.js';

// The second stage: the files become rows of the staged version's tables, and rejects.

/** A query on the staging connection, rows as plain objects. */
export type RunSql = (sql: string) => Promise<Record<string, unknown>[]>;

/** `RunSql` on `conn`: a statement's rows as JS objects. */
export const runSqlOn =
  (conn: DuckDBConnection): RunSql =>
  async (sql) =>
    (await conn.runAndReadAll(sql)).getRowObjectsJS();

/** What a load put in the staged tables. */
export interface Loaded {
  /** Rows over all tables. */
  rows: number;
  tableRows: Map<string, number>;
  rejects: number;
  /** One JSONL line per rejected row: `{file, line, issues}`. */
  rejectLines: string[];
}

/** Appends one typed cell (null for null/undefined) by the column's declared DuckDB type. */
export function appendValue(app: DuckDBAppender, col: Column, v: unknown): void {
  if (v === null || v === undefined) return app.appendNull();
  switch (col.type) {
    case 'VARCHAR':
      return app.appendVarchar(String(v));
    case 'JSON':
      return app.appendVarchar(JSON.stringify(v));
    case 'DOUBLE':
      return app.appendDouble(Number(v));
    case 'INTEGER':
      return app.appendInteger(Number(v));
    case 'BIGINT':
      return app.appendBigInt(BigInt(v as number));
    case 'BOOLEAN':
      return app.appendBoolean(Boolean(v));
  }
}

/** The last byte of a file is a line terminator (a file cut short usually is not). */
async function endsWithNewline(f: SourceFile): Promise<boolean> {
  if (f.size === 0) return true;
  const fh = await open(f.path, 'r');
  try {
    const b = Buffer.alloc(1);
    await fh.read(b, 0, 1, f.size - 1);
    return b[0] === 0x0a || b[0] === 0x0d;
  } finally {
    await fh.close();
  }
}

/**
 * Creates the dataset's tables on the staging connection and fills them: with the dataset's
 * native loader when it has one and takes the files, else row by row from its parser through
 * DuckDB appenders. Every row carries the version `label`.
 */
export async function loadRows(
  dataset: Dataset<any>,
  conn: DuckDBConnection,
  run: RunSql,
  files: SourceFile[],
  samples: FileSample[],
  label: string,
  onProgress?: (p: IngestProgress) => void,
): Promise<Loaded> {
  const started = Date.now();
  const totalBytes = files.reduce((a, f) => a + f.size, 0);
  const main = dataset.tables[0]!;
  for (const t of dataset.tables) await conn.run(createTableSql(t.name, t.columns));
  const res = dataset.loadNative ? await dataset.loadNative(files, samples, run, quoteIdent(main.name), label) : null;
  if (res) {
    const tableRows = new Map<string, number>(dataset.tables.map((t) => [t.name, 0]));
    if (res.tables) for (const [t, n] of Object.entries(res.tables)) tableRows.set(t, n);
    else tableRows.set(main.name, res.rows);
    // A native loader names the part a reject came from in its issues' ctx.file.
    const rejectLines = res.rejects.map((r) => JSON.stringify({ file: String(r.issues[0]?.ctx?.file ?? files[0]!.name), line: r.line, issues: r.issues }));
    onProgress?.({ dataset: dataset.id, file: files.map((f) => f.name).join(','), rows: res.rows, rejects: res.rejects.length, bytes: totalBytes, total_bytes: totalBytes, elapsed_ms: Date.now() - started });
    return { rows: res.rows, tableRows, rejects: res.rejects.length, rejectLines };
  }
  return appendParsed(dataset, conn, files, label, onProgress, started, totalBytes);
}

/**
 * Rows an appender holds before it hands them to the table: DuckDB's appender keeps about 200,000
 * rows by default, outside its memory bound (the FDA directory's 111,502 products, whole, about
 * 100 MB of the load's peak).
 */
const APPENDER_FLUSH_ROWS = 8_192;

/** The row path: each file through the dataset's parser, rows appended, rejects collected. */
async function appendParsed(
  dataset: Dataset<any>,
  conn: DuckDBConnection,
  files: SourceFile[],
  label: string,
  onProgress: ((p: IngestProgress) => void) | undefined,
  started: number,
  totalBytes: number,
): Promise<Loaded> {
  const tableRows = new Map<string, number>(dataset.tables.map((t) => [t.name, 0]));
  const byName = new Map<string, TableSpec>(dataset.tables.map((t) => [t.name, t]));
  const main = dataset.tables[0]!;
  let rows = 0;
  let rejectCount = 0;
  const rejectLines: string[] = [];
  const appenders = new Map<string, DuckDBAppender>();
  const appenderOf = async (t: TableSpec) => {
    let a = appenders.get(t.name);
    if (!a) appenders.set(t.name, (a = await conn.createAppender(t.name)));
    return a;
  };
  let doneBytes = 0;
  let lastReport = 0;
  for (const file of files) {
    let fileBytes = 0;
    const report = (force = false) => {
      const t = Date.now();
      if (!onProgress || (!force && t - lastReport < 200)) return;
      lastReport = t;
      onProgress({ dataset: dataset.id, file: file.name, rows, rejects: rejectCount, bytes: doneBytes + fileBytes, total_bytes: totalBytes, elapsed_ms: t - started });
    };
    let fileRows = 0;
    let last: { line: number; rejected: boolean } | null = null;
    for await (const item of dataset.parse(file, { onBytes: (b) => (fileBytes = b) })) {
      if (item.issues) {
        rejectCount++;
        rejectLines.push(JSON.stringify({ file: file.name, line: item.line, issues: item.issues }));
        last = { line: item.line, rejected: true };
      } else {
        const t = item.table === undefined ? main : byName.get(item.table);
        if (!t) throw new IngestError(`the parser yielded a row for table '${item.table}', which ${dataset.id} does not declare`, file.name, item.line);
        const app = await appenderOf(t);
        const row = item.row as Record<string, unknown>;
        for (const c of t.columns) appendValue(app, c, row[c.name]);
        app.appendVarchar(label);
        app.endRow();
        const inTable = tableRows.get(t.name)! + 1;
        tableRows.set(t.name, inTable);
        if (inTable % APPENDER_FLUSH_ROWS === 0) app.flushSync();
        rows++;
        fileRows++;
        last = { line: item.line, rejected: false };
      }
      if ((rows + rejectCount) % 5000 === 0) report();
    }
    // A file cut short ends inside a record: no final line terminator, and that last record fails.
    if (last?.rejected && !(await endsWithNewline(file))) {
      throw new IngestError('the file is truncated: it ends inside a record (no final line break, and the last line does not parse)', file.name, last.line);
    }
    if (fileRows === 0 && !(last === null && dataset.mayBeEmpty?.(file))) {
      const why = rejectCount > 0 ? `every data row was rejected (${rejectCount}); first: ${rejectLines[0]}` : 'header found but no data rows';
      throw new IngestError(why, file.name);
    }
    doneBytes += file.size;
    fileBytes = 0;
    report(true);
  }
  for (const a of appenders.values()) a.closeSync();
  return { rows, tableRows, rejects: rejectCount, rejectLines };
}
