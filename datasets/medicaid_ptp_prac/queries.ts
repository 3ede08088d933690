import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { lookupPtpEdit, type PtpLookup } from '../ncci_ptp_prac/queries.js';

/**
 * Medicaid NCCI practitioner PTP lookup: the shared PTP query (`datasets/ncci_ptp_prac/queries.ts`) bound to
 * `medicaid_ptp_prac`. Codes in either order; the version whose quarter contains `dos`.
 */
export function lookupMedicaidPracPtpEdit(snapshot: SnapshotReader, codeA: string, codeB: string, dos: string): Promise<PtpLookup> {
  return lookupPtpEdit(snapshot, 'medicaid_ptp_prac', codeA, codeB, dos);
}
