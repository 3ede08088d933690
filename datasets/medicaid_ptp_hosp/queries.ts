import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { lookupPtpEdit, type PtpLookup } from '../ncci_ptp_prac/queries.js';

/**
 * Medicaid NCCI outpatient hospital PTP lookup: the shared PTP query (`datasets/ncci_ptp_prac/queries.ts`) bound to
 * `medicaid_ptp_hosp`. Codes in either order; the version whose quarter contains `dos`.
 */
export function lookupMedicaidHospPtpEdit(snapshot: SnapshotReader, codeA: string, codeB: string, dos: string): Promise<PtpLookup> {
  return lookupPtpEdit(snapshot, 'medicaid_ptp_hosp', codeA, codeB, dos);
}
