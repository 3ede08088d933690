/** One loaded, immutable version of a dataset (a `.duckdb` file under `datasets/<id>/`). */
export interface DatasetVersion {
  dataset: string;
  version: string;
  /** `YYYY-MM-DD` or null when the source gives none. */
  effective_date: string | null;
  /** Path relative to the data dir. */
  file: string;
  source_files: { name: string; sha256: string; bytes: number }[];
  rows: number;
  rejects: number;
  loaded_at: string;
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
  counts: ChangeCounts;
  /** Sample keys per change kind (for reviewers). */
  samples: { added: string[]; removed: string[]; changed: string[] };
  created_at: string;
  /** The version label this one replaces when the same label was loaded again. */
  supersedes?: string;
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
