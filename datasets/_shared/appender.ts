import type { DuckDBAppender } from '@duckdb/node-api';
import type { Column } from '../types.js';

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
