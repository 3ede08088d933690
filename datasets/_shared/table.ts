import { z } from 'zod';
import type { Column, ColumnType } from '../types.js';

/**
 * One table of a dataset, declared once: its row schema (the TypeScript row type is
 * `z.infer` of it, its DuckDB columns are derived from it, response schemas may pick from it)
 * and the key columns that identify a row within a version.
 */
export interface TableSpec<S extends z.ZodObject = z.ZodObject> {
  name: string;
  row: S;
  key: string[];
  columns: Column[];
  /**
   * Columns that describe the release rather than the row (its year, quarter, a release-wide
   * effective date or conversion factor): a diff does not count a row changed because they moved.
   */
  meta: string[];
  /**
   * Built by the dataset's `finalize` from its other tables (a search index), never parsed: a
   * diff, the change counts, the key check and the ingest's row count leave it out.
   */
  derived?: true;
}

/** The tables a release's rows live in: every table but the derived ones (diffs and counts read these). */
export function sourceTables<T extends Pick<TableSpec, 'derived'>>(tables: T[]): T[] {
  return tables.filter((t) => !t.derived);
}

type Def = { type: string; innerType?: unknown; in?: unknown; format?: string | null };
const defOf = (s: unknown) => (s as { _zod: { def: Def } })._zod.def;

/** The schema under optional/nullable/default wrappers (the input side of a pipe). */
function unwrap(s: unknown): unknown {
  let t = s;
  for (;;) {
    const d = defOf(t);
    if ((d.type === 'optional' || d.type === 'nullable' || d.type === 'default' || d.type === 'prefault') && d.innerType) t = d.innerType;
    else if (d.type === 'pipe' && d.in) t = d.in;
    else return t;
  }
}

/**
 * The DuckDB type of a field: text (strings, enums, string literals) VARCHAR, integers
 * INTEGER, other numbers DOUBLE, booleans BOOLEAN, arrays/objects/records JSON (stored as
 * VARCHAR text). `.meta({ duckdb: 'BIGINT' })` overrides.
 */
export function columnTypeOf(field: z.ZodType): ColumnType {
  const forced = z.globalRegistry.get(field)?.duckdb;
  if (typeof forced === 'string') return forced as ColumnType;
  const inner = unwrap(field) as { format?: string | null; _zod: { def: Def } };
  const d = defOf(inner);
  switch (d.type) {
    case 'string':
    case 'enum':
    case 'literal':
      return 'VARCHAR';
    case 'number':
      return inner.format === 'safeint' || inner.format === 'int32' ? 'INTEGER' : 'DOUBLE';
    case 'int':
      return 'INTEGER';
    case 'boolean':
      return 'BOOLEAN';
    default:
      return 'JSON';
  }
}

/** Columns of a row schema, in key order, with `.describe()` text as the description. */
export function columnsOf(row: z.ZodObject): Column[] {
  return Object.entries(row.shape).map(([name, f]) => {
    const field = f as z.ZodType;
    const description = field.description ?? (unwrap(field) as z.ZodType).description;
    return { name, type: columnTypeOf(field), ...(description ? { description } : {}) };
  });
}

/** Declares a table: name, row schema and key columns (checked against the schema). */
export function table<S extends z.ZodObject>(name: string, row: S, key: (keyof z.infer<S> & string)[], meta: (keyof z.infer<S> & string)[] = []): TableSpec<S> {
  const columns = columnsOf(row);
  for (const k of key) if (!columns.some((c) => c.name === k)) throw new Error(`table ${name}: key column ${k} is not in its row schema`);
  for (const k of meta) if (!columns.some((c) => c.name === k)) throw new Error(`table ${name}: metadata column ${k} is not in its row schema`);
  return { name, row, key, columns, meta };
}

/** Declares a derived table (see `TableSpec.derived`), filled by the dataset's `finalize`. */
export function derivedTable<S extends z.ZodObject>(name: string, row: S, key: (keyof z.infer<S> & string)[]): TableSpec<S> {
  return { ...table(name, row, key), derived: true };
}


/** The DDL type of a column (JSON text lives in VARCHAR). */
export const sqlType = (t: ColumnType): string => (t === 'JSON' ? 'VARCHAR' : t);

/** `CREATE TABLE` for a table's columns plus the `version` column every stored row carries. */
export function createTableSql(name: string, columns: Column[]): string {
  const cols = [...columns, { name: 'version', type: 'VARCHAR' as const }];
  return `CREATE TABLE "${name.replace(/"/g, '""')}" (${cols.map((c) => `"${c.name.replace(/"/g, '""')}" ${sqlType(c.type)}`).join(', ')})`;
}

/** A row read from a snapshot view with its JSON columns parsed back into values. */
export function fromStored<S extends z.ZodObject>(t: TableSpec<S>, row: Record<string, unknown>): z.infer<S> {
  const out: Record<string, unknown> = { ...row };
  for (const c of t.columns) {
    if (c.type === 'JSON' && typeof out[c.name] === 'string') out[c.name] = JSON.parse(out[c.name] as string);
  }
  return out as z.infer<S>;
}
