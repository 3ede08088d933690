import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { mediCalAprDrg, type MediCalAprDrgRow } from './dataset.js';

/** The APR-DRG table of one fiscal year (`2025-26`) by DRG-SOI (`640-2`), read once per snapshot (a few thousand rows). */
export function aprDrgTable(snapshot: SnapshotReader, fiscalYear: string): Promise<Map<string, MediCalAprDrgRow>> {
  return snapshot.memo(
    `${mediCalAprDrg.id}:table:${fiscalYear}`,
    async () => {
      const rows = await snapshot.all<MediCalAprDrgRow>(`SELECT * EXCLUDE (version) FROM ${mediCalAprDrg.id} WHERE version = $1`, [fiscalYear]);
      return new Map(rows.map((r) => [r.drg_soi, r]));
    },
    { pin: true },
  );
}
