import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { mediCalHospitals, type MediCalHospitalRow } from './dataset.js';

/** The hospital list of one fiscal year by OSHPD id, read once per snapshot (a few hundred rows). */
export function hospitalTable(snapshot: SnapshotReader, fiscalYear: string): Promise<Map<string, MediCalHospitalRow>> {
  return snapshot.memo(
    `${mediCalHospitals.id}:table:${fiscalYear}`,
    async () => {
      const rows = await snapshot.all<MediCalHospitalRow>(`SELECT * EXCLUDE (version) FROM ${mediCalHospitals.id} WHERE version = $1`, [fiscalYear]);
      return new Map(rows.map((r) => [r.oshpd_id, r]));
    },
    { pin: true },
  );
}
