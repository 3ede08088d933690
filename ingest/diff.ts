import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { sourceTables, type TableSpec } from '../datasets/_shared/table.js';
import type { Dataset } from '../datasets/types.js';
import { ingestDuckDbConfig } from './duckdb_config.js';
import { HASH_PASS_ROWS, hashPasses, hashShare } from './stage/passes.js';
import type { ChangeCounts } from '../warehouse/manifest.js';
import { UsageError } from '../warehouse/errors.js';
import { quoteIdent, quoteString } from '../warehouse/sql_quote.js';

export interface Samples {
  added: string[];
  removed: string[];
  changed: string[];
}

/** How often one value column changed, with a few rows' values before and after. */
export interface ColumnChange {
  changed: number;
  samples: { key: string; before: string | null; after: string | null }[];
}

/** Added/removed/changed/unchanged keys of one table between two versions. */
export interface TableDiff {
  counts: ChangeCounts;
  samples: Samples;
  /** Per value column (release metadata excluded): rows whose value changed. Empty on a first load. */
  columns: Record<string, ColumnChange>;
  /** Rows in which one of the watched columns (`--fail-on-changed N%:col,...`) changed. */
  watched_changed?: number;
  /**
   * Value columns not compared because one of the two versions has no value in any row: the
   * source format does not carry them (the CLFS .txt layout has no descriptors), so their absence
   * is not a change of every row.
   */
  not_compared?: string[];
}

/** The diff of a dataset: per table, and summed (`counts`; samples of the main table). */
export interface DiffResult extends TableDiff {
  tables: Record<string, TableDiff>;
}

const rowsOf = async (conn: DuckDBConnection, sql: string, params?: (string | number)[]) => (await conn.runAndReadAll(sql, params)).getRowObjectsJS();

async function tableNames(conn: DuckDBConnection, catalog: string): Promise<Set<string>> {
  return new Set((await rowsOf(conn, `SELECT table_name FROM duckdb_tables() WHERE database_name = $1`, [catalog])).map((r) => String(r.table_name)));
}

/** A table's diff on its first load: every row is added; no join needed (it would cost seconds on NCCI files). */
async function firstLoadTable(query: (sql: string) => Promise<Record<string, unknown>[]>, t: TableSpec, ref: string, sampleSize: number): Promise<TableDiff> {
  const keyText = `concat_ws('|', ${t.key.map(quoteIdent).map((k) => `coalesce(CAST(t.${k} AS VARCHAR), '')`).join(', ')})`;
  const n = Number((await query(`SELECT count(*) AS n FROM ${ref}`))[0]!.n);
  const first = await query(`SELECT ${keyText} AS k FROM ${ref} t ORDER BY k LIMIT ${sampleSize}`);
  return { counts: { added: n, removed: 0, changed: 0, unchanged: 0 }, samples: { added: first.map((r) => String(r.k)), removed: [], changed: [] }, columns: {} };
}

/**
 * The diff of a first load, on the connection that staged it (no second DuckDB instance; the
 * same result `diffVersionFiles` gives with no previous file).
 */
export async function firstLoadDiff(dataset: Dataset<any>, query: (sql: string) => Promise<Record<string, unknown>[]>, sampleSize = 5): Promise<DiffResult> {
  return combine(dataset, Object.fromEntries(await Promise.all(sourceTables(dataset.tables).map(async (t) => [t.name, await firstLoadTable(query, t, quoteIdent(t.name), sampleSize)] as const))), sampleSize);
}

