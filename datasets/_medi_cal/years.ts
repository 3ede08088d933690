import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { mediCalAprDrg } from '../medi_cal_apr_drg/dataset.js';
import { mediCalDrgPolicy } from '../medi_cal_drg_policy/dataset.js';
import { mediCalHospitals } from '../medi_cal_hospitals/dataset.js';

/** The three datasets that price a Medi-Cal APR-DRG stay; a fiscal year is priced only when all three have it. */
export const MEDI_CAL_DRG_DATASETS = [mediCalAprDrg.id, mediCalHospitals.id, mediCalDrgPolicy.id] as const;

/** State fiscal years (`2025-26`) loaded in all three Medi-Cal DRG datasets, oldest first. */
export function loadedFiscalYears(snapshot: SnapshotReader): string[] {
  const [first, ...rest] = MEDI_CAL_DRG_DATASETS.map((d) => new Set(snapshot.versions(d).map((v) => v.version)));
  return [...first!].filter((y) => rest.every((s) => s.has(y))).sort();
}
