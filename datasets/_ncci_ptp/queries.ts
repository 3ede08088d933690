import { LRUCache } from 'lru-cache';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { FileShared } from '../../warehouse/file_shared.js';
import { quoteIdent } from '../../warehouse/sql_quote.js';
import { selectVersion, type VersionPick } from '../_shared/versions.js';
import type { PtpRow } from './row.js';
import { allCodes, buildPtpIndex, column1Codes, groupOf, pairRows, type PtpVersionIndex } from './pair_index.js';
import { medicaidPtpHosp } from '../medicaid_ptp_hosp/dataset.js';
import { medicaidPtpPrac } from '../medicaid_ptp_prac/dataset.js';
import { ncciPtpHosp } from '../ncci_ptp_hosp/dataset.js';
import { ncciPtpPrac } from '../ncci_ptp_prac/dataset.js';

/** The PTP datasets (ids from the members' declarations), for warming their indexes when a snapshot is mounted. */
export const PTP_DATASETS = [ncciPtpPrac.id, ncciPtpHosp.id, medicaidPtpPrac.id, medicaidPtpHosp.id] as const;

/**
 * Every loaded version of a PTP dataset as an in-memory index (built once per snapshot, pinned;
 * `warmPtpIndexes` starts it at mount). Null when the reader cannot hand out raw columns; the
 * per-code DuckDB query then serves lookups.
 */
export function ptpIndexes(snapshot: SnapshotReader, dataset: PtpDatasetId): Promise<Map<string, PtpVersionIndex> | null> {
  return snapshot.memo(
    `ptp:index:${dataset}`,
    async () => {
      if (!snapshot.int32Columns) return null;
      const versions = snapshot.versions(dataset);
      const out = new Map<string, PtpVersionIndex>();
      try {
        for (const v of versions) {
          const idx = await shared.get(snapshot, dataset, v.file, () => buildPtpIndex(snapshot, dataset, v.version));
          if (!idx) return null;
          out.set(v.version, idx);
        }
      } catch {
        // A version the index cannot read (an unexpected code shape) keeps the per-code queries.
        return null;
      } finally {
        shared.prune(snapshot, dataset, versions.map((v) => v.file));
      }
      return out;
    },
    { pin: true },
  );
}

/** PTP indexes shared across snapshots by version file (a hot swap of another dataset rebuilds nothing). */
const shared = new FileShared<PtpVersionIndex>();

/** The shared indexes' keys (warehouse, dataset, version file), for tests. */
export const sharedPtpIndexKeys = (): string[] => shared.keys();

/** Starts building the PTP indexes of a freshly mounted snapshot (so no lookup waits for DuckDB). */
export function warmPtpIndexes(snapshot: SnapshotReader): Promise<unknown> {
  return Promise.all(PTP_DATASETS.filter((d) => snapshot.has(d)).map((d) => ptpIndexes(snapshot, d)));
}

/** The four PTP tables; the queries below serve all of them. */
export type PtpDatasetId = (typeof PTP_DATASETS)[number];

/** How an edit row stands on a date of service. */
export type PtpEditStatus = 'active' | 'deleted' | 'not_yet_effective' | 'not_applicable';

/** The outcome of a pair lookup in one version. */
export interface PtpLookup {
  dataset: PtpDatasetId;
  /** The quarterly version that answered (null when none is loaded). */
  choice: VersionPick | null;
  /** The chosen edit row (in CMS column order) or null when the pair has no edit in that version. */
  row: PtpRow | null;
  status: PtpEditStatus | 'no_edit' | 'no_data';
}

/**
 * Status of one published row on a date of service. The deletion date is the last day an edit
 * is in force: CMS writes quarter-end days (32.2, effective 2026-07-01, retires edits with
 * 20260630), so an edit with deletion 2023-12-31 still applies on that day. Indicator 9 marks an
 * edit deleted back to its effective date: it never applied.
 */