async function diffTable(conn: DuckDBConnection, t: TableSpec, hasOld: boolean, sampleSize: number, watch: string[], passRows: number): Promise<TableDiff> {
  const tbl = quoteIdent(t.name);
  const keyTextOf = (alias: string) => `concat_ws('|', ${t.key.map(quoteIdent).map((k) => `coalesce(CAST(${alias}.${k} AS VARCHAR), '')`).join(', ')})`;
  if (!hasOld) return firstLoadTable((sql) => rowsOf(conn, sql), t, `new_v.main.${tbl}`, sampleSize);
  const oldRef = `old_v.main.${tbl}`;
  const oldCols = new Set((await rowsOf(conn, `SELECT column_name FROM (DESCRIBE SELECT * FROM ${oldRef})`)).map((r) => String(r.column_name)));
  // Value columns only: a release's year, quarter or effective date moving changes no row.
  const candidates = t.columns.map((c) => c.name).filter((c) => !t.key.includes(c) && !t.meta.includes(c) && oldCols.has(c));
  // A column one version leaves empty in every row is not in that source's format: not compared.
  const filled = async (ref: string) =>
    candidates.length ? (await rowsOf(conn, `SELECT ${candidates.map((c, i) => `count(${quoteIdent(c)})::BIGINT AS c${i}`).join(', ')} FROM ${ref}`))[0]! : {};
  const [inOld, inNew] = await Promise.all([filled(oldRef), filled(`new_v.main.${tbl}`)]);
  const absent = candidates.filter((_c, i) => Number(inOld[`c${i}`]) === 0 || Number(inNew[`c${i}`]) === 0);
  const values = candidates.filter((c) => !absent.includes(c));
  const on = t.key.map(quoteIdent).map((k) => `o.${k} IS NOT DISTINCT FROM n.${k}`).join(' AND ');
  const moved = values.length
    ? `list_filter([${values.map((c) => `CASE WHEN o.${quoteIdent(c)} IS DISTINCT FROM n.${quoteIdent(c)} THEN ${quoteString(c)} END`).join(', ')}], x -> x IS NOT NULL)`
    : '[]::VARCHAR[]';
  const pack = (alias: string) => (values.length ? `to_json(struct_pack(${values.map((c) => `${quoteIdent(c)} := CAST(${alias}.${quoteIdent(c)} AS VARCHAR)`).join(', ')}))` : 'NULL');
  const d = `d_${t.name.replace(/\W/g, '_')}`;
  // The join in passes over hash partitions of the key's text (equal keys, equal text, whatever
  // each version's column types), keeping only the rows that differ: the diff's memory follows the
  // changes, not the file. Every row of the new version is added, changed or unchanged.
  const [[o], [n]] = await Promise.all([rowsOf(conn, `SELECT count(*) AS n FROM ${oldRef}`), rowsOf(conn, `SELECT count(*) AS n FROM new_v.main.${tbl}`)]);
  const passes = hashPasses(Math.max(Number(o!.n), Number(n!.n)), passRows);
  for (let i = 0; i < passes; i++) {
    await conn.run(`
    ${i === 0 ? `CREATE TEMP TABLE ${d} AS` : `INSERT INTO ${d}`}
    SELECT * FROM (SELECT CASE WHEN o.o_present IS NULL THEN 'added'
                WHEN n.n_present IS NULL THEN 'removed'
                WHEN len(${moved}) > 0 THEN 'changed' ELSE 'unchanged' END AS kind,
           CASE WHEN n.n_present THEN ${keyTextOf('n')} ELSE ${keyTextOf('o')} END AS k,
           CASE WHEN o.o_present AND n.n_present THEN ${moved} END AS cols,
           -- Values before and after, for changed rows only (the samples read them).
           CASE WHEN o.o_present AND n.n_present AND len(${moved}) > 0 THEN ${pack('o')} END AS o_vals,
           CASE WHEN o.o_present AND n.n_present AND len(${moved}) > 0 THEN ${pack('n')} END AS n_vals
    FROM (SELECT *, true AS o_present FROM ${oldRef} x WHERE ${hashShare(keyTextOf('x'), i, passes)}) o
    FULL OUTER JOIN (SELECT *, true AS n_present FROM new_v.main.${tbl} x WHERE ${hashShare(keyTextOf('x'), i, passes)}) n ON ${on}) WHERE kind <> 'unchanged'`);
  }
  const counts = Object.fromEntries((await rowsOf(conn, `SELECT kind, count(*)::INTEGER AS n FROM ${d} GROUP BY kind`)).map((r) => [String(r.kind), Number(r.n)]));
  counts.unchanged = Number(n!.n) - (counts.added ?? 0) - (counts.changed ?? 0);
  const sample = async (kind: string) => (await rowsOf(conn, `SELECT k FROM ${d} WHERE kind = $1 ORDER BY k LIMIT ${sampleSize}`, [kind])).map((r) => String(r.k));
  const columns: Record<string, ColumnChange> = {};
  for (const r of await rowsOf(conn, `SELECT col, count(*)::INTEGER AS n FROM (SELECT unnest(cols) AS col FROM ${d} WHERE kind = 'changed') GROUP BY col ORDER BY col`)) {
    const col = String(r.col);
    const rows = await rowsOf(conn, `SELECT k, json_extract_string(o_vals, $1) AS b, json_extract_string(n_vals, $1) AS a FROM ${d} WHERE kind = 'changed' AND list_contains(cols, $2) ORDER BY k LIMIT 3`, [`$.${col}`, col]);
    columns[col] = { changed: Number(r.n), samples: rows.map((x) => ({ key: String(x.k), before: x.b === null ? null : String(x.b), after: x.a === null ? null : String(x.a) })) };
  }
  const w = watch.filter((c) => values.includes(c));
  const watched = w.length
    ? Number((await rowsOf(conn, `SELECT count(*)::INTEGER AS n FROM ${d} WHERE kind = 'changed' AND list_has_any(cols, [${w.map(quoteString).join(', ')}])`))[0]!.n)
    : undefined;
  return {
    counts: { added: counts.added ?? 0, removed: counts.removed ?? 0, changed: counts.changed ?? 0, unchanged: counts.unchanged ?? 0 },
    samples: { added: await sample('added'), removed: await sample('removed'), changed: await sample('changed') },
    columns,
    ...(watched !== undefined ? { watched_changed: watched } : {}),
    ...(absent.length ? { not_compared: absent } : {}),
  };
}

