import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { MedicaidMueRow } from '../_ncci_mue/mue.js';
import { findMueInDataset, type MueLookup } from '../_ncci_mue/queries.js';

/**
 * The medicaid_mue_prac row for `code` from the version whose quarter contains `dateOfService` (latest
 * version without a date; nearest version flagged `covered: false` when none covers it).
 * Undefined when medicaid_mue_prac is not loaded; `row: null` when the code has no MUE in that table.
 */
export function findMedicaidMuePrac(snapshot: SnapshotReader, code: string, dateOfService?: string): Promise<MueLookup<MedicaidMueRow> | undefined> {
  return findMueInDataset<MedicaidMueRow>(snapshot, 'medicaid_mue_prac', 'practitioner', code, dateOfService);
}