export function ptpEditStatus(row: Pick<PtpRow, 'effective_date' | 'deletion_date' | 'modifier_indicator'>, dos: string): PtpEditStatus {
  if (row.modifier_indicator === '9') return 'not_applicable';
  if (row.effective_date && dos < row.effective_date) return 'not_yet_effective';
  if (row.deletion_date && dos > row.deletion_date) return 'deleted';
  return 'active';
}

type Group = Map<string, PtpRow[]>;

/**
 * Rows of edit groups kept per snapshot. A real quarter is ~4 M rows over ~15k column-1 codes,
 * so caching every group a long-lived snapshot ever touches would end up holding whole versions
 * in JS; the least recently used groups are dropped past this many rows (~200 MB).
 */
export const PTP_GROUP_CACHE_ROWS = 1_000_000;

/** The groups of one column-1 code and their row count (the group cache's size unit). */
interface LoadedGroups {
  groups: Map<string, Group>;
  rows: number;
}

/**
 * Per-snapshot LRU of column-1 groups, bounded by their rows (an empty group counts as one). A
 * group being loaded is shared by concurrent lookups; a failed load is not kept.
 */
type GroupCache = LRUCache<string, LoadedGroups, () => Promise<LoadedGroups>>;

const caches = new WeakMap<SnapshotReader, GroupCache>();

/** Shares repeated text (codes, rationales, dates) between cached rows instead of one copy per row. */
function interner() {
  const seen = new Map<string, string>();
  return <T extends string | null>(s: T): T => {
    if (s === null) return s;
    const had = seen.get(s);
    if (had !== undefined) return had as T;
    if (seen.size >= 100_000) seen.clear();
    seen.set(s, s);
    return s;
  };
}
const intern = interner();

/**
 * All edits of one column-1 code, per loaded version, grouped by column-2 code (cached per
 * snapshot, LRU-bounded by `budget` rows, `PTP_GROUP_CACHE_ROWS` unless the snapshot's first call
 * says otherwise). Tables are stored in file order (sorted by
 * column 1), so DuckDB's zone maps skip all but a row group per version file; one query serves
 * every quarter, and the group answers every later pair with that code in JS.
 */
export function getColumn1Groups(snapshot: SnapshotReader, dataset: PtpDatasetId, column1: string, budget = PTP_GROUP_CACHE_ROWS): Promise<Map<string, Group>> {
  let cache = caches.get(snapshot);
  if (!cache) {
    // A load evicted while in flight still answers its callers (ignoreFetchAbort); it is just not kept.
    cache = new LRUCache({ maxSize: budget, sizeCalculation: (v) => Math.max(1, v.rows), fetchMethod: (_key, _stale, { context }) => context(), ignoreFetchAbort: true });
    caches.set(snapshot, cache);
  }
  const load = async (): Promise<LoadedGroups> => {
    const idx = await ptpIndexes(snapshot, dataset);
    if (idx) {
      const byVersion = new Map<string, Group>();
      let n = 0;
      for (const [v, i] of idx) {
        const g = groupOf(i, column1);
        for (const l of g.values()) n += l.length;
        if (g.size) byVersion.set(v, g);
      }
      return { groups: byVersion, rows: n };
    }
    const rows = await snapshot.all<PtpRow & { version: string }>(
      `SELECT version, column1, column2, in_existence_prior_1996, effective_date, deletion_date, modifier_indicator, rationale
       FROM ${quoteIdent(dataset)} WHERE column1 = $1`,
      [column1],
    );
    const byVersion = new Map<string, Group>();
    for (const r of rows) {
      let group = byVersion.get(r.version);
      if (!group) byVersion.set(r.version, (group = new Map()));
      const row: PtpRow = {
        column1: intern(r.column1),
        column2: intern(r.column2),
        in_existence_prior_1996: r.in_existence_prior_1996,
        effective_date: intern(r.effective_date),
        deletion_date: intern(r.deletion_date),
        modifier_indicator: r.modifier_indicator,
        rationale: intern(r.rationale),
      };
      const list = group.get(r.column2);
      if (list) list.push(row);
      else group.set(r.column2, [row]);
    }
    return { groups: byVersion, rows: rows.length };
  };
  return cache.fetch(`${dataset}:${column1}`, { context: load }).then((v) => v!.groups);
}