/** Per-table diffs summed, with the main table's samples (every table's, named, when several). */
function combine(dataset: Dataset<any>, tables: Record<string, TableDiff>, sampleSize: number): DiffResult {
  const sum: ChangeCounts = { added: 0, removed: 0, changed: 0, unchanged: 0 };
  for (const td of Object.values(tables)) for (const k of Object.keys(sum) as (keyof ChangeCounts)[]) sum[k] += td.counts[k];
  const main = tables[dataset.tables[0]!.name];
  const multi = sourceTables(dataset.tables).length > 1;
  const samples: Samples = multi
    ? {
        added: Object.entries(tables).flatMap(([n, t]) => t.samples.added.map((k) => `${n}:${k}`)).slice(0, sampleSize),
        removed: Object.entries(tables).flatMap(([n, t]) => t.samples.removed.map((k) => `${n}:${k}`)).slice(0, sampleSize),
        changed: Object.entries(tables).flatMap(([n, t]) => t.samples.changed.map((k) => `${n}:${k}`)).slice(0, sampleSize),
      }
    : (main?.samples ?? { added: [], removed: [], changed: [] });
  // Per column: named `table.column` when the dataset has several tables.
  const columns: Record<string, ColumnChange> = {};
  for (const [n, t] of Object.entries(tables)) for (const [c, v] of Object.entries(t.columns)) columns[multi ? `${n}.${c}` : c] = v;
  const watched = Object.values(tables).some((t) => t.watched_changed !== undefined) ? Object.values(tables).reduce((a, t) => a + (t.watched_changed ?? 0), 0) : undefined;
  return { counts: sum, samples, tables, columns, ...(watched !== undefined ? { watched_changed: watched } : {}) };
}

/**
 * Compares two version files of a dataset table by table, by each table's key columns: a row
 * is added, removed, changed (same key, some other column differs) or unchanged. DuckDB does
 * the join, so this scales to the multi-million-row NCCI files. A table new in this version
 * counts as all added.
 */
