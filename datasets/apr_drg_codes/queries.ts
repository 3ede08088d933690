import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { selectVersion, versionRows } from '../_shared/versions.js';
import { aprDrgCodes, type AprDrgCodeRow } from './dataset.js';

/** A stored APR-DRG code row plus the version label it was loaded under. */
export type AprDrgCodeEntry = AprDrgCodeRow & { version: string };

/** The code list that answers a date, with its DRGs by number. */
export interface AprDrgCodeList {
  version: string;
  codes: Map<string, AprDrgCodeEntry>;
  /** False when every list loaded takes effect after the date (the earliest answered instead, `warning` says so). */
  covered: boolean;
  warning?: string;
}

/**
 * The APR-DRG code list in force on `date` (the effective rule: the latest list effective on or
 * before it; before every list, the earliest with `covered` false), the newest without a date; null when apr_drg_codes is not loaded. A list (~320 DRGs) is read once per
 * snapshot. Table, version and memo key come from `aprDrgCodes.id`.
 */
export async function aprDrgCodeList(snapshot: SnapshotReader, date?: string): Promise<AprDrgCodeList | null> {
  const pick = selectVersion(aprDrgCodes.id, snapshot.versions(aprDrgCodes.id), { rule: 'effective', date });
  if (!pick) return null;
  const version = pick.version.version;
  const codes = await versionRows(snapshot, aprDrgCodes, version, (r) => r.drg);
  return { version, codes, covered: pick.covered, ...(pick.warning ? { warning: pick.warning } : {}) };
}

/** The APR-DRG `drg` (`640`, `40` -> `040`) in the list in force on `date`: one row, or none. */
export async function findAprDrgCodes(snapshot: SnapshotReader, drg: string, date?: string): Promise<AprDrgCodeEntry[]> {
  const list = await aprDrgCodeList(snapshot, date);
  const row = list?.codes.get(drg.padStart(3, '0'));
  return row ? [row] : [];
}
