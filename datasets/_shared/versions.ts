import type { DatasetVersion } from '../../warehouse/manifest.js';
import type { DatasetName, SnapshotReader } from '../../warehouse/snapshot.js';
import { quarterEndOf, quarterStart, toDays } from './dates.js';

/**
 * The one place that decides which loaded version of a dataset answers a request. Three rules,
 * because publishers date their files three ways:
 *
 * - `effective`: a release stays in force until the next one (the IPPS wage index fiscal year):
 *   the latest version effective on or before the date.
 * - `year`: a calendar-year payment file updated in quarterly releases (PFS RVU, GPCI, OPPS
 *   Addendum B): the latest version effective on or before the date, which covers it only when it
 *   is of the date's year; a date whose year has no release is answered from the nearest one (the
 *   latest earlier, else the earliest) with a warning naming both years.
 * - `quarter`: a release covers one calendar quarter (NCCI PTP, MUE and add-on files): the
 *   version whose quarter contains the date; outside every loaded quarter, the nearest one.
 *
 * A `year` (fee-schedule lookups take one) picks that year's newest release. Without a date or
 * year, the newest version answers. When the chosen version does not truly cover the date,
 * `covered` is false and `warning` says what was used, so the answer can be marked degraded
 * instead of failing.
 */
export type VersionRule = 'effective' | 'quarter' | 'year';

export interface VersionPick {
  version: DatasetVersion;
  /** False when no loaded version covers the date (the nearest or earliest answered instead). */
  covered: boolean;
  warning?: string;
}

export interface VersionQuery {
  rule: VersionRule;
  /** `YYYY-MM-DD` date of service. */
  date?: string;
  /** Fee-schedule year: the newest release effective in that year. */
  year?: number;
}


/** Oldest effective first; ties (a re-posted release) in load order. */
export function compareVersions(a: DatasetVersion, b: DatasetVersion): number {
  return (a.effective_date ?? '').localeCompare(b.effective_date ?? '') || a.loaded_at.localeCompare(b.loaded_at);
}

/** The days a quarterly version answers for: its effective date to the end of that quarter. */
function quarterRange(v: DatasetVersion): { from: number; to: number } | undefined {
  let from = v.effective_date;
  const label = /^(\d{4})Q([1-4])$/.exec(v.version);
  if (!from && label) from = quarterStart(Number(label[1]), Number(label[2]));
  if (!from) return undefined;
  return { from: toDays(from), to: toDays(quarterEndOf(from)) };
}

function byQuarter(dataset: string, ordered: DatasetVersion[], date: string): VersionPick {
  const dos = toDays(date);
  let best: { v: DatasetVersion; dist: number } | undefined;
  for (const v of ordered) {
    const r = quarterRange(v);
    if (!r) continue;
    const dist = dos < r.from ? r.from - dos : dos > r.to ? dos - r.to : 0;
    // `<=` keeps the later of two equally near versions (a revision loaded after the original).
    if (!best || dist <= best.dist) best = { v, dist };
  }
  if (!best) {
    const v = ordered.at(-1)!;
    return { version: v, covered: false, warning: `${dataset} version ${v.version} has no effective date; it is used for ${date} without a date check` };
  }
  if (best.dist === 0) return { version: best.v, covered: true };
  const loaded = ordered.map((v) => `${v.version} (from ${v.effective_date ?? '?'})`).join(', ');
  return {
    version: best.v,
    covered: false,
    warning: `no ${dataset} version loaded covers date of service ${date}; answered from the nearest version ${best.v.version} (effective ${best.v.effective_date ?? 'unknown'}); loaded: ${loaded}`,
  };
}

function byEffective(dataset: string, ordered: DatasetVersion[], date: string): VersionPick {
  const inForce = ordered.filter((v) => (v.effective_date ?? '') <= date);
  if (inForce.length) return { version: inForce.at(-1)!, covered: true };
  const v = ordered[0]!;
  return { version: v, covered: false, warning: `no ${dataset} release loaded is effective on ${date}; used ${v.version} (effective ${v.effective_date ?? 'unknown'})` };
}

/** The calendar year of a version: its effective date's, else a year its label starts with. */
function yearOf(v: DatasetVersion): number | undefined {
  const m = /^(\d{4})/.exec(v.effective_date ?? v.version);
  return m ? Number(m[1]) : undefined;
}

function byYear(dataset: string, ordered: DatasetVersion[], date: string): VersionPick {
  const year = Number(date.slice(0, 4));
  const inForce = ordered.filter((v) => (v.effective_date ?? '') <= date);
  const v = inForce.at(-1) ?? ordered[0]!;
  if (inForce.length && yearOf(v) === year) return { version: v, covered: true };
  const vYear = yearOf(v);
  return {
    version: v,
    covered: false,
    warning: `no ${dataset} release of ${year} is loaded for date of service ${date}; answered from the nearest release ${v.version} (${vYear ?? 'year unknown'}, effective ${v.effective_date ?? 'unknown'})`,
  };
}

/**
 * Picks per versions list (a snapshot's lists never change): a claim check selects versions for
 * hundreds of line pairs per request, and the pick is a pure function of the list and the query.
 */
const picks = new WeakMap<DatasetVersion[], Map<string, VersionPick | undefined>>();

/** Picks the version of `dataset` that answers `q` (undefined when none is loaded, or none in `q.year`). */
export function selectVersion(dataset: string, versions: DatasetVersion[], q: VersionQuery): VersionPick | undefined {
  if (versions.length === 0) return undefined;
  let memo = picks.get(versions);
  if (!memo) picks.set(versions, (memo = new Map()));
  const key = `${dataset}\u0000${q.rule}\u0000${q.date ?? ''}\u0000${q.year ?? ''}`;
  if (memo.has(key)) return memo.get(key);
  if (memo.size >= 10_000) memo.clear();
  const pick = choose(dataset, versions, q);
  memo.set(key, pick);
  return pick;
}

function choose(dataset: string, versions: DatasetVersion[], q: VersionQuery): VersionPick | undefined {
  const ordered = [...versions].sort(compareVersions);
  if (q.year !== undefined) {
    const inYear = ordered.filter((v) => (v.effective_date ?? v.version).startsWith(String(q.year)));
    return inYear.length ? { version: inYear.at(-1)!, covered: true } : undefined;
  }
  if (!q.date) return { version: ordered.at(-1)!, covered: true };
  if (q.rule === 'quarter') return byQuarter(dataset, ordered, q.date);
  return q.rule === 'year' ? byYear(dataset, ordered, q.date) : byEffective(dataset, ordered, q.date);
}

/** The version label that answers `q` in a snapshot (see `selectVersion`). */
export function versionLabel(snapshot: SnapshotReader, dataset: DatasetName, q: VersionQuery = { rule: 'effective' }): string | undefined {
  return selectVersion(dataset, snapshot.versions(dataset), q)?.version.version;
}
