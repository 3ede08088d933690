import type { DuckDBConnection } from '@duckdb/node-api';
import type { RecordsSpec } from '../../datasets/types.js';
import { writeRecordFile } from '../../warehouse/record_file.js';

/** One streamed result of (key, JSON text) rows, read a row at a time. */
class Cursor {
  private rows: unknown[][] = [];
  private at = 0;
  private done = false;
  constructor(private readonly chunks: AsyncIterator<unknown[][]>) {}

  /** The current row's key and text, or null past the last. */
  async peek(): Promise<[number, string] | null> {
    while (this.at >= this.rows.length) {
      if (this.done) return null;
      const r = await this.chunks.next();
      if (r.done) {
        this.done = true;
        return null;
      }
      this.rows = r.value;
      this.at = 0;
    }
    const row = this.rows[this.at]!;
    return [Number(row[0]), String(row[1])];
  }

  skip(): void {
    this.at++;
  }
}

/**
 * Writes a dataset's record sidecar (`Dataset.records`) from the staged version's final tables:
 * the main query and each list's streamed on connections of their own (`connect` opens one on
 * the staged file) and merged by key, a chunk
 * at a time, into `path`. A list item whose key has no main row is not in any record (a lookup
 * from DuckDB finds no such record either).
 */
export async function writeRecords(connect: () => Promise<DuckDBConnection>, spec: RecordsSpec, path: string): Promise<number> {
  const conns = await Promise.all([spec.main, ...spec.lists].map(() => connect()));
  try {
    const [main, ...lists] = await Promise.all([spec.main, ...spec.lists].map(async (q, i) => (await conns[i]!.stream(q.sql)).yieldRowsJs()[Symbol.asyncIterator]()));
    const cursors = lists.map((l) => new Cursor(l));
    const names = spec.lists.map((l) => JSON.stringify(l.name));
    async function* records(): AsyncGenerator<[number, string][]> {
      for (let r = await main!.next(); !r.done; r = await main!.next()) {
        const out: [number, string][] = [];
        for (const row of r.value) {
          const key = Number(row[0]);
          const parts = [`{${JSON.stringify(spec.main.name)}:${String(row[1])}`];
          for (const [i, c] of cursors.entries()) {
            const items: string[] = [];
            for (let item = await c.peek(); item && item[0] <= key; item = await c.peek()) {
              if (item[0] === key) items.push(item[1]);
              c.skip();
            }
            parts.push(`${names[i]}:[${items.join(',')}]`);
          }
          out.push([key, `${parts.join(',')}}`]);
        }
        yield out;
      }
    }
    return await writeRecordFile(path, records());
  } finally {
    for (const c of conns) c.closeSync();
  }
}
