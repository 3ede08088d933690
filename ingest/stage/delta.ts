import { IngestError } from '../../datasets/_shared/issue.js';
import type { FileSample } from '../../datasets/_shared/source.js';
import type { Dataset } from '../../datasets/types.js';
import type { DatasetVersion } from '../../warehouse/manifest.js';
import { quoteString } from '../../warehouse/sql_quote.js';
import { recountTables } from './check.js';
import type { Loaded, RunSql } from './load.js';
import { baselineOf } from './record.js';
import { addDays } from '../../datasets/_shared/dates.js';

// A delta release (NPPES's weekly file) staged as a whole version: its base's rows plus its upserts.

/** A delta input and the version it folds into. */
export interface DeltaPlan {
  range: { from: string; to: string };
  /** The version the delta follows (never one with the delta's own label: a replaced delta folds into the one before). */
  base: DatasetVersion;
}

/** The day before an ISO date. */
const dayBefore = (iso: string): string => addDays(iso, -1);

/**
 * Whether the inputs are a delta and, if so, the version it follows, refusing a delta with
 * nothing to fold into, one that skips releases (its range starts after the day after its
 * base's date: the deltas between are missing) and one a whole release already covers. A delta
 * loaded again under its label (`--replace`) folds into the version before it again.
 */
export function planDelta(dataset: Dataset<any>, samples: FileSample[], versions: DatasetVersion[], label: string, file: string): DeltaPlan | undefined {
  const range = dataset.delta?.rangeOf(samples);
  if (!range) return undefined;
  const what = `a delta release (${range.from} to ${range.to})`;
  const same = versions.find((v) => v.version === label && !v.delta_of);
  if (same) throw new IngestError(`${what} is already covered by version ${same.version}, a whole release of that date; nothing was loaded`, file);
  const base = baselineOf(
    versions.filter((v) => v.version !== label),
    label,
    range.to,
  );
  if (!base) throw new IngestError(`${what} folds into the version before it, and no ${dataset.id} version dated on or before ${range.to} is loaded: load a full release first; nothing was loaded`, file);
  const baseDate = base.effective_date ?? base.version;
  if (baseDate >= range.to) throw new IngestError(`${what} is already covered by version ${base.version} (dated ${baseDate}); nothing was loaded`, file);
  if (baseDate < dayBefore(range.from)) {
    throw new IngestError(
      `${what} follows a release dated ${dayBefore(range.from)}, but the newest ${dataset.id} version before it is ${base.version} (dated ${baseDate}): the deltas between are missing (load them in order, or a newer full release); nothing was loaded`,
      file,
    );
  }
  return { range, base };
}

/**
 * Adds the base version's rows the delta does not replace to the staged tables (the base file
 * attached read-only for the fold) and recounts the tables into `loaded`. Returns the base keys
 * the delta explicitly removes.
 */
export async function foldDelta(dataset: Dataset<any>, run: RunSql, baseFile: string, label: string, loaded: Loaded): Promise<number> {
  await run(`ATTACH ${quoteString(baseFile)} AS base (READ_ONLY)`);
  try {
    const { explicitRemovals } = await dataset.delta!.fold(run, 'base', label);
    await recountTables(dataset, run, loaded);
    return explicitRemovals;
  } finally {
    await run('DETACH base');
  }
}
