import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { MueRow } from '../_ncci_mue/mue.js';
import { findMueInDataset, type MueLookup } from '../_ncci_mue/queries.js';

/**
 * The ncci_mue_prac row for `code` from the version whose quarter contains `dateOfService` (latest
 * version without a date; nearest version flagged `covered: false` when none covers it).
 * Undefined when ncci_mue_prac is not loaded; `row: null` when the code has no MUE in that table.
 */
export function findMuePrac(snapshot: SnapshotReader, code: string, dateOfService?: string): Promise<MueLookup<MueRow> | undefined> {
  return findMueInDataset<MueRow>(snapshot, 'ncci_mue_prac', 'practitioner', code, dateOfService);
}
