import { NotFoundError } from '../../warehouse/errors.js';
import type { DatasetVersion } from '../../warehouse/manifest.js';
import type { DatasetName, SnapshotReader } from '../../warehouse/snapshot.js';
import { quarterEndOf, quarterLabel, quarterStart, toDays } from './dates.js';
import { quoteIdent } from '../../warehouse/sql_quote.js';
import type { Dataset } from '../types.js';
import { fromStored } from './table.js';

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
 *
 * A request answers by one date rule on top of that (`pickForRequest`, `requireCovered`,
 * `versionForRequest`): a date (or a `year`) the caller gives that no loaded version covers is a
 * 404 naming the missing period and the nearest loaded version; without one, today's version
 * answers, else the newest loaded, degraded with a warning.
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

/** A version as a message names it: its label and effective date. */
type VersionNamed = Pick<DatasetVersion, 'version' | 'effective_date'>;

/** The calendar year of a version: its effective date's, else a year its label starts with. */
function yearOf(v: VersionNamed): number | undefined {
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

/** What a request is for: the date or year the caller gave, else today (`YYYY-MM-DD`, the injected clock's). */
export interface RequestDate {
  /** The `YYYY-MM-DD` date the caller gave. */
  date?: string;
  /** The year the caller gave (a fee-schedule lookup's `year`, or the year an annual file is asked for): decides alone, `date` only names it. */
  year?: number;
  today: string;
}

/** True when the caller named the date or the year (the rule answers 404 for one no version covers). */
export const givenDate = (when: RequestDate): boolean => when.date !== undefined || when.year !== undefined;

/** The period a version covers, in words: its quarter, its calendar year, or its effective date. */
function periodOf(v: VersionNamed, rule: VersionRule): string {
  const eff = v.effective_date;
  if (rule === 'quarter') return eff ? `${quarterLabel(eff) === v.version ? '' : `${quarterLabel(eff)}, `}effective ${eff}` : 'no effective date';
  if (rule === 'year') return eff ? `CY${eff.slice(0, 4)}, effective ${eff}` : `year ${yearOf(v) ?? 'unknown'}`;
  return `effective ${eff ?? 'unknown'}`;
}

/** The period a request asks for, in words: its date with its quarter or year, or the year. */
function askedFor(when: RequestDate, rule: VersionRule): string {
  if (when.year !== undefined) return when.date ? `date of service ${when.date} (CY${when.year})` : `CY${when.year}`;
  if (when.date === undefined) return `today, ${when.today}`;
  return rule === 'quarter' ? `date of service ${when.date} (${quarterLabel(when.date)})` : rule === 'year' ? `date of service ${when.date} (CY${when.date.slice(0, 4)})` : `date of service ${when.date}`;
}

/** For a `year` no release is in: the release of the nearest year (the later of two as near), covered false. */
function nearestYear(dataset: string, versions: DatasetVersion[], year: number): VersionPick {
  const ordered = [...versions].sort(compareVersions);
  let best = ordered.at(-1)!;
  for (const v of ordered) if (Math.abs((yearOf(v) ?? 0) - year) <= Math.abs((yearOf(best) ?? 0) - year)) best = v;
  return { version: best, covered: false, warning: `no ${dataset} release of ${year} is loaded; the nearest is ${best.version} (${periodOf(best, 'year')})` };
}

/**
 * The date rule's pick of one dataset for a request. A year given: that year's newest release; a
 * date given: the version that covers it by `rule`; else the nearest (`covered` false: `requireCovered` turns that into a 404 unless another of
 * the request's datasets covers it). No date: today's version (a `year` rule's: a release in force
 * today of today's year), else the newest loaded, `covered` false with a warning that says so.
 * Undefined when no version is loaded.
 */
export function pickForRequest(dataset: string, versions: DatasetVersion[], rule: VersionRule, when: RequestDate): VersionPick | undefined {
  if (versions.length === 0) return undefined;
  if (when.year !== undefined) return selectVersion(dataset, versions, { rule, year: when.year }) ?? nearestYear(dataset, versions, when.year);
  if (when.date !== undefined) return selectVersion(dataset, versions, { rule, date: when.date });
  const today = selectVersion(dataset, versions, { rule, date: when.today });
  if (today?.covered) return today;
  const newest = [...versions].sort(compareVersions).at(-1)!;
  const period = rule === 'quarter' ? ` (${quarterLabel(when.today)})` : rule === 'year' ? ` (CY${when.today.slice(0, 4)})` : '';
  return { version: newest, covered: false, warning: `no ${dataset} version loaded covers today, ${when.today}${period}; answered from the newest loaded, ${newest.version} (${periodOf(newest, rule)})` };
}

/**
 * The 404 of the date rule: a date or year given that none of a request's picks covers (the PTP
 * table; the three MUE tables; a claim's PTP, MUE and add-on files; a composition's fee
 * schedules), naming the period asked and the nearest loaded version of each. Nothing when no
 * date was given, when one of them covers it, or when none is loaded (the answer says "not loaded").
 */
export function requireCovered(when: RequestDate, rule: VersionRule, picks: readonly { dataset: string; pick: { version: VersionNamed; covered: boolean } | undefined }[]): void {
  if (!givenDate(when)) return;
  const loaded = picks.filter((p): p is { dataset: string; pick: { version: VersionNamed; covered: boolean } } => p.pick !== undefined);
  if (loaded.length === 0 || loaded.some((p) => p.pick.covered)) return;
  const names = loaded.map((p) => p.dataset);
  const which = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  const nearest = loaded.map((p) => `${names.length > 1 ? `${p.dataset} ` : ''}${p.pick.version.version} (${periodOf(p.pick.version, rule)})`).join('; ');
  throw new NotFoundError(`no ${which} version loaded covers ${askedFor(when, rule)}; the nearest loaded ${names.length > 1 ? 'are' : 'is'} ${nearest}`);
}

/**
 * A dataset's version for a lookup: given `today`, the request's pick by the date rule
 * (`pickForRequest`); without it, `selectVersion` by `rule` for the date (the newest without one),
 * as the remittance links, the claim check's other readers and the agents ask.
 */
export function pickVersion(dataset: string, versions: DatasetVersion[], rule: VersionRule, date?: string, today?: string): VersionPick | undefined {
  return today === undefined ? selectVersion(dataset, versions, { rule, date }) : pickForRequest(dataset, versions, rule, { date, today });
}

/** One dataset's version for a request by the date rule (`pickForRequest`, then `requireCovered`): throws the 404. */
export function versionForRequest(dataset: string, versions: DatasetVersion[], rule: VersionRule, when: RequestDate): VersionPick | undefined {
  const pick = pickForRequest(dataset, versions, rule, when);
  requireCovered(when, rule, [{ dataset, pick }]);
  return pick;
}

/**
 * Every row of one loaded version of a single-table dataset, by `keyOf`, each with its `version`:
 * read once per snapshot (a query, then a pinned map), so a release of a few thousand rows costs no
 * query per lookup. JSON columns come back parsed (`fromStored`). For a key that is unique in the
 * version (the dataset's key): a repeated key keeps the last row.
 */
export function versionRows<R extends object>(snapshot: SnapshotReader, dataset: Dataset<R>, version: string, keyOf: (r: R) => string): Promise<Map<string, R & { version: string }>> {
  return snapshot.memo(
    `${dataset.id}:versionRows:${version}`,
    async () => {
      const rows = await snapshot.all<Record<string, unknown>>(`SELECT * FROM ${quoteIdent(dataset.id)} WHERE version = $1`, [version]);
      return new Map(rows.map((r) => {
        const row = { ...fromStored(dataset.tables[0]!, r), version } as R & { version: string };
        return [keyOf(row), row];
      }));
    },
    { pin: true },
  );
}
