import { viewName } from '../../warehouse/manifest.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { mediCalDrgPolicy, type PolicyAdjustorRow, type PolicyParameter, type PolicyParameterRow, type TransferStatusRow } from './dataset.js';

/** One fiscal year's DRG payment parameters, policy adjustor table and transfer status codes. */
export interface DrgPolicy {
  parameters: Record<PolicyParameter, number>;
  /** Each parameter's source as the sheet states it. */
  sources: Record<PolicyParameter, string>;
  adjustors: PolicyAdjustorRow[];
  transfer_status_codes: TransferStatusRow[];
  /** Tables of the year whose sheet is marked illustrative. */
  illustrative: string[];
}

/** The policy of one fiscal year (`2025-26`), read once per snapshot; null when the year is not loaded. */
export function drgPolicy(snapshot: SnapshotReader, fiscalYear: string): Promise<DrgPolicy | null> {
  const id = mediCalDrgPolicy.id;
  const [parameters, adjustorTable, transferTable] = [viewName(id, id), viewName(id, 'policy_adjustors'), viewName(id, 'transfer_status_codes')];
  return snapshot.memo(
    `${id}:${fiscalYear}`,
    async () => {
      const params = await snapshot.all<PolicyParameterRow>(`SELECT * EXCLUDE (version) FROM ${parameters} WHERE version = $1`, [fiscalYear]);
      if (params.length === 0) return null;
      const adjustors = await snapshot.all<PolicyAdjustorRow>(`SELECT * EXCLUDE (version) FROM ${adjustorTable} WHERE version = $1 ORDER BY policy_adjustor_code`, [fiscalYear]);
      const transfer = await snapshot.all<TransferStatusRow>(`SELECT * EXCLUDE (version) FROM ${transferTable} WHERE version = $1 ORDER BY patient_status_code`, [fiscalYear]);
      const illustrative = [
        ...(params.some((r) => r.illustrative) ? [parameters] : []),
        ...(adjustors.some((r) => r.illustrative) ? [adjustorTable] : []),
        ...(transfer.some((r) => r.illustrative) ? [transferTable] : []),
      ];
      return {
        parameters: Object.fromEntries(params.map((r) => [r.parameter, r.value])) as Record<PolicyParameter, number>,
        sources: Object.fromEntries(params.map((r) => [r.parameter, r.source])) as Record<PolicyParameter, string>,
        adjustors,
        transfer_status_codes: transfer,
        illustrative,
      };
    },
    { pin: true },
  );
}