export async function diffVersionFiles(
  dataset: Dataset<any>,
  fromFile: string | null,
  toFile: string,
  sampleSize = 5,
  watch: string[] = [],
  keysOut?: string,
  memoryMb?: number,
  passRows = HASH_PASS_ROWS,
): Promise<DiffResult> {
  const inst = await DuckDBInstance.create(':memory:', ingestDuckDbConfig(memoryMb, keysOut ? `${keysOut}.spill` : join(tmpdir(), `rcm-diff-${process.pid}.spill`)));
  const conn = await inst.connect();
  try {
    await conn.run(`ATTACH ${quoteString(toFile)} AS new_v (READ_ONLY)`);
    let old = new Set<string>();
    if (fromFile) {
      await conn.run(`ATTACH ${quoteString(fromFile)} AS old_v (READ_ONLY)`);
      old = await tableNames(conn, 'old_v');
    }
    const present = await tableNames(conn, 'new_v');
    const tables: Record<string, TableDiff> = {};
    for (const t of sourceTables(dataset.tables)) if (present.has(t.name)) tables[t.name] = await diffTable(conn, t, old.has(t.name), sampleSize, watch, passRows);
    // Every key that changed, kept beside the change record (the change feeds name what changed).
    const compared = sourceTables(dataset.tables).filter((t) => present.has(t.name) && old.has(t.name));
    if (keysOut && compared.length) {
      const parts = compared.map((t) => `SELECT ${quoteString(t.name)} AS "table", kind, k AS "key", coalesce(cols, []::VARCHAR[]) AS columns FROM d_${t.name.replace(/\W/g, '_')} WHERE kind <> 'unchanged'`);
      await conn.run(`COPY (${parts.join(' UNION ALL ')} ORDER BY "table", kind, "key") TO ${quoteString(keysOut)} (FORMAT json)`);
    }
    return combine(dataset, tables, sampleSize);
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

/** The columns a diff compares: each table's columns but its key and its release metadata (`table.column` when several tables). */
export function valueColumns(dataset: Dataset<any>): string[] {
  const tables = sourceTables(dataset.tables);
  const multi = tables.length > 1;
  return tables.flatMap((t) => t.columns.map((c) => c.name).filter((c) => !t.key.includes(c) && !t.meta.includes(c)).map((c) => (multi ? `${t.name}.${c}` : c)));
}

/**
 * The one check of a `--fail-on-changed N%:col,...` gate's columns (`rcm ingest` and `rcm diff`
 * alike): a name that is not a value column of the dataset would switch the gate off silently.
 */
export function checkGateColumns(dataset: Dataset<any>, columns: string[] | undefined): void {
  const known = valueColumns(dataset);
  const unknown = (columns ?? []).filter((c) => !known.includes(c));
  if (unknown.length) throw new UsageError(`--fail-on-changed names ${unknown.join(', ')}, not a value column of ${dataset.id} (value columns: ${known.join(', ')})`);
}

/** What `rcm diff` prints and a dry run reports: the diff, the shares it implies, and what failed. */
export interface DiffReport extends DiffResult {
  dataset: string;
  from_version: string | null;
  to_version: string;
  /** Keys of the previous version (removed + changed + unchanged). */
  from_rows: number;
  /** Share of the previous keys removed (a delta release: its explicit removals only). */
  removed_pct: number;
  changed_pct: number;
  /** A delta release's explicit removals (NPPES deactivations), the removals its gate counts. */
  explicit_removals?: number;
  thresholds: { removed_pct?: number; changed_pct?: number; changed_columns?: string[] };
  /** Crossed `--fail-on-*` thresholds and publish guards, in words; empty when the change may publish. */
  failed: string[];
  /** The version compared against is a seed the release replaces: its keys leave service, none is removed from a release. */
  from_seed?: true;
}

export interface Gate {
  /** `--fail-on-removed`, percent. */
  failOnRemovedPct?: number;
  /** `--fail-on-changed`, percent. */
  failOnChangedPct?: number;
  /** `--fail-on-changed N%:col,...`: only rows where one of these value columns changed count. */
  failOnChangedColumns?: string[];
  /** `RCM_MAX_REMOVED`, a share (0.05); undefined: no guard (rcm diff). */
  maxRemovedShare?: number;
  /**
   * A delta release: the base keys it explicitly removes (NPPES deactivations). Then only these
   * count as removals for `--fail-on-removed` and the guard (rows the delta replaced wholesale,
   * such as an NPI's practice locations, are not removals of the registry).
   */
  explicitRemovals?: number;
}

/**
 * The report of a diff with the gate applied: `--fail-on-*` thresholds, and the publish guard
 * (more than `maxRemovedShare` of the previous keys removed, or fewer rows left than 1 - share
 * of the previous rows). A first load has nothing to compare and fails nothing.
 */
export function toReport(dataset: string, from: string | null, to: string, d: DiffResult, gate: Gate = {}): DiffReport {
  const c = d.counts;
  const base = c.removed + c.changed + c.unchanged;
  const after = c.added + c.changed + c.unchanged;
  const removed = gate.explicitRemovals ?? c.removed;
  const removedPct = base ? (removed * 100) / base : 0;
  const changedPct = base ? (c.changed * 100) / base : 0;
  const cols = gate.failOnChangedColumns?.length ? gate.failOnChangedColumns : undefined;
  const gatedPct = cols ? (base ? ((d.watched_changed ?? 0) * 100) / base : 0) : changedPct;
  const failed: string[] = [];
  if (base > 0) {
    if (gate.failOnRemovedPct !== undefined && removedPct > gate.failOnRemovedPct) failed.push(`removed ${removedPct.toFixed(2)}% > ${gate.failOnRemovedPct}% (--fail-on-removed)`);
    if (gate.failOnChangedPct !== undefined && gatedPct > gate.failOnChangedPct) {
      failed.push(`changed ${gatedPct.toFixed(2)}%${cols ? ` in ${cols.join(', ')}` : ''} > ${gate.failOnChangedPct}% (--fail-on-changed)`);
    }
    const m = gate.maxRemovedShare;
    if (m !== undefined) {
      if (removed > m * base) failed.push(`removes ${removed} of ${base} keys of ${from} (${removedPct.toFixed(2)}% > RCM_MAX_REMOVED ${(m * 100).toFixed(2)}%); pass --allow-removals if that is intended`);
      else if (gate.explicitRemovals === undefined && after < (1 - m) * base) failed.push(`leaves ${after} rows where ${from} had ${base} (fewer than ${((1 - m) * 100).toFixed(2)}%); pass --allow-removals if that is intended`);
    }
  }
  return {
    dataset,
    from_version: from,
    to_version: to,
    from_rows: base,
    ...d,
    removed_pct: removedPct,
    changed_pct: changedPct,
    ...(gate.explicitRemovals !== undefined ? { explicit_removals: gate.explicitRemovals } : {}),
    thresholds: { removed_pct: gate.failOnRemovedPct, changed_pct: gate.failOnChangedPct, ...(cols ? { changed_columns: cols } : {}) },
    failed,
  };
}
