import type { SnapshotReader } from '../../warehouse/snapshot.js';

/** The three datasets that price a Medi-Cal APR-DRG stay; a fiscal year is priced only when all three have it. */
export const MEDI_CAL_DRG_DATASETS = ['medi_cal_apr_drg', 'medi_cal_hospitals', 'medi_cal_drg_policy'] as const;

/** State fiscal years (`2025-26`) loaded in all three Medi-Cal DRG datasets, oldest first. */
export function loadedFiscalYears(snapshot: SnapshotReader): string[] {
  const [first, ...rest] = MEDI_CAL_DRG_DATASETS.map((d) => new Set(snapshot.versions(d).map((v) => v.version)));
  return [...first!].filter((y) => rest.every((s) => s.has(y))).sort();
}
