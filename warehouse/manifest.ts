/** One loaded, immutable version of a dataset (a `.duckdb` file under `datasets/<id>/`). */
export interface DatasetVersion {
  dataset: string;
  version: string;
  /** `YYYY-MM-DD` or null when the source gives none. */
  effective_date: string | null;
  /** Path relative to the data dir. */
  file: string;
  /** Each source file; a member of a publisher's zip names the archive it came from. */
  source_files: { name: string; sha256: string; bytes: number; archive?: string }[];
  /** Rows of all tables. */
  rows: number;
  /** Rows per table (absent in manifests written before tables existed: one table named like the dataset). */
  tables?: Record<string, number>;
  rejects: number;
  loaded_at: string;
  /**
   * Loaded by `rcm seed` from the repository's small seed files, not a publisher's release: real
   * data loaded under the same label replaces it without `--replace`, and without the removal
   * guard (a seed is a sample, so a real file "removes" nothing).
   */
  seed?: true;
  /**
   * A seed whose figures are illustrative (the publisher's layout, invented values: the dataset
   * declares `seedOrigin: 'illustrative'`). Every answer that reads it is degraded with a warning.
   */
  illustrative?: true;
  /**
   * The version this one is a delta over (a publisher's delta release, e.g. an NPPES weekly
   * file): the file holds that version's rows plus the delta's upserts, a whole version.
   */
  delta_of?: string;
}

export interface ChangeCounts {
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
}

/** A dataset version transition, served by `GET /v1/data/changes` and read by `rcm diff`. */
export interface ChangeRecord {
  id: string;
  dataset: string;
  from_version: string | null;
  to_version: string;
  effective_date: string | null;
  summary: string;
  /** Summed over the dataset's tables. */
  counts: ChangeCounts;
  /** Per table, for datasets of several tables. */
  tables?: Record<string, ChangeCounts>;
  /** Sample keys per change kind (for reviewers). */
  samples: { added: string[]; removed: string[]; changed: string[] };
  created_at: string;
  /** The version label this one replaces when the same label was loaded again. */
  supersedes?: string;
  /** True when this real version replaces seed (sample) versions of the dataset (`replaced_seeds` names them). */
  replaces_seed?: true;
  /**
   * The seed versions this real version took out of service: a seed is served only while its
   * dataset has no real version, whatever the dates.
   */
  replaced_seeds?: string[];
  /** True when this version is itself a seed. */
  seed?: true;
  /**
   * The keys that changed, one JSON line each (`{table, kind: added|removed|changed, key,
   * columns}`), relative to the data dir; absent on a first load (every key is added).
   */
  keys_file?: string;
  /** The version a delta release was folded into (`DatasetVersion.delta_of`); absent for a whole release. */
  delta_of?: string;
}

/** What a snapshot serves: every dataset's versions in force plus the change records so far. */
export interface Manifest {
  id: string;
  created_at: string;
  parent: string | null;
  /** Versions per dataset, oldest effective first. */
  datasets: Record<string, DatasetVersion[]>;
  changes: ChangeRecord[];
}

/** The view a table is read through in a mounted snapshot: the dataset id, or `<dataset>__<table>`. */
export function viewName(dataset: string, table: string): string {
  return table === dataset ? dataset : `${dataset}__${table}`;
}

/** The tables a version file holds (one named like the dataset when the manifest predates tables). */
export function tablesOf(v: DatasetVersion): string[] {
  return v.tables ? Object.keys(v.tables) : [v.dataset];
}