/**
 * The column-1 codes of all loaded versions (memoised per snapshot; ~15k codes per real
 * quarter), so a lookup queries DuckDB only for codes that head edits, never for the far more
 * numerous codes that appear only in column 2.
 */
export function getColumn1Codes(snapshot: SnapshotReader, dataset: PtpDatasetId): Promise<Set<string>> {
  return snapshot.memo(`ptp:col1:${dataset}`, async () => {
    const idx = await ptpIndexes(snapshot, dataset);
    if (idx) return new Set([...idx.values()].flatMap(column1Codes));
    const rows = await snapshot.all<{ column1: string }>(`SELECT DISTINCT column1 FROM ${quoteIdent(dataset)}`);
    return new Set(rows.map((r) => r.column1));
  }, { pin: true });
}

const EMPTY_GROUP: Group = new Map();
const NO_GROUPS = new Map<string, Group>();

const STATUS_RANK: Record<PtpEditStatus, number> = { active: 0, deleted: 1, not_applicable: 2, not_yet_effective: 3 };

/** Of several rows for a pair, the one that tells most about `dos`: in force, else the latest started. */
function pickRow(rows: readonly PtpRow[], dos: string): PtpRow | null {
  let best: PtpRow | null = null;
  let bestKey: [number, string] = [99, ''];
  for (const r of rows) {
    const rank = STATUS_RANK[ptpEditStatus(r, dos)];
    // Among equal ranks prefer the latest effective date (a re-added edit over the old one).
    const key: [number, string] = [rank, r.effective_date ?? ''];
    if (!best || key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] > bestKey[1])) {
      best = r;
      bestKey = key;
    }
  }
  return best;
}

/**
 * Looks up the PTP edit for two codes given in either order on a date of service: the version
 * whose quarter contains the date (else the nearest, flagged; or `choice`, a route's pick by the
 * date rule), then the pair's row in CMS column order. `status` separates "no edit for this pair"
 * from "no data loaded".
 */
export async function lookupPtpEdit(
  snapshot: SnapshotReader,
  dataset: PtpDatasetId,
  codeA: string,
  codeB: string,
  dos: string,
  choice?: VersionPick,
): Promise<PtpLookup> {
  return (await ptpPairFinder(snapshot, dataset, [codeA, codeB], dos, choice))(codeA, codeB);
}

/**
 * Pair lookups for a set of codes on one date (`picked`: the version a caller chose by the date
 * rule, else the quarter of the date): the edit groups of every code are loaded first
 * (cached per snapshot), then each pair is answered synchronously, as `lookupPtpEdit` would.
 * A claim check asks for every pair of its lines (190 for 20 lines).
 */
export async function ptpPairFinder(snapshot: SnapshotReader, dataset: PtpDatasetId, codes: string[], dos: string, picked?: VersionPick): Promise<(a: string, b: string) => PtpLookup> {
  // The edits in force on `dos`, in the version its quarter picks (or the one the caller picked by the date rule).
  const choice = picked ?? selectVersion(dataset, snapshot.versions(dataset), { rule: 'quarter', date: dos });
  if (!choice) return () => ({ dataset, choice: null, row: null, status: 'no_data' });
  const v = choice.version.version;
  const idx = (await ptpIndexes(snapshot, dataset))?.get(v);
  if (idx) {
    // The in-memory index: two binary searches a pair, nothing loaded per code. Most pairs of a
    // claim have no edit: they share one answer instead of allocating one each.
    const none: PtpLookup = { dataset, choice, row: null, status: 'no_edit' };
    return (a, b) => {
      const ab = pairRows(idx, a, b);
      const ba = a === b ? [] : pairRows(idx, b, a);
      if (ab.length + ba.length === 0) return none;
      const row = pickRow([...ab, ...ba], dos);
      return { dataset, choice, row, status: row ? ptpEditStatus(row, dos) : 'no_edit' };
    };
  }
  const heads = await getColumn1Codes(snapshot, dataset);
  const groups = new Map<string, Group>();
  await Promise.all(codes.map(async (c) => groups.set(c, (heads.has(c) ? await getColumn1Groups(snapshot, dataset, c) : NO_GROUPS).get(v) ?? EMPTY_GROUP)));
  return (a, b) => {
    const ga = groups.get(a) ?? EMPTY_GROUP;
    const gb = groups.get(b) ?? EMPTY_GROUP;
    const rows = [...(ga.get(b) ?? []), ...(a === b ? [] : (gb.get(a) ?? []))];
    const row = pickRow(rows, dos);
    return { dataset, choice, row, status: row ? ptpEditStatus(row, dos) : 'no_edit' };
  };
}

