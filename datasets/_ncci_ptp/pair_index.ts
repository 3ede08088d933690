import { sidecarFallback, versionSidecar, type DatasetName, type SnapshotReader } from '../../warehouse/snapshot.js';
import { COLUMNS_SUFFIX, openColumnFile, readColumnFileSql } from '../../lib/sidecar/column.js';
import { quoteIdent } from '../../warehouse/sql_quote.js';
import type { PtpRow } from './row.js';
import { fromDays } from '../_shared/dates.js';
import { WHOLE, type KeyRange } from '../../warehouse/storage.js';

/**
 * A whole PTP version in five Int32Arrays (20 bytes an edit: 4.1 M edits are 82 MB), read from
 * DuckDB once per snapshot in one scan and kept sorted by column 1, column 2 and effective date,
 * with the row range of each column-1 code. A pair lookup is a binary search: no per-request SQL,
 * so the first lookup of a code costs what a warm one does.
 */
export interface PtpVersionIndex {
  version: string;
  rows: number;
  /** Column-1 key -> [first row, end row). */
  ranges: Map<number, [number, number]>;
  c2: Int32Array;
  /** Days since 1970-01-01; -1 for none. */
  eff: Int32Array;
  del: Int32Array;
  /** Modifier indicator (0/1/9) | prior-1996 flag << 4 | rationale number << 8. */
  bits: Int32Array;
  rationales: string[];
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A 5-character HCPCS code as a base-36 number (fits an INTEGER); -1 for anything else. */
export function codeKey(code: string): number {
  if (code.length !== 5) return -1;
  let k = 0;
  for (let i = 0; i < 5; i++) {
    // ALPHABET's index of the character, from its char code (a string search per character cost
    // a 20-line claim's 380 pair lookups about 30 us).
    const c = code.charCodeAt(i);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 90 ? c - 55 : -1;
    if (d < 0) return -1;
    k = k * 36 + d;
  }
  return k;
}

/** The SQL of `codeKey` over a VARCHAR column. */
const keySql = (col: string) =>
  [0, 1, 2, 3, 4].map((i) => `(instr('${ALPHABET}', substr(${col}, ${i + 1}, 1)) - 1) * ${36 ** (4 - i)}`).join(' + ');

const isoOf = (day: number) => (day < 0 ? null : fromDays(day));

/** A row's column 1 as its `codeKey`: the pair index's order, and its passes' key at ingest. */
export const COLUMN1_KEY_SQL = `(${keySql('column1')})::INTEGER`;

/** The index's columns, in the order of `PtpVersionIndex` (`pairIndexSql`). */
const INDEX_COLUMNS = ['c1', 'c2', 'eff', 'del', 'bits'];

/**
 * The SQL home of a version's index columns over `from` (a PTP table holding one version's rows),
 * sorted by column 1, column 2 and effective date: each code as its `codeKey`, dates as days, and
 * the modifier indicator, prior-1996 flag and rationale (its place among the version's distinct
 * rationales in order) in `bits`. Written at ingest as the version's `pairs` column sidecar, or
 * run over the version's rows where it has none (about 2.3 s at 4.1 M edits, mostly the keys).
 * With `range` (of `COLUMN1_KEY_SQL`), only the rows whose column 1 is in it (the ingest's passes).
 */
export function pairIndexSql(from: string, range: KeyRange = WHOLE): string {
  const day = (c: string) => `coalesce(date_diff('day', DATE '1970-01-01', CAST(${c} AS DATE)), -1)::INTEGER`;
  const rationales = `(SELECT list(r ORDER BY r) FROM (SELECT DISTINCT rationale AS r FROM ${from} x))`;
  return (
    `SELECT ${COLUMN1_KEY_SQL} AS c1, (${keySql('column2')})::INTEGER AS c2, ${day('effective_date')} AS eff, ${day('deletion_date')} AS del, ` +
    `(CAST(modifier_indicator AS INTEGER) + CASE WHEN in_existence_prior_1996 THEN 16 ELSE 0 END + (list_position(${rationales}, rationale) - 1) * 256)::INTEGER AS bits ` +
    `FROM ${from} y${range === WHOLE ? '' : ` WHERE ${range.test(COLUMN1_KEY_SQL)}`} ORDER BY c1, c2, eff`
  );
}

/** The name of a PTP version's column sidecar (its `columnFiles` in `datasets/storage.ts`). */
export const PAIRS_SIDECAR = 'pairs';

/**
 * Reads one version into an index (null when the reader cannot hand out raw columns): its
 * `pairs` column sidecar where it has one (a plain read), else `pairIndexSql` over its rows.
 */
export async function buildPtpIndex(snapshot: SnapshotReader, dataset: DatasetName, version: string): Promise<PtpVersionIndex | null> {
  if (!snapshot.int32Columns) return null;
  const t = quoteIdent(dataset);
  const rationales = (await snapshot.all<{ r: string }>(`SELECT DISTINCT rationale AS r FROM ${t} WHERE version = $1 ORDER BY r`, [version])).map((x) => x.r);
  if (rationales.length > 0xffffff) return null;
  const sidecar = await versionSidecar(snapshot, dataset, version, `.${PAIRS_SIDECAR}${COLUMNS_SUFFIX}`, (path) => openColumnFile(path, (sql) => snapshot.all(sql)));
  let read: { rows: number; columns: Int32Array[] } | null = null;
  if (sidecar) {
    // A file that does not read, or holds another number of rows, is computed again.
    const [[counted], file] = await Promise.all([
      snapshot.all<{ n: number }>(`SELECT count(*) AS n FROM ${t} WHERE version = $1`, [version]),
      snapshot.int32Columns(readColumnFileSql(sidecar, INDEX_COLUMNS)).catch(() => null),
    ]);
    read = file;
    if (read?.rows !== Number(counted?.n)) {
      read = null;
      sidecarFallback(snapshot, dataset, PAIRS_SIDECAR, 'damaged');
    }
  } else sidecarFallback(snapshot, dataset, PAIRS_SIDECAR, 'missing');
  const { rows, columns } = read ?? (await snapshot.int32Columns(pairIndexSql(`(SELECT * FROM ${t} WHERE version = $1)`), [version]));
  const [c1, c2, eff, del, bits] = columns as [Int32Array, Int32Array, Int32Array, Int32Array, Int32Array];
  const ranges = new Map<number, [number, number]>();
  for (let i = 0; i < rows; ) {
    const k = c1[i]!;
    let j = i + 1;
    while (j < rows && c1[j] === k) j++;
    ranges.set(k, [i, j]);
    i = j;
  }
  return { version, rows, ranges, c2, eff, del, bits, rationales };
}

const isoCache = new Map<number, string | null>();
/** Day number to ISO date, memoised (PTP files carry a few thousand distinct dates). */
function isoDay(day: number): string | null {
  let v = isoCache.get(day);
  if (v === undefined) {
    v = isoOf(day);
    if (isoCache.size < 100_000) isoCache.set(day, v);
  }
  return v;
}

function rowAt(idx: PtpVersionIndex, i: number, column1: string, column2: string): PtpRow {
  const bits = idx.bits[i]!;
  return {
    column1,
    column2,
    in_existence_prior_1996: (bits & 16) !== 0,
    effective_date: isoDay(idx.eff[i]!),
    deletion_date: isoDay(idx.del[i]!),
    modifier_indicator: String(bits & 15) as PtpRow['modifier_indicator'],
    rationale: idx.rationales[bits >>> 8]!,
  };
}

const NO_ROWS: readonly PtpRow[] = Object.freeze([]);

/**
 * The published rows of one (column 1, column 2) pair in one version: a binary search, no scan.
 * A pair with no edit (most pairs of a claim) shares one empty, frozen list.
 */
export function pairRows(idx: PtpVersionIndex, column1: string, column2: string): readonly PtpRow[] {
  const r = idx.ranges.get(codeKey(column1));
  if (!r) return NO_ROWS;
  const k = codeKey(column2);
  let lo = r[0];
  let hi = r[1];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (idx.c2[mid]! < k) lo = mid + 1;
    else hi = mid;
  }
  if (lo >= r[1] || idx.c2[lo] !== k) return NO_ROWS;
  const out: PtpRow[] = [];
  for (let i = lo; i < r[1] && idx.c2[i] === k; i++) out.push(rowAt(idx, i, column1, column2));
  return out;
}

/** Rows of a column-1 code in one version as published rows, grouped by column-2 code. */
export function groupOf(idx: PtpVersionIndex, column1: string): Map<string, PtpRow[]> {
  const out = new Map<string, PtpRow[]>();
  const r = idx.ranges.get(codeKey(column1));
  if (!r) return out;
  for (let i = r[0]; i < r[1]; i++) {
    const row = rowAt(idx, i, column1, decodeKey(idx.c2[i]!));
    const l = out.get(row.column2);
    if (l) l.push(row);
    else out.set(row.column2, [row]);
  }
  return out;
}

/** The code of a key (inverse of `codeKey`). */
export function decodeKey(k: number): string {
  let s = '';
  for (let i = 0; i < 5; i++) {
    s = ALPHABET[k % 36]! + s;
    k = Math.floor(k / 36);
  }
  return s;
}

/** Column-1 codes of an index. */
export const column1Codes = (idx: PtpVersionIndex): string[] => [...idx.ranges.keys()].map(decodeKey);

/** Every code of an index, column 1 or 2. */
export function allCodes(idx: PtpVersionIndex): string[] {
  const keys = new Set<number>(idx.ranges.keys());
  for (const k of idx.c2) keys.add(k);
  return [...keys].map(decodeKey);
}
