import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { lookupPtpEdit, type PtpLookup } from '../ncci_ptp_prac/queries.js';

/**
 * Medicare NCCI hospital outpatient PTP lookup: the shared PTP query (`datasets/ncci_ptp_prac/queries.ts`) bound to
 * `ncci_ptp_hosp`. Codes in either order; the version whose quarter contains `dos`.
 */
export function lookupHospPtpEdit(snapshot: SnapshotReader, codeA: string, codeB: string, dos: string): Promise<PtpLookup> {
  return lookupPtpEdit(snapshot, 'ncci_ptp_hosp', codeA, codeB, dos);
}