/**
 * Every code of a PTP dataset, column 1 or 2, over all loaded versions (once per snapshot): from
 * the in-memory index when there is one, else one DISTINCT query.
 */
export function ptpCodeSet(snapshot: SnapshotReader, dataset: PtpDatasetId): Promise<Set<string>> {
  return snapshot.memo(
    `ptp:codes:${dataset}`,
    async () => {
      const idx = await ptpIndexes(snapshot, dataset);
      if (idx) return new Set([...idx.values()].flatMap(allCodes));
      const rows = await snapshot.all<{ c: string }>(`SELECT column1 AS c FROM ${quoteIdent(dataset)} UNION SELECT column2 FROM ${quoteIdent(dataset)}`);
      return new Set(rows.map((r) => r.c));
    },
    { pin: true },
  );
}

/**
 * How many edits in force on `dos` name `code` in one version, as column 1 and as column 2, with
 * a few examples (the edits that bind a code on a claim; not claim frequencies). Indicator-9
 * edits never applied and are not counted. Memoised per snapshot: every code-research job asked
 * DuckDB these two scans of each PTP table again (their only queries not answered from memory,
 * about 1 ms of a 1.4 ms job). The answer is shared: callers copy, never change it.
 */
export function countPtpEditsForCode(
  snapshot: SnapshotReader,
  dataset: PtpDatasetId,
  version: string,
  code: string,
  dos: string,
  sample = 5,
): Promise<{ as_column1: number; as_column2: number; sample: PtpRow[] }> {
  return snapshot.memo(`ptp-count:${dataset}:${version}:${code}:${dos}:${sample}`, () => countPtpEdits(snapshot, dataset, version, code, dos, sample));
}

async function countPtpEdits(snapshot: SnapshotReader, dataset: PtpDatasetId, version: string, code: string, dos: string, sample: number) {
  const inForce = `version = $1 AND modifier_indicator <> '9' AND (effective_date IS NULL OR effective_date <= $3) AND (deletion_date IS NULL OR deletion_date >= $3)`;
  const [counts] = await snapshot.all<{ c1: number; c2: number }>(
    `SELECT count(*) FILTER (WHERE column1 = $2) AS c1, count(*) FILTER (WHERE column2 = $2) AS c2
       FROM ${quoteIdent(dataset)} WHERE ${inForce} AND (column1 = $2 OR column2 = $2)`,
    [version, code, dos],
  );
  const rows = await snapshot.all<PtpRow>(
    `SELECT column1, column2, in_existence_prior_1996, effective_date, deletion_date, modifier_indicator, rationale
       FROM ${quoteIdent(dataset)} WHERE ${inForce} AND (column1 = $2 OR column2 = $2)
      ORDER BY column1 = $2 DESC, column1, column2 LIMIT ${Math.max(0, Math.floor(sample))}`,
    [version, code, dos],
  );
  return { as_column1: Number(counts?.c1 ?? 0), as_column2: Number(counts?.c2 ?? 0), sample: rows };
}
