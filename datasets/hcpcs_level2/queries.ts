import type { DatasetVersion } from '../../warehouse/manifest.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { selectVersion, versionLabel, versionRows } from '../_shared/versions.js';
import { hcpcsLevel2, type HcpcsLevel2Row } from './dataset.js';

/** A stored HCPCS Level II row plus the version label (`2026-10`) it was loaded under. */
export type HcpcsLevel2Entry = HcpcsLevel2Row & { version: string };

/**
 * Fewer rows than this cannot be a whole release: CMS's alpha-numeric file lists about 8,000 codes
 * and modifiers (the 35-row `HCPC2026_OCT_ANWEB.excerpt.csv` and the 13-row seed are slices of one).
 */
export const WHOLE_RELEASE_MIN_ROWS = 1000;

/**
 * True when a loaded version can be read as the whole code set of its quarter, so a code or
 * modifier it lacks did not exist: not a seed (`rcm seed` loads excerpts), no source file named as
 * an excerpt, slice or sample, and at least `WHOLE_RELEASE_MIN_ROWS` rows.
 */
export function isWholeRelease(v: DatasetVersion): boolean {
  return !v.seed && !v.source_files.some((f) => /excerpt|slice|sample/i.test(f.name)) && v.rows >= WHOLE_RELEASE_MIN_ROWS;
}

/** Every row of one loaded release, by code (a release is read once per snapshot). */
function releaseCodes(snapshot: SnapshotReader, version: string): Promise<Map<string, HcpcsLevel2Entry>> {
  return versionRows(snapshot, hcpcsLevel2, version, (r) => r.code);
}

/** The HCPCS Level II release that answers a date of service, with its codes. */
export interface HcpcsRelease {
  version: string;
  effective_date: string | null;
  codes: Map<string, HcpcsLevel2Entry>;
  /** True when the release's quarter contains the date (CMS releases the file quarterly: JAN, APR, JUL, OCT). */
  covered: boolean;
  /** True when the release is the whole code set (`isWholeRelease`); false for a seed or an excerpt. */
  whole: boolean;
  warning?: string;
}

/**
 * The release in force on `date` by the quarter rule of `datasets/_shared/versions.ts` (the release
 * whose quarter contains the date; outside every loaded quarter the nearest, `covered` false), or
 * the newest without a date. Null when hcpcs_level2 is not loaded.
 */
export async function hcpcsRelease(snapshot: SnapshotReader, date?: string): Promise<HcpcsRelease | null> {
  const pick = selectVersion(hcpcsLevel2.id, snapshot.versions(hcpcsLevel2.id), { rule: 'quarter', date });
  if (!pick) return null;
  const v = pick.version;
  return {
    version: v.version,
    effective_date: v.effective_date,
    codes: await releaseCodes(snapshot, v.version),
    covered: pick.covered,
    whole: isWholeRelease(v),
    ...(pick.warning ? { warning: pick.warning } : {}),
  };
}

/**
 * The rows of `code` (a procedure code or a modifier) in the newest loaded release (at most one:
 * the code is the key); empty when the code is not there or hcpcs_level2 is not loaded.
 */
export async function findHcpcsLevel2Rows(snapshot: SnapshotReader, code: string): Promise<HcpcsLevel2Entry[]> {
  const version = versionLabel(snapshot, hcpcsLevel2.id);
  if (!version) return [];
  const row = (await releaseCodes(snapshot, version)).get(code.trim().toUpperCase());
  return row ? [row] : [];
}

/** Why a code is not valid on a date by its row (terminated before, or added after), or null when it is. */
export function hcpcsInvalidOn(row: HcpcsLevel2Row, date: string): { reason: 'terminated' | 'not_yet_effective'; since: string } | null {
  if (row.termination_date && row.termination_date < date) return { reason: 'terminated', since: row.termination_date };
  if (row.added_date && row.added_date > date) return { reason: 'not_yet_effective', since: row.added_date };
  // An added or reactivated code takes effect on its action's date.
  if ((row.action_code === 'A' || row.action_code === 'R') && row.action_effective_date && row.action_effective_date > date) {
    return { reason: 'not_yet_effective', since: row.action_effective_date };
  }
  return null;
}
