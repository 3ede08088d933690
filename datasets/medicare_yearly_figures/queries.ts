import { Dec } from '../../lib/decimal.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { viewName } from '../../warehouse/manifest.js';
import { quoteIdent } from '../../warehouse/sql_quote.js';
import { versionLabel } from '../_shared/versions.js';
import { CODE_LISTS_TABLE, FIGURES_TABLE, medicareYearlyFigures, type YearlyCodeList, type YearlyFigure, type YearlyFigureRow } from './dataset.js';

/** One year's figures and code lists as the loaded version has them, with that version. */
export interface YearFigures {
  version: string;
  year: number;
  /** A figure of the year, exact; undefined when the year's document does not give it. */
  figure(name: YearlyFigure): { value: Dec; citation: YearlyFigureRow['citation'] } | undefined;
  /** The codes of a list for the year (empty when the year's document lists none). */
  codes(list: YearlyCodeList): ReadonlySet<string>;
}

interface Loaded {
  version: string;
  figures: Map<number, Map<YearlyFigure, YearlyFigureRow>>;
  lists: Map<number, Map<YearlyCodeList, Set<string>>>;
}

/** Every year of the loaded version, read once per snapshot (a few dozen rows). */
function loaded(snapshot: SnapshotReader): Promise<Loaded | null> {
  const version = versionLabel(snapshot, medicareYearlyFigures.id);
  if (!version) return Promise.resolve(null);
  return snapshot.memo(`${medicareYearlyFigures.id}:all:${version}`, async () => {
    const [figs, codes] = await Promise.all([
      snapshot.all<YearlyFigureRow>(`SELECT year, figure, value, citation FROM ${quoteIdent(viewName(medicareYearlyFigures.id, FIGURES_TABLE.name))} WHERE version = $1`, [version]),
      snapshot.all<{ year: number; list: YearlyCodeList; code: string }>(`SELECT year, list, code FROM ${quoteIdent(viewName(medicareYearlyFigures.id, CODE_LISTS_TABLE.name))} WHERE version = $1`, [version]),
    ]);
    const figures = new Map<number, Map<YearlyFigure, YearlyFigureRow>>();
    for (const f of figs) {
      const y = Number(f.year);
      if (!figures.has(y)) figures.set(y, new Map());
      figures.get(y)!.set(f.figure, { ...f, year: y, citation: typeof f.citation === 'string' ? JSON.parse(f.citation) : f.citation });
    }
    const lists = new Map<number, Map<YearlyCodeList, Set<string>>>();
    for (const c of codes) {
      const y = Number(c.year);
      if (!lists.has(y)) lists.set(y, new Map());
      const byList = lists.get(y)!;
      if (!byList.has(c.list)) byList.set(c.list, new Set());
      byList.get(c.list)!.add(c.code);
    }
    return { version, figures, lists };
  });
}

const NONE: ReadonlySet<string> = new Set();

/**
 * One year's figures and lists as the payment rules read them (pure: what a version holds for the
 * year, already read), so a calculator takes them as an input and a test can build them by hand.
 */
export function yearFiguresOf(version: string, year: number, figures?: ReadonlyMap<YearlyFigure, YearlyFigureRow>, lists?: ReadonlyMap<YearlyCodeList, ReadonlySet<string>>): YearFigures {
  return {
    version,
    year,
    figure(name) {
      const f = figures?.get(name);
      return f ? { value: Dec.ofPlain(f.value), citation: f.citation } : undefined;
    },
    codes: (list) => lists?.get(list) ?? NONE,
  };
}

/** The figures of `year` in the loaded version; null when the dataset is not loaded or has no document for the year. */
export async function yearFigures(snapshot: SnapshotReader, year: number): Promise<YearFigures | null> {
  const l = await loaded(snapshot);
  if (!l || (!l.figures.has(year) && !l.lists.has(year))) return null;
  return yearFiguresOf(l.version, year, l.figures.get(year), l.lists.get(year));
}

/** The years the loaded version has documents for, ascending (a warning names the nearest). */
export async function loadedYears(snapshot: SnapshotReader): Promise<number[]> {
  const l = await loaded(snapshot);
  return l ? [...new Set([...l.figures.keys(), ...l.lists.keys()])].sort((a, b) => a - b) : [];
}
